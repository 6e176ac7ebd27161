// TcpFabric: the Fabric between processes (DESIGN.md "cluster/ Fabric", `tcp`). One instance per
// process serves one machine, `self`; every other machine is a peer process reached over TCP.
//
// One fabric thread stands in for the NIC (DESIGN.md §4): it owns every socket (epoll,
// nonblocking, TCP_NODELAY), serves the one-sided reads and writes peers send against `self`'s
// registered memory without waking any other thread, runs write notifiers and message handlers,
// and enforces deadlines. A caller only encodes its operation into the peer's outbox and rings
// the thread (an eventfd write, skipped unless the thread may be going to sleep), so a burst of
// operations to one peer leaves in one send(2), and a receiver parses every frame one recv(2)
// brought.
// Operations on `self` run inline in the caller, as LocalFabric runs them.
//
// Connections: one per ordered pair, dialled by the sender. A->B carries A's operations and
// messages to B and B's answers to A, in one TCP stream that B's fabric thread processes in
// order: that is the per-pair issue order fabric.h promises, and no two sides ever race to dial
// each other. Each connection starts with a handshake (FORMATS.md "TCP fabric") that checks the
// cluster name, configuration id and machine ids, proves on both sides that they know the shared
// secret (HMAC-SHA256 over both sides' nonces; the secret never crosses), and agrees an epoch
// above every earlier one of the pair. Once a newer epoch is established the receiver closes the
// older connection, so no frame of it is applied after one of the newer.
//
// Failure: when a connection breaks, is refused or stops answering, every operation issued to
// that peer and not yet answered fails (ok() false, error() says why); none is sent again. The
// next operation dials again, after a backoff that doubles on each failed dial (bounded by
// `max_reconnect_backoff` and half the operation timeout). Messages in flight are lost, as
// fabric.h allows under faults. Every operation finishes by `operation_timeout` after its issue
// (give or take the fabric thread's millisecond wake-ups).
//
// Not here: encryption or integrity after the handshake (an on-path attacker can read or alter
// the stream: run it on a trusted network), and inline delivery to remote machines
// (AllowInlineDelivery only lets self-sends run their handler on the sender's thread).
//
// Thread-safe. Handlers and notifiers run on the fabric thread (operations on `self`: on the
// caller's). Sending from a handler is fine; it is sent when the handler returns.
#pragma once

#include <array>
#include <chrono>
#include <expected>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <thread>
#include <vector>

#include "cluster/fabric/fabric.h"

