#include "cluster/fabric/tcp_fabric.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <future>
#include <mutex>
#include <optional>
#include <thread>

#include "cluster/codec.h"
#include "cluster/fabric/word_copy.h"

namespace farmdb::cluster {
namespace {

using namespace std::chrono_literals;
using Bytes = std::vector<std::byte>;
using Clock = std::chrono::steady_clock;

constexpr uint64_t kKey = MemKey(MemKind::kRegion, 7);
constexpr uint64_t kOtherKey = MemKey(MemKind::kLog, 1);
constexpr auto kLong = 20s;  // a bound for what must happen, never a wait that is expected
constexpr char kCluster[] = "test-cluster";
constexpr char kSecret[] = "correct horse battery staple";

// ---- Helpers ----

class Logs {
 public:
  std::function<void(const std::string&)> Sink() {
    return [this](const std::string& line) {
      std::lock_guard l(mu_);
      lines_.push_back(line);
    };
  }
  size_t Count(std::string_view part) {
    std::lock_guard l(mu_);
    return std::ranges::count_if(lines_, [&](auto& s) { return s.find(part) != s.npos; });
  }

 private:
  std::mutex mu_;
  std::vector<std::string> lines_;
};

TcpFabricOptions Options(MachineId self, int machines, Logs& logs,
                         std::chrono::milliseconds timeout = 5s) {
  TcpFabricOptions o;
  o.self = self;
  o.machines = machines;
  o.listen_address = "127.0.0.1:0";
  o.cluster_name = kCluster;
  o.secret = kSecret;
  o.operation_timeout = timeout;
  o.log = logs.Sink();
  return o;
}

std::unique_ptr<TcpFabric> StartFabric(TcpFabricOptions o) {
  auto f = TcpFabric::Start(std::move(o));
  if (!f) ADD_FAILURE() << f.error();
  return f ? std::move(*f) : nullptr;
}

// `n` fabrics on loopback, each knowing where the others are.
struct Cluster {
  explicit Cluster(int n, std::chrono::milliseconds timeout = 5s) {
    for (int m = 0; m < n; ++m) f.push_back(StartFabric(Options(m, n, logs, timeout)));
    for (int m = 0; m < n; ++m) {
      for (int p = 0; p < n; ++p) {
        if (p != m) {
          EXPECT_TRUE(f[m]->SetPeerAddress(p, f[p]->address()));
        }
      }
    }
  }
  Logs logs;
  std::vector<std::unique_ptr<TcpFabric>> f;
};

// Registered memory: 8-byte aligned words.
struct Memory {
  explicit Memory(size_t words) : words(words) {}
  std::span<std::byte> bytes() { return std::as_writable_bytes(std::span(words)); }
  uint64_t Load(size_t i) { return LoadWord(bytes().data() + 8 * i); }
  std::vector<uint64_t> words;
};

Bytes Word(uint64_t v) {
  Bytes b(8);
  std::memcpy(b.data(), &v, 8);
  return b;
}

uint64_t AsWord(std::span<const std::byte> b) {
  uint64_t v = 0;
  std::memcpy(&v, b.data(), std::min<size_t>(8, b.size()));
  return v;
}

// Waits for a completion and says how it ended.
::testing::AssertionResult Succeeds(const CompletionPtr& c) {
  if (!c->WaitFor(kLong)) return ::testing::AssertionFailure() << "not done";
  if (!c->ok()) return ::testing::AssertionFailure() << FabricErrorName(c->error());
  return ::testing::AssertionSuccess();
}

// Why a completion failed; kNone if it succeeded or did not finish in time.
FabricError FailureOf(const CompletionPtr& c) {
  if (!c->WaitFor(kLong)) return FabricError::kNone;
  return c->ok() ? FabricError::kNone : c->error();
}

struct Inbox {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<Message> got;
  MessageHandler Handler() {
    return [this](Message m) {
      std::lock_guard l(mu);
      got.push_back(std::move(m));
      cv.notify_all();
    };
  }
  bool WaitForCount(size_t n) {
    std::unique_lock l(mu);
    return cv.wait_for(l, kLong, [&] { return got.size() >= n; });
  }
};

// ---- A raw peer speaking the wire format as FORMATS.md "TCP fabric" describes it ----

struct Frame {
  uint32_t kind = 0;
  Bytes body;
};

// "127.0.0.1:PORT" (port 0 if none).
sockaddr_in Loopback(const std::string& address) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  if (auto colon = address.rfind(':'); colon != address.npos) {
    a.sin_port = htons(static_cast<uint16_t>(std::stoi(address.substr(colon + 1))));
  }
  inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
  return a;
}

class RawSocket {
 public:
  explicit RawSocket(int fd) : fd_(fd) {}
  // Connects to "127.0.0.1:PORT"; blocking: returns once connected.
  static RawSocket Connect(const std::string& address, bool blocking = true) {
    sockaddr_in a = Loopback(address);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | (blocking ? 0 : SOCK_NONBLOCK), 0);
    int rc = connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
    if (blocking) {
      EXPECT_EQ(rc, 0) << std::strerror(errno);
    }
    return RawSocket(fd);
  }
  RawSocket(RawSocket&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  ~RawSocket() {
    if (fd_ >= 0) close(fd_);
  }
  int fd() const { return fd_; }

  void Send(std::span<const std::byte> bytes) {
    // Errors are the point of some tests (the fabric closed on us): ignore them.
    for (size_t at = 0; at < bytes.size();) {
      ssize_t n = send(fd_, bytes.data() + at, bytes.size() - at, MSG_NOSIGNAL);
      if (n <= 0) return;
      at += static_cast<size_t>(n);
    }
  }
  void SendFrame(uint32_t kind, std::span<const std::byte> body, size_t claimed_length = SIZE_MAX) {
    Bytes b;
    ByteWriter w(&b);
    w.U32(kind);
    w.U32(static_cast<uint32_t>(claimed_length == SIZE_MAX ? body.size() : claimed_length));
    w.Bytes(body);
    Send(b);
  }
  // The next frame; nothing on EOF, an error or the timeout.
  std::optional<Frame> ReadFrame(std::chrono::milliseconds timeout = kLong) {
    auto deadline = Clock::now() + timeout;
    Bytes header(8);
    if (!ReadExactly(header, deadline)) return std::nullopt;
    ByteReader r(header);
    Frame f{r.U32(), Bytes(r.U32())};
    if (!ReadExactly(f.body, deadline)) return std::nullopt;
    return f;
  }
  // Whether the other side closes the connection (EOF or reset) within `timeout`; bytes it
  // sends before are skipped.
  bool ClosedWithin(std::chrono::milliseconds timeout) {
    auto deadline = Clock::now() + timeout;
    std::array<std::byte, 4096> sink;
    while (WaitReadable(deadline)) {
      ssize_t n = recv(fd_, sink.data(), sink.size(), 0);
      if (n <= 0) return true;
    }
    return false;
  }

 private:
  bool WaitReadable(Clock::time_point deadline) {
    auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
    pollfd p{fd_, POLLIN, 0};
    return left > 0 && poll(&p, 1, static_cast<int>(left)) == 1;
  }
  bool ReadExactly(std::span<std::byte> out, Clock::time_point deadline) {
    for (size_t at = 0; at < out.size();) {
      if (!WaitReadable(deadline)) return false;
      ssize_t n = recv(fd_, out.data() + at, out.size() - at, 0);
      if (n <= 0) return false;
      at += static_cast<size_t>(n);
    }
    return true;
  }
  int fd_;
};

enum RawKind : uint32_t {
  kHello = 1, kChallenge = 2, kProof = 3, kWelcome = 4, kRefuse = 5,
  kWrite = 16, kRead = 17, kMessage = 18, kWriteAck = 19, kReadReply = 20,
};

Bytes Mac(const std::string& secret, std::string_view label,
          std::span<const std::byte> transcript) {
  Bytes input(reinterpret_cast<const std::byte*>(label.data()),
              reinterpret_cast<const std::byte*>(label.data()) + label.size());
  input.insert(input.end(), transcript.begin(), transcript.end());
  Bytes mac(32);
  unsigned int length = 0;
  HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()),
       reinterpret_cast<const unsigned char*>(input.data()), input.size(),
       reinterpret_cast<unsigned char*>(mac.data()), &length);
  return mac;
}

