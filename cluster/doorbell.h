// Doorbell: lets one thread sleep while idle and be woken promptly when work arrives, without the
// ringer paying for a wake-up while the sleeper is busy (DESIGN.md §3: waits go through one
// interface; this is the participant thread's).
//
// Ring() bumps a counter and wakes the sleeper only if one is waiting. The sleeper reads Count()
// before it looks for work and passes it to Wait(), which returns as soon as the counter differs
// (so a ring between the look and the wait is never lost) or after the timeout.
// Thread-safe; any number of ringers, one or more sleepers.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace farmdb::cluster {

class Doorbell {
 public:
  uint64_t Count() const { return count_.load(std::memory_order_seq_cst); }

  void Ring() {
    count_.fetch_add(1, std::memory_order_seq_cst);
    // seq_cst on both sides: either this load sees the sleeper registered, or the sleeper's
    // predicate (checked after registering) sees the new count.
    if (sleepers_.load(std::memory_order_seq_cst) == 0) return;
    { std::lock_guard l(mu_); }
    cv_.notify_all();
  }

  void Wait(uint64_t seen, std::chrono::microseconds timeout) {
    sleepers_.fetch_add(1, std::memory_order_seq_cst);
    {
      std::unique_lock l(mu_);
      cv_.wait_for(l, timeout, [&] { return Count() != seen; });
    }
    sleepers_.fetch_sub(1, std::memory_order_seq_cst);
  }

 private:
  std::atomic<uint64_t> count_{0};
  std::atomic<int> sleepers_{0};
  std::mutex mu_;
  std::condition_variable cv_;
};

}  // namespace farmdb::cluster
