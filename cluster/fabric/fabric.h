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

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "cluster/types.h"

namespace farmdb::cluster {

// What a registered memory key names: kind in the high 32 bits, an id in the low 32.
enum class MemKind : uint32_t { kRegion = 1, kLog = 2, kLogHead = 3 };
inline constexpr uint64_t MemKey(MemKind kind, uint32_t id) {
  return (uint64_t{static_cast<uint32_t>(kind)} << 32) | id;
}

// Completion of one one-sided operation. ok is false if the target memory is not registered.
class Completion {
 public:
  bool Done() const { return done_.load(std::memory_order_acquire); }
  void Wait() const { done_.wait(false, std::memory_order_acquire); }
  bool ok() const { return ok_; }
  void Finish(bool ok) {
    ok_ = ok;
    done_.store(true, std::memory_order_release);
    done_.notify_all();
  }

 private:
  bool ok_ = false;  // written before done_ is released
  std::atomic<bool> done_{false};
};
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