constexpr std::string_view kInitiator = "farmdb tcp fabric: initiator";
constexpr std::string_view kAcceptor = "farmdb tcp fabric: acceptor";

struct Identity {
  std::string name = kCluster;
  std::string secret = kSecret;
  uint64_t configuration = 1;
  uint32_t machines = 2;
};

Bytes HelloBody(MachineId from, MachineId to, const Identity& id, uint64_t epoch) {
  Bytes b;
  ByteWriter w(&b);
  w.U64(0x465462646d726166);  // "farmdbTF"
  w.U32(1), w.U32(from), w.U32(to), w.U32(id.machines), w.U64(id.configuration), w.U64(epoch);
  w.Bytes(Bytes(32, std::byte{0x42}));  // a test need not be unpredictable
  w.U32(static_cast<uint32_t>(id.name.size()));
  w.Bytes(std::as_bytes(std::span(id.name)));
  return b;
}

// The dialling side of the handshake, a step at a time.
struct RawDialler {
  explicit RawDialler(const std::string& address) : raw(RawSocket::Connect(address)) {}
  void Hello(MachineId from, MachineId to, const Identity& id, uint64_t proposed = 1) {
    transcript = HelloBody(from, to, id, proposed);
    raw.SendFrame(kHello, transcript);
  }
  // The epoch offered, or 0 when a REFUSE (kept in `refusal`) or nothing came instead.
  uint64_t Challenge() {
    auto f = raw.ReadFrame();
    if (!f || f->kind != kChallenge) {
      if (f && f->kind == kRefuse) Refused(*f);
      return 0;
    }
    transcript.insert(transcript.end(), f->body.begin(), f->body.end());
    return epoch = ByteReader(f->body).U64();
  }
  // Whether a WELCOME with the acceptor's proof came back.
  bool Prove(const std::string& secret) {
    raw.SendFrame(kProof, Mac(secret, kInitiator, transcript));
    auto f = raw.ReadFrame();
    if (f && f->kind == kRefuse) Refused(*f);
    return f && f->kind == kWelcome && f->body == Mac(secret, kAcceptor, transcript);
  }
  bool Handshake(MachineId from, MachineId to, const Identity& id = {}) {
    Hello(from, to, id);
    return Challenge() != 0 && Prove(id.secret);
  }
  // A WRITE of one word; returns its WRITE_ACK status, or -1 when none came.
  int64_t WriteWord(uint64_t op, uint64_t key, uint64_t offset, uint64_t value) {
    Bytes b;
    ByteWriter w(&b);
    w.U64(op), w.U64(key), w.U64(offset), w.U64(value);
    raw.SendFrame(kWrite, b);
    auto f = raw.ReadFrame(2s);
    if (!f || f->kind != kWriteAck) return -1;
    ByteReader r(f->body);
    return r.U64() == op ? r.U32() : -1;
  }
  void Refused(const Frame& f) {
    refusal.assign(reinterpret_cast<const char*>(f.body.data()), f.body.size());
  }
  RawSocket raw;
  Bytes transcript;
  uint64_t epoch = 0;
  std::string refusal;
};

// A listening socket on loopback that the test answers by hand, or never.
struct RawListener {
  explicit RawListener(int backlog = 16) {
    fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a = Loopback("");
    EXPECT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    EXPECT_EQ(listen(fd, backlog), 0);
    socklen_t length = sizeof a;
    getsockname(fd, reinterpret_cast<sockaddr*>(&a), &length);
    address = "127.0.0.1:" + std::to_string(ntohs(a.sin_port));
  }
  ~RawListener() { close(fd); }
  // The next connection (fd -1 if none came within `timeout`).
  RawSocket Accept(std::chrono::milliseconds timeout = kLong) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(timeout.count())) != 1) return RawSocket(-1);
    return RawSocket(accept4(fd, nullptr, nullptr, SOCK_CLOEXEC));
  }
  int fd;
  std::string address;
};

