// TxnEngine: the transaction layer of one machine, and Worker: one application thread's handle.
//
// The engine owns this machine's incoming log rings (one per sender, FaRM §3), its outgoing log
// writers, the head-mirror words the receivers update, its durable log (cluster::Wal) with the
// group commit over it (Durability), the slabs this machine is primary for, old-version memory,
// one participant thread that polls the rings and runs the participant side of the commit
// protocol (participant.cc: one handler per record type), and a checkpointer thread
// (checkpoint.cc). It registers the OAT provider with the Machine (FaRMv2 §4.5) and frees
// old-version blocks below the GC safe point.
//
// Engines are opened together, one per machine of an in-process cluster, or one per process of a
// multi-process cluster (OpenAll): each reads its durable log, they decide together which
// transactions of earlier runs committed, and each replays those onto its region memory, mapped
// from the images (recovery.cc; FORMATS.md "Recovery"). Engines of different clusters are independent. TxnEngine is thread-safe;
// participant state is touched only by the participant thread.
//
// Durable log. Every record a participant receives is copied into the log before the
// participant acts on it and before it leaves the ring, so what a coordinator was told landed
// (FaRM's NIC ack) survives a crash: in the ring until consumed, in the log after. On a full
// disk a record stays in its ring, except a LOCK, which is consumed unlogged and refused
// (LockOutcome::kNoSpace). The local participant writes its own: a coordinator that is primary
// for some of its objects appends one COMMIT-PRIMARY record carrying their new values (for a
// bulk load, LOCK records of at most an eighth of the own ring with the values, the last part
// in the COMMIT-PRIMARY) before it installs them. Nothing is logged for a transaction that does
// not commit locally: region memory does not outlive the process (it is rebuilt from images and
// the log), so locks and aborted attempts leave no trace to undo.
// Appends and the memory effects they describe happen under progress_mu_ shared, so a checkpoint
// (exclusive, briefly) finds a log position below which every record's effect is in memory.
//
// Local participant. For objects this machine is primary for, the coordinator (a Worker's thread
// on this machine) does the primary's work itself: it locks (LockObjects), validates with local
// header reads, installs and unlocks (InstallLocked) or unlocks (UnlockLocked) with no hand-off
// to the participant thread and no message, as FaRM §4 does for local objects. Object locks are
// lock bits taken by CAS, so coordinators and the participant thread (serving remote
// coordinators) exclude each other per object; old-version memory is shared under
// old_versions_mu_. The local primary's state lives in the coordinator's transaction, not in
// primary_txns_. A local backup's COMMIT-BACKUP still goes through the own ring (FaRM §4:
// backups apply at truncation, in the background).
//
// Worker: create one per thread with NewWorker(); Begin() transactions on it. A Worker is used by
// one thread at a time. It owns its slabs (allocation needs no synchronisation, FaRMv2 §4.8), the
// per-machine lists of transactions to truncate, and its entry in the OAT computation.
#pragma once

#include <chrono>
#include <condition_variable>
#include <expected>
#include <functional>
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
#include "cluster/wal.h"
#include "txn/durability.h"
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
  // The durable log (FORMATS.md "Durable log"): segment size (at least half of log_size, so
  // every record fits: none exceeds a quarter of a ring, commit.cc), and how often what was
  // appended is synced when no commit waits for it (PostgreSQL's wal_writer_delay).
  uint64_t wal_segment_size = 16ull << 20;
  std::chrono::milliseconds wal_sync_interval{200};
  // A checkpoint is taken once the log since the last one holds this much, or this long after the
  // last one if anything was logged since (checkpoint.cc). Restart time follows the former.
  uint64_t checkpoint_log_bytes = 1ull << 30;
  std::chrono::seconds checkpoint_interval{300};
  // The full log: once the log since the last checkpoint holds this much, a transaction about
  // to commit writes waits, before it logs anything, until a checkpoint has dropped the log
  // below it (TxnEngine::WaitForLogRoom). Transactions already logging go on, so it never waits
  // against the checkpoint, and one larger than the room left passes it. Bounds a restart's
  // replay when commits outpace checkpoints (a bulk load). More than checkpoint_log_bytes.
  uint64_t max_log_bytes = 2ull << 30;
  // Deliberately broken durability for the power-loss test's self-test: commits are acknowledged
  // before their group's sync. Never set outside tests.
  bool mutant_ack_before_sync = false;
  // Where recovery and checkpoints report what they did (the server's log); null: stderr.
  std::function<void(const std::string&)> log;
};