namespace farmdb::cluster {

struct TcpFabricOptions {
  MachineId self = kNoMachine;
  int machines = 0;
  std::string listen_address;  // "HOST:PORT" (numeric host; IPv6 as "[::1]:PORT"); port 0: any
  // A listening socket (Listen) to serve on instead of listen_address; the fabric owns it. A
  // process learns its port before it knows its machine id so, and peers that dial it before
  // the fabric starts wait in the backlog.
  int listen_fd = -1;
  std::string cluster_name;    // must match the peer's (at most 255 bytes)
  std::string secret;          // must match the peer's; never sent; not empty
  uint64_t configuration_id = 1;
  // The deadline of every operation from its issue (connecting included), of a handshake, and
  // of a send that makes no progress; past it the connection is reset.
  std::chrono::milliseconds operation_timeout{2000};
  std::chrono::milliseconds max_reconnect_backoff{200};
  // Refused handshakes, protocol errors and lost connections, one line each ("event key=value
  // ..."); called on the fabric thread. Empty: stderr.
  std::function<void(const std::string&)> log;
};

// Counters since Start, for "system calls per fabric operation" (SystemCalls() / frames_out).
struct TcpFabricStats {
  uint64_t sends = 0;         // send(2) on sockets
  uint64_t recvs = 0;         // recv(2) on sockets
  uint64_t polls = 0;         // epoll_wait(2) returns
  uint64_t rings = 0;         // eventfd writes (callers) and reads (the fabric thread)
  uint64_t other_calls = 0;   // socket, connect, accept4, (get|set)sockopt, epoll_ctl, close,
                              // sched_yield
  uint64_t frames_out = 0;    // after the handshake
  uint64_t frames_in = 0;
  uint64_t bytes_out = 0;
  uint64_t bytes_in = 0;
  uint64_t connects = 0;      // handshakes completed as the dialling side
  uint64_t accepts = 0;       // handshakes completed as the accepting side
  uint64_t refused = 0;       // handshakes refused, by either side
  uint64_t protocol_errors = 0;
  uint64_t connections_lost = 0;  // open connections that broke, timed out or were superseded
  uint64_t SystemCalls() const { return sends + recvs + polls + rings + other_calls; }
};

class TcpFabric final : public Fabric {
 public:
  // Binds and listens on options.listen_address (or takes options.listen_fd) and starts the
  // fabric thread.
  static std::expected<std::unique_ptr<TcpFabric>, std::string> Start(TcpFabricOptions options);
  // A nonblocking listening socket bound to `address` ("HOST:PORT", port 0: any), and the
  // "HOST:PORT" it is bound to.
  static std::expected<int, std::string> Listen(const std::string& address);
  static std::string ListenerAddress(int listen_fd);
  ~TcpFabric() override;  // Shutdown()
  TcpFabric(const TcpFabric&) = delete;
  TcpFabric& operator=(const TcpFabric&) = delete;

  // The bound "HOST:PORT" (the chosen port when the options asked for port 0).
  const std::string& address() const { return address_; }
  // Where to reach `m` ("HOST:PORT", numeric host), from its next connection on; an open
  // connection stays. Until set, operations to `m` fail at once (kUnreachable).
  std::expected<void, std::string> SetPeerAddress(MachineId m, const std::string& host_port);
  // Fails every pending operation (kShutdown), closes every connection and joins the fabric
  // thread; later operations fail at once and messages are dropped. Idempotent. REQUIRES: not
  // called from a handler or notifier (it joins the thread they run on).
  void Shutdown();
  TcpFabricStats Stats() const;
  // The epoch of the latest connection to `m` this fabric opened (0: none yet).
  uint64_t ConnectionEpoch(MachineId m) const;

  // Fabric. REQUIRES (checked: a violation aborts): `owner`, `from`, msg.from and the handler's
  // `m` are `self`; Read/Write offsets and lengths multiples of 8; lengths and message bodies at
  // most kMaxPayload.
  static constexpr size_t kMaxPayload = size_t{64} << 20;
  int machines() const override { return options_.machines; }
  void Register(MachineId owner, uint64_t key, std::span<std::byte> mem) override;
  void Unregister(MachineId owner, uint64_t key) override;
  void SetWriteNotifier(MachineId owner, uint64_t key, std::function<void()> notify) override;
  CompletionPtr Read(MachineId from, MachineId to, uint64_t key, uint64_t offset,
                     std::span<std::byte> dst) override;
  CompletionPtr Write(MachineId from, MachineId to, uint64_t key, uint64_t offset,
                      std::span<const std::byte> src) override;
  void Send(MachineId to, Message msg) override;
  void SetHandler(MachineId m, MessageHandler handler) override;
  void AllowInlineDelivery(MachineId m, uint16_t type) override;

 private:
  struct Peer;
  struct Conn;
  struct Counters;
  explicit TcpFabric(TcpFabricOptions options);