// ---- One-sided operations ----

// A process listens before it knows its machine id (ProcessCluster): a peer that dials the
// socket before the fabric runs waits in the backlog, and is served once it does.
TEST(TcpFabricTest, AListeningSocketMadeEarlierIsServed) {
  Logs logs;
  auto listener = TcpFabric::Listen("127.0.0.1:0");
  ASSERT_TRUE(listener.has_value()) << listener.error();
  std::string address = TcpFabric::ListenerAddress(*listener);
  EXPECT_NE(address, "127.0.0.1:0");
  auto dialler = StartFabric(Options(0, 2, logs));
  ASSERT_TRUE(dialler);
  ASSERT_TRUE(dialler->SetPeerAddress(1, address));
  Memory mem(1);
  auto early = dialler->Write(0, 1, 7, 0, Word(42));  // dials now; no fabric serves it yet
  std::this_thread::sleep_for(100ms);
  TcpFabricOptions o = Options(1, 2, logs);
  o.listen_address.clear();
  o.listen_fd = *listener;
  auto served = StartFabric(std::move(o));
  ASSERT_TRUE(served);
  EXPECT_EQ(served->address(), address);
  // The early write found no registered memory: it fails as such, not as unreachable.
  EXPECT_EQ(FailureOf(early), FabricError::kNotRegistered);
  served->Register(1, 7, mem.bytes());
  EXPECT_TRUE(Succeeds(dialler->Write(0, 1, 7, 0, Word(43))));
  EXPECT_EQ(mem.Load(0), 43u);
}

TEST(TcpFabricTest, RemoteWriteLandsAndRunsTheNotifier) {
  Cluster c(2);
  Memory mem(16), other(4);
  c.f[1]->Register(1, kKey, mem.bytes());
  c.f[1]->Register(1, kOtherKey, other.bytes());
  std::atomic<int> calls{0};
  std::atomic<bool> saw_bytes{true};
  std::atomic<bool> on_fabric_thread{true};
  const auto test_thread = std::this_thread::get_id();
  c.f[1]->SetWriteNotifier(1, kKey, [&] {
    if (mem.Load(1) == 0) saw_bytes = false;
    if (std::this_thread::get_id() == test_thread) on_fabric_thread = false;
    ++calls;
  });
  Bytes src(16, std::byte{0xab});
  ASSERT_TRUE(Succeeds(c.f[0]->Write(0, 1, kKey, 8, src)));
  // Done means the remote side has it: no wait needed.
  EXPECT_EQ(mem.Load(0), 0u);
  EXPECT_EQ(mem.Load(1), 0xababababababababu);
  EXPECT_EQ(mem.Load(2), 0xababababababababu);
  EXPECT_EQ(mem.Load(3), 0u);
  EXPECT_EQ(calls.load(), 1);
  EXPECT_TRUE(saw_bytes.load());
  EXPECT_TRUE(on_fabric_thread.load());
  ASSERT_TRUE(Succeeds(c.f[0]->Write(0, 1, kOtherKey, 0, Word(5))));  // no notifier for this key
  EXPECT_EQ(other.Load(0), 5u);
  EXPECT_EQ(calls.load(), 1);

  // On self: done inline, the notifier on the caller's thread.
  ASSERT_TRUE(Succeeds(c.f[1]->Write(1, 1, kKey, 0, Word(9))));
  EXPECT_EQ(mem.Load(0), 9u);
  EXPECT_EQ(calls.load(), 2);
  EXPECT_FALSE(on_fabric_thread.load());

  c.f[1]->SetWriteNotifier(1, kKey, nullptr);
  ASSERT_TRUE(Succeeds(c.f[0]->Write(0, 1, kKey, 0, Word(10))));
  EXPECT_EQ(calls.load(), 2);
  EXPECT_EQ(c.f[0]->Stats().connects, 1u);
  EXPECT_EQ(c.f[1]->Stats().accepts, 1u);
}

TEST(TcpFabricTest, RemoteReadReturnsTheRegisteredBytes) {
  Cluster c(2);
  Memory mem(128);
  for (size_t i = 0; i < mem.words.size(); ++i) mem.words[i] = i * 0x0101010101010101u;
  c.f[1]->Register(1, kKey, mem.bytes());
  Memory dst(64);
  ASSERT_TRUE(Succeeds(c.f[0]->Read(0, 1, kKey, 64 * 8, dst.bytes())));
  for (size_t i = 0; i < 64; ++i) ASSERT_EQ(dst.words[i], mem.words[64 + i]) << i;
  // On self, too.
  Memory local(2);
  ASSERT_TRUE(Succeeds(c.f[1]->Read(1, 1, kKey, 8, local.bytes())));
  EXPECT_EQ(local.words[0], mem.words[1]);
}

TEST(TcpFabricTest, UnregisteredOrOutOfRangeFailsAndTheConnectionStays) {
  Cluster c(2);
  Memory mem(8), dst(2);
  c.f[1]->Register(1, kKey, mem.bytes());
  ASSERT_TRUE(Succeeds(c.f[0]->Write(0, 1, kKey, 0, Word(1))));
  uint64_t epoch = c.f[0]->ConnectionEpoch(1);
  EXPECT_GT(epoch, 0u);

  EXPECT_EQ(FailureOf(c.f[0]->Write(0, 1, kOtherKey, 0, Word(2))), FabricError::kNotRegistered);
  EXPECT_EQ(FailureOf(c.f[0]->Read(0, 1, kOtherKey, 0, dst.bytes())), FabricError::kNotRegistered);
  EXPECT_EQ(FailureOf(c.f[0]->Write(0, 1, kKey, 64, Word(2))), FabricError::kOutOfRange);
  EXPECT_EQ(FailureOf(c.f[0]->Read(0, 1, kKey, 56, dst.bytes())), FabricError::kOutOfRange);
  EXPECT_EQ(FailureOf(c.f[0]->Write(0, 1, kKey, uint64_t{1} << 63, Word(2))),
            FabricError::kOutOfRange);
  EXPECT_EQ(FailureOf(c.f[1]->Write(1, 1, kOtherKey, 0, Word(2))), FabricError::kNotRegistered);
  EXPECT_EQ(mem.Load(0), 1u);

  ASSERT_TRUE(Succeeds(c.f[0]->Write(0, 1, kKey, 56, Word(3))));
  EXPECT_EQ(mem.Load(7), 3u);
  EXPECT_EQ(c.f[0]->ConnectionEpoch(1), epoch);
  EXPECT_EQ(c.f[0]->Stats().connects, 1u);
  EXPECT_EQ(c.f[0]->Stats().connections_lost, 0u);

  c.f[1]->Unregister(1, kKey);
  EXPECT_EQ(FailureOf(c.f[0]->Write(0, 1, kKey, 0, Word(4))), FabricError::kNotRegistered);
  EXPECT_EQ(FailureOf(c.f[0]->Write(0, 0, kKey, 0, Word(4))), FabricError::kNotRegistered);
}