// What a machine's recovery found and did (logged at start, read by tests).
struct RecoveryStats {
  uint64_t log_bytes = 0;          // of the durable log read
  uint64_t records = 0;            // transaction records in it
  uint64_t ring_records = 0;       // records still in the rings after a process crash
  uint64_t objects_installed = 0;  // written into region memory by the replay
  uint64_t runs = 0;               // earlier runs whose records were read
  bool after_reboot = false;       // the last run ended in another boot: only synced data counted
  Timestamp cut = ~Timestamp{0};   // the last run's: transactions above it were void (~0: none)
  std::chrono::microseconds duration{0};
};

class Worker;

class TxnEngine {
 public:
  // Opens the engines of `machines` over their data directories, recovers what earlier runs
  // committed (recovery.cc) and starts them. Errors name the file and what is wrong: the cluster
  // must not start then. `machines` is every machine of an in-process cluster, in id order, or
  // the one machine of this process in a multi-process cluster. Then the decisions need what
  // every other machine's log holds: `exchange` trades this machine's first-pass findings
  // (FORMATS.md "Recovery across processes") for every machine's, indexed by machine id (this
  // one's slot is not read).
  // `attached` runs once every engine here registered its log rings and before any starts: a
  // process holding one machine of a multi-process cluster waits there until the other
  // processes' engines have registered theirs (their first record must land in a registered
  // ring). Its error fails the open.
  using AttachedHook = std::function<std::expected<void, std::string>()>;
  using RecoveryExchange =
      std::function<std::expected<std::vector<std::vector<std::byte>>, std::string>(std::vector<std::byte> mine)>;
  static std::expected<std::vector<std::unique_ptr<TxnEngine>>, std::string> OpenAll(
      std::span<cluster::Machine* const> machines, EngineOptions options, AttachedHook attached = {},
      RecoveryExchange exchange = {});
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

  // Until every transaction with W <= w is durable (synchronous_commit=on, Durability).
  void WaitDurable(Timestamp w);
  // Before a transaction logs its first record: while the log is full (max_log_bytes), asks for
  // a checkpoint and waits for it, parking a fiber. Fails with kOutOfSpace if that checkpoint
  // failed (a full disk), kInternal if the engine stops meanwhile.
  std::expected<void, TxnError> WaitForLogRoom();
  // Bytes in the log since the last checkpoint's start.
  uint64_t LogSinceCheckpoint() const { return wal_->end() - log_start_.load(std::memory_order_acquire); }
  uint64_t log_full_waits() const { return log_full_waits_.load(std::memory_order_relaxed); }
  Durability& durability() { return *durability_; }
  cluster::Wal& wal() { return *wal_; }
  const RecoveryStats& recovery_stats() const { return recovery_stats_; }
  // Writes a checkpoint now: images of every data region this machine holds, then the state
  // that lets recovery start reading the log after them (checkpoint.cc). The checkpointer
  // thread calls it as the log grows.
  std::expected<void, std::string> Checkpoint();
  uint64_t checkpoints() const { return checkpoints_.load(); }

 private:
  friend class Worker;
  friend class Txn;
  friend class HeaderReads;  // header words of local objects

