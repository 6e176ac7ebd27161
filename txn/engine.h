// TxnEngine: the transaction layer of one machine, and Worker: one application thread's handle.
//
// The engine owns this machine's incoming log rings (one per sender, FaRM §3), its outgoing log
// writers, the head-mirror words the receivers update, the slabs this machine is primary for,
// old-version memory, and one participant thread that polls the rings and runs the participant
// side of the commit protocol (participant.cc: one handler per record type). It registers the
// OAT provider with the Machine (FaRMv2 §4.5) and frees old-version blocks below the GC safe
// point.
//
// Every machine of a cluster needs its engine (TxnEngine::Create) before any transaction runs:
// the rings must be registered with the fabric. Engines of different clusters are independent.
// TxnEngine is thread-safe; participant state is touched only by the participant thread.
//
// Local participant. For objects this machine is primary for, the coordinator (a Worker's thread
// on this machine) does the primary's work itself: it locks (LockObjects), validates with local
// header reads, installs and unlocks (InstallLocked) or unlocks (UnlockLocked) with no hand-off
// to the participant thread and no message, as FaRM §4 does for local objects. Object locks are
// lock bits taken by CAS, so coordinators and the participant thread (serving remote
// coordinators) exclude each other per object; old-version memory is shared under
// old_versions_mu_. The local primary's state lives in the coordinator's transaction, not in
// primary_txns_. The coordinator still writes the LOCK, COMMIT-PRIMARY and ABORT records to its
// own machine's log (a local memory write, log.h), marked applied: FaRM keeps these records in
// the local log too, and recovery after the machine's memory survives a crash (the papers' NVRAM,
// our mapped files) needs the LOCK record (which objects a transaction locked, with their new
// values) and COMMIT-PRIMARY (the decision) to finish or undo a half-applied commit (FaRM §5.3).
// The participant thread skips applied records except for their piggybacked truncations. A local
// backup's COMMIT-BACKUP was already a local log write with no foreground work (FaRM §4: backups
// apply at truncation, in the background) and is unchanged.
//
// Worker: create one per thread with NewWorker(); Begin() transactions on it. A Worker is used by
// one thread at a time. It owns its slabs (allocation needs no synchronisation, FaRMv2 §4.8), the
// per-machine lists of transactions to truncate, and its entry in the OAT computation.
#pragma once

#include <chrono>
#include <condition_variable>
#include <expected>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <shared_mutex>
#include <span>
#include <thread>
#include <unordered_map>
#include <vector>

#include "cluster/doorbell.h"
#include "cluster/machine.h"
#include "cluster/thread_front.h"
#include "txn/log.h"
#include "txn/object.h"
#include "txn/old_versions.h"
#include "txn/records.h"
#include "txn/slab.h"
#include "txn/txn.h"

namespace farmdb::txn {

struct EngineOptions {
  bool multi_version = true;       // false: single-version mode (§4.7), no old versions
  uint64_t log_size = 4ull << 20;  // bytes per sender -> receiver ring
  // How long a read keeps re-reading a locked head before aborting with kLockedOnRead. A head
  // stays locked from LOCK until the primary processes COMMIT-PRIMARY, which the coordinator does
  // not wait for, so a short wait avoids most of these aborts.
  std::chrono::microseconds locked_read_wait{20000};
  // Deliberately broken protocol for the history checker's self-test (FaRMv2 §7.3): serializable
  // commits skip the write-timestamp uncertainty wait, so locks can be released while W is still
  // in the future. Never set outside tests.
  bool mutant_skip_write_wait = false;
};

class Worker;

class TxnEngine {
 public:
  // Creates the machine's log rings in its data directory and starts the participant thread.
  static std::expected<std::unique_ptr<TxnEngine>, std::string> Create(cluster::Machine* machine,
                                                                      EngineOptions options);
  ~TxnEngine();
  TxnEngine(const TxnEngine&) = delete;
  TxnEngine& operator=(const TxnEngine&) = delete;

  // A new worker, or nullptr when all kMaxWorkers worker ids are held by live workers (ids are
  // 16 bits inside TxnId, records.h; a destroyed worker's id is reused).
  std::unique_ptr<Worker> NewWorker();
  static constexpr uint32_t kMaxWorkers = 0xffff;  // ids 1..65535
  cluster::Machine& machine() { return *machine_; }
  const EngineOptions& options() const { return options_; }
  TxnCounters& counters() { return counters_; }
  // Slabs formatted at this primary so far: (region, slab index, object lines).
  std::vector<std::tuple<RegionId, uint32_t, uint32_t>> Slabs();
  uint64_t old_version_blocks_freed() const { return blocks_freed_.load(); }
  // True when every record this machine appended to any ring was processed by its receiver and
  // the receiver published its head (LogWriter::Drained). With no transaction running and every
  // worker's truncations flushed, all engines drained means all backups applied everything.
  bool LogsDrained();

