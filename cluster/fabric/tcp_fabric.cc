#include "cluster/fabric/tcp_fabric.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <sched.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <optional>

#include "cluster/codec.h"
#include "cluster/fabric/word_copy.h"

namespace farmdb::cluster {
namespace {

using Clock = std::chrono::steady_clock;
using Bytes = std::vector<std::byte>;

// Frame kinds (FORMATS.md "TCP fabric"): the handshake's, then the operations'.
enum Kind : uint32_t {
  kHello = 1,
  kChallenge = 2,
  kProof = 3,
  kWelcome = 4,
  kRefuse = 5,
  kWrite = 16,
  kRead = 17,
  kMessage = 18,
  kWriteAck = 19,
  kReadReply = 20,
};
constexpr size_t kHeaderBytes = 8;               // u32 kind, u32 body length
constexpr uint64_t kMagic = 0x465462646d726166;  // the bytes "farmdbTF"
constexpr uint32_t kVersion = 1;
constexpr size_t kNonceBytes = 32;
constexpr size_t kMacBytes = 32;  // HMAC-SHA256
constexpr size_t kHelloFixedBytes = 8 + 4 + 4 + 4 + 4 + 8 + 8 + kNonceBytes + 4;  // before the name
constexpr size_t kMaxNameBytes = 255;
constexpr size_t kMaxRefuseBytes = 1024;
constexpr size_t kOpBytes = 24;      // op id, key, offset
constexpr size_t kAnswerBytes = 16;  // op id, status, zero
// An epoch proposal at or above this is refused: a stranger cannot push a pair's epochs to wrap.
constexpr uint64_t kMaxEpoch = uint64_t{1} << 62;
constexpr std::string_view kInitiatorLabel = "farmdb tcp fabric: initiator";
constexpr std::string_view kAcceptorLabel = "farmdb tcp fabric: acceptor";
constexpr size_t kRecvChunk = size_t{64} << 10;
// Buffers above this are freed once empty, so one 8 MiB write does not pin 8 MiB per peer.
constexpr size_t kKeepBufferBytes = size_t{1} << 20;
constexpr std::chrono::milliseconds kMinBackoff{5};
constexpr uint64_t kRingId = 0;      // epoll data of the eventfd
constexpr uint64_t kListenerId = 1;  // and of the listening socket

// The fabric whose loop runs on this thread: its own sends need no ring.
thread_local const TcpFabric* tl_loop_fabric = nullptr;

// Whether a body of `length` bytes is possible for `kind`: checked on the header, before any of
// the body is buffered (STYLE.md, after PostgreSQL's per-type limits).
bool LengthFits(uint32_t kind, uint64_t length) {
  constexpr uint64_t kMax = TcpFabric::kMaxPayload;
  switch (kind) {
    case kHello: return length >= kHelloFixedBytes && length <= kHelloFixedBytes + kMaxNameBytes;
    case kChallenge: return length == 8 + kNonceBytes;
    case kProof:
    case kWelcome: return length == kMacBytes;
    case kRefuse: return length <= kMaxRefuseBytes;
    case kWrite: return length >= kOpBytes && length - kOpBytes <= kMax && length % 8 == 0;
    case kRead: return length == kOpBytes + 8;
    case kMessage: return length >= 4 && length - 4 <= kMax;
    case kWriteAck: return length == kAnswerBytes;
    case kReadReply: return length >= kAnswerBytes && length - kAnswerBytes <= kMax;
  }
  return false;
}

void PutHeader(ByteWriter& w, uint32_t kind, size_t body_bytes) {
  w.U32(kind);
  w.U32(static_cast<uint32_t>(body_bytes));
}

std::span<const std::byte> AsBytes(std::string_view s) { return std::as_bytes(std::span(s)); }

using Mac = std::array<std::byte, kMacBytes>;

// HMAC-SHA256(secret, label || transcript). The labels differ per side, so neither side's
// proof can be reflected back as the other's.
Mac HandshakeMac(const std::string& secret, std::string_view label,
                 std::span<const std::byte> transcript) {
  Bytes input;
  ByteWriter w(&input);
  w.Bytes(AsBytes(label));
  w.Bytes(transcript);
  Mac mac;
  unsigned int length = 0;
  HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()),
       reinterpret_cast<const unsigned char*>(input.data()), input.size(),
       reinterpret_cast<unsigned char*>(mac.data()), &length);
  return mac;
}

bool SameMac(const Mac& expected, std::span<const std::byte> got) {
  return got.size() == expected.size() &&
         CRYPTO_memcmp(expected.data(), got.data(), expected.size()) == 0;
}

struct SocketAddress {
  sockaddr_storage storage{};
  socklen_t length = 0;
};

std::expected<SocketAddress, std::string> Resolve(const std::string& host_port) {
  size_t colon = host_port.rfind(':');
  if (colon == std::string::npos) return std::unexpected("'" + host_port + "' is not HOST:PORT");
  std::string host = host_port.substr(0, colon);
  std::string port = host_port.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;  // never a blocking name lookup
  addrinfo* found = nullptr;
  if (int rc = getaddrinfo(host.c_str(), port.c_str(), &hints, &found); rc != 0) {
    return std::unexpected("'" + host_port + "': " + gai_strerror(rc));
  }
  SocketAddress a;
  std::memcpy(&a.storage, found->ai_addr, found->ai_addrlen);
  a.length = found->ai_addrlen;
  freeaddrinfo(found);
  return a;
}

std::string FormatAddress(const sockaddr_storage& s) {
  char host[INET6_ADDRSTRLEN] = "?";
  if (s.ss_family == AF_INET6) {
    const auto& in6 = reinterpret_cast<const sockaddr_in6&>(s);
    inet_ntop(AF_INET6, &in6.sin6_addr, host, sizeof host);
    return "[" + std::string(host) + "]:" + std::to_string(ntohs(in6.sin6_port));
  }
  const auto& in4 = reinterpret_cast<const sockaddr_in&>(s);
  inet_ntop(AF_INET, &in4.sin_addr, host, sizeof host);
  return std::string(host) + ":" + std::to_string(ntohs(in4.sin_port));
}