  TxnEngine(cluster::Machine* machine, EngineOptions options);
  // Recovery (recovery.cc), in OpenAll's order: read this machine's log (and, after a process
  // crash, what is left in its rings) from the last checkpoint on; decide, over all machines,
  // which transactions of each run committed; replay those onto region memory; rebuild the
  // slabs; record the new run. Then Start.
  // What the first pass found of one run in this machine's log.
  struct RunLog {
    uint64_t run = 0;
    uint64_t start = 0;            // LSN of its first record
    std::optional<Timestamp> cut;  // decided by an earlier recovery
    bool trusted = false;          // ended in this boot: everything appended counts
    Timestamp last_stamp = 0;
    std::unordered_map<TxnId, Timestamp> committed;  // COMMIT-PRIMARY records here
  };
  // What all machines' first passes decide for one run.
  struct RunDecision {
    uint64_t run = 0;
    Timestamp cut = ~Timestamp{0};
    std::unordered_map<TxnId, Timestamp> committed;  // on any machine, at or below the cut
  };
  std::expected<void, std::string> ReadLog();
  static std::vector<RunDecision> Decide(std::span<const RunLog* const> logs);
  static std::vector<std::byte> EncodeRunLogs(std::span<const std::unique_ptr<RunLog>> logs);
  static std::expected<std::vector<std::unique_ptr<RunLog>>, std::string> DecodeRunLogs(std::span<const std::byte> bytes);
  std::expected<void, std::string> Replay(const std::vector<RunDecision>& decisions);
  std::expected<void, std::string> RebuildSlabs();
  std::expected<void, std::string> BeginRun(uint64_t run);
  // Makes fresh rings and registers them; every machine's engine attaches before any starts, so
  // no record is written to a ring its receiver has not registered (the sender's tail would move
  // past a record that never landed, and the receiver wait at it for ever).
  std::expected<void, std::string> Attach();
  // Starts the threads.
  void Start();
  // Log record bookkeeping of the first pass: which run a log position belongs to.
  RunLog& RunAt(uint64_t lsn);
  void NoteRecord(uint64_t lsn, std::span<const std::byte> record);
  // After a process crash: records still in the rings, appended to the log as the participant
  // would have (recovery.cc).
  std::expected<void, std::string> DrainRings();
  // Durability across machines (durability.h): a WATERMARK record to every ring (false if some
  // ring had no room), a message with a timestamp to every other machine.
  bool SendWatermark(Timestamp x);
  void Broadcast(uint16_t type, Timestamp t);
  // Reports through options_.log.
  void Log(const std::string& line) const;
  // Checkpoints (checkpoint.cc).
  void CheckpointLoop();
  // A consistent copy of region `p`'s replica into `image`, and (at its primary) the slab table.
  void CopyRegion(const cluster::RegionPlacement& p, std::vector<std::byte>& image, std::vector<std::byte>& meta);
  // Appends a record to the durable log. REQUIRES: progress_mu_ held shared.
  std::expected<uint64_t, cluster::FileError> LogRecord(std::span<const std::byte> encoded);
  // `encoded` carrying this engine's configuration (records.h).
  std::vector<std::byte> Stamped(std::vector<std::byte> encoded) const;
  // The local primary's commit (engine.h "Durable log"): logs its objects' new values with `w`.
  // REQUIRES: progress_mu_ held shared; the caller installs them next.
  std::expected<void, cluster::FileError> LogLocalCommit(const Record& commit, std::span<const RecordObject> objects,
                                                         uint64_t chunk_limit);
  LogWriter& Writer(MachineId to) { return *writers_[to]; }
  std::expected<uint32_t, TxnError> ObjectLines(Addr a);
  // Copies dst.size() bytes at `a` from its primary: a local memory read in the one-sided word
  // order (word_copy.h) when this machine is the primary (FaRM §3: local objects are read with
  // local memory accesses), else a one-sided fabric read. Why it failed, if it did (kNone: it
  // did not; local memory that is not there: kOutOfRange).
  cluster::FabricError ReadFromPrimary(MachineId primary, Addr a, std::span<std::byte> dst);
  // One read of the `lines`-line object at `a` from its primary into `payload`
  // (CopyPayloadOut): straight from local memory when this machine is the primary, else through
  // a one-sided read into `scratch`. The error says why the read failed.
  std::expected<ObjectHead, cluster::FabricError> ReadObjectFromPrimary(MachineId primary, Addr a, uint32_t lines,
                                                                       std::byte* payload, RawBytes& scratch);
  // A slab of `lines`-line objects for a worker to allocate from: one handed back with free
  // slots (unless `fresh`), else a new one, in a new region if need be (kOutOfSpace when a
  // replica's disk has no room for it).
  std::expected<Slab*, TxnError> AcquireSlab(uint32_t lines, bool fresh);
  void ReleaseSlab(Slab* s);
  Slab* FindSlab(Addr a);
  // Every live worker's acknowledged truncations go out (Worker::TakeAckedTruncations), in
  // TRUNCATE records appended after workers_mu_ is released: the fabric thread that completes an
  // append, or frees ring room for one, takes workers_mu_ to route lock replies. The
  // checkpointer calls it at each wake-up: a worker that commits no more, an idle session's or the
  // sequence cache's, would otherwise keep its last transactions in the backups' logs for good,
  // and a log that cannot be dropped fills and stops every commit (WaitForLogRoom).
  void SendIdleTruncations();
  // TRUNCATE records for `truncations` (by participant), at most kMaxPiggybacked each, removed
  // from it as they are appended; returns once they landed. Without `wait_for_room`, what finds
  // no room in its ring stays in `truncations`.
  void AppendTruncations(std::map<MachineId, std::vector<TxnId>>& truncations, bool wait_for_room);
  // The truncation timer's: taken from workers, not yet appended (the checkpointer thread's).
  std::map<MachineId, std::vector<TxnId>> idle_truncations_;
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
    uint64_t lsn = 0;               // of its first LOCK record in the durable log
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
  // A received record at log position `lsn`: LOCK and COMMIT-BACKUP keep its objects without
  // copying them. REQUIRES: progress_mu_ held shared.
  void HandleRecord(Record&& r, uint64_t lsn);
  // `logged`: false when the durable log had no room for the LOCK (it is refused).
  void OnLock(Record&& r, uint64_t lsn, bool logged);
  void OnCommitPrimary(const Record& r);
  void OnAbort(const Record& r);
  void OnCommitBackup(Record&& r, uint64_t lsn);
  void OnTruncate(TxnId id);
  std::byte* LocalObject(Addr a, uint32_t lines);

