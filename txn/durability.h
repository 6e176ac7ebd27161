// Durability: group commit over one machine's durable log (FaRM §4 "non-volatile logs", made
// durable with msync; txn/FORMATS.md "Durable log").
//
// synchronous_commit=on means: a commit at write timestamp W is acknowledged only once every
// transaction with a write timestamp <= W is durable, this one and any it read from (a commit
// that survives a power loss never depends on one that did not). So durability is tracked in
// timestamps, not log positions:
//   - A commit Enters before it takes W (registering a placeholder <= W, as Begin does for OAT)
//     and Leaves once all its records are in the log. The watermark is then the largest X such
//     that every transaction with W <= X has left: just below the oldest placeholder, or below
//     the clock's L when none is in flight.
//   - The syncer thread appends a STAMP record carrying the watermark and syncs the log up to it;
//     the stamp is then durable, and with it every transaction at or below it. One sync serves
//     every commit waiting at that moment (group commit).
//   - WaitDurable(W) asks for a stamp >= W and waits for it, parking a fiber (FiberPool::Event)
//     so the worker runs other sessions meanwhile.
// After a power loss, recovery keeps exactly the transactions at or below the last durable stamp
// (FORMATS.md "Runs"): a prefix in timestamp order, whatever else reached the disk.
//
// Every `sync_interval` the syncer also syncs whatever was appended (as PostgreSQL's WAL writer
// does for synchronous_commit=off), so at most that much of the newest off commits is exposed to
// a power loss. A failed sync stops the process: the log's state on disk is then unknown, and
// carrying on would acknowledge commits that may not survive (PostgreSQL panics likewise).
//
// Several machines (FORMATS.md "Stamps across machines"): a machine's stamp may not pass what its
// log holds of other machines' transactions. Each machine sends its watermark to every machine,
// itself included, as a WATERMARK record in its ring to them; the receiver's participant logs it
// like any record, so when it is consumed every earlier record of that sender is in the
// receiver's log, and reports it (OnWatermark). A machine's stamp is then the smallest watermark
// received. Stamps that became durable go to every machine (the engine's DURABLE message), and
// a commit acknowledges once every machine's durable stamp reached its W: the same cut for all
// logs, so a power loss keeps the same prefix of every one. Thread-safe.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <vector>
#include <mutex>
#include <set>
#include <thread>

#include "cluster/clock.h"
#include "cluster/fibers.h"
#include "cluster/wal.h"

namespace farmdb::txn {

using cluster::MachineId;
using cluster::Timestamp;

class Durability {
 public:
  // For several machines: how the syncer reaches the others (the engine's rings and messages).
  struct Peers {
    int machines = 1;
    // Appends a WATERMARK record carrying `x` to every machine's ring, this one's included;
    // false if some ring had no room (it is sent again later).
    std::function<bool(Timestamp x)> send_watermark;
    // Tells every other machine that this one's stamp `s` is durable.
    std::function<void(Timestamp s)> publish;
    // Tells every other machine that a commit here waits for stamps >= w.
    std::function<void(Timestamp w)> demand;
  };
  // `ack_before_sync`: the deliberately broken variant the power-loss test must catch (stamps
  // are published as durable before the sync). Never set outside tests.
  Durability(cluster::Clock* clock, cluster::Wal* wal, std::chrono::milliseconds sync_interval,
             bool ack_before_sync, MachineId self, Peers peers);
  ~Durability();
  Durability(const Durability&) = delete;
  Durability& operator=(const Durability&) = delete;

  void Start();
  // Syncs what was appended and stops the syncer (a clean shutdown loses no off commit).
  void Stop();

  // Before taking W: returns the placeholder to Leave with.
  Timestamp Enter();
  void Leave(Timestamp placeholder);

  // Until every transaction with W <= w is durable, in every machine's log, or the waits are
  // abandoned (AbandonWaits). Returns whether they are durable.
  bool WaitDurable(Timestamp w);
  // Ends every wait, now and later, that is not yet satisfied: the engine is stopping, and a
  // stamp it waits for may never come (a peer's engine stopped first).
  void AbandonWaits();
  // Another machine waits for w (its demand, forwarded by the engine).
  void Demand(Timestamp w);
  // A WATERMARK record from `from` was consumed: its records up to `x` are in this log.
  void OnWatermark(MachineId from, Timestamp x);
  // `from`'s stamp `s` is durable (its DURABLE message).
  void OnPeerDurable(MachineId from, Timestamp s);
  // The newest durable stamp of this machine's log.
  Timestamp DurableStamp() const { return durable_stamp_.load(std::memory_order_acquire); }
  // Syncs now and returns the durable stamp (a checkpoint's end, tests).
  Timestamp SyncNow();
  uint64_t syncs() const { return syncs_.load(std::memory_order_relaxed); }

 private:
  void SyncLoop();
  // REQUIRES: mu_ held.
  Timestamp Watermark();
  // What a stamp may say now: the watermark, or with several machines the smallest watermark
  // received. REQUIRES: mu_ held.
  Timestamp Stampable();
  // The smallest durable stamp over all machines (this one's on one machine).
  Timestamp ClusterDurable() const;
  // Appends a stamp at the watermark and syncs; publishes it. Serialised by sync_mu_.
  void StampAndSync();
  // The stamp is durable: waiters here and, with several machines, the others learn of it.
  void Publish(Timestamp stamp);

  cluster::Clock* clock_;
  cluster::Wal* wal_;
  const std::chrono::milliseconds sync_interval_;
  const bool ack_before_sync_;
  const MachineId self_;
  const Peers peers_;

  std::mutex mu_;
  std::condition_variable wanted_;        // the syncer waits for demand
  std::multiset<Timestamp> in_flight_;    // placeholders; guarded by mu_
  Timestamp demand_ = 0;                  // the largest W waited for; guarded by mu_
  bool stop_ = false;                     // guarded by mu_
  Timestamp sent_watermark_ = 0;          // last WATERMARK sent; guarded by mu_
  std::vector<Timestamp> received_;       // [sender] watermarks consumed; guarded by mu_
  std::unique_ptr<std::atomic<Timestamp>[]> peer_durable_;  // [machine] durable stamps

  std::mutex sync_mu_;
  Timestamp last_stamp_ = 0;  // guarded by sync_mu_
  std::atomic<Timestamp> durable_stamp_{0};
  std::atomic<uint64_t> syncs_{0};
  std::atomic<bool> abandoned_{false};
  cluster::FiberPool::Event durable_;
  std::thread syncer_;
};

}  // namespace farmdb::txn