CompletionPtr Completed(FabricError result) {
  auto c = std::make_shared<Completion>();
  if (result == FabricError::kNone) {
    c->Finish(true);
  } else {
    c->Fail(result);
  }
  return c;
}

bool Retryable(int error) { return error == EAGAIN || error == EWOULDBLOCK || error == EINTR; }

// Received bytes not yet parsed: [begin, end) of a buffer that grows to the largest frame.
class RecvBuffer {
 public:
  std::span<const std::byte> data() const { return {buf_.get() + begin_, end_ - begin_}; }
  bool empty() const { return begin_ == end_; }
  void Consume(size_t n) {
    begin_ += n;
    if (begin_ != end_) return;
    begin_ = end_ = 0;
    if (capacity_ > kKeepBufferBytes) buf_.reset(), capacity_ = 0;
  }
  // At least `want` writable bytes after the data (which moves to the front or to a larger
  // buffer); Commit(n) then appends n of them.
  std::span<std::byte> Room(size_t want) {
    size_t have = end_ - begin_;
    if (capacity_ - end_ < want) {
      if (have + want > capacity_) {
        size_t capacity = std::max(have + want, capacity_ * 2);
        auto bigger = std::make_unique_for_overwrite<std::byte[]>(capacity);
        if (have > 0) std::memcpy(bigger.get(), buf_.get() + begin_, have);
        buf_ = std::move(bigger);
        capacity_ = capacity;
      } else if (have > 0) {
        std::memmove(buf_.get(), buf_.get() + begin_, have);
      }
      begin_ = 0;
      end_ = have;
    }
    return {buf_.get() + end_, capacity_ - end_};
  }
  void Commit(size_t n) { end_ += n; }

 private:
  std::unique_ptr<std::byte[]> buf_;
  size_t capacity_ = 0, begin_ = 0, end_ = 0;
};

void Bump(std::atomic<uint64_t>& counter, uint64_t n = 1) {
  counter.fetch_add(n, std::memory_order_relaxed);
}

}  // namespace

struct TcpFabric::Counters {
  std::atomic<uint64_t> sends{0}, recvs{0}, polls{0}, rings{0}, other_calls{0}, frames_out{0},
      frames_in{0}, bytes_out{0}, bytes_in{0}, connects{0}, accepts{0}, refused{0},
      protocol_errors{0}, connections_lost{0};
};

struct TcpFabric::Peer {
  struct Pending {
    uint64_t id = 0;
    bool is_read = false;
    std::span<std::byte> dst;  // a read's
    CompletionPtr done;
    Clock::time_point deadline;
  };
  std::mutex mu;
  std::optional<SocketAddress> address;  // under mu
  Bytes outbox;                          // frames issued, not yet taken by a connection; under mu
  uint64_t outbox_frames = 0;            // under mu
  std::deque<Pending> pending;           // awaiting their answers, in issue order; under mu
  uint64_t next_op = 1;                  // under mu
  bool shut = false;                     // under mu
  // outbox is not empty. seq_cst, as ring_pending_: a caller sets it before it looks whether a
  // ring is pending, the fabric thread clears ring_pending_ before it last looks at this ahead
  // of a sleep, so either the fabric thread sees the output or the caller rings.
  std::atomic<bool> has_output{false};
  std::atomic<uint64_t> epoch{0};  // of the latest connection opened; set by the fabric thread
  // Fabric thread only.
  uint64_t conn = 0;  // id of the connection to this peer, 0: none
  Clock::time_point retry_at{};
  std::chrono::milliseconds backoff{0};
};

struct TcpFabric::Conn {
  enum class State { kConnecting, kAwaitChallenge, kAwaitWelcome, kAwaitHello, kAwaitProof, kOpen };
  uint64_t id = 0;
  int fd = -1;
  bool outgoing = false;  // dialled by this fabric: carries its operations to `peer`
  State state = State::kConnecting;
  MachineId peer = kNoMachine;  // accepted: known from the HELLO
  uint64_t epoch = 0;           // proposed, then agreed
  std::string remote;           // for logs
  Bytes transcript;             // the HELLO and CHALLENGE bodies: what both proofs cover
  RecvBuffer in;
  size_t need = 0;  // bytes missing from the frame at the front of `in`
  Bytes out;
  size_t out_sent = 0;
  uint32_t watching = 0;  // epoll events registered (0: not yet added)
  // Of the handshake, or (open) of a send that made no progress.
  Clock::time_point deadline = Clock::time_point::max();
  FabricError error = FabricError::kNone;  // why it is being dropped (Fault)

  size_t unsent() const { return out.size() - out_sent; }
  FabricError Lost() const {
    return state == State::kOpen ? FabricError::kConnectionLost : FabricError::kUnreachable;
  }
  // What may come in this state, checked on the header (so a stranger cannot make this side
  // buffer a 64 MiB body before proving anything).
  bool Expects(uint32_t kind) const {
    switch (state) {
      case State::kConnecting: return false;
      case State::kAwaitChallenge: return kind == kChallenge || kind == kRefuse;
      case State::kAwaitWelcome: return kind == kWelcome || kind == kRefuse;
      case State::kAwaitHello: return kind == kHello;
      case State::kAwaitProof: return kind == kProof;
      case State::kOpen:
        return outgoing ? kind == kWriteAck || kind == kReadReply
                        : kind == kWrite || kind == kRead || kind == kMessage;
    }
    return false;
  }
  void Queue(uint32_t kind, std::span<const std::byte> body) {
    ByteWriter w(&out);
    PutHeader(w, kind, body.size());
    w.Bytes(body);
  }
};

// ---- Setup, caller side ----

TcpFabric::TcpFabric(TcpFabricOptions options)
    : options_(std::move(options)), counters_(std::make_unique<Counters>()) {
  for (int m = 0; m < options_.machines; ++m) {
    peers_.push_back(static_cast<MachineId>(m) == options_.self ? nullptr
                                                                : std::make_unique<Peer>());
  }
  handed_epoch_.assign(options_.machines, 0);
  accepted_epoch_.assign(options_.machines, 0);
}

