#include "cluster/zookeeper.h"

// The synchronous calls are declared only for the multi-threaded library, which this links.
#define THREADED
#include <zookeeper/zookeeper.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <functional>

#if defined(__SANITIZE_ADDRESS__)
// The C client (3.8.0) now and then leaks a session event it queued for a handle that
// zookeeper_close freed first (168 bytes and what hangs off them, on a session's expiry, seen
// in zookeeper_test). Ours to report, not to fix; LeakSanitizer reads this at exit.
extern "C" const char* __lsan_default_suppressions() { return "leak:libzookeeper_mt.so\n"; }
#endif

namespace farmdb::cluster {

namespace {

// The client logs every connection step to stderr, and errors for what it then recovers from
// (a server closing a connection it had just refused). Off: what fails reaches the caller as a
// ZooKeeperError, which says what.
void QuietClientLog() {
  static std::once_flag once;
  std::call_once(once, [] { zoo_set_debug_level(static_cast<ZooLogLevel>(0)); });
}

// "HOSTS/CHROOT" -> {"HOSTS", "/CHROOT"} (chroot empty when none).
std::pair<std::string, std::string> SplitChroot(const std::string& hosts) {
  size_t slash = hosts.find('/');
  if (slash == std::string::npos) return {hosts, ""};
  std::string chroot = hosts.substr(slash);
  if (chroot == "/") chroot.clear();
  return {hosts.substr(0, slash), chroot};
}

}  // namespace

bool ZooKeeperError::Uncertain() const {
  return code == ZCONNECTIONLOSS || code == ZOPERATIONTIMEOUT;
}

// The session's state as the client's watcher reports it (ZOO_CONNECTED_STATE, ...), for
// Connect to wait on. The watcher runs on the client's completion thread.
struct ZooKeeperSession::Watch {
  std::mutex mu;
  std::condition_variable changed;
  int state = 0;  // guarded by mu

