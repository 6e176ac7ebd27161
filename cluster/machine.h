// Machine: one member of a cluster. Owns its clock, the region replicas it stores, its copy of
// the region map, and a message dispatcher with a small RPC facility on top of the Fabric.
//
// Machine 0 is the CM: clock master (FaRMv2 §4.1), region allocator (FaRM §3), grantor of the
// members' leases (FaRM §5.1) and collector of the oldest-active-transaction values (FaRMv2
// §4.5-4.6). Other machines run a lease thread that periodically sends the CM a sync request: a
// lease request (lease.h) that also carries OAT_local and GC_local; the reply grants the lease
// and carries the CM's time, OAT_CM and GC_CM. GC_local takes OAT_CM (first round), GC takes
// GC_CM = min of GC_local (second round), so GC <= every GC_local anywhere. The CM runs the same
// computation for itself on its own tick, and checks the leases it granted.
//
// Threads: the fabric thread runs message handlers; a control thread runs blocking RPC handlers
// (the CM's region allocation); the lease thread, at real-time priority where the process may.
// Thread-safe. A lease that expires is logged and counted (suspicion), and a machine that lost
// its own lease stops serving (LeaseHeld); reconfiguration is not implemented yet (a later
// increment of the failure issue).
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <expected>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <thread>
#include <vector>

#include "cluster/clock.h"
#include "cluster/fabric/fabric.h"
#include "cluster/files.h"
#include "cluster/lease.h"
#include "cluster/machine_state.h"
#include "cluster/mapped_file.h"
#include "cluster/region_map.h"
#include "cluster/thread_front.h"

namespace farmdb::cluster {

// Message types below 100 belong to the cluster layer; txn uses 100+.
enum MsgType : uint16_t {
  kMsgSyncRequest = 1,
  kMsgSyncReply = 2,
  kMsgRegionAlloc = 3,
  kMsgRegionPrepare = 4,
  kMsgRegionCommit = 5,
  kMsgRegionLookup = 6,
  kMsgRpcReply = 7,
  kMsgRegionAbort = 8,
  kMsgRecoveryState = 9,  // ProcessCluster::ExchangeRecoveryState
};

// A region's placement as kMsgRegionPrepare, kMsgRegionCommit and kMsgRegionAbort carry it.
std::vector<std::byte> EncodePlacement(const RegionPlacement& p);

struct MachineOptions {
  std::filesystem::path data_dir;       // this machine's files go in data_dir/m<id>
  Files* files = nullptr;               // the file system; null: PosixFiles()
  // Check every checkpoint image's data checksums when opening, not only after a reboot (when
  // the page cache no longer holds what this machine wrote): farmdb.verify_images.
  bool verify_images = false;
  uint64_t region_size = 64ull << 20;   // DESIGN.md default 64 MiB
  int replicas = 0;                     // f: backups per region
  ClockOptions clock;
  std::chrono::microseconds sync_interval{500};  // the others' clock sync and GC reports
  // The CM's own tick, which only advances GC (its clock is master time). GC may lag by a few
  // ticks; waking 2,000 times a second instead cost a single machine 2-3 us of CPU per pgbench
  // transaction (sql/bench/RESULTS.md, "What limits the figures").
  std::chrono::microseconds gc_interval{5000};
  std::chrono::milliseconds lease = kDefaultLease;  // farmdb.lease_ms (lease.h)
  // Where the lease thread reports what it sees (a lease expired or renewed, its priority), one
  // line of key=value pairs each; null: nowhere.
  std::function<void(const std::string&)> log;
};

class Machine {
 public:
  using RpcHandler = std::function<std::vector<std::byte>(const Message&)>;

  // `paused` reports whether the fabric has this machine paused (its own loops then idle).
  Machine(MachineId id, int machines, Fabric* fabric, TimeSource* time, MachineOptions options,
          std::function<bool()> paused);
  ~Machine();
  Machine(const Machine&) = delete;
  Machine& operator=(const Machine&) = delete;

  // Reads this machine's state file (machine.state) and maps the images of the data regions it
  // holds; old-version regions of an earlier run are dropped, and so are regions whose
  // allocation a crash cut short: those at or above `committed_below`, the next region id in the
  // CM's state (the CM stores it when it commits an allocation, and allocates one region at a
  // time). With `reopening` false the machine starts empty and writes its first state file. Call
  // once, before Start. Errors name the file and what is wrong with it (among them: a state file
  // missing, or there unexpected).
  std::expected<void, std::string> Open(bool reopening, RegionId committed_below);
  // True if Open found state from an earlier run.
  bool Reopened() const { return reopened_; }
  void Start();
  void Stop();