std::expected<int, std::string> TcpFabric::Listen(const std::string& address) {
  auto listen_at = Resolve(address);
  if (!listen_at) return std::unexpected("listen address " + listen_at.error());
  auto failed = [](std::string what, int fd) {
    int error = errno;
    if (fd >= 0) close(fd);
    return std::unexpected(what + ": " + std::strerror(error));
  };
  int fd = socket(listen_at->storage.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return failed("socket", fd);
  // A restarted fabric binds its old port although connections of the old one are in TIME_WAIT.
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (bind(fd, reinterpret_cast<const sockaddr*>(&listen_at->storage), listen_at->length) != 0) {
    return failed("bind " + address, fd);
  }
  if (listen(fd, SOMAXCONN) != 0) return failed("listen", fd);
  return fd;
}

std::string TcpFabric::ListenerAddress(int listen_fd) {
  sockaddr_storage bound{};
  socklen_t bound_length = sizeof bound;
  getsockname(listen_fd, reinterpret_cast<sockaddr*>(&bound), &bound_length);
  return FormatAddress(bound);
}

std::expected<std::unique_ptr<TcpFabric>, std::string> TcpFabric::Start(TcpFabricOptions options) {
  if (options.machines <= 0 || options.self >= static_cast<MachineId>(options.machines)) {
    return std::unexpected("machine " + std::to_string(options.self) + " is not one of " +
                           std::to_string(options.machines));
  }
  if (options.secret.empty()) return std::unexpected("the tcp fabric needs a secret");
  if (options.cluster_name.size() > kMaxNameBytes) return std::unexpected("cluster name too long");
  if (options.operation_timeout.count() <= 0) return std::unexpected("operation_timeout <= 0");
  auto failed = [](std::string what) {
    int error = errno;
    return std::unexpected(what + ": " + std::strerror(error));
  };
  std::unique_ptr<TcpFabric> f(new TcpFabric(std::move(options)));
  if (f->options_.listen_fd >= 0) {
    f->listen_fd_ = f->options_.listen_fd;
  } else {
    auto listener = Listen(f->options_.listen_address);
    if (!listener) return std::unexpected(listener.error());
    f->listen_fd_ = *listener;
  }
  f->address_ = ListenerAddress(f->listen_fd_);

  f->epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
  if (f->epoll_fd_ < 0) return failed("epoll_create1");
  f->ring_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (f->ring_fd_ < 0) return failed("eventfd");
  for (auto [fd, id] : {std::pair{f->ring_fd_, kRingId}, std::pair{f->listen_fd_, kListenerId}}) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = id;
    if (epoll_ctl(f->epoll_fd_, EPOLL_CTL_ADD, fd, &ev) != 0) return failed("epoll_ctl");
  }
  f->thread_ = std::thread([fabric = f.get()] { fabric->Loop(); });
  return f;
}

TcpFabric::~TcpFabric() {
  Shutdown();
  // Closed only here: a caller racing with Shutdown may still ring.
  if (ring_fd_ >= 0) close(ring_fd_);
  if (epoll_fd_ >= 0) close(epoll_fd_);
}

void TcpFabric::Shutdown() {
  if (stop_.exchange(true)) return;
  if (thread_.joinable()) {
    uint64_t one = 1;
    (void)!write(ring_fd_, &one, sizeof one);
    thread_.join();
  }
  for (MachineId m = 0; m < peers_.size(); ++m) {
    if (peers_[m]) FailPeer(m, FabricError::kShutdown);
  }
  for (auto& [id, c] : conns_) close(c->fd);
  conns_.clear();
  if (listen_fd_ >= 0) close(listen_fd_);
  listen_fd_ = -1;
  std::lock_guard lock(self_mu_);
  self_inbox_.clear();
}

void TcpFabric::Require(bool holds, const char* what) const {
  if (holds) return;
  std::fprintf(stderr, "TcpFabric (machine %u): %s\n", options_.self, what);
  std::abort();
}

void TcpFabric::Log(std::string line) const {
  line = "self=" + std::to_string(options_.self) + " " + line;
  if (options_.log) {
    options_.log(line);
  } else {
    std::fprintf(stderr, "%s\n", line.c_str());
  }
}

std::expected<void, std::string> TcpFabric::SetPeerAddress(MachineId m,
                                                           const std::string& host_port) {
  if (m >= peers_.size() || !peers_[m]) {
    return std::unexpected("machine " + std::to_string(m) + " is not a peer");
  }
  auto a = Resolve(host_port);
  if (!a) return std::unexpected(a.error());
  std::lock_guard lock(peers_[m]->mu);
  peers_[m]->address = *a;
  return {};
}

TcpFabricStats TcpFabric::Stats() const {
  const Counters& c = *counters_;
  auto get = [](const std::atomic<uint64_t>& v) { return v.load(std::memory_order_relaxed); };
  return TcpFabricStats{get(c.sends),     get(c.recvs),      get(c.polls),
                        get(c.rings),     get(c.other_calls), get(c.frames_out),
                        get(c.frames_in), get(c.bytes_out),  get(c.bytes_in),
                        get(c.connects),  get(c.accepts),    get(c.refused),
                        get(c.protocol_errors), get(c.connections_lost)};
}

uint64_t TcpFabric::ConnectionEpoch(MachineId m) const {
  return m < peers_.size() && peers_[m] ? peers_[m]->epoch.load() : 0;
}

void TcpFabric::Register(MachineId owner, uint64_t key, std::span<std::byte> mem) {
  Require(owner == options_.self, "Register: owner is not this fabric's machine");
  std::unique_lock lock(mem_mu_);
  memory_[key] = mem;
}

void TcpFabric::Unregister(MachineId owner, uint64_t key) {
  Require(owner == options_.self, "Unregister: owner is not this fabric's machine");
  std::unique_lock lock(mem_mu_);
  memory_.erase(key);
}

void TcpFabric::SetWriteNotifier(MachineId owner, uint64_t key, std::function<void()> notify) {
  Require(owner == options_.self, "SetWriteNotifier: owner is not this fabric's machine");
  std::unique_lock lock(mem_mu_);
  if (notify) {
    notifiers_[key] = std::move(notify);
  } else {
    notifiers_.erase(key);
  }
}