 private:
  friend class Worker;
  friend class Txn;
  friend class HeaderReads;  // header words of local objects

  TxnEngine(cluster::Machine* machine, EngineOptions options);
  std::expected<void, std::string> Init();
  LogWriter& Writer(MachineId to) { return *writers_[to]; }
  std::expected<uint32_t, TxnError> ObjectLines(Addr a);
  // Copies dst.size() bytes at `a` from its primary: a local memory read in the one-sided word
  // order (word_copy.h) when this machine is the primary (FaRM §3: local objects are read with
  // local memory accesses), else a one-sided fabric read. False if the memory is not there.
  bool ReadFromPrimary(MachineId primary, Addr a, std::span<std::byte> dst);
  // One read of the `lines`-line object at `a` from its primary into `payload`
  // (CopyPayloadOut): straight from local memory when this machine is the primary, else through
  // a one-sided read into `scratch`. Nullopt if the memory is not there.
  std::optional<ObjectHead> ReadObjectFromPrimary(MachineId primary, Addr a, uint32_t lines,
                                                  std::byte* payload, RawBytes& scratch);
  // A slab of `lines`-line objects for a worker to allocate from: one handed back with free
  // slots (unless `fresh`), else a new one, in a new region if need be (kOutOfSpace when a
  // replica's disk has no room for it).
  std::expected<Slab*, TxnError> AcquireSlab(uint32_t lines, bool fresh);
  void ReleaseSlab(Slab* s);
  Slab* FindSlab(Addr a);
  Timestamp OldestActive();
  void RouteLockReply(const cluster::Message& m);
  void ReleaseWorkerId(uint32_t id, uint32_t next_seq);

  // Participant side (participant.cc). The first three also serve the local participant (see
  // above) and are thread-safe.
  struct LockedObject {
    Addr addr;
    std::byte* mem;
    RecordObject object;
    OldVersions::Slot old;  // empty in single-version mode
  };
  struct PrimaryTxn {
    MachineId coordinator;
    std::vector<LockedObject> objects;
    std::vector<RawBytes> buffers;  // of the LOCK records, which `objects`' payloads view
  };
  // Locks every object (checking the expected versions) and copies each head to an old version;
  // appends to `locked` and raises *max_head_ts. On failure releases what it took and says why.
  // `locked` keeps the objects' payload views: their bytes must live until InstallLocked or
  // UnlockLocked.
  LockOutcome LockObjects(std::span<const RecordObject> objects, std::vector<LockedObject>* locked,
                          Timestamp* max_head_ts);
  // Installs the new values with write timestamp w, which unlocks (FaRM §4 step 4).
  void InstallLocked(std::vector<LockedObject>& locked, Timestamp w);
  void UnlockLocked(std::vector<LockedObject>& locked);
  void PollLoop();
  // A received record, consumed: LOCK and COMMIT-BACKUP keep its objects without copying them.
  void HandleRecord(Record&& r);
  void OnLock(Record&& r);
  void OnCommitPrimary(const Record& r);
  void OnAbort(const Record& r);
  void OnCommitBackup(Record&& r);
  void OnTruncate(TxnId id);
  std::byte* LocalObject(Addr a, uint32_t lines);

  cluster::Machine* machine_;
  EngineOptions options_;
  TxnCounters counters_;

  std::vector<std::unique_ptr<cluster::MappedFile>> rings_;  // [sender], on this machine
  std::vector<LogReader> readers_;                            // [sender]
  std::vector<uint64_t> published_head_;                      // [sender]
  std::vector<cluster::CompletionPtr> head_publication_;      // [sender], in flight or null
  std::vector<uint64_t> head_mirror_;                         // [receiver], 8-aligned words
  std::vector<std::unique_ptr<LogWriter>> writers_;           // [receiver]

  // alloc_mu_ serialises getting slabs (it may wait on the CM and on backups); index_mu_ guards
  // only the index, so the participant thread never waits behind a slow allocation.
  std::mutex alloc_mu_;
  std::map<uint32_t, std::vector<Slab*>> unowned_slabs_;     // by lines; guarded by alloc_mu_
  std::vector<std::pair<RegionId, uint32_t>> data_regions_;  // (region, next slab); alloc_mu_
  std::mutex index_mu_;
  std::vector<std::unique_ptr<Slab>> slabs_;                      // guarded by index_mu_
  std::map<std::pair<RegionId, uint32_t>, Slab*> slab_index_;     // guarded by index_mu_