  MachineId id() const { return id_; }
  int machines() const { return machines_; }
  bool IsCm() const { return id_ == 0; }
  Clock& clock() { return clock_; }
  Fabric& fabric() { return *fabric_; }
  const MachineOptions& options() const { return options_; }
  bool Paused() const { return paused_(); }
  std::filesystem::path Dir() const;
  Files& files() const { return *files_; }

  // --- durable state (machine_state.h) ---
  MachineState State() const;
  // Applies `update` to the state and stores it.
  std::expected<void, FileError> UpdateState(const std::function<void(MachineState&)>& update);
  // The metadata stored with the checkpoint image of region `id` that Open mapped (the txn
  // layer's slab table); empty if the region had no image.
  std::span<const std::byte> ImageMeta(RegionId id) const;
  // Replaces the image of this machine's replica of `id` with `image` (region bytes) and `meta`,
  // durably. The replica's memory is not touched. Returns the image's generation.
  std::expected<uint64_t, FileError> WriteImage(RegionId id, std::span<const std::byte> image,
                                                std::span<const std::byte> meta);
  // The data regions this machine holds a replica of.
  std::vector<RegionPlacement> LocalRegions() const;

  // --- messages ---
  // A one-way handler; runs on the fabric thread, or with kAnyThread possibly on the sender's
  // (Fabric::AllowInlineDelivery: the handler must be quick, safe to run concurrently with
  // itself and the other handlers, and take no lock a sender may hold while it sends).
  // Replacing or clearing a handler returns only once no call of a previous one-way handler is
  // still running, so an owner can clear its handler and then be destroyed. REQUIRES: not
  // called from inside a one-way handler.
  enum class HandlerThread { kFabric, kAnyThread };
  void OnMessage(uint16_t type, MessageHandler handler,
                 HandlerThread thread = HandlerThread::kFabric);
  // An RPC handler: inline on the fabric thread, or on the control thread if it may block.
  void OnRpc(uint16_t type, RpcHandler handler, bool blocking);
  void Send(MachineId to, uint16_t type, std::vector<std::byte> body);
  // Sends a request and waits for the reply body.
  std::vector<std::byte> Call(MachineId to, uint16_t type, std::vector<std::byte> body);
  // Call waiting at most `timeout`: nullopt if no reply came (the request or the reply may have
  // been lost; a late reply is dropped).
  std::optional<std::vector<std::byte>> CallFor(MachineId to, uint16_t type, std::vector<std::byte> body,
                                                std::chrono::milliseconds timeout);

  // --- regions ---
  // Asks the CM for a new region with `replicas` backups (-1: options().replicas) whose primary
  // is `primary` if possible. Unreplicated (replicas = 0) regions hold old versions.
  struct RegionError {
    bool no_space = false;  // a replica's file system had no room for the region's file
    std::string message;
  };
  std::expected<RegionPlacement, RegionError> AllocateRegion(int replicas, MachineId primary,
                                                             RegionKind kind = RegionKind::kData);
  // Placement from the local map, else from the CM.
  std::optional<RegionPlacement> Lookup(RegionId id);
  // Lookup's primary, without copying the placement (object reads).
  std::optional<MachineId> PrimaryOf(RegionId id);
  // The bytes of this machine's replica of `id` (empty if it holds none).
  std::span<std::byte> LocalReplica(RegionId id) const;
  const RegionMap& region_map() const { return map_; }

  // --- oldest active transaction / GC safe point (FaRMv2 §4.5-4.6) ---
  // Returns OAT_local: min of Now().lower and the read timestamps of local active transactions.
  void SetOatProvider(std::function<Timestamp()> provider);
  Timestamp GcLocal() const { return gc_local_.load(std::memory_order_acquire); }
  Timestamp GcSafePoint() const { return gc_.load(std::memory_order_acquire); }
  // Non-CM sync progress, so tests can wait for rounds deterministically: the sequence number of
  // the latest report (sync request) sent, and of the latest reply applied (the CM processed that
  // report, and every GC value it carried is applied here).
  uint64_t SyncRequestsSent() const { return sync_sent_seq_.load(std::memory_order_acquire); }
  // How long ago this machine last heard from `m` over the clock sync (the lease's stand-in):
  // the CM from each member's request, a member from the CM's reply. nullopt: never, or `m` is
  // this machine or one this machine does not sync with.
  std::optional<std::chrono::nanoseconds> SinceHeard(MachineId m) const;
  uint64_t SyncReplyApplied() const { return sync_applied_seq_.load(std::memory_order_acquire); }