void TcpFabric::SetHandler(MachineId m, MessageHandler handler) {
  Require(m == options_.self, "SetHandler: not this fabric's machine");
  std::lock_guard lock(handler_mu_);
  handler_ = std::make_shared<const MessageHandler>(std::move(handler));
}

void TcpFabric::AllowInlineDelivery(MachineId m, uint16_t type) {
  Require(m == options_.self && type < kMaxInlineTypes, "AllowInlineDelivery: bad machine/type");
  inline_types_[type].store(true, std::memory_order_release);
}

std::shared_ptr<const MessageHandler> TcpFabric::CurrentHandler() {
  std::lock_guard lock(handler_mu_);
  return handler_;
}

template <typename Access>
FabricError TcpFabric::WithMemory(uint64_t key, uint64_t offset, uint64_t length, Access access) {
  std::shared_lock lock(mem_mu_);
  auto it = memory_.find(key);
  if (it == memory_.end()) return FabricError::kNotRegistered;
  if (offset > it->second.size() || length > it->second.size() - offset) {
    return FabricError::kOutOfRange;
  }
  access(it->second.data() + offset);
  return FabricError::kNone;
}

FabricError TcpFabric::ApplyWrite(uint64_t key, uint64_t offset, std::span<const std::byte> src) {
  return WithMemory(key, offset, src.size(), [&](std::byte* at) {
    CopyIn(at, src.data(), src.size());
    // Under the shared lock, so a notifier being cleared is not running afterwards.
    if (auto n = notifiers_.find(key); n != notifiers_.end()) n->second();
  });
}

void TcpFabric::CheckOneSided(MachineId from, MachineId to, uint64_t offset, size_t length) const {
  Require(from == options_.self, "Read/Write: from is not this fabric's machine");
  Require(to < peers_.size(), "Read/Write: no such machine");
  Require(offset % 8 == 0 && length % 8 == 0, "Read/Write: offset or length not a multiple of 8");
  Require(length <= kMaxPayload, "Read/Write: longer than kMaxPayload");
}

CompletionPtr TcpFabric::Read(MachineId from, MachineId to, uint64_t key, uint64_t offset,
                              std::span<std::byte> dst) {
  CheckOneSided(from, to, offset, dst.size());
  if (to == options_.self) {
    if (stop_.load()) return Completed(FabricError::kShutdown);
    return Completed(WithMemory(key, offset, dst.size(), [&](const std::byte* at) {
      CopyOut(at, dst.data(), dst.size());
    }));
  }
  return Issue(to, true, dst, true, [&](ByteWriter& w, uint64_t op) {
    PutHeader(w, kRead, kOpBytes + 8);
    w.U64(op), w.U64(key), w.U64(offset), w.U64(dst.size());
  });
}

CompletionPtr TcpFabric::Write(MachineId from, MachineId to, uint64_t key, uint64_t offset,
                               std::span<const std::byte> src) {
  CheckOneSided(from, to, offset, src.size());
  if (to == options_.self) {
    if (stop_.load()) return Completed(FabricError::kShutdown);
    return Completed(ApplyWrite(key, offset, src));
  }
  return Issue(to, false, {}, true, [&](ByteWriter& w, uint64_t op) {
    PutHeader(w, kWrite, kOpBytes + src.size());
    w.U64(op), w.U64(key), w.U64(offset), w.Bytes(src);
  });
}

void TcpFabric::Send(MachineId to, Message msg) {
  Require(msg.from == options_.self, "Send: msg.from is not this fabric's machine");
  Require(to < peers_.size(), "Send: no such machine");
  Require(msg.body.size() <= kMaxPayload, "Send: body longer than kMaxPayload");
  if (to != options_.self) {
    Issue(to, false, {}, false, [&](ByteWriter& w, uint64_t) {
      PutHeader(w, kMessage, 4 + msg.body.size());
      w.U32(msg.type), w.Bytes(msg.body);
    });
    return;
  }
  if (stop_.load()) return;
  if (msg.type < kMaxInlineTypes && inline_types_[msg.type].load(std::memory_order_acquire)) {
    if (auto handler = CurrentHandler(); handler && *handler) (*handler)(std::move(msg));
    return;
  }
  {
    std::lock_guard lock(self_mu_);
    self_inbox_.push_back(std::move(msg));
  }
  Ring();
}

template <typename Encode>
CompletionPtr TcpFabric::Issue(MachineId to, bool is_read, std::span<std::byte> dst,
                               bool wants_answer, Encode encode) {
  auto c = wants_answer ? std::make_shared<Completion>() : nullptr;
  Peer& p = *peers_[to];
  {
    std::lock_guard lock(p.mu);
    if (p.shut || !p.address) {
      // A message is dropped, as on a link that is down.
      if (c) c->Fail(p.shut ? FabricError::kShutdown : FabricError::kUnreachable);
      return c;
    }
    uint64_t op = c ? p.next_op++ : 0;
    ByteWriter w(&p.outbox);
    encode(w, op);
    ++p.outbox_frames;
    if (c) p.pending.push_back({op, is_read, dst, c, Clock::now() + options_.operation_timeout});
    p.has_output.store(true);
  }
  Ring();
  return c;
}

void TcpFabric::Ring() {
  if (tl_loop_fabric == this) return;  // the loop looks at every peer before it sleeps
  if (ring_pending_.exchange(true)) return;
  ring_cpu_.store(sched_getcpu(), std::memory_order_relaxed);  // a hint for Loop
  uint64_t one = 1;
  (void)!write(ring_fd_, &one, sizeof one);
  Bump(counters_->rings);
}

// ---- The fabric thread ----