  cluster::Machine* machine_;
  // The configuration this engine runs in, carried by every record it sends or logs: the machine
  // state's (1 in-process; a multi-process cluster's takes a new one at every start).
  uint32_t configuration_ = 0;
  EngineOptions options_;
  TxnCounters counters_;

  std::unique_ptr<cluster::Wal> wal_;
  std::unique_ptr<Durability> durability_;
  // Shared: a log append and the memory effect it describes; exclusive: a checkpoint reading
  // where its log replay would start (engine.h "Durable log").
  std::shared_mutex progress_mu_;
  // First log positions of transactions the participant thread holds state for (LOCKed, or a
  // COMMIT-BACKUP not yet applied): recovery from a checkpoint must read their records.
  // Changed by the participant thread under progress_mu_ shared, read under it exclusive.
  std::multiset<uint64_t> active_lsns_;
  std::vector<std::unique_ptr<RunLog>> run_logs_;  // recovery's first pass, oldest run first
  uint64_t replay_end_ = 0;                         // where the first pass stopped
  Timestamp max_logged_ts_ = 0;
  uint32_t newest_logged_configuration_ = 0;         // of the records recovery read
  std::vector<Addr> replayed_objects_;               // at this primary, for the slab bitmaps
  RecoveryStats recovery_stats_;
  std::mutex checkpoint_mu_;  // one checkpoint at a time
  std::atomic<uint64_t> checkpoints_{0};
  std::mutex checkpoint_wait_mu_;
  std::condition_variable checkpoint_wake_;
  bool checkpoint_asked_ = false;  // by a commit that found the log full; guarded by checkpoint_wait_mu_
  std::thread checkpointer_;
  std::atomic<uint64_t> log_start_{0};  // where the last checkpoint lets recovery start reading
  // Commits waiting for room in the log wait here; each checkpoint's end, failed or not, and the
  // engine's stop notify it.
  cluster::FiberPool::Event log_room_;
  std::atomic<uint64_t> checkpoint_failures_{0};
  std::atomic<uint64_t> log_full_waits_{0};

  std::unique_ptr<cluster::MappedFile> log_heads_;            // [sender] consumed positions
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
  struct BackupTxn {
    Record record;
    uint64_t lsn = 0;  // of its first COMMIT-BACKUP record in the durable log
  };
  std::map<TxnId, BackupTxn> backup_txns_;
  // Which participant transaction holds the record at `lsn` (a checkpoint's log line).
  std::string HolderOf(uint64_t lsn) const;
  std::atomic<uint64_t> blocks_freed_{0};

  // Rung by the fabric when a remote coordinator's record lands in one of this machine's rings
  // (Fabric::SetWriteNotifier), so the idle participant thread sleeps yet wakes at once. Appends
  // to the own ring do not ring it: a local backup's COMMIT-BACKUPs and truncations, which no
  // one waits for, are picked up at the next wake-up without costing the coordinator a wake-up
  // call (a WATERMARK, which a commit waits for, rings it: SendWatermark).
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
  // Writes explicit TRUNCATE records for everything not yet piggybacked, once every commit's
  // acknowledgements are in (call when idle, or before comparing replicas; FaRM §4 step 5).
  void FlushTruncations();
  // Moves the truncations of the transactions whose acknowledgements are in, and that no record
  // carried yet, into `into` (by participant), without waiting for the others: FaRMv2 §4.8's
  // timer-driven truncation takes them so (TxnEngine::SendIdleTruncations). Any thread.
  void TakeAckedTruncations(std::map<MachineId, std::vector<TxnId>>& into);
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
  void PromoteAckedTruncations();  // REQUIRES: truncations_mu_ held
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
  // The worker's thread and the engine's truncation timer (TakeAckedTruncations) share these.
  std::mutex truncations_mu_;
  std::map<MachineId, std::vector<TxnId>> truncations_;  // guarded by truncations_mu_
  struct Unacked {
    TxnId txn;
    std::vector<MachineId> participants;
    std::vector<cluster::CompletionPtr> acks;
  };
  std::vector<Unacked> unacked_;  // guarded by truncations_mu_
};

}  // namespace farmdb::txn
