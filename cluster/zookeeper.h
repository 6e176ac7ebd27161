// ZooKeeper: where a multi-process cluster keeps what every node must agree on (FaRM §3: the
// configuration, compare-and-swapped by the CM). Liveness is not here: FaRM detects failures
// with leases, not ephemeral znodes.
//
// ZooKeeperSession is a session of Debian's C client (libzookeeper_mt, synchronous calls, safe
// from any thread). ZooKeeperConfigStore is the ConfigStore over one znode: compare-and-swap on
// the znode's version. cluster/FORMATS.md "ZooKeeper" has the znodes.
#pragma once

#include <chrono>
#include <expected>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <vector>

#include "cluster/config_store.h"

typedef struct _zhandle zhandle_t;  // NOLINT: the C client's own names

namespace farmdb::cluster {

struct ZooKeeperError {
  int code = 0;         // the C client's (ZCONNECTIONLOSS, ZNONODE, ...)
  std::string message;  // "zookeeper HOSTS: OPERATION PATH: REASON"
  // The request may or may not have taken effect (the connection broke before its answer).
  bool Uncertain() const;
};

class ZooKeeperSession {
 public:
  struct Options {
    // "HOST:PORT[,HOST:PORT...][/CHROOT]". A chroot that does not exist yet is created.
    std::string hosts;
    std::chrono::milliseconds session_timeout{10000};
    // How long Connect waits for the first server to accept the session.
    std::chrono::milliseconds connect_timeout{10000};
  };
  static std::expected<std::unique_ptr<ZooKeeperSession>, ZooKeeperError> Connect(Options options);
  ~ZooKeeperSession();
  ZooKeeperSession(const ZooKeeperSession&) = delete;
  ZooKeeperSession& operator=(const ZooKeeperSession&) = delete;

  const std::string& hosts() const { return options_.hosts; }

  struct Znode {
    std::string data;
    int32_t version = 0;  // the znode's data version, what Set compares
  };
  // The znode at `path`, or nullopt if there is none.
  std::expected<std::optional<Znode>, ZooKeeperError> Get(const std::string& path);
  // Creates a persistent znode; false if one is there already. `sequential`: the server appends
  // a 10-digit counter unique under the parent, and `created` (if given) receives the full path.
  std::expected<bool, ZooKeeperError> Create(const std::string& path, const std::string& data,
                                             bool sequential = false,
                                             std::string* created = nullptr);
  // Creates `path` and each missing ancestor, empty.
  std::expected<void, ZooKeeperError> CreatePath(const std::string& path);
  // Replaces the data iff the znode's version is `version` (-1: any); false if it is not.
  std::expected<bool, ZooKeeperError> Set(const std::string& path, const std::string& data,
                                          int32_t version);
  // The names (not paths) of `path`'s children, sorted; empty if there is no such znode.
  std::expected<std::vector<std::string>, ZooKeeperError> Children(const std::string& path);
  // Deletes `path` and everything under it (a test's chroot); nothing there is not an error.
  std::expected<void, ZooKeeperError> DeleteTree(const std::string& path);

  // Ends the session as the server does when it expires (tests: the next request renews it).
  void ExpireForTest();

 private:
  struct Watch;
  struct Handle {
    zhandle_t* zh;
    std::unique_ptr<Watch> watch;  // the session's state, as the client's watcher reports it
  };
  // Opens a session (`same_session_as`: a second connection to that handle's session, else a new
  // session) and waits until it is connected.
  static std::expected<Handle, ZooKeeperError> Open(const Options& options, zhandle_t* same_session_as);
  ZooKeeperSession(Options options, Handle handle);
  // Runs `request(zh)` and returns its ZooKeeper code. A session that expired (ZooKeeper was out
  // of reach for longer than the session timeout) is renewed and the request sent once more.
  template <typename Request>
  int Call(Request request);
  bool Renew(zhandle_t* expired);
  ZooKeeperError Error(int code, std::string_view operation, const std::string& path) const;

  const Options options_;
  std::shared_mutex handle_mu_;  // shared by requests; exclusive to renew the session
  Handle handle_;
};

// The configuration as one znode holding the text of FORMATS.md "Configuration store" (the
// embedded store's file format). CompareAndSwap(expected, next) reads the znode and compares the
// id in it with `expected`, then sets it at the version it read, so a swap that raced with
// another fails as "lost" (false), never overwriting it; expected 0 creates the znode. If the
// session broke before the answer, the swap is uncertain: the error says so, and Read tells
// whether it took effect.
class ZooKeeperConfigStore final : public ConfigStore {
 public:
  ZooKeeperConfigStore(ZooKeeperSession* session, std::string path)
      : session_(session), path_(std::move(path)) {}
  std::expected<std::optional<Configuration>, std::string> Read() override;
  std::expected<bool, std::string> CompareAndSwap(uint64_t expected_id,
                                                  const Configuration& next) override;

 private:
  ZooKeeperSession* session_;
  std::string path_;
};

}  // namespace farmdb::cluster