void TcpFabric::Loop() {
  tl_loop_fabric = this;
  std::array<epoll_event, 64> events;
  int timeout_ms = -1;
  // Checked before each wait too: a ring read in this round may have been Shutdown's.
  while (!stop_.load()) {
    int n = epoll_wait(epoll_fd_, events.data(), events.size(), timeout_ms);
    Bump(counters_->polls);
    if (stop_.load()) return;
    for (int i = 0; i < n; ++i) {
      uint64_t id = events[i].data.u64;
      if (id == kRingId) {
        uint64_t count;
        (void)!read(ring_fd_, &count, sizeof count);
        Bump(counters_->rings);
        // Woken on the CPU of the caller that rang, this thread has preempted it, most likely
        // amid a burst: running on, it would send the burst's first operation alone, then the
        // next, a send and a round trip each (2 cores: a burst of 10 writes took 230 us, not
        // 30). Yielding lets the caller queue the rest first, until it waits.
        if (sched_getcpu() == ring_cpu_.load(std::memory_order_relaxed)) {
          sched_yield();
          Bump(counters_->other_calls);
        }
      } else if (id == kListenerId) {
        Accept();
      } else {
        OnEvent(id, events[i].events);
      }
    }
    DeliverSelfMessages();
    ServicePeers(Clock::now());
    for (auto it = conns_.begin(); it != conns_.end();) {
      Conn& c = *it->second;
      ++it;  // Flush drops only `c`
      if (c.unsent() > 0 && !Flush(c)) Drop(c.id);
    }
    // Callers ring only from here on, when this thread may be on its way to sleep; so a burst
    // issued while it works costs no ring. What they queued before, ExpireDeadlines sees and
    // does not let it sleep on.
    ring_pending_.store(false);
    timeout_ms = ExpireDeadlines(Clock::now());
  }
}

TcpFabric::Conn& TcpFabric::NewConn(int fd, bool outgoing) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  Bump(counters_->other_calls);
  auto c = std::make_unique<Conn>();
  c->id = next_conn_id_++;
  c->fd = fd;
  c->outgoing = outgoing;
  c->state = outgoing ? Conn::State::kConnecting : Conn::State::kAwaitHello;
  c->deadline = Clock::now() + options_.operation_timeout;
  Conn& ref = *c;
  conns_.emplace(ref.id, std::move(c));
  return ref;
}

void TcpFabric::Accept() {
  while (true) {
    sockaddr_storage from{};
    socklen_t length = sizeof from;
    int fd = accept4(listen_fd_, reinterpret_cast<sockaddr*>(&from), &length,
                     SOCK_NONBLOCK | SOCK_CLOEXEC);
    Bump(counters_->other_calls);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK) {
        Log(std::string("tcp_fabric.accept_failed error=\"") + std::strerror(errno) + "\"");
      }
      return;
    }
    Conn& c = NewConn(fd, false);
    c.remote = FormatAddress(from);
    Watch(c);
  }
}