// Per-pair issue order: every write to one word lands in order (the notifier sees each value
// one above the last), and a read issued after the k-th write sees exactly k.
TEST(TcpFabricTest, OperationsFromOneSenderTakeEffectInIssueOrder) {
  Cluster c(2);
  Memory mem(4);
  c.f[1]->Register(1, kKey, mem.bytes());
  uint64_t last = 0;  // fabric thread only
  std::atomic<uint64_t> out_of_order{0};
  c.f[1]->SetWriteNotifier(1, kKey, [&] {
    uint64_t v = mem.Load(0);
    if (v != last + 1) ++out_of_order;
    last = v;
  });
  constexpr uint64_t kWrites = 5000;
  std::vector<CompletionPtr> writes;
  std::vector<std::pair<uint64_t, std::unique_ptr<Memory>>> reads;
  std::vector<CompletionPtr> read_done;
  for (uint64_t v = 1; v <= kWrites; ++v) {
    writes.push_back(c.f[0]->Write(0, 1, kKey, 0, Word(v)));
    if (v % 250 == 0) {
      reads.emplace_back(v, std::make_unique<Memory>(1));
      read_done.push_back(c.f[0]->Read(0, 1, kKey, 0, reads.back().second->bytes()));
    }
  }
  for (auto& w : writes) ASSERT_TRUE(Succeeds(w));
  for (size_t i = 0; i < reads.size(); ++i) {
    ASSERT_TRUE(Succeeds(read_done[i]));
    EXPECT_EQ(reads[i].second->words[0], reads[i].first);
  }
  EXPECT_EQ(out_of_order.load(), 0u);
  Memory final_value(1);
  ASSERT_TRUE(Succeeds(c.f[0]->Read(0, 1, kKey, 0, final_value.bytes())));
  EXPECT_EQ(final_value.words[0], kWrites);
}

TEST(TcpFabricTest, LargeWriteReadAndMessage) {
  constexpr size_t kBytes = size_t{8} << 20;
  Cluster c(2, 20s);
  Memory mem(kBytes / 8);
  c.f[1]->Register(1, kKey, mem.bytes());
  Inbox inbox;
  c.f[1]->SetHandler(1, inbox.Handler());
  Memory src(kBytes / 8);
  for (size_t i = 0; i < src.words.size(); ++i) src.words[i] = i * 2654435761u + 1;
  ASSERT_TRUE(Succeeds(c.f[0]->Write(0, 1, kKey, 0, src.bytes())));
  EXPECT_TRUE(mem.words == src.words);
  Memory back(kBytes / 8);
  ASSERT_TRUE(Succeeds(c.f[0]->Read(0, 1, kKey, 0, back.bytes())));
  EXPECT_TRUE(back.words == src.words);

  Bytes body(src.bytes().begin(), src.bytes().end());
  c.f[0]->Send(1, Message{0, 77, body});
  ASSERT_TRUE(inbox.WaitForCount(1));
  std::lock_guard l(inbox.mu);
  EXPECT_EQ(inbox.got[0].from, 0u);
  EXPECT_EQ(inbox.got[0].type, 77);
  EXPECT_TRUE(inbox.got[0].body == body);
}

// ---- Messages ----

TEST(TcpFabricTest, MessagesArriveWithTheSenderTheFabricKnows) {
  constexpr int kMachines = 3, kEach = 200;
  Cluster c(kMachines);
  std::vector<Inbox> inboxes(kMachines);
  for (int m = 0; m < kMachines; ++m) c.f[m]->SetHandler(m, inboxes[m].Handler());
  std::vector<std::thread> senders;
  for (int m = 0; m < kMachines; ++m) {
    senders.emplace_back([&, m] {
      for (int i = 0; i < kEach; ++i) {
        for (int to = 0; to < kMachines; ++to) {
          if (to != m) c.f[m]->Send(to, Message{static_cast<MachineId>(m), 5, Word(m)});
        }
      }
    });
  }
  for (auto& t : senders) t.join();
  for (int m = 0; m < kMachines; ++m) {
    ASSERT_TRUE(inboxes[m].WaitForCount((kMachines - 1) * kEach));
    std::lock_guard l(inboxes[m].mu);
    std::vector<int> per_sender(kMachines);
    for (auto& msg : inboxes[m].got) {
      ASSERT_EQ(msg.from, AsWord(msg.body));  // the body says who really sent it
      ++per_sender[msg.from];
    }
    for (int s = 0; s < kMachines; ++s) EXPECT_EQ(per_sender[s], s == m ? 0 : kEach);
  }
}

TEST(TcpFabricTest, SelfSendsRunOnTheFabricThreadUnlessInlineIsAllowed) {
  Logs logs;
  auto f = StartFabric(Options(0, 1, logs));
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::pair<uint16_t, std::thread::id>> got;
  f->SetHandler(0, [&](Message m) {
    std::lock_guard l(mu);
    got.emplace_back(m.type, std::this_thread::get_id());
    cv.notify_all();
  });
  f->AllowInlineDelivery(0, 3);
  f->Send(0, Message{0, 3, {}});
  {
    std::lock_guard l(mu);
    ASSERT_EQ(got.size(), 1u);  // inline: already there
    EXPECT_EQ(got[0].second, std::this_thread::get_id());
  }
  f->Send(0, Message{0, 4, {}});
  std::unique_lock l(mu);
  ASSERT_TRUE(cv.wait_for(l, kLong, [&] { return got.size() == 2; }));
  EXPECT_EQ(got[1].first, 4);
  EXPECT_NE(got[1].second, std::this_thread::get_id());
}

