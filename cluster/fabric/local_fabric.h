// LocalFabric: N machines in one process (the single-node default and the test harness).
//
// Each machine has a fabric thread standing in for its NIC: it executes one-sided operations that
// target the machine and delivers its messages. With no fault active for an operation, reads and
// writes run inline in the caller (a fast NIC), and so do the handlers of messages whose type the
// receiver allowed inline delivery of; anything delayed, paused or partitioned is queued and
// retried by the target's fabric thread, and so are all other messages.
// A write notifier runs on whichever thread executed the write (the writer's, or the fabric
// thread for a queued one), after the bytes landed.
//
// Fault hooks (all seeded through the constructor's seed, changeable at run time):
//   - delay: each op/message waits a uniform random time in [min_delay, max_delay]; different
//     delays reorder messages, but one-sided operations from one machine to another still take
//     effect in issue order (the Fabric contract, fabric.h): a delayed operation holds back the
//     later ones of its pair;
//   - drop: messages whose type is in droppable_types are dropped with drop_probability
//     (one-sided operations model reliable connections and are never dropped);
//   - partition: operations between a cut pair stall until healed;
//   - pause: operations and messages to a paused machine stall until resumed (the machine's own
//     threads poll IsPaused()).
// Thread-safe.
#pragma once

#include <array>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <shared_mutex>
#include <thread>
#include <vector>

#include "cluster/fabric/fabric.h"
#include "cluster/rng.h"

namespace farmdb::cluster {

struct FaultPolicy {
  std::chrono::microseconds min_delay{0};
  std::chrono::microseconds max_delay{0};
  double drop_probability = 0;
  std::vector<uint16_t> droppable_types;
};

class LocalFabric final : public Fabric {
 public:
  LocalFabric(int machines, uint64_t seed);
  ~LocalFabric() override;
  LocalFabric(const LocalFabric&) = delete;
  LocalFabric& operator=(const LocalFabric&) = delete;

  int machines() const override { return static_cast<int>(nics_.size()); }
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

  void SetFaults(const FaultPolicy& policy);
  void SetPartitioned(MachineId a, MachineId b, bool cut);
  void SetPaused(MachineId m, bool paused);
  bool IsPaused(MachineId m) const;
  // Stops the fabric threads (pending operations are failed). Called by the destructor.
  void Shutdown();

 private:
  enum class OpKind { kRead, kWrite, kMessage };
  struct Op {
    std::chrono::steady_clock::time_point due;
    OpKind kind;
    MachineId from;
    uint64_t key = 0;
    uint64_t offset = 0;
    std::span<std::byte> dst;
    std::vector<std::byte> data;  // write source or message body
    uint16_t type = 0;
    CompletionPtr completion;
  };
  // Per (sender, target) ordering of one-sided operations. Lock order: Pair::mu before Nic::mu.
  struct Pair {
    std::mutex mu;
    std::chrono::steady_clock::time_point last_due;  // of the latest queued op; guarded by mu
    int pending = 0;  // queued or executing on the fabric thread; guarded by mu
  };
  struct Nic {
    std::vector<std::unique_ptr<Pair>> pairs;  // [sender]; fixed after construction
    std::mutex mu;
    std::condition_variable cv;
    // By due time; equal due times keep arrival order (multimap inserts after equal keys), so
    // taking the first ready entry is O(log n) and never scans the whole queue.
    std::multimap<std::chrono::steady_clock::time_point, Op> queue;
    MessageHandler handler;
    std::array<std::atomic<bool>, kMaxInlineTypes> inline_types{};
    std::atomic<bool> paused{false};
    std::thread thread;
  };

  bool Blocked(MachineId from, MachineId to) const;
  // Returns the delay for a new operation, or zero; draws from the seeded rng.
  std::chrono::microseconds DrawDelay(bool* drop, uint16_t type, bool is_message);
  bool Execute(MachineId to, const Op& op);
  void Enqueue(MachineId to, Op op);
  // Runs a one-sided op inline if nothing of its pair is queued and it needs no delay, else
  // queues it no earlier than the pair's previous op.
  CompletionPtr SubmitOneSided(MachineId to, Op op, std::chrono::microseconds delay);
  void NicLoop(MachineId m);

  mutable std::shared_mutex mem_mu_;
  std::map<std::pair<MachineId, uint64_t>, std::span<std::byte>> memory_;
  std::map<std::pair<MachineId, uint64_t>, std::function<void()>> notifiers_;  // under mem_mu_

  mutable std::mutex fault_mu_;
  FaultPolicy policy_;
  std::set<std::pair<MachineId, MachineId>> cuts_;
  Rng rng_;
  std::atomic<bool> faults_active_{false};

  std::vector<std::unique_ptr<Nic>> nics_;
  std::atomic<bool> stop_{false};
};

}  // namespace farmdb::cluster