void TcpFabric::Dial(MachineId m) {
  Peer& p = *peers_[m];
  SocketAddress to;
  {
    std::lock_guard lock(p.mu);
    to = *p.address;  // has_output implies an address
  }
  int fd = socket(to.storage.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  Bump(counters_->other_calls);
  if (fd < 0) {
    Log(std::string("tcp_fabric.connect_failed error=\"") + std::strerror(errno) + "\"");
    FailPeer(m, FabricError::kUnreachable);
    return;
  }
  Conn& c = NewConn(fd, true);
  c.peer = m;
  c.remote = FormatAddress(to.storage);
  p.conn = c.id;
  int rc = connect(fd, reinterpret_cast<const sockaddr*>(&to.storage), to.length);
  Bump(counters_->other_calls);
  bool keep = true;
  if (rc == 0) {
    keep = OnConnected(c);
  } else if (errno == EINPROGRESS) {
    Watch(c);
  } else {
    keep = Fault(c, FabricError::kUnreachable, "tcp_fabric.connect_failed", std::strerror(errno));
  }
  if (!keep) Drop(c.id);
}

void TcpFabric::OnEvent(uint64_t conn_id, uint32_t events) {
  auto it = conns_.find(conn_id);
  if (it == conns_.end()) return;  // dropped earlier in this round
  Conn& c = *it->second;
  bool keep = true;
  if (c.state == Conn::State::kConnecting) {
    keep = OnConnected(c);
  } else {
    if (events & (EPOLLIN | EPOLLERR | EPOLLHUP)) keep = Receive(c);
    if (keep && (events & EPOLLOUT)) keep = Flush(c);
  }
  if (!keep) Drop(conn_id);
}

bool TcpFabric::OnConnected(Conn& c) {
  int error = 0;
  socklen_t length = sizeof error;
  getsockopt(c.fd, SOL_SOCKET, SO_ERROR, &error, &length);
  Bump(counters_->other_calls);
  if (error != 0) {
    return Fault(c, FabricError::kUnreachable, "tcp_fabric.connect_failed", std::strerror(error));
  }
  std::array<std::byte, kNonceBytes> nonce;
  if (RAND_bytes(reinterpret_cast<unsigned char*>(nonce.data()), nonce.size()) != 1) {
    return Fault(c, FabricError::kUnreachable, "tcp_fabric.no_randomness", "RAND_bytes failed");
  }
  c.epoch = peers_[c.peer]->epoch.load() + 1;
  ByteWriter w(&c.transcript);
  w.U64(kMagic), w.U32(kVersion), w.U32(options_.self), w.U32(c.peer);
  w.U32(static_cast<uint32_t>(options_.machines)), w.U64(options_.configuration_id);
  w.U64(c.epoch), w.Bytes(nonce);
  w.U32(static_cast<uint32_t>(options_.cluster_name.size()));
  w.Bytes(AsBytes(options_.cluster_name));
  c.Queue(kHello, c.transcript);
  c.state = Conn::State::kAwaitChallenge;
  Watch(c);
  return true;
}

bool TcpFabric::Receive(Conn& c) {
  std::span<std::byte> room = c.in.Room(std::max(kRecvChunk, c.need));
  ssize_t n = recv(c.fd, room.data(), room.size(), 0);
  Bump(counters_->recvs);
  if (n == 0) {
    if (!c.in.empty()) return ProtocolError(c, "truncated frame");
    return Fault(c, c.Lost(), "tcp_fabric.connection_lost", "closed by peer");
  }
  if (n < 0) {
    if (Retryable(errno)) return true;
    return Fault(c, c.Lost(), "tcp_fabric.connection_lost", std::strerror(errno));
  }
  c.in.Commit(static_cast<size_t>(n));
  Bump(counters_->bytes_in, n);
  // Every whole frame the read brought, in order.
  while (true) {
    auto data = c.in.data();
    if (data.size() < kHeaderBytes) {
      c.need = kHeaderBytes - data.size();
      return true;
    }
    ByteReader header(data.first(kHeaderBytes));
    uint32_t kind = header.U32();
    uint32_t length = header.U32();
    if (!c.Expects(kind) || !LengthFits(kind, length)) {
      return ProtocolError(c, "unexpected frame kind=" + std::to_string(kind) +
                                  " length=" + std::to_string(length));
    }
    if (data.size() < kHeaderBytes + length) {
      c.need = kHeaderBytes + length - data.size();
      return true;
    }
    if (c.state == Conn::State::kOpen) Bump(counters_->frames_in);
    if (!HandleFrame(c, kind, data.subspan(kHeaderBytes, length))) return false;
    c.in.Consume(kHeaderBytes + length);
  }
}

bool TcpFabric::HandleFrame(Conn& c, uint32_t kind, std::span<const std::byte> body) {
  switch (kind) {
    case kHello: return OnHello(c, body);
    case kChallenge: return OnChallenge(c, body);
    case kProof: return OnProof(c, body);
    case kWelcome: return OnWelcome(c, body);
    case kRefuse: {
      Bump(counters_->refused);
      std::string reason(reinterpret_cast<const char*>(body.data()), body.size());
      return Fault(c, FabricError::kRefused, "tcp_fabric.refused_by_peer", reason);
    }
    case kWriteAck:
    case kReadReply: return OnAnswer(c, kind, body);
    default: return OnRequest(c, kind, body);  // Expects() let only requests through
  }
}

// Acceptor: checks who is calling, offers an epoch and a challenge.
bool TcpFabric::OnHello(Conn& c, std::span<const std::byte> body) {
  ByteReader r(body);
  uint64_t magic = r.U64();
  uint32_t version = r.U32();
  MachineId from = r.U32(), to = r.U32();
  uint32_t machines = r.U32();
  uint64_t configuration = r.U64(), epoch = r.U64();
  r.Bytes(kNonceBytes);
  auto name = r.Bytes(r.U32());
  if (!r.ok() || r.remaining() != 0 || magic != kMagic) {
    return ProtocolError(c, "not a farmdb tcp fabric hello");
  }
  auto number = [](uint64_t v) { return std::to_string(v); };
  if (version != kVersion) return Refuse(c, "unsupported version " + number(version));
  if (!std::ranges::equal(name, AsBytes(options_.cluster_name))) {
    return Refuse(c, "wrong cluster name");
  }
  if (configuration != options_.configuration_id) {
    return Refuse(c, "configuration " + number(configuration) + ", this machine's is " +
                         number(options_.configuration_id));
  }
  if (machines != static_cast<uint32_t>(options_.machines)) {
    return Refuse(c, "cluster of " + number(machines) + " machines, this one has " +
                         number(options_.machines));
  }
  if (to != options_.self) return Refuse(c, "addressed to machine " + number(to));
  if (from >= machines || from == options_.self) {
    return Refuse(c, "machine " + number(from) + " is outside the cluster");
  }
  if (epoch >= kMaxEpoch) return ProtocolError(c, "epoch " + number(epoch) + " too large");
  std::array<std::byte, kNonceBytes> nonce;
  if (RAND_bytes(reinterpret_cast<unsigned char*>(nonce.data()), nonce.size()) != 1) {
    return Fault(c, FabricError::kNone, "tcp_fabric.no_randomness", "RAND_bytes failed");
  }
  c.peer = from;
  c.epoch = std::max({epoch, handed_epoch_[from] + 1, accepted_epoch_[from] + 1});
  handed_epoch_[from] = c.epoch;
  Bytes challenge;
  ByteWriter w(&challenge);
  w.U64(c.epoch), w.Bytes(nonce);
  c.transcript.assign(body.begin(), body.end());
  c.transcript.insert(c.transcript.end(), challenge.begin(), challenge.end());
  c.Queue(kChallenge, challenge);
  c.state = Conn::State::kAwaitProof;
  return true;
}

// Dialler: takes the epoch, proves the secret.
bool TcpFabric::OnChallenge(Conn& c, std::span<const std::byte> body) {
  uint64_t epoch = ByteReader(body).U64();
  if (epoch < c.epoch || epoch >= kMaxEpoch) {
    return ProtocolError(c, "epoch " + std::to_string(epoch) + " offered for " +
                                std::to_string(c.epoch));
  }
  c.epoch = epoch;
  c.transcript.insert(c.transcript.end(), body.begin(), body.end());
  c.Queue(kProof, HandshakeMac(options_.secret, kInitiatorLabel, c.transcript));
  c.state = Conn::State::kAwaitWelcome;
  return true;
}

// Acceptor: checks the proof; the connection is open, and supersedes older ones of the pair.
bool TcpFabric::OnProof(Conn& c, std::span<const std::byte> body) {
  if (!SameMac(HandshakeMac(options_.secret, kInitiatorLabel, c.transcript), body)) {
    return Refuse(c, "wrong secret");
  }
  if (c.epoch <= accepted_epoch_[c.peer]) {
    return Refuse(c, "epoch " + std::to_string(c.epoch) + " is stale");
  }
  accepted_epoch_[c.peer] = c.epoch;
  // The older connections' unread frames are dropped with them: none is applied after a frame
  // of this one.
  std::vector<uint64_t> older;
  for (auto& [id, other] : conns_) {
    if (other.get() != &c && !other->outgoing && other->peer == c.peer &&
        other->state == Conn::State::kOpen) {
      older.push_back(id);
    }
  }
  for (uint64_t id : older) {
    Log("tcp_fabric.superseded machine=" + std::to_string(c.peer) +
        " epoch=" + std::to_string(conns_.at(id)->epoch) + " by=" + std::to_string(c.epoch));
    Drop(id);
  }
  c.Queue(kWelcome, HandshakeMac(options_.secret, kAcceptorLabel, c.transcript));
  c.state = Conn::State::kOpen;
  c.deadline = Clock::time_point::max();
  c.transcript.clear();
  Bump(counters_->accepts);
  return true;
}

// Dialler: the acceptor proved the secret; the connection is open.
bool TcpFabric::OnWelcome(Conn& c, std::span<const std::byte> body) {
  if (!SameMac(HandshakeMac(options_.secret, kAcceptorLabel, c.transcript), body)) {
    Bump(counters_->refused);
    return Fault(c, FabricError::kRefused, "tcp_fabric.refused",
                 "peer did not prove the secret");
  }
  c.state = Conn::State::kOpen;
  c.deadline = Clock::time_point::max();
  c.transcript.clear();
  Peer& p = *peers_[c.peer];
  p.epoch.store(c.epoch);
  p.backoff = std::chrono::milliseconds(0);
  Bump(counters_->connects);
  return true;  // ServicePeers hands it the outbox
}

// Acceptor, open: a one-sided operation or a message from c.peer, in the order sent.
bool TcpFabric::OnRequest(Conn& c, uint32_t kind, std::span<const std::byte> body) {
  ByteReader r(body);
  if (kind == kMessage) {
    uint32_t type = r.U32();
    if (type > UINT16_MAX) return ProtocolError(c, "message type " + std::to_string(type));
    auto payload = r.Bytes(r.remaining());
    // `from` is the authenticated peer of the connection, never a field of the frame.
    Message msg{c.peer, static_cast<uint16_t>(type), Bytes(payload.begin(), payload.end())};
    if (auto handler = CurrentHandler(); handler && *handler) (*handler)(std::move(msg));
    return true;
  }
  uint64_t op = r.U64(), key = r.U64(), offset = r.U64();
  if (offset % 8 != 0) return ProtocolError(c, "offset " + std::to_string(offset));
  ByteWriter w(&c.out);
  Bump(counters_->frames_out);
  if (kind == kWrite) {
    FabricError result = ApplyWrite(key, offset, r.Bytes(r.remaining()));
    PutHeader(w, kWriteAck, kAnswerBytes);
    w.U64(op), w.U32(static_cast<uint32_t>(result)), w.U32(0);
    return true;
  }
  uint64_t length = r.U64();
  if (length % 8 != 0 || length > kMaxPayload) {
    return ProtocolError(c, "read length " + std::to_string(length));
  }
  // Copied straight from registered memory into the send buffer.
  FabricError result = WithMemory(key, offset, length, [&](const std::byte* at) {
    PutHeader(w, kReadReply, kAnswerBytes + length);
    w.U64(op), w.U32(0), w.U32(0);
    size_t data_at = c.out.size();
    c.out.resize(data_at + length);
    CopyOut(at, c.out.data() + data_at, length);
  });
  if (result != FabricError::kNone) {
    PutHeader(w, kReadReply, kAnswerBytes);
    w.U64(op), w.U32(static_cast<uint32_t>(result)), w.U32(0);
  }
  return true;
}

// Dialler, open: the answer to the oldest pending operation (answers come in issue order).
bool TcpFabric::OnAnswer(Conn& c, uint32_t kind, std::span<const std::byte> body) {
  ByteReader r(body);
  uint64_t op = r.U64();
  auto result = static_cast<FabricError>(r.U32());
  r.U32();
  auto data = r.Bytes(r.remaining());
  bool is_read = kind == kReadReply;
  if (result != FabricError::kNone && result != FabricError::kNotRegistered &&
      result != FabricError::kOutOfRange) {
    return ProtocolError(c, "status " + std::to_string(static_cast<int>(result)));
  }
  Peer& p = *peers_[c.peer];
  std::optional<Peer::Pending> answered;
  {
    std::lock_guard lock(p.mu);
    if (!p.pending.empty()) {
      Peer::Pending& front = p.pending.front();
      size_t expected = is_read && result == FabricError::kNone ? front.dst.size() : 0;
      if (front.id == op && front.is_read == is_read && data.size() == expected) {
        answered = std::move(front);
        p.pending.pop_front();
      }
    }
  }
  if (!answered) return ProtocolError(c, "answer to no pending operation " + std::to_string(op));
  // Popped, so this thread alone may touch dst now.
  if (!data.empty()) std::memcpy(answered->dst.data(), data.data(), data.size());
  if (result == FabricError::kNone) {
    answered->done->Finish(true);
  } else {
    answered->done->Fail(result);
  }
  return true;
}

bool TcpFabric::Fault(Conn& c, FabricError why, const std::string& event,
                      const std::string& detail) {
  std::string who = c.peer == kNoMachine ? "" : " machine=" + std::to_string(c.peer);
  Log(event + who + " epoch=" + std::to_string(c.epoch) + " remote=" + c.remote + " reason=\"" +
      detail + "\"");
  c.error = why;
  return false;
}

bool TcpFabric::ProtocolError(Conn& c, const std::string& detail) {
  Bump(counters_->protocol_errors);
  return Fault(c, c.Lost(), "tcp_fabric.protocol_error", detail);
}

// Acceptor: says why (one try, the connection closes right after) and drops the connection.
bool TcpFabric::Refuse(Conn& c, const std::string& reason) {
  Bump(counters_->refused);
  Fault(c, FabricError::kRefused, "tcp_fabric.refused", reason);  // logged before the peer knows
  c.Queue(kRefuse, AsBytes(reason));
  ssize_t n = send(c.fd, c.out.data() + c.out_sent, c.unsent(), MSG_NOSIGNAL | MSG_DONTWAIT);
  Bump(counters_->sends);
  if (n > 0) Bump(counters_->bytes_out, n);
  return false;
}

bool TcpFabric::Flush(Conn& c) {
  if (c.state == Conn::State::kConnecting) return true;
  bool progressed = false;
  while (c.unsent() > 0) {
    ssize_t n = send(c.fd, c.out.data() + c.out_sent, c.unsent(), MSG_NOSIGNAL);
    Bump(counters_->sends);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (Retryable(errno)) break;
      return Fault(c, c.Lost(), "tcp_fabric.connection_lost", std::strerror(errno));
    }
    c.out_sent += static_cast<size_t>(n);
    Bump(counters_->bytes_out, n);
    progressed = true;
    // A short send means the socket buffer is full: trying again now would only fail, EPOLLOUT
    // says when there is room.
    if (c.unsent() > 0) break;
  }
  if (c.unsent() == 0) {
    if (c.out.capacity() > kKeepBufferBytes) {
      Bytes().swap(c.out);
    } else {
      c.out.clear();
    }
    c.out_sent = 0;
    if (c.state == Conn::State::kOpen) c.deadline = Clock::time_point::max();
  } else if (c.state == Conn::State::kOpen &&
             (progressed || c.deadline == Clock::time_point::max())) {
    c.deadline = Clock::now() + options_.operation_timeout;  // a send that stops progressing
  }
  Watch(c);
  return true;
}