// A handler that answers from the fabric thread: the reply goes out when the handler returns.
TEST(TcpFabricTest, HandlersMaySend) {
  Cluster c(2);
  Inbox replies;
  c.f[0]->SetHandler(0, replies.Handler());
  c.f[1]->SetHandler(1, [&](Message m) { c.f[1]->Send(m.from, Message{1, 2, m.body}); });
  for (uint64_t i = 0; i < 100; ++i) c.f[0]->Send(1, Message{0, 1, Word(i)});
  ASSERT_TRUE(replies.WaitForCount(100));
}

// ---- Concurrency ----

// Three machines, two threads each, writing, reading and messaging all others at once.
TEST(TcpFabricTest, AllToAllConcurrently) {
  constexpr int kMachines = 3, kThreads = 2, kRounds = 300;
  Cluster c(kMachines);
  std::vector<std::unique_ptr<Memory>> mem;
  std::vector<Inbox> inboxes(kMachines);
  for (int m = 0; m < kMachines; ++m) {
    mem.push_back(std::make_unique<Memory>(kMachines * kThreads));
    c.f[m]->Register(m, kKey, mem[m]->bytes());
    c.f[m]->SetHandler(m, inboxes[m].Handler());
  }
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int m = 0; m < kMachines; ++m) {
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, m, t] {
        uint64_t slot = (m * kThreads + t) * 8;
        for (uint64_t r = 1; r <= kRounds; ++r) {
          for (int to = 0; to < kMachines; ++to) {
            if (to == m) continue;
            auto w = c.f[m]->Write(m, to, kKey, slot, Word(r));
            Memory back(1);
            auto rd = c.f[m]->Read(m, to, kKey, slot, back.bytes());
            c.f[m]->Send(to, Message{static_cast<MachineId>(m), 1, Word(r)});
            // The read was issued after the write to the same slot by this thread: it sees r.
            bool wrote = Succeeds(w), read = Succeeds(rd);
            if (!wrote || !read || back.words[0] != r) ++failures;
          }
        }
      });
    }
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  for (int m = 0; m < kMachines; ++m) {
    for (int s = 0; s < kMachines; ++s) {
      for (int t = 0; t < kThreads; ++t) {
        EXPECT_EQ(mem[m]->Load(s * kThreads + t), s == m ? 0u : uint64_t{kRounds});
      }
    }
  }
  for (int m = 0; m < kMachines; ++m) {
    EXPECT_TRUE(inboxes[m].WaitForCount((kMachines - 1) * kThreads * kRounds));
  }
}

// A burst of operations to one peer leaves in a few send(2) calls, not one per operation.
TEST(TcpFabricTest, ABurstGoesOutInFewSystemCalls) {
  Cluster c(2);
  Memory mem(1024);
  c.f[1]->Register(1, kKey, mem.bytes());
  ASSERT_TRUE(Succeeds(c.f[0]->Write(0, 1, kKey, 0, Word(1))));  // connected
  constexpr int kOps = 10000;
  TcpFabricStats before = c.f[0]->Stats(), peer_before = c.f[1]->Stats();
  std::vector<CompletionPtr> done;
  for (int i = 0; i < kOps; ++i) done.push_back(c.f[0]->Write(0, 1, kKey, (i % 1024) * 8, Word(i)));
  for (auto& d : done) ASSERT_TRUE(Succeeds(d));
  TcpFabricStats after = c.f[0]->Stats(), peer_after = c.f[1]->Stats();
  uint64_t frames = after.frames_out - before.frames_out;
  uint64_t sends = after.sends - before.sends;
  uint64_t calls = after.SystemCalls() - before.SystemCalls();
  uint64_t peer_calls = peer_after.SystemCalls() - peer_before.SystemCalls();
  std::printf("burst of %d writes: sender %.3f send(2) and %.3f system calls per op, receiver "
              "%.3f recv(2) and %.3f system calls per op\n",
              kOps, double(sends) / kOps, double(calls) / kOps,
              double(peer_after.recvs - peer_before.recvs) / kOps, double(peer_calls) / kOps);
  EXPECT_EQ(frames, uint64_t{kOps});
  EXPECT_EQ(peer_after.frames_in - peer_before.frames_in, uint64_t{kOps});
  EXPECT_LT(sends, uint64_t{kOps} / 4);
  EXPECT_LT(calls, uint64_t{kOps});
}

// ---- Membership ----