  // A slab's object size never changes, so entries are never invalidated.
  std::shared_mutex lines_mu_;
  std::unordered_map<uint64_t, uint32_t> lines_cache_;  // (region << 32 | slab) -> lines
  cluster::ThreadFront<uint64_t, uint32_t, 256> lines_front_;  // ObjectLines' hits

  // Worker ids are 16 bits (TxnId); freed ids are reused. A reused id continues its previous
  // sequence (worker_seq_), so TxnIds stay unique even while an old worker's truncations are
  // still in flight at participants.
  std::mutex workers_mu_;
  uint32_t next_worker_ = 1;                          // next never-used id; guarded
  std::vector<uint16_t> free_worker_ids_;             // guarded by workers_mu_
  std::unordered_map<uint32_t, uint32_t> worker_seq_;  // id -> next sequence; guarded
  std::map<uint32_t, Worker*> workers_;

  std::mutex old_versions_mu_;
  OldVersions old_versions_;  // guarded by old_versions_mu_
  // Participant-thread state.
  std::map<TxnId, PrimaryTxn> primary_txns_;
  std::map<TxnId, Record> backup_txns_;
  std::atomic<uint64_t> blocks_freed_{0};

  // Rung by the fabric when a remote coordinator's record lands in one of this machine's rings
  // (Fabric::SetWriteNotifier), so the idle participant thread sleeps yet wakes at once. Appends
  // to the own ring do not ring it: they are mostly applied records (engine.h "Local
  // participant"), picked up at the next wake-up without costing the coordinator a wake-up call.
  cluster::Doorbell doorbell_;
  std::atomic<bool> stop_{false};
  std::thread poller_;
};

class Worker {
 public:
  ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  std::expected<std::unique_ptr<Txn>, TxnError> Begin(TxnOptions options);
  // Writes explicit TRUNCATE records for everything not yet piggybacked (call when idle; FaRM §4
  // step 5 and FaRMv2 §4.8's timer-driven truncation).
  void FlushTruncations();
  TxnEngine& engine() { return *engine_; }
  uint32_t id() const { return id_; }

 private:
  friend class TxnEngine;
  friend class Txn;
  Worker(TxnEngine* engine, uint32_t id, uint32_t next_seq)
      : engine_(engine), id_(id), next_seq_(next_seq) {}

  TxnId NextTxnId() { return MakeTxnId(engine_->machine().id(), id_, next_seq_++); }
  Timestamp OldestActive();
  void Unregister(Timestamp read_ts);
  // Txn::RefreshReadTimestamp: a fresh R (>= old_r) registered in place of old_r.
  Timestamp AdvanceReadTimestamp(Timestamp old_r, bool strict);
  void DeliverLockReply(const LockReply& r);
  std::vector<LockReply> AwaitLockReplies(TxnId txn, size_t n);
  // Truncations piggybacked on the next record to `to` (at most kMaxPiggybacked of them).
  std::vector<TxnId> TakeTruncations(MachineId to);
  void ScheduleTruncation(TxnId txn, std::vector<MachineId> participants,
                          std::vector<cluster::CompletionPtr> primary_acks);
  void PromoteAckedTruncations();
  // A free object slot of `lines` lines that was already free at read_ts: a slot freed after R
  // still holds, in the caller's snapshot, the object that was freed, which the caller may yet
  // reach through a pointer it read at R; its own write set would shadow that object with the
  // new one (txn_test AllocNeverHandsOutASlotThatHeldAnObjectAtTheReadTimestamp).
  std::expected<std::pair<Addr, Slab*>, TxnError> AllocateObject(uint32_t lines, Timestamp read_ts);

  TxnEngine* engine_;
  uint32_t id_;
  uint32_t next_seq_;

  std::mutex active_mu_;
  std::multiset<Timestamp> active_;

  std::mutex reply_mu_;
  std::condition_variable reply_cv_;
  std::map<TxnId, std::vector<LockReply>> replies_;

  std::map<uint32_t, Slab*> slabs_;  // by lines: the slab allocations come from
  std::map<MachineId, std::vector<TxnId>> truncations_;
  struct Unacked {
    TxnId txn;
    std::vector<MachineId> participants;
    std::vector<cluster::CompletionPtr> acks;
  };
  std::vector<Unacked> unacked_;
};

}  // namespace farmdb::txn