void TcpFabric::Watch(Conn& c) {
  uint32_t events = EPOLLIN;
  if (c.state == Conn::State::kConnecting || c.unsent() > 0) events |= EPOLLOUT;
  if (events == c.watching) return;
  epoll_event ev{};
  ev.events = events;
  ev.data.u64 = c.id;
  epoll_ctl(epoll_fd_, c.watching == 0 ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, c.fd, &ev);
  Bump(counters_->other_calls);
  c.watching = events;
}

void TcpFabric::Drop(uint64_t conn_id) {
  auto it = conns_.find(conn_id);
  if (it == conns_.end()) return;
  std::unique_ptr<Conn> c = std::move(it->second);
  conns_.erase(it);
  close(c->fd);  // also leaves the epoll set
  Bump(counters_->other_calls);
  bool was_open = c->state == Conn::State::kOpen;
  if (was_open) Bump(counters_->connections_lost);
  if (!c->outgoing) return;
  Peer& p = *peers_[c->peer];
  p.conn = 0;
  FailPeer(c->peer, c->error == FabricError::kNone ? c->Lost() : c->error);
  // A connection that worked is dialled again at once; failed dials back off, doubling.
  auto ceiling = std::min(options_.max_reconnect_backoff,
                          std::chrono::duration_cast<std::chrono::milliseconds>(
                              options_.operation_timeout / 2));
  p.backoff = was_open ? std::chrono::milliseconds(0)
                       : std::clamp(p.backoff * 2, std::min(kMinBackoff, ceiling), ceiling);
  p.retry_at = Clock::now() + p.backoff;
}