TEST(TcpFabricTest, StrangersAreRefusedAndMembersKeepWorking) {
  Cluster c(2);
  Memory mem(4);
  c.f[1]->Register(1, kKey, mem.bytes());
  ASSERT_TRUE(Succeeds(c.f[0]->Write(0, 1, kKey, 0, Word(1))));
  const uint64_t epoch = c.f[0]->ConnectionEpoch(1);
  struct Stranger {
    const char* what;
    std::function<void(TcpFabricOptions&)> change;
    const char* logged;  // by the member
  };
  std::vector<Stranger> strangers = {
      {"wrong secret", [](auto& o) { o.secret = "guess"; }, "reason=\"wrong secret\""},
      {"wrong cluster name", [](auto& o) { o.cluster_name = "other"; }, "wrong cluster name"},
      {"wrong configuration", [](auto& o) { o.configuration_id = 2; }, "configuration 2,"},
      {"other cluster size", [](auto& o) { o.machines = 3; }, "cluster of 3 machines"},
  };
  for (auto& s : strangers) {
    SCOPED_TRACE(s.what);
    Logs own;
    auto o = Options(0, 2, own);  // claims to be machine 0, which is a member
    s.change(o);
    auto stranger = StartFabric(o);
    ASSERT_TRUE(stranger->SetPeerAddress(1, c.f[1]->address()));
    EXPECT_EQ(FailureOf(stranger->Write(0, 1, kKey, 0, Word(666))), FabricError::kRefused);
    EXPECT_EQ(own.Count("tcp_fabric.refused_by_peer"), 1u);
    EXPECT_EQ(c.logs.Count(s.logged), 1u);
    EXPECT_EQ(mem.Load(0), 1u);
    // The member's connection was not disturbed.
    ASSERT_TRUE(Succeeds(c.f[0]->Write(0, 1, kKey, 8, Word(2))));
    EXPECT_EQ(c.f[0]->ConnectionEpoch(1), epoch);
  }
  EXPECT_EQ(c.f[1]->Stats().refused, strangers.size());
  EXPECT_EQ(c.f[0]->Stats().connects, 1u);

  // Machine ids the cluster does not have, and a hello for someone else.
  struct Claim {
    MachineId from, to;
    const char* logged;
  };
  for (auto [from, to, logged] : {Claim{7, 1, "machine 7 is outside the cluster"},
                                  Claim{1, 1, "machine 1 is outside the cluster"},
                                  Claim{0, 0, "addressed to machine 0"}}) {
    RawDialler d(c.f[1]->address());
    d.Hello(from, to, Identity{});
    EXPECT_EQ(d.Challenge(), 0u);
    EXPECT_EQ(d.refusal, logged);
    EXPECT_TRUE(d.raw.ClosedWithin(kLong));
    EXPECT_EQ(c.logs.Count(logged), 1u);
  }
  ASSERT_TRUE(Succeeds(c.f[0]->Write(0, 1, kKey, 16, Word(3))));
  EXPECT_EQ(c.f[0]->ConnectionEpoch(1), epoch);
}

// The dialler checks the acceptor too: one that cannot prove the secret gets no operation.
TEST(TcpFabricTest, AnAcceptorWithoutTheSecretGetsNoOperations) {
  Logs logs;
  auto f = StartFabric(Options(0, 2, logs));
  RawListener impostor;
  ASSERT_TRUE(f->SetPeerAddress(1, impostor.address));
  auto write = f->Write(0, 1, kKey, 0, Word(1));
  RawSocket s = impostor.Accept();
  auto hello = s.ReadFrame();
  ASSERT_TRUE(hello && hello->kind == kHello);
  Bytes challenge(40, std::byte{7});
  std::memcpy(challenge.data(), Word(1).data(), 8);  // epoch 1
  s.SendFrame(kChallenge, challenge);
  auto proof = s.ReadFrame();
  ASSERT_TRUE(proof && proof->kind == kProof);
  s.SendFrame(kWelcome, Bytes(32, std::byte{0}));  // not a proof
  EXPECT_EQ(FailureOf(write), FabricError::kRefused);
  EXPECT_EQ(logs.Count("peer did not prove the secret"), 1u);
  // Nothing after the proof: the WRITE never went out.
  auto next = s.ReadFrame(200ms);
  EXPECT_FALSE(next.has_value()) << "frame kind " << next->kind;
}

// ---- Malformed input ----

TEST(TcpFabricTest, GarbageClosesOnlyThatConnection) {
  Cluster c(3);
  Memory mem(4);
  c.f[1]->Register(1, kKey, mem.bytes());
  ASSERT_TRUE(Succeeds(c.f[0]->Write(0, 1, kKey, 0, Word(1))));
  const uint64_t epoch = c.f[0]->ConnectionEpoch(1);
  auto op = [](uint64_t offset, size_t data_bytes) {
    Bytes b;
    ByteWriter w(&b);
    w.U64(1), w.U64(kKey), w.U64(offset), w.Bytes(Bytes(data_bytes));
    return b;
  };
  struct Case {
    const char* what;
    bool authenticate;  // as machine 2, which sends nothing itself in this test
    std::function<void(RawSocket&)> send;
    const char* logged;
  };
  std::string http = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
  std::vector<Case> cases = {
      {"not the protocol", false, [&](RawSocket& s) { s.Send(std::as_bytes(std::span(http))); },
       "unexpected frame kind=542393671"},
      {"oversize hello", false, [](RawSocket& s) { s.SendFrame(kHello, {}, 1 << 20); },
       "unexpected frame kind=1 length=1048576"},
      {"an operation before the handshake", false,
       [&](RawSocket& s) { s.SendFrame(kWrite, op(0, 8)); }, "unexpected frame kind=16"},
      {"unknown kind", true, [](RawSocket& s) { s.SendFrame(99, Bytes(8)); },
       "unexpected frame kind=99"},
      {"oversize message", true,
       [](RawSocket& s) { s.SendFrame(kMessage, {}, TcpFabric::kMaxPayload + 5); },
       "unexpected frame kind=18 length=67108869"},
      {"oversize length", true, [](RawSocket& s) { s.SendFrame(kWrite, {}, 0xfffffff8); },
       "unexpected frame kind=16 length=4294967288"},
      {"a partial word", true, [&](RawSocket& s) { s.SendFrame(kWrite, op(0, 4)); },
       "unexpected frame kind=16 length=28"},
      {"a misaligned offset", true, [&](RawSocket& s) { s.SendFrame(kWrite, op(4, 8)); },
       "reason=\"offset 4\""},
      {"an answer from the dialler", true, [](RawSocket& s) { s.SendFrame(kWriteAck, Bytes(16)); },
       "unexpected frame kind=19"},
      {"truncated frame", true,
       [](RawSocket& s) {
         s.SendFrame(kMessage, Bytes(10), 100);
         shutdown(s.fd(), SHUT_WR);
       },
       "truncated frame"},
  };
  uint64_t errors = c.f[1]->Stats().protocol_errors;
  for (auto& k : cases) {
    SCOPED_TRACE(k.what);
    RawDialler d(c.f[1]->address());
    if (k.authenticate) {
      ASSERT_TRUE(d.Handshake(2, 1, Identity{.machines = 3}));
    }
    k.send(d.raw);
    EXPECT_TRUE(d.raw.ClosedWithin(kLong));
    EXPECT_EQ(c.f[1]->Stats().protocol_errors, ++errors);
    EXPECT_EQ(c.logs.Count(k.logged), 1u);
    ASSERT_TRUE(Succeeds(c.f[0]->Write(0, 1, kKey, 8, Word(2))));
  }
  EXPECT_EQ(mem.Load(0), 1u);
  EXPECT_EQ(c.f[0]->ConnectionEpoch(1), epoch);
}