  static void OnEvent(zhandle_t*, int type, int state, const char*, void* context) {
  if (type != ZOO_SESSION_EVENT) return;
    auto* w = static_cast<Watch*>(context);
    std::lock_guard l(w->mu);
    w->state = state;
    w->changed.notify_all();
  }
};

std::expected<std::unique_ptr<ZooKeeperSession>, ZooKeeperError> ZooKeeperSession::Connect(
    Options options) {
  QuietClientLog();
  auto [bare_hosts, chroot] = SplitChroot(options.hosts);
  if (!chroot.empty()) {
    // The client refuses nothing for a missing chroot; every request would fail with ZNONODE.
    Options bare = options;
    bare.hosts = bare_hosts;
    auto root = Connect(bare);
    if (!root) return std::unexpected(root.error());
    if (auto made = (*root)->CreatePath(chroot); !made) return std::unexpected(made.error());
  }
  auto opened = Open(options, nullptr);
  if (!opened) return std::unexpected(opened.error());
  return std::unique_ptr<ZooKeeperSession>(new ZooKeeperSession(std::move(options), std::move(*opened)));
}

std::expected<ZooKeeperSession::Handle, ZooKeeperError> ZooKeeperSession::Open(
    const Options& options, zhandle_t* same_session_as) {
  Handle h{nullptr, std::make_unique<Watch>()};
  const clientid_t* session = same_session_as ? zoo_client_id(same_session_as) : nullptr;
  h.zh = zookeeper_init(options.hosts.c_str(), &Watch::OnEvent,
                        static_cast<int>(options.session_timeout.count()), session, h.watch.get(), 0);
  if (h.zh == nullptr) {
    return std::unexpected(ZooKeeperError{ZSYSTEMERROR, "zookeeper " + options.hosts + ": " +
                                                            std::strerror(errno)});
  }
  int state;
  {
    std::unique_lock l(h.watch->mu);
    h.watch->changed.wait_for(l, options.connect_timeout, [&] {
      return h.watch->state == ZOO_CONNECTED_STATE || h.watch->state == ZOO_EXPIRED_SESSION_STATE ||
             h.watch->state == ZOO_AUTH_FAILED_STATE;
    });
    state = h.watch->state;
  }
  if (state != ZOO_CONNECTED_STATE) {
    zookeeper_close(h.zh);
    std::string why = state == ZOO_AUTH_FAILED_STATE ? "authentication failed"
                      : state == ZOO_EXPIRED_SESSION_STATE
                          ? "the session expired"
                          : "no server answered within " +
                                std::to_string(options.connect_timeout.count()) + " ms";
    return std::unexpected(ZooKeeperError{ZCONNECTIONLOSS, "zookeeper " + options.hosts + ": " + why});
  }
  return h;
}

ZooKeeperSession::ZooKeeperSession(Options options, Handle handle)
    : options_(std::move(options)), handle_(std::move(handle)) {}

ZooKeeperSession::~ZooKeeperSession() { zookeeper_close(handle_.zh); }

template <typename Request>
int ZooKeeperSession::Call(Request request) {
  for (int attempt = 0;; ++attempt) {
    zhandle_t* used;
    int rc;
    {
      std::shared_lock l(handle_mu_);
      used = handle_.zh;
      rc = request(used);
    }
    // An expired session's requests were refused, not applied: sending one again is safe.
    if ((rc != ZSESSIONEXPIRED && rc != ZINVALIDSTATE) || attempt > 0 || !Renew(used)) return rc;
  }
}

bool ZooKeeperSession::Renew(zhandle_t* expired) {
  std::unique_lock l(handle_mu_);
  if (handle_.zh != expired) return true;  // another caller renewed it first
  auto fresh = Open(options_, nullptr);
  if (!fresh) return false;
  zookeeper_close(handle_.zh);
  handle_ = std::move(*fresh);
  return true;
}

void ZooKeeperSession::ExpireForTest() {
  std::shared_lock l(handle_mu_);
  // Closing the session from a second connection ends it, as the server's expiry would.
  if (auto other = Open(options_, handle_.zh)) zookeeper_close(other->zh);
  std::unique_lock w(handle_.watch->mu);
  handle_.watch->changed.wait_for(w, options_.session_timeout, [&] {
    return handle_.watch->state == ZOO_EXPIRED_SESSION_STATE;
  });
}

ZooKeeperError ZooKeeperSession::Error(int code, std::string_view operation,
                                       const std::string& path) const {
  return {code, "zookeeper " + options_.hosts + ": " + std::string(operation) + " " + path + ": " +
                    zerror(code)};
}

std::expected<std::optional<ZooKeeperSession::Znode>, ZooKeeperError> ZooKeeperSession::Get(
    const std::string& path) {
  std::string buffer(4096, '\0');
  for (;;) {
    int length = static_cast<int>(buffer.size());
    Stat stat{};
    int rc = Call([&](zhandle_t* zh) { return zoo_get(zh, path.c_str(), 0, buffer.data(), &length, &stat); });
    if (rc == ZNONODE) return std::nullopt;
    if (rc != ZOK) return std::unexpected(Error(rc, "get", path));
    // The data outgrew the buffer (the client copies only what fits): read it again, whole.
    if (stat.dataLength > static_cast<int>(buffer.size())) {
      buffer.resize(static_cast<size_t>(stat.dataLength));
      continue;
    }
    buffer.resize(static_cast<size_t>(std::max(length, 0)));  // -1: the znode holds no data
    return Znode{std::move(buffer), stat.version};
  }
}

std::expected<bool, ZooKeeperError> ZooKeeperSession::Create(const std::string& path,
                                                             const std::string& data,
                                                             bool sequential,
                                                             std::string* created) {
  std::string made(path.size() + 16, '\0');  // the server appends 10 digits when sequential
  int rc = Call([&](zhandle_t* zh) {
    return zoo_create(zh, path.c_str(), data.data(), static_cast<int>(data.size()),
                      &ZOO_OPEN_ACL_UNSAFE, sequential ? ZOO_PERSISTENT_SEQUENTIAL : ZOO_PERSISTENT,
                      made.data(), static_cast<int>(made.size()));
  });
  if (rc == ZNODEEXISTS) return false;
  if (rc != ZOK) return std::unexpected(Error(rc, "create", path));
  if (created != nullptr) *created = made.c_str();
  return true;
}

std::expected<void, ZooKeeperError> ZooKeeperSession::CreatePath(const std::string& path) {
  for (size_t slash = path.find('/', 1);; slash = path.find('/', slash + 1)) {
    std::string prefix = path.substr(0, slash);
    if (auto made = Create(prefix, ""); !made) return std::unexpected(made.error());
    if (slash == std::string::npos) return {};
  }
}

std::expected<bool, ZooKeeperError> ZooKeeperSession::Set(const std::string& path,
                                                          const std::string& data,
                                                          int32_t version) {
  int rc = Call([&](zhandle_t* zh) {
    return zoo_set(zh, path.c_str(), data.data(), static_cast<int>(data.size()), version);
  });
  if (rc == ZBADVERSION) return false;
  if (rc != ZOK) return std::unexpected(Error(rc, "set", path));
  return true;
}

std::expected<std::vector<std::string>, ZooKeeperError> ZooKeeperSession::Children(
    const std::string& path) {
  String_vector names{};
  int rc = Call([&](zhandle_t* zh) { return zoo_get_children(zh, path.c_str(), 0, &names); });
  if (rc == ZNONODE) return std::vector<std::string>{};
  if (rc != ZOK) return std::unexpected(Error(rc, "list", path));
  std::vector<std::string> out(names.data, names.data + names.count);
  deallocate_String_vector(&names);
  std::sort(out.begin(), out.end());
  return out;
}

std::expected<void, ZooKeeperError> ZooKeeperSession::DeleteTree(const std::string& path) {
  auto children = Children(path);
  if (!children) return std::unexpected(children.error());
  for (const std::string& child : *children) {
    if (auto gone = DeleteTree(path + "/" + child); !gone) return gone;
  }
  int rc = Call([&](zhandle_t* zh) { return zoo_delete(zh, path.c_str(), -1); });
  if (rc != ZOK && rc != ZNONODE) return std::unexpected(Error(rc, "delete", path));
  return {};
}

std::expected<std::optional<Configuration>, std::string> ZooKeeperConfigStore::Read() {
  auto znode = session_->Get(path_);
  if (!znode) return std::unexpected(znode.error().message);
  if (!*znode) return std::optional<Configuration>{};
  auto c = DecodeConfiguration((*znode)->data);
  if (!c) return std::unexpected("zookeeper " + session_->hosts() + " znode " + path_ + ": " + c.error());
  return std::optional<Configuration>(*c);
}

std::expected<bool, std::string> ZooKeeperConfigStore::CompareAndSwap(uint64_t expected_id,
                                                                      const Configuration& next) {
  if (next.id <= expected_id) return std::unexpected("configuration ids must increase");
  auto uncertain = [](const ZooKeeperError& e) {
    return e.Uncertain() ? e.message + " (the swap may have taken effect: read the configuration)"
                         : e.message;
  };
  if (expected_id == 0) {
    if (size_t slash = path_.rfind('/'); slash != 0 && slash != std::string::npos) {
      if (auto made = session_->CreatePath(path_.substr(0, slash)); !made) {
        return std::unexpected(made.error().message);
      }
    }
    auto created = session_->Create(path_, EncodeConfiguration(next));
    if (!created) return std::unexpected(uncertain(created.error()));
    return *created;
  }
  auto znode = session_->Get(path_);
  if (!znode) return std::unexpected(znode.error().message);
  if (!*znode) return false;  // nothing stored: id 0, not expected_id
  auto current = DecodeConfiguration((*znode)->data);
  if (!current) {
    return std::unexpected("zookeeper " + session_->hosts() + " znode " + path_ + ": " + current.error());
  }
  if (current->id != expected_id) return false;
  // At the version read: a swap that won in between changed it, and this one loses.
  auto set = session_->Set(path_, EncodeConfiguration(next), (*znode)->version);
  if (!set) return std::unexpected(uncertain(set.error()));
  return *set;
}

}  // namespace farmdb::cluster