  // --- leases (lease.h) ---
  // Whether this machine may serve now: it holds its lease (the CM: at a majority). Alone it
  // needs none, and every Begin and Commit asks, so it reads no clock then.
  bool LeaseHeld() const { return machines_ == 1 || leases_.Held(clock_.LocalNanos()); }
  // Waits until the clock is synchronised and the lease held; false if `deadline` came first.
  bool WaitUntilServing(std::chrono::steady_clock::time_point deadline);
  const LeaseTable& leases() const { return leases_; }
  // How many times a lease this machine granted expired (it suspected the holder).
  uint64_t Suspicions() const { return suspicions_.load(std::memory_order_relaxed); }

 private:
  // Call and CallFor; without a deadline, until the reply or Stop.
  std::optional<std::vector<std::byte>> CallUntil(MachineId to, uint16_t type, std::vector<std::byte> body,
                                                  std::optional<std::chrono::steady_clock::time_point> deadline);
  void Dispatch(Message msg);
  void ControlLoop();
  void LeaseLoop();
  void SyncTick();
  // The lease thread's check of what expired or came back since its last tick (logged).
  void CheckLeases();
  void Log(const std::string& line) const;
  void OnSyncRequest(const Message& m);
  void OnSyncReply(const Message& m);
  void CmAdvanceGc(MachineId m, Timestamp oat_local, Timestamp gc_local);
  std::vector<std::byte> CmAllocate(const Message& m);
  std::vector<std::byte> PrepareReplica(const Message& m);
  std::vector<std::byte> CommitReplica(const Message& m);
  std::vector<std::byte> AbortReplica(const Message& m);
  Timestamp OatLocal();
  std::filesystem::path RegionPath(RegionId id) const;
  std::filesystem::path StatePath() const { return Dir() / "machine.state"; }
  // Maps the image file of a data region this machine holds (Open); `verify`: its data too.
  std::expected<void, std::string> OpenImage(const RegionPlacement& p, uint64_t generation, bool verify);
  // The CM keeps the timestamp floor ahead of master time (machine_state.h).
  void RaiseTimeFloor();

  const MachineId id_;
  const int machines_;
  Fabric* fabric_;
  MachineOptions options_;
  Files* files_;
  bool reopened_ = false;
  mutable std::mutex state_mu_;  // serialises state updates
  MachineState state_;           // guarded by state_mu_
  std::function<bool()> paused_;
  Clock clock_;
  RegionMap map_;

  std::mutex handlers_mu_;
  std::condition_variable handlers_idle_;
  int handlers_running_ = 0;  // one-way handler calls in progress; guarded by handlers_mu_
  std::map<uint16_t, MessageHandler> handlers_;
  std::map<uint16_t, std::pair<RpcHandler, bool>> rpcs_;

  std::mutex rpc_mu_;
  std::condition_variable rpc_cv_;
  uint64_t next_rpc_ = 1;
  std::map<uint64_t, std::optional<std::vector<std::byte>>> rpc_replies_;

  std::mutex control_mu_;
  std::condition_variable control_cv_;
  std::deque<Message> control_queue_;

  // Shared for LocalReplica, which every local object read calls; exclusive to add or drop one.
  mutable std::shared_mutex replicas_mu_;
  std::map<RegionId, std::unique_ptr<MappedFile>> replicas_;
  std::map<RegionId, std::span<const std::byte>> image_meta_;  // views into replicas_' files
  ThreadFront<RegionId, std::span<std::byte>, 64> replica_front_;  // LocalReplica's hits

  // CM state.
  std::mutex cm_mu_;
  RegionId next_region_ = 1;
  std::vector<int> regions_per_machine_;
  std::vector<Timestamp> oat_reported_;  // 0 = not reported yet
  std::vector<Timestamp> gc_local_reported_;

  // Sync state (non-CM).
  std::mutex sync_mu_;
  uint64_t sync_seq_ = 0;
  std::map<uint64_t, int64_t> sync_sent_;

  std::mutex oat_mu_;
  std::function<Timestamp()> oat_provider_;
  std::atomic<Timestamp> gc_local_{0};
  std::atomic<Timestamp> gc_{0};
  std::atomic<uint64_t> sync_sent_seq_{0};
  // Per machine: clock_.LocalNanos() when its last sync message arrived; 0: never (SinceHeard).
  std::unique_ptr<std::atomic<int64_t>[]> last_heard_;
  std::atomic<uint64_t> sync_applied_seq_{0};

  LeaseTable leases_;
  // The CM's send time in its latest reply (its lease request), which the next sync request
  // grants; 0: none yet (non-CM).
  std::atomic<int64_t> cm_request_{0};
  std::atomic<uint64_t> suspicions_{0};
  // What CheckLeases saw last (lease thread only).
  bool was_held_ = false;
  std::vector<bool> was_suspected_;

  std::atomic<bool> stop_{false};
  std::thread control_thread_;
  std::thread lease_thread_;
};

}  // namespace farmdb::cluster