// ---- Epochs, lost peers, deadlines ----

TEST(TcpFabricTest, AShutDownPeerFailsPendingOpsAndARestartGetsANewerEpoch) {
  constexpr auto kTimeout = 2s;
  Logs logs;
  auto a = StartFabric(Options(0, 2, logs, kTimeout));
  auto b = StartFabric(Options(1, 2, logs, kTimeout));
  ASSERT_TRUE(a->SetPeerAddress(1, b->address()));
  Memory mem(128);
  b->Register(1, kKey, mem.bytes());
  ASSERT_TRUE(Succeeds(a->Write(0, 1, kKey, 0, Word(1))));
  const uint64_t first_epoch = a->ConnectionEpoch(1);

  // b's fabric thread is held in the notifier of one write, so the writes issued after it stay
  // unread in b's socket until b shuts down. The hold ends by itself after a while: Shutdown
  // joins that thread.
  std::mutex mu;
  std::condition_variable cv;
  bool entered = false;
  b->SetWriteNotifier(1, kKey, [&] {
    std::unique_lock l(mu);
    if (entered) return;
    entered = true;
    cv.notify_all();
    cv.wait_for(l, 1s);
  });
  auto held = a->Write(0, 1, kKey, 0, Word(2));
  {
    std::unique_lock l(mu);
    ASSERT_TRUE(cv.wait_for(l, kLong, [&] { return entered; }));
  }
  std::vector<CompletionPtr> pending;
  for (uint64_t i = 1; i < 100; ++i) pending.push_back(a->Write(0, 1, kKey, i * 8, Word(i)));
  auto stop_started = Clock::now();
  b->Shutdown();
  for (auto& p : pending) {
    ASSERT_TRUE(p->WaitFor(kTimeout + 3s - (Clock::now() - stop_started)));
    EXPECT_EQ(p->error(), FabricError::kConnectionLost);
  }
  EXPECT_TRUE(held->WaitFor(kLong));
  EXPECT_EQ(mem.Load(1), 0u);  // never applied
  EXPECT_EQ(logs.Count("tcp_fabric.connection_lost machine=1"), 1u);
  EXPECT_EQ(FailureOf(a->Write(0, 1, kKey, 0, Word(3))), FabricError::kUnreachable);

  const std::string address = b->address();
  b.reset();
  auto o = Options(1, 2, logs, kTimeout);
  o.listen_address = address;
  b = StartFabric(o);
  ASSERT_TRUE(b);
  Memory fresh(128);
  b->Register(1, kKey, fresh.bytes());
  ASSERT_TRUE(Succeeds(a->Write(0, 1, kKey, 0, Word(4))));  // after at most one backoff
  EXPECT_EQ(fresh.Load(0), 4u);
  EXPECT_GT(a->ConnectionEpoch(1), first_epoch);
}

// A connection superseded by a newer epoch of the same pair is closed: a frame sent on it
// afterwards is not applied. And a handshake that completes after a newer one is refused.
TEST(TcpFabricTest, FramesOfAnOlderEpochAreNotApplied) {
  Cluster c(2);
  Memory mem(4);
  c.f[1]->Register(1, kKey, mem.bytes());

  RawDialler old(c.f[1]->address());  // machine 0 in an earlier life
  ASSERT_TRUE(old.Handshake(0, 1));
  EXPECT_EQ(old.WriteWord(1, kKey, 0, 1), 0);
  EXPECT_EQ(mem.Load(0), 1u);

  ASSERT_TRUE(Succeeds(c.f[0]->Write(0, 1, kKey, 0, Word(2))));
  EXPECT_GT(c.f[0]->ConnectionEpoch(1), old.epoch);
  EXPECT_EQ(c.logs.Count("tcp_fabric.superseded machine=0 epoch=" + std::to_string(old.epoch)),
            1u);
  EXPECT_EQ(old.WriteWord(2, kKey, 0, 3), -1);
  EXPECT_TRUE(old.raw.ClosedWithin(kLong));
  EXPECT_EQ(mem.Load(0), 2u);

  // Offered an epoch, then overtaken by a newer handshake before it proves the secret.
  RawDialler slow(c.f[1]->address()), fast(c.f[1]->address());
  slow.Hello(0, 1, Identity{});
  ASSERT_GT(slow.Challenge(), 0u);
  ASSERT_TRUE(fast.Handshake(0, 1));
  EXPECT_GT(fast.epoch, slow.epoch);
  EXPECT_FALSE(slow.Prove(kSecret));
  EXPECT_EQ(slow.refusal, "epoch " + std::to_string(slow.epoch) + " is stale");
  EXPECT_EQ(fast.WriteWord(3, kKey, 0, 4), 0);
  EXPECT_EQ(mem.Load(0), 4u);
}

TEST(TcpFabricTest, UnreachablePeersFailAtOnce) {
  Logs logs;
  auto f = StartFabric(Options(0, 3, logs));
  Memory dst(1);
  EXPECT_EQ(FailureOf(f->Write(0, 1, kKey, 0, Word(1))), FabricError::kUnreachable);  // no address
  f->Send(1, Message{0, 1, {}});  // dropped
  std::string closed_port;
  {
    RawListener gone;
    closed_port = gone.address;
  }
  ASSERT_TRUE(f->SetPeerAddress(2, closed_port));
  auto start = Clock::now();
  EXPECT_EQ(FailureOf(f->Read(0, 2, kKey, 0, dst.bytes())), FabricError::kUnreachable);
  EXPECT_LT(Clock::now() - start, 2s);  // refused, not waiting out the 5 s deadline
  EXPECT_FALSE(f->SetPeerAddress(1, "no-port"));
  EXPECT_FALSE(f->SetPeerAddress(0, "127.0.0.1:1"));  // self
  EXPECT_FALSE(TcpFabric::Start(Options(3, 3, logs)));
  auto no_secret = Options(0, 3, logs);
  no_secret.secret.clear();
  EXPECT_FALSE(TcpFabric::Start(no_secret));
}

