// Fabric: the transport between machines (DESIGN.md "cluster/ Fabric"). Every byte that crosses
// machines goes through it; nothing above may assume two machines share memory otherwise.
//
// - Registered memory: a machine registers spans of its memory under a 64-bit key.
// - One-sided Read/Write of registered memory at (machine, key, offset), word-granular (see
//   word_copy.h for the ordering contract). The completion means "the remote side has it" (for
//   a write: the bytes are in the receiver's memory; for a read: the bytes are in dst).
//   Ordering: one-sided operations from one machine to another take effect in the order they
//   were issued (as on an RDMA reliable connection), whatever their delays; operations between
//   different pairs are unordered. Callers may rely on it (e.g. a later write to the same word
//   wins) but not on completions being signalled in order.
// - Messages: delivered to the receiver's handler on the receiver's fabric thread, in no
//   particular order under faults; handlers must be quick (hand longer work to another thread).
//   A receiver may mark a message type inline-deliverable: an implementation may then run its
//   handler on the sender's thread, as a receiving NIC would without handing the message to
//   another thread (each hand-off costs two thread switches).
// Implementations are thread-safe.
#pragma once

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <climits>
#include <cstdint>
#include <ctime>
#include <functional>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "cluster/types.h"

namespace farmdb::cluster {

// What a registered memory key names: kind in the high 32 bits, an id in the low 32.
enum class MemKind : uint32_t { kRegion = 1, kLog = 2, kLogHead = 3 };
inline constexpr uint64_t MemKey(MemKind kind, uint32_t id) {
  return (uint64_t{static_cast<uint32_t>(kind)} << 32) | id;
}

// Why a one-sided operation failed. kNone while it has not, and for a failure its fabric gave
// no reason for (LocalFabric gives none: its only failure is memory not registered or out of
// range, or Shutdown).
enum class FabricError : uint8_t {
  kNone = 0,
  kNotRegistered = 1,   // the target key is not registered at the target
  kOutOfRange = 2,      // offset + length past the registered span
  kUnreachable = 3,     // no address for the target, or no connection to it could be made
  kRefused = 4,         // the handshake was refused: another cluster, secret or configuration
  kConnectionLost = 5,  // the connection broke while the operation was pending (it may or may
                        // not have taken effect; it is not sent again)
  kTimedOut = 6,        // no answer within the fabric's deadline (the connection is reset)
  kShutdown = 7,        // the fabric was shut down
};

inline std::string_view FabricErrorName(FabricError e) {
  switch (e) {
    case FabricError::kNone: return "none";
    case FabricError::kNotRegistered: return "not registered";
    case FabricError::kOutOfRange: return "out of range";
    case FabricError::kUnreachable: return "unreachable";
    case FabricError::kRefused: return "refused";
    case FabricError::kConnectionLost: return "connection lost";
    case FabricError::kTimedOut: return "timed out";
    case FabricError::kShutdown: return "shut down";
  }
  return "unknown";
}

// Completion of one one-sided operation. ok is false if the target memory is not registered,
// or (a fabric between processes) the operation failed otherwise; error() says why.
class Completion {
 public:
  bool Done() const { return (state_.load(std::memory_order_acquire) & kDone) != 0; }
  void Wait() const {
    for (uint32_t s = state_.load(std::memory_order_acquire); (s & kDone) == 0;
         s = state_.load(std::memory_order_acquire)) {
      state_.wait(s, std::memory_order_acquire);
    }
  }
  // Waits at most `timeout`; returns Done().
  bool WaitFor(std::chrono::nanoseconds timeout) const;
  bool ok() const { return ok_; }
  FabricError error() const { return error_; }
  void Finish(bool ok) {
    ok_ = ok;
    Publish();
  }
  void Fail(FabricError why) {
    error_ = why;
    Finish(false);
  }