  // Caller side.
  void Require(bool holds, const char* what) const;
  void CheckOneSided(MachineId from, MachineId to, uint64_t offset, size_t length) const;
  // Runs `access(bytes)` on [offset, offset + length) of `self`'s memory registered under `key`,
  // under mem_mu_ shared (so Unregister waits for it), or says why it cannot.
  template <typename Access>
  FabricError WithMemory(uint64_t key, uint64_t offset, uint64_t length, Access access);
  FabricError ApplyWrite(uint64_t key, uint64_t offset, std::span<const std::byte> src);
  // Queues a frame to peer `to` (`encode` writes it, given the operation id); one that
  // `wants_answer` waits for it and returns its completion.
  template <typename Encode>
  CompletionPtr Issue(MachineId to, bool is_read, std::span<std::byte> dst, bool wants_answer,
                      Encode encode);
  void Ring();
  std::shared_ptr<const MessageHandler> CurrentHandler();
  void Log(std::string line) const;

  // Fabric thread. A function returning false has logged why (Fault) and wants `c` dropped.
  void Loop();
  Conn& NewConn(int fd, bool outgoing);
  void Accept();
  void Dial(MachineId m);
  void OnEvent(uint64_t conn_id, uint32_t events);
  bool OnConnected(Conn& c);
  bool Receive(Conn& c);
  bool HandleFrame(Conn& c, uint32_t kind, std::span<const std::byte> body);
  bool OnHello(Conn& c, std::span<const std::byte> body);
  bool OnChallenge(Conn& c, std::span<const std::byte> body);
  bool OnProof(Conn& c, std::span<const std::byte> body);
  bool OnWelcome(Conn& c, std::span<const std::byte> body);
  bool OnRequest(Conn& c, uint32_t kind, std::span<const std::byte> body);
  bool OnAnswer(Conn& c, uint32_t kind, std::span<const std::byte> body);
  bool Fault(Conn& c, FabricError why, const std::string& event, const std::string& detail);
  bool ProtocolError(Conn& c, const std::string& detail);
  bool Refuse(Conn& c, const std::string& reason);
  bool Flush(Conn& c);
  void Watch(Conn& c);
  // Closes the connection; one of ours fails its peer's operations and sets the backoff.
  void Drop(uint64_t conn_id);
  // Fails every operation issued to `m` and not answered, and empties its outbox.
  void FailPeer(MachineId m, FabricError why);
  void DeliverSelfMessages();
  // Dials peers with output and no connection; hands open connections their outbox.
  void ServicePeers(std::chrono::steady_clock::time_point now);
  // Fails what passed its deadline; returns the epoll_wait timeout until the next one.
  int ExpireDeadlines(std::chrono::steady_clock::time_point now);

  const TcpFabricOptions options_;
  std::string address_;
  int listen_fd_ = -1;
  int epoll_fd_ = -1;
  int ring_fd_ = -1;  // eventfd: callers wake the fabric thread
  std::atomic<bool> ring_pending_{false};
  std::atomic<int> ring_cpu_{-1};  // the CPU the last ringing caller ran on
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::unique_ptr<Counters> counters_;

  mutable std::shared_mutex mem_mu_;
  std::map<uint64_t, std::span<std::byte>> memory_;           // under mem_mu_
  std::map<uint64_t, std::function<void()>> notifiers_;       // under mem_mu_

  std::mutex handler_mu_;
  std::shared_ptr<const MessageHandler> handler_;  // under handler_mu_
  std::array<std::atomic<bool>, kMaxInlineTypes> inline_types_{};
  std::mutex self_mu_;
  std::vector<Message> self_inbox_;  // sends to self for the fabric thread; under self_mu_

  std::vector<std::unique_ptr<Peer>> peers_;  // [machine]; null for self

  // Fabric thread only (and Shutdown, after joining it).
  std::map<uint64_t, std::unique_ptr<Conn>> conns_;
  uint64_t next_conn_id_ = 2;  // 0: the eventfd, 1: the listener (epoll data)
  std::vector<uint64_t> handed_epoch_;    // [machine]: the highest epoch offered to it
  std::vector<uint64_t> accepted_epoch_;  // [machine]: the epoch of its newest accepted connection
};

}  // namespace farmdb::cluster