// Peers that stop answering: one whose listen queue is full (the connect does not complete, or
// the hello is never read), and one that completes the handshake and then goes silent. Each
// operation fails at its deadline and the connection is reset.
TEST(TcpFabricTest, AStalledPeerFailsOperationsAtTheDeadline) {
  constexpr auto kTimeout = 300ms;
  Logs logs;
  auto f = StartFabric(Options(0, 3, logs, kTimeout));
  RawListener full(0);
  std::vector<RawSocket> fillers;
  for (int i = 0; i < 2; ++i) fillers.push_back(RawSocket::Connect(full.address, false));
  ASSERT_TRUE(f->SetPeerAddress(1, full.address));
  auto start = Clock::now();
  auto w = f->Write(0, 1, kKey, 0, Word(1));
  EXPECT_EQ(FailureOf(w), FabricError::kTimedOut);
  EXPECT_GE(Clock::now() - start, kTimeout);
  EXPECT_LT(Clock::now() - start, kTimeout + 3s);

  RawListener silent;
  ASSERT_TRUE(f->SetPeerAddress(2, silent.address));
  auto first = f->Write(0, 2, kKey, 0, Word(1));
  RawSocket s = silent.Accept();
  auto hello = s.ReadFrame();
  ASSERT_TRUE(hello && hello->kind == kHello);
  Bytes transcript = hello->body;
  Bytes challenge(40, std::byte{9});
  std::memcpy(challenge.data(), Word(1).data(), 8);
  transcript.insert(transcript.end(), challenge.begin(), challenge.end());
  s.SendFrame(kChallenge, challenge);
  auto proof = s.ReadFrame();
  ASSERT_TRUE(proof && proof->body == Mac(kSecret, kInitiator, transcript));
  start = Clock::now();
  s.SendFrame(kWelcome, Mac(kSecret, kAcceptor, transcript));
  auto write = s.ReadFrame();  // the operation arrives, and is never answered
  ASSERT_TRUE(write && write->kind == kWrite);
  EXPECT_EQ(FailureOf(first), FabricError::kTimedOut);
  EXPECT_LT(Clock::now() - start, kTimeout + 3s);
  EXPECT_TRUE(s.ClosedWithin(kLong));  // reset
  EXPECT_EQ(f->ConnectionEpoch(2), 1u);
  EXPECT_EQ(logs.Count("tcp_fabric.timed_out"), 2u);
}

TEST(TcpFabricTest, ShutdownWithOperationsInFlightReturnsPromptly) {
  Logs logs;
  auto f = StartFabric(Options(0, 2, logs, 60s));
  RawListener silent;
  ASSERT_TRUE(f->SetPeerAddress(1, silent.address));
  std::vector<CompletionPtr> pending;
  std::vector<std::unique_ptr<Memory>> dsts;
  for (int i = 0; i < 100; ++i) {
    pending.push_back(f->Write(0, 1, kKey, 0, Word(i)));
    dsts.push_back(std::make_unique<Memory>(1));
    pending.push_back(f->Read(0, 1, kKey, 0, dsts.back()->bytes()));
  }
  RawSocket s = silent.Accept();
  ASSERT_TRUE(s.ReadFrame().has_value());  // the hello: the fabric is waiting for an answer
  auto start = Clock::now();
  f->Shutdown();
  EXPECT_LT(Clock::now() - start, 1s);
  for (auto& p : pending) {
    ASSERT_TRUE(p->Done());
    EXPECT_EQ(p->error(), FabricError::kShutdown);
  }
  EXPECT_EQ(FailureOf(f->Write(0, 1, kKey, 0, Word(1))), FabricError::kShutdown);
  EXPECT_EQ(FailureOf(f->Write(0, 0, kKey, 0, Word(1))), FabricError::kShutdown);
  EXPECT_TRUE(s.ClosedWithin(kLong));
  f->Shutdown();  // again: nothing
}

// Shutdown racing with callers that ring the fabric thread: a ring the thread consumed in its
// last round may have been Shutdown's, and must not leave it asleep. A hang aborts the test.
TEST(TcpFabricTest, ShutdownRacingWithRingsReturns) {
  for (int round = 0; round < 200; ++round) {
    Logs logs;
    auto f = StartFabric(Options(0, 1, logs));
    f->SetHandler(0, [](Message) {});
    std::atomic<bool> stop{false};
    std::thread ringer([&] {
      while (!stop) f->Send(0, Message{0, 1, {}});
    });
    std::this_thread::sleep_for(std::chrono::microseconds(round % 20 * 50));
    auto shutdown = std::async(std::launch::async, [&] { f->Shutdown(); });
    if (shutdown.wait_for(kLong) != std::future_status::ready) {
      std::fprintf(stderr, "Shutdown hung in round %d\n", round);
      std::abort();
    }
    stop = true;
    ringer.join();
  }
}

TEST(TcpFabricTest, CompletionWaitForTimesOutOrWakes) {
  Completion c;
  auto start = Clock::now();
  EXPECT_FALSE(c.WaitFor(20ms));
  EXPECT_GE(Clock::now() - start, 20ms);
  std::thread finisher([&] {
    std::this_thread::sleep_for(20ms);
    c.Fail(FabricError::kTimedOut);
  });
  EXPECT_TRUE(c.WaitFor(kLong));
  EXPECT_LT(Clock::now() - start, kLong);
  finisher.join();
  EXPECT_FALSE(c.ok());
  EXPECT_EQ(c.error(), FabricError::kTimedOut);
  c.Wait();  // done: returns at once
  EXPECT_TRUE(c.WaitFor(0ns));
}

}  // namespace
}  // namespace farmdb::cluster