 private:
  static constexpr uint32_t kDone = 1;
  // Set by WaitFor, which sleeps in futex(2) itself (std::atomic::wait has no timeout), so that
  // Publish wakes it; plain Wait()ers are woken by notify_all. Without one, Finish costs an
  // atomic or instead of a store.
  static constexpr uint32_t kTimedWaiter = 2;

  void Publish() {
    if (state_.fetch_or(kDone, std::memory_order_release) & kTimedWaiter) {
      syscall(SYS_futex, FutexWord(), FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr, 0);
    }
    state_.notify_all();
  }
  // std::atomic<uint32_t> has the representation of a uint32_t (libstdc++ waits on it so too).
  uint32_t* FutexWord() const { return reinterpret_cast<uint32_t*>(&state_); }

  bool ok_ = false;                         // written before kDone is released
  FabricError error_ = FabricError::kNone;  // likewise
  mutable std::atomic<uint32_t> state_{0};
};

inline bool Completion::WaitFor(std::chrono::nanoseconds timeout) const {
  if (Done()) return true;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  uint32_t s = state_.fetch_or(kTimedWaiter, std::memory_order_acquire) | kTimedWaiter;
  while ((s & kDone) == 0) {
    auto left = deadline - std::chrono::steady_clock::now();
    if (left <= std::chrono::nanoseconds::zero()) return false;
    auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(left).count();
    timespec relative{static_cast<time_t>(ns / 1'000'000'000),
                      static_cast<long>(ns % 1'000'000'000)};
    // Returns at once if the word is no longer `s` (Finish came first): no wake-up is lost.
    syscall(SYS_futex, FutexWord(), FUTEX_WAIT_PRIVATE, s, &relative, nullptr, 0);
    s = state_.load(std::memory_order_acquire);
  }
  return true;
}

using CompletionPtr = std::shared_ptr<Completion>;

struct Message {
  MachineId from = kNoMachine;
  uint16_t type = 0;
  std::vector<std::byte> body;
};
using MessageHandler = std::function<void(Message)>;

class Fabric {
 public:
  virtual ~Fabric() = default;
  virtual int machines() const = 0;

  // REQUIRES: mem 8-byte aligned and stays valid until Unregister returns.
  virtual void Register(MachineId owner, uint64_t key, std::span<std::byte> mem) = 0;
  virtual void Unregister(MachineId owner, uint64_t key) = 0;
  // Runs `notify` after each one-sided write to (owner, key) has landed, on whichever thread
  // executed the write: what an RDMA write-with-immediate completing at the receiver gives (or a
  // TCP fabric thread signalling after it copied the bytes), so the owner's poller can sleep
  // while idle and still wake at once. Empty clears it; clearing returns once no call of the old
  // one is running. `notify` must be quick and must not call the fabric.
  virtual void SetWriteNotifier(MachineId owner, uint64_t key, std::function<void()> notify) = 0;

  // REQUIRES: offset and dst.size() multiples of 8; dst valid until completion.
  virtual CompletionPtr Read(MachineId from, MachineId to, uint64_t key, uint64_t offset,
                             std::span<std::byte> dst) = 0;
  // src is copied before Write returns.
  virtual CompletionPtr Write(MachineId from, MachineId to, uint64_t key, uint64_t offset,
                              std::span<const std::byte> src) = 0;

  virtual void Send(MachineId to, Message msg) = 0;
  // The handler runs on `m`'s fabric thread. Set before traffic starts.
  virtual void SetHandler(MachineId m, MessageHandler handler) = 0;
  // Lets messages of `type` to `m` run their handler on the sender's thread. The receiver
  // promises that the handler is quick, runs safely concurrently with its other handlers, and
  // takes no lock that a sender may hold while it sends. REQUIRES: type < kMaxInlineTypes.
  static constexpr uint16_t kMaxInlineTypes = 128;
  virtual void AllowInlineDelivery(MachineId m, uint16_t type) = 0;
};

}  // namespace farmdb::cluster