void TcpFabric::FailPeer(MachineId m, FabricError why) {
  Peer& p = *peers_[m];
  std::deque<Peer::Pending> failed;
  {
    std::lock_guard lock(p.mu);
    failed.swap(p.pending);
    Bytes().swap(p.outbox);
    p.outbox_frames = 0;
    p.has_output.store(false);
    if (why == FabricError::kShutdown) p.shut = true;
  }
  for (auto& op : failed) op.done->Fail(why);
}

void TcpFabric::DeliverSelfMessages() {
  std::vector<Message> batch;
  {
    std::lock_guard lock(self_mu_);
    batch.swap(self_inbox_);
  }
  if (batch.empty()) return;
  auto handler = CurrentHandler();
  if (!handler || !*handler) return;
  for (auto& msg : batch) (*handler)(std::move(msg));
}

void TcpFabric::ServicePeers(Clock::time_point now) {
  for (MachineId m = 0; m < peers_.size(); ++m) {
    if (!peers_[m] || !peers_[m]->has_output.load()) continue;
    Peer& p = *peers_[m];
    if (p.conn == 0) {
      if (now >= p.retry_at) Dial(m);
      continue;
    }
    Conn& c = *conns_.at(p.conn);
    if (c.state != Conn::State::kOpen || c.unsent() > 0) continue;
    uint64_t frames;
    {
      std::lock_guard lock(p.mu);
      c.out.swap(p.outbox);  // c.out was empty: callers keep its capacity
      c.out_sent = 0;
      frames = p.outbox_frames;
      p.outbox_frames = 0;
      p.has_output.store(false);
    }
    Bump(counters_->frames_out, frames);
  }
}

int TcpFabric::ExpireDeadlines(Clock::time_point now) {
  auto next = Clock::time_point::max();
  for (MachineId m = 0; m < peers_.size(); ++m) {
    if (!peers_[m]) continue;
    Peer& p = *peers_[m];
    bool expired = false;
    {
      std::lock_guard lock(p.mu);
      if (!p.pending.empty()) {
        expired = p.pending.front().deadline <= now;
        next = std::min(next, p.pending.front().deadline);
      }
    }
    if (expired && p.conn != 0) {
      Fault(*conns_.at(p.conn), FabricError::kTimedOut, "tcp_fabric.timed_out",
            "no answer within operation_timeout");
      Drop(p.conn);
    } else if (expired) {
      FailPeer(m, FabricError::kTimedOut);
    } else if (p.has_output.load()) {
      // Output waits for the backoff to end, or (its connection drained after ServicePeers
      // looked) for the next round.
      if (p.conn == 0) {
        next = std::min(next, p.retry_at);
      } else if (const Conn& c = *conns_.at(p.conn);
                 c.state == Conn::State::kOpen && c.unsent() == 0) {
        next = now;
      }
    }
  }
  std::vector<uint64_t> late;
  for (auto& [id, c] : conns_) {
    if (c->deadline > now) {
      next = std::min(next, c->deadline);
    } else {
      Fault(*c, FabricError::kTimedOut, "tcp_fabric.timed_out",
            c->state == Conn::State::kOpen ? "send made no progress" : "handshake");
      late.push_back(id);
    }
  }
  for (uint64_t id : late) Drop(id);
  {
    std::lock_guard lock(self_mu_);
    if (!self_inbox_.empty()) return 0;  // a handler sent to self
  }
  if (next == Clock::time_point::max()) return -1;
  auto ms = std::chrono::ceil<std::chrono::milliseconds>(next - now).count();
  return static_cast<int>(std::clamp<int64_t>(ms, 0, INT_MAX));
}

}  // namespace farmdb::cluster
