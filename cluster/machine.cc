#include "cluster/machine.h"

#include <algorithm>
#include <cstring>

#include <pthread.h>
#include <sched.h>

#include "cluster/codec.h"
#include "cluster/crash_point.h"
#include "cluster/region_image.h"

namespace farmdb::cluster {

namespace {
// A replica's reply to kMsgRegionPrepare: mapped, or its disk had no room (the CM passes that on
// as the whole reply to kMsgRegionAlloc). Any other failure is an empty reply.
constexpr std::byte kPrepared{1};
constexpr std::byte kPreparedNoSpace{2};

std::optional<RegionPlacement> DecodePlacement(ByteReader& r) {
  RegionPlacement p;
  p.id = r.U32(), p.primary = r.U32(), p.size = r.U64();
  uint32_t kind = r.U32();
  uint32_t n = r.U32();
  for (uint32_t i = 0; i < n && r.ok(); ++i) p.backups.push_back(r.U32());
  if (!r.ok() || p.id == 0 || kind > static_cast<uint32_t>(RegionKind::kOldVersions)) return std::nullopt;
  p.kind = static_cast<RegionKind>(kind);
  return p;
}

bool HoldsReplica(const RegionPlacement& p, MachineId m) {
  return p.primary == m || std::ranges::find(p.backups, m) != p.backups.end();
}

// Adds or replaces `p` in `regions`.
void PutRegion(std::vector<RegionPlacement>& regions, const RegionPlacement& p) {
  auto it = std::ranges::find(regions, p.id, &RegionPlacement::id);
  if (it == regions.end()) {
    regions.push_back(p);
  } else {
    *it = p;
  }
}

// How far ahead of master time the CM keeps the timestamp floor, and how close master time may
// come before it is raised. A restart continues at the floor, so it skips at most the lead.
constexpr Timestamp kFloorLead = 10'000'000'000;
constexpr Timestamp kFloorRaise = 5'000'000'000;
}  // namespace

std::vector<std::byte> EncodePlacement(const RegionPlacement& p) {
  std::vector<std::byte> out;
  ByteWriter w(&out);
  w.U32(p.id), w.U32(p.primary), w.U64(p.size), w.U32(static_cast<uint32_t>(p.kind));
  w.U32(static_cast<uint32_t>(p.backups.size()));
  for (MachineId b : p.backups) w.U32(b);
  return out;
}

Machine::Machine(MachineId id, int machines, Fabric* fabric, TimeSource* time,
                 MachineOptions options, std::function<bool()> paused)
    : id_(id), machines_(machines), fabric_(fabric), options_(std::move(options)),
      files_(options_.files ? options_.files : &PosixFiles()), paused_(std::move(paused)), clock_(time, options_.clock, id == 0),
      regions_per_machine_(machines, 0), oat_reported_(machines, 0),
      gc_local_reported_(machines, 0), last_heard_(new std::atomic<int64_t>[machines]()),
      leases_(id, machines, options_.lease, options_.clock.drift_ppm), was_suspected_(machines, false) {
  fabric_->SetHandler(id_, [this](Message m) { Dispatch(std::move(m)); });
  // Clock sync is latency-bound: its round trip widens every machine's uncertainty (§4.1).
  OnMessage(kMsgSyncRequest, [this](Message m) { OnSyncRequest(m); }, HandlerThread::kAnyThread);
  OnMessage(kMsgSyncReply, [this](Message m) { OnSyncReply(m); }, HandlerThread::kAnyThread);
  OnRpc(kMsgRegionAlloc, [this](const Message& m) { return CmAllocate(m); }, true);
  OnRpc(kMsgRegionPrepare, [this](const Message& m) { return PrepareReplica(m); }, false);
  OnRpc(kMsgRegionCommit, [this](const Message& m) { return CommitReplica(m); }, false);
  OnRpc(kMsgRegionAbort, [this](const Message& m) { return AbortReplica(m); }, false);
  OnRpc(kMsgRegionLookup, [this](const Message& m) {
    ByteReader r(m.body);
    auto p = map_.Get(r.U32());
    return p ? EncodePlacement(*p) : std::vector<std::byte>{};
  }, false);
}

Machine::~Machine() { Stop(); }

std::filesystem::path Machine::Dir() const {
  return options_.data_dir / std::string("m").append(std::to_string(id_));
}

std::filesystem::path Machine::RegionPath(RegionId id) const {
  return Dir() / std::string("region-").append(std::to_string(id));
}

// ---------------------------------------------------------------- durable state

std::expected<void, std::string> Machine::Open(bool reopening, RegionId committed_below) {
  auto loaded = LoadMachineState(*files_, StatePath());
  if (!loaded) return std::unexpected(loaded.error());
  if (loaded->has_value() != reopening) {
    return std::unexpected(StatePath().string() + (reopening ? " is missing (the other machines' state is there)"
                                                             : " was left by an earlier run, but machine 0's is missing"));
  }
  if (!*loaded) {
    std::lock_guard l(state_mu_);
    state_.machine = id_;
    state_.machines = static_cast<uint32_t>(machines_);
    state_.replicas = static_cast<uint32_t>(options_.replicas);
    state_.region_size = options_.region_size;
    if (IsCm()) state_.time_floor = static_cast<Timestamp>(clock_.LocalNanos()) + kFloorLead;
    if (auto stored = StoreMachineState(*files_, StatePath(), state_); !stored) return std::unexpected(stored.error().message);
    return {};
  }
  MachineState s = std::move(**loaded);
  auto differs = [&](std::string_view what, uint64_t stored, uint64_t asked) {
    return std::unexpected(StatePath().string() + ": the data directory was made with " + std::string(what) + "=" +
                           std::to_string(stored) + ", not " + std::to_string(asked));
  };
  if (s.machine != id_) return differs("machine", s.machine, id_);
  if (s.machines != static_cast<uint32_t>(machines_)) return differs("farmdb.machines", s.machines, machines_);
  if (s.region_size != options_.region_size) return differs("region size", s.region_size, options_.region_size);
  if (s.replicas != static_cast<uint32_t>(options_.replicas)) return differs("replicas", s.replicas, options_.replicas);
  reopened_ = true;
  // Old versions serve transactions of the run that made them; none survives a restart. A region
  // some replicas prepared but the CM never committed was never written to, and its id will be
  // handed out again: a replica that kept it would allocate in it and log into a region the
  // others do not hold.
  auto dropped = [&](const RegionPlacement& p) {
    return p.kind == RegionKind::kOldVersions || p.id >= committed_below;
  };
  for (const RegionPlacement& p : s.regions) {
    if (!dropped(p) || !HoldsReplica(p, id_)) continue;
    if (auto removed = files_->Remove(RegionPath(p.id)); !removed) return std::unexpected(removed.error().message);
  }
  std::erase_if(s.regions, dropped);
  std::erase_if(s.images, [&](auto& image) {
    return std::ranges::find(s.regions, image.first, &RegionPlacement::id) == s.regions.end();
  });
  // After a reboot the page cache no longer holds what this machine wrote: check every image's
  // data as it is read back.
  const bool verify = options_.verify_images || s.checkpoint_boot_id != files_->BootId();
  for (const RegionPlacement& p : s.regions) {
    map_.Put(p);
    if (IsCm()) {
      ++regions_per_machine_[p.primary];
      for (MachineId b : p.backups) ++regions_per_machine_[b];
    }
    if (!HoldsReplica(p, id_)) continue;
    auto image = std::ranges::find(s.images, p.id, &std::pair<RegionId, uint64_t>::first);
    if (auto opened = OpenImage(p, image == s.images.end() ? 0 : image->second, verify); !opened) return opened;
  }
  {
    std::lock_guard l(cm_mu_);
    next_region_ = s.next_region;
  }
  std::lock_guard l(state_mu_);
  state_ = std::move(s);
  if (auto stored = StoreMachineState(*files_, StatePath(), state_); !stored) return std::unexpected(stored.error().message);
  return {};
}

std::expected<void, std::string> Machine::OpenImage(const RegionPlacement& p, uint64_t generation, bool verify) {
  const std::filesystem::path path = RegionPath(p.id);
  auto file = files_->Open(path, MapMode::kPrivate);
  if (!file) return std::unexpected(file.error().message);
  auto info = CheckImage((*file)->bytes(), p.id, p.size, verify);
  if (!info) return std::unexpected(path.string() + " " + info.error());
  if (info->generation < generation) {
    return std::unexpected(path.string() + " holds image " + std::to_string(info->generation) + " but " +
                           StatePath().string() + " lists image " + std::to_string(generation));
  }
  auto region = (*file)->bytes().first(p.size);
  fabric_->Register(id_, MemKey(MemKind::kRegion, p.id), region);
  std::lock_guard lock(replicas_mu_);
  image_meta_[p.id] = info->meta;
  replicas_[p.id] = std::move(*file);
  replica_front_.Invalidate();
  return {};
}

MachineState Machine::State() const {
  std::lock_guard l(state_mu_);
  return state_;
}

std::expected<void, FileError> Machine::UpdateState(const std::function<void(MachineState&)>& update) {
  std::lock_guard l(state_mu_);
  MachineState next = state_;
  update(next);
  if (auto stored = StoreMachineState(*files_, StatePath(), next); !stored) return stored;
  state_ = std::move(next);
  return {};
}

std::span<const std::byte> Machine::ImageMeta(RegionId id) const {
  std::shared_lock lock(replicas_mu_);
  auto it = image_meta_.find(id);
  return it == image_meta_.end() ? std::span<const std::byte>{} : it->second;
}

std::expected<uint64_t, FileError> Machine::WriteImage(RegionId id, std::span<const std::byte> image,
                                                       std::span<const std::byte> meta) {
  uint64_t generation = 1;
  {
    std::lock_guard l(state_mu_);
    auto it = std::ranges::find(state_.images, id, &std::pair<RegionId, uint64_t>::first);
    if (it != state_.images.end()) generation = it->second + 1;
  }
  std::vector<std::byte> tail = ImageTail(id, generation, image, meta);
  std::span<const std::byte> parts[] = {image, tail};
  if (auto replaced = files_->Replace(RegionPath(id), parts); !replaced) return std::unexpected(replaced.error());
  // The state file learns the generation with the checkpoint that wrote it (a newer image than
  // the state lists is fine: recovery replays the log from the older checkpoint over it).
  std::lock_guard l(state_mu_);
  auto it = std::ranges::find(state_.images, id, &std::pair<RegionId, uint64_t>::first);
  if (it == state_.images.end()) {
    state_.images.emplace_back(id, generation);
  } else {
    it->second = generation;
  }
  return generation;
}

std::vector<RegionPlacement> Machine::LocalRegions() const {
  std::vector<RegionPlacement> out;
  for (const RegionPlacement& p : map_.All()) {
    if (p.kind == RegionKind::kData && HoldsReplica(p, id_) && !LocalReplica(p.id).empty()) out.push_back(p);
  }
  return out;
}

void Machine::RaiseTimeFloor() {
  Timestamp now = static_cast<Timestamp>(clock_.LocalNanos());
  {
    std::lock_guard l(state_mu_);
    if (now + kFloorRaise < state_.time_floor) return;
  }
  // A failed write leaves the old floor; the next tick tries again.
  (void)UpdateState([&](MachineState& s) { s.time_floor = now + kFloorLead; });
}

void Machine::Start() {
  control_thread_ = std::thread([this] { ControlLoop(); });
  lease_thread_ = std::thread([this] { LeaseLoop(); });
}

void Machine::Stop() {
  if (stop_.exchange(true)) return;
  {
    std::lock_guard lock(control_mu_);
    control_cv_.notify_all();
  }
  {
    std::lock_guard lock(rpc_mu_);
    rpc_cv_.notify_all();
  }
  if (control_thread_.joinable()) control_thread_.join();
  if (lease_thread_.joinable()) lease_thread_.join();
}

// ---------------------------------------------------------------- messages

void Machine::OnMessage(uint16_t type, MessageHandler handler, HandlerThread thread) {
  std::unique_lock lock(handlers_mu_);
  handlers_[type] = std::move(handler);
  if (thread == HandlerThread::kAnyThread) fabric_->AllowInlineDelivery(id_, type);
  // A delivering thread (the fabric's, or a sender's for inline types) may have copied the old
  // handler just before; wait it out (the txn engine clears its LOCK-REPLY handler and is then
  // destroyed).
  handlers_idle_.wait(lock, [&] { return handlers_running_ == 0; });
}

void Machine::OnRpc(uint16_t type, RpcHandler handler, bool blocking) {
  std::lock_guard lock(handlers_mu_);
  rpcs_[type] = {std::move(handler), blocking};
}

void Machine::Send(MachineId to, uint16_t type, std::vector<std::byte> body) {
  fabric_->Send(to, Message{id_, type, std::move(body)});
}

std::vector<std::byte> Machine::Call(MachineId to, uint16_t type, std::vector<std::byte> body) {
  return CallUntil(to, type, std::move(body), std::nullopt).value_or(std::vector<std::byte>{});
}

std::optional<std::vector<std::byte>> Machine::CallFor(MachineId to, uint16_t type, std::vector<std::byte> body,
                                                       std::chrono::milliseconds timeout) {
  return CallUntil(to, type, std::move(body), std::chrono::steady_clock::now() + timeout);
}

std::optional<std::vector<std::byte>> Machine::CallUntil(
    MachineId to, uint16_t type, std::vector<std::byte> body,
    std::optional<std::chrono::steady_clock::time_point> deadline) {
  uint64_t rpc_id;
  {
    std::lock_guard lock(rpc_mu_);
    rpc_id = next_rpc_++;
    rpc_replies_[rpc_id];
  }
  std::vector<std::byte> msg;
  ByteWriter w(&msg);
  w.U64(rpc_id), w.Bytes(body);
  Send(to, type, std::move(msg));
  std::unique_lock lock(rpc_mu_);
  auto answered = [&] { return rpc_replies_[rpc_id].has_value() || stop_.load(); };
  if (deadline) {
    rpc_cv_.wait_until(lock, *deadline, answered);
  } else {
    rpc_cv_.wait(lock, answered);
  }
  auto reply = std::move(rpc_replies_[rpc_id]);
  rpc_replies_.erase(rpc_id);
  return reply;
}

void Machine::Dispatch(Message msg) {
  if (msg.type == kMsgRpcReply) {
    ByteReader r(msg.body);
    uint64_t rpc_id = r.U64();
    auto payload = r.Bytes(r.remaining());
    std::lock_guard lock(rpc_mu_);
    auto it = rpc_replies_.find(rpc_id);
    if (it != rpc_replies_.end()) it->second.emplace(payload.begin(), payload.end());
    rpc_cv_.notify_all();
    return;
  }
  MessageHandler one_way;
  std::optional<std::pair<RpcHandler, bool>> rpc;
  {
    std::lock_guard lock(handlers_mu_);
    if (auto it = handlers_.find(msg.type); it != handlers_.end()) one_way = it->second;
    if (auto it = rpcs_.find(msg.type); it != rpcs_.end()) rpc = it->second;
    if (one_way) ++handlers_running_;
  }
  if (one_way) {
    one_way(std::move(msg));
    std::lock_guard lock(handlers_mu_);
    if (--handlers_running_ == 0) handlers_idle_.notify_all();
  } else if (rpc && rpc->second) {
    std::lock_guard lock(control_mu_);
    control_queue_.push_back(std::move(msg));
    control_cv_.notify_one();
  } else if (rpc) {
    ByteReader r(msg.body);
    uint64_t rpc_id = r.U64();
    auto payload = r.Bytes(r.remaining());
    Message inner{msg.from, msg.type, {payload.begin(), payload.end()}};
    std::vector<std::byte> reply;
    ByteWriter w(&reply);
    w.U64(rpc_id), w.Bytes(rpc->first(inner));
    Send(msg.from, kMsgRpcReply, std::move(reply));
  }
}

void Machine::ControlLoop() {
  std::unique_lock lock(control_mu_);
  while (!stop_.load()) {
    if (control_queue_.empty()) {
      control_cv_.wait(lock);
      continue;
    }
    Message msg = std::move(control_queue_.front());
    control_queue_.pop_front();
    lock.unlock();
    RpcHandler handler;
    {
      std::lock_guard hl(handlers_mu_);
      handler = rpcs_[msg.type].first;
    }
    ByteReader r(msg.body);
    uint64_t rpc_id = r.U64();
    auto payload = r.Bytes(r.remaining());
    std::vector<std::byte> reply;
    ByteWriter w(&reply);
    w.U64(rpc_id), w.Bytes(handler(Message{msg.from, msg.type, {payload.begin(), payload.end()}}));
    Send(msg.from, kMsgRpcReply, std::move(reply));
    lock.lock();
  }
}

// ---------------------------------------------------------------- regions

std::expected<RegionPlacement, Machine::RegionError> Machine::AllocateRegion(int replicas, MachineId primary,
                                                                             RegionKind kind) {
  std::vector<std::byte> req;
  ByteWriter w(&req);
  w.U32(replicas < 0 ? options_.replicas : replicas), w.U32(primary), w.U32(static_cast<uint32_t>(kind));
  auto reply = Call(0, kMsgRegionAlloc, std::move(req));
  if (reply == std::vector{kPreparedNoSpace}) {
    return std::unexpected(RegionError{true, "no space left on a replica's device for a new region"});
  }
  ByteReader r(reply);
  auto p = DecodePlacement(r);
  if (!p) return std::unexpected(RegionError{false, "region allocation failed"});
  map_.Put(*p);
  return *p;
}

std::vector<std::byte> Machine::CmAllocate(const Message& m) {
  ByteReader r(m.body);
  int f = std::min<int>(static_cast<int>(r.U32()), machines_ - 1);
  MachineId hint = r.U32();
  RegionPlacement p;
  p.kind = r.U32() == static_cast<uint32_t>(RegionKind::kOldVersions) ? RegionKind::kOldVersions : RegionKind::kData;
  {
    std::lock_guard lock(cm_mu_);
    p.id = next_region_++;
    p.size = options_.region_size;
    // Balance region counts; the primary follows the locality hint (FaRM §3).
    std::vector<MachineId> order(machines_);
    for (int i = 0; i < machines_; ++i) order[i] = i;
    std::ranges::stable_sort(order, [&](MachineId a, MachineId b) {
      return regions_per_machine_[a] < regions_per_machine_[b];
    });
    p.primary = hint < static_cast<MachineId>(machines_) ? hint : order[0];
    for (MachineId c : order) {
      if (static_cast<int>(p.backups.size()) == f) break;
      if (c != p.primary) p.backups.push_back(c);
    }
    ++regions_per_machine_[p.primary];
    for (MachineId b : p.backups) ++regions_per_machine_[b];
  }
  // Two-phase: every replica maps its copy before any machine uses the mapping (FaRM §3).
  std::vector<MachineId> replicas = p.backups;
  replicas.insert(replicas.begin(), p.primary);
  for (size_t i = 0; i < replicas.size(); ++i) {
    auto prepared = Call(replicas[i], kMsgRegionPrepare, EncodePlacement(p));
    if (prepared == std::vector{kPrepared}) continue;
    // The replicas that mapped the region drop it (and the space its file holds); it counts
    // against no machine.
    for (size_t j = 0; j < i; ++j) Call(replicas[j], kMsgRegionAbort, EncodePlacement(p));
    {
      std::lock_guard lock(cm_mu_);
      for (MachineId rep : replicas) --regions_per_machine_[rep];
    }
    return prepared == std::vector{kPreparedNoSpace} ? prepared : std::vector<std::byte>{};
  }
  // A crash here leaves a region that replicas hold and the CM never committed (Open drops it).
  CrashPoint("region.prepared");
  // The CM's state lists every region and the next id before the region is used, so a restart
  // never hands out an id twice.
  auto stored = UpdateState([&](MachineState& s) {
    s.next_region = std::max(s.next_region, p.id + 1);
    PutRegion(s.regions, p);
  });
  if (!stored) {
    for (MachineId rep : replicas) Call(rep, kMsgRegionAbort, EncodePlacement(p));
    std::lock_guard lock(cm_mu_);
    for (MachineId rep : replicas) --regions_per_machine_[rep];
    return stored.error().NoSpace() ? std::vector{kPreparedNoSpace} : std::vector<std::byte>{};
  }
  for (MachineId rep : replicas) Call(rep, kMsgRegionCommit, EncodePlacement(p));
  map_.Put(p);
  return EncodePlacement(p);
}

std::vector<std::byte> Machine::PrepareReplica(const Message& m) {
  ByteReader r(m.body);
  auto p = DecodePlacement(r);
  if (!p) return {};
  // Private: region memory begins as its file's image (zeros here) and is made durable by the
  // log and checkpoints, never by the kernel writing the mapping back (txn/FORMATS.md).
  auto file = files_->Create(RegionPath(p->id), p->size, MapMode::kPrivate);
  if (!file) return file.error().NoSpace() ? std::vector{kPreparedNoSpace} : std::vector<std::byte>{};
  // Listed in the state before anything can be written to it, so a restart maps every region
  // the log refers to.
  if (auto stored = UpdateState([&](MachineState& s) { PutRegion(s.regions, *p); }); !stored) {
    (void)files_->Remove(RegionPath(p->id));
    return stored.error().NoSpace() ? std::vector{kPreparedNoSpace} : std::vector<std::byte>{};
  }
  fabric_->Register(id_, MemKey(MemKind::kRegion, p->id), (*file)->bytes());
  {
    std::lock_guard lock(replicas_mu_);
    replicas_[p->id] = std::move(*file);
  }
  replica_front_.Invalidate();
  return {kPrepared};
}

std::vector<std::byte> Machine::CommitReplica(const Message& m) {
  ByteReader r(m.body);
  auto p = DecodePlacement(r);
  if (!p) return {};
  map_.Put(*p);
  return {};
}

std::vector<std::byte> Machine::AbortReplica(const Message& m) {
  ByteReader r(m.body);
  auto p = DecodePlacement(r);
  if (!p) return {};
  std::unique_ptr<MappedFile> file;
  {
    std::lock_guard lock(replicas_mu_);
    auto it = replicas_.find(p->id);
    if (it == replicas_.end()) return {};
    file = std::move(it->second);
    replicas_.erase(it);
  }
  replica_front_.Invalidate();
  fabric_->Unregister(id_, MemKey(MemKind::kRegion, p->id));
  (void)files_->Remove(file->path());  // the region is gone either way; a file left behind only holds space
  (void)UpdateState([&](MachineState& s) { std::erase_if(s.regions, [&](auto& r) { return r.id == p->id; }); });
  return {};
}

std::optional<RegionPlacement> Machine::Lookup(RegionId id) {
  if (auto p = map_.Get(id)) return p;
  std::vector<std::byte> req;
  ByteWriter(&req).U32(id);
  auto reply = Call(0, kMsgRegionLookup, std::move(req));
  ByteReader r(reply);
  auto p = DecodePlacement(r);
  if (p) map_.Put(*p);
  return p;
}

std::optional<MachineId> Machine::PrimaryOf(RegionId id) {
  if (auto primary = map_.Primary(id)) return primary;
  auto p = Lookup(id);
  if (!p) return std::nullopt;
  return p->primary;
}

std::span<std::byte> Machine::LocalReplica(RegionId id) const {
  const uint64_t version = replica_front_.version();
  if (auto hit = replica_front_.Find(id, version)) return *hit;
  std::shared_lock lock(replicas_mu_);
  auto it = replicas_.find(id);
  if (it == replicas_.end()) return {};
  // The region's bytes; the image file they map may go on with its checkpoint tail.
  auto region = map_.Get(id);
  std::span<std::byte> bytes = it->second->bytes().first(region ? region->size : it->second->bytes().size());
  replica_front_.Fill(id, bytes, version);
  return bytes;
}

// ---------------------------------------------------------------- time sync and GC

void Machine::SetOatProvider(std::function<Timestamp()> provider) {
  std::lock_guard lock(oat_mu_);
  oat_provider_ = std::move(provider);
}

Timestamp Machine::OatLocal() {
  // Now().lower first, then the provider: a transaction registering concurrently either is seen
  // or took its timestamp after this L (txn/engine.h explains the ordering).
  auto iv = clock_.TryNow();
  if (!iv) return 0;
  std::lock_guard lock(oat_mu_);
  Timestamp oat = iv->lower;
  if (oat_provider_) oat = std::min(oat, oat_provider_());
  return oat;
}

void Machine::LeaseLoop() {
  if (machines_ > 1) {
    // FaRM §5.1: renewals must not wait behind other threads for a CPU. It sleeps between
    // ticks, so it cannot starve them.
    sched_param param{};
    param.sched_priority = sched_get_priority_max(SCHED_FIFO) / 2;
    if (int err = pthread_setschedparam(pthread_self(), SCHED_FIFO, &param); err != 0) {
      Log("event=lease_thread_priority machine=" + std::to_string(id_) + " policy=normal reason=\"" +
          std::strerror(err) + " (SCHED_FIFO needs CAP_SYS_NICE or an RLIMIT_RTPRIO)\"");
    }
  }
  while (!stop_.load()) {
    if (IsCm()) RaiseTimeFloor();
    if (!Paused()) {
      SyncTick();
      CheckLeases();
    }
    std::this_thread::sleep_for(IsCm() ? options_.gc_interval : options_.sync_interval);
  }
}

void Machine::CheckLeases() {
  if (machines_ == 1) return;
  const int64_t now = clock_.LocalNanos();
  const auto ms = [](std::chrono::nanoseconds d) {
    return std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(d).count());
  };
  for (MachineId m = 0; m < static_cast<MachineId>(machines_); ++m) {
    const bool suspected = leases_.Suspects(m, now);
    if (suspected == was_suspected_[m]) continue;
    was_suspected_[m] = suspected;
    if (suspected) suspicions_.fetch_add(1, std::memory_order_relaxed);
    Log((suspected ? "event=lease_expired machine=" : "event=lease_renewed machine=") + std::to_string(id_) +
        " holder=" + std::to_string(m) + " lease_ms=" + ms(leases_.lease()));
  }
  const bool held = leases_.Held(now);
  if (held == was_held_) return;
  was_held_ = held;
  // Losing it fences this machine: its transactions fail until it holds one again.
  Log((held ? "event=lease_held machine=" : "event=lease_lost machine=") + std::to_string(id_) +
      " lease_ms=" + ms(leases_.lease()));
}

void Machine::Log(const std::string& line) const {
  if (options_.log) options_.log(line);
}

bool Machine::WaitUntilServing(std::chrono::steady_clock::time_point deadline) {
  while (!clock_.TryNow() || !LeaseHeld()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  return true;
}

void Machine::SyncTick() {
  // The GC_local this machine reports is capped at its OAT_local, which includes the R of every
  // active stale-snapshot transaction (§4.6): such an R may be below the GC_local reached after
  // it began (GC_local follows OAT_CM once the transaction that produced R finished), and GC =
  // min GC_local must stay at or below it until the snapshot ends.
  const Timestamp oat = OatLocal();
  const Timestamp gc_local = std::min(GcLocal(), oat);
  if (IsCm()) {
    CmAdvanceGc(0, oat, gc_local);
    return;
  }
  std::vector<std::byte> body;
  ByteWriter w(&body);
  uint64_t seq;
  {
    std::lock_guard lock(sync_mu_);
    seq = ++sync_seq_;
    // A request older than a lease can no longer renew it (lease.h): its reply, if one still
    // comes, is treated as lost.
    const int64_t now = clock_.LocalNanos();
    while (!sync_sent_.empty() && sync_sent_.begin()->second + leases_.lease().count() < now) {
      sync_sent_.erase(sync_sent_.begin());
    }
    sync_sent_[seq] = now;
    w.U64(seq);
  }
  // The grant of the CM's latest lease request (lease.h: the handshake's third message).
  w.U64(oat), w.U64(gc_local), w.U64(static_cast<uint64_t>(cm_request_.load(std::memory_order_acquire)));
  Send(0, kMsgSyncRequest, std::move(body));
  sync_sent_seq_.store(seq, std::memory_order_release);
}

void Machine::CmAdvanceGc(MachineId m, Timestamp oat_local, Timestamp gc_local) {
  std::lock_guard lock(cm_mu_);
  // The latest arrival wins, even if it is an older report delayed by the fabric. That is safe:
  // an older GC_local report is at most the current one (GC_local never decreases), and the
  // reported GC_local is capped by every stale snapshot active when it was sent (SyncTick); a
  // snapshot that began later has R >= GC_local at its start, itself >= every older report. An
  // older OAT report may be above the current OAT_local, but OAT_CM only decides GC_local, and
  // stale snapshots are protected through the GC_local cap, not through OAT.
  if (oat_local) oat_reported_[m] = oat_local;
  gc_local_reported_[m] = gc_local;
  if (m != 0) return;
  // The CM's own tick: round one sets GC_local := OAT_CM, round two GC := min GC_local.
  Timestamp oat_cm = *std::ranges::min_element(oat_reported_);
  Timestamp gc_cm = *std::ranges::min_element(gc_local_reported_);
  if (oat_cm > gc_local_.load()) gc_local_.store(oat_cm, std::memory_order_release);
  gc_local_reported_[0] = std::min(gc_local_.load(), oat_local);
  if (gc_cm > gc_.load()) gc_.store(gc_cm, std::memory_order_release);
}

void Machine::OnSyncRequest(const Message& m) {
  if (!IsCm() || Paused()) return;
  ByteReader r(m.body);
  uint64_t seq = r.U64();
  Timestamp oat = r.U64(), gcl = r.U64();
  int64_t cm_request = static_cast<int64_t>(r.U64());
  if (!r.ok() || m.from >= static_cast<MachineId>(machines_)) return;
  const int64_t arrived = clock_.LocalNanos();
  last_heard_[m.from].store(arrived, std::memory_order_relaxed);
  leases_.Grant(m.from, arrived);
  if (cm_request != 0) leases_.Granted(m.from, cm_request, arrived);
  CmAdvanceGc(m.from, oat, gcl);
  Timestamp oat_cm, gc_cm;
  {
    std::lock_guard lock(cm_mu_);
    oat_cm = *std::ranges::min_element(oat_reported_);
    gc_cm = *std::ranges::min_element(gc_local_reported_);
  }
  // The CM's time is also its lease request: the member's grant echoes it.
  std::vector<std::byte> body;
  ByteWriter w(&body);
  w.U64(seq), w.U64(static_cast<uint64_t>(clock_.LocalNanos())), w.U64(oat_cm), w.U64(gc_cm);
  Send(m.from, kMsgSyncReply, std::move(body));
}

std::optional<std::chrono::nanoseconds> Machine::SinceHeard(MachineId m) const {
  if (m >= static_cast<MachineId>(machines_) || m == id_) return std::nullopt;
  const int64_t heard = last_heard_[m].load(std::memory_order_relaxed);
  if (heard == 0) return std::nullopt;
  return std::chrono::nanoseconds(std::max<int64_t>(0, clock_.LocalNanos() - heard));
}

void Machine::OnSyncReply(const Message& m) {
  int64_t t_recv = clock_.LocalNanos();
  ByteReader r(m.body);
  uint64_t seq = r.U64();
  int64_t t_cm = static_cast<int64_t>(r.U64());
  Timestamp oat_cm = r.U64(), gc_cm = r.U64();
  if (!r.ok()) return;
  int64_t t_send;
  {
    std::lock_guard lock(sync_mu_);
    auto it = sync_sent_.find(seq);
    if (it == sync_sent_.end()) return;
    t_send = it->second;
    sync_sent_.erase(it);
  }
  clock_.OnSync({t_send, t_cm, t_recv});
  if (m.from < static_cast<MachineId>(machines_)) last_heard_[m.from].store(t_recv, std::memory_order_relaxed);
  leases_.Granted(0, t_send, t_recv);
  leases_.Grant(0, t_recv);
  cm_request_.store(t_cm, std::memory_order_release);
  if (oat_cm > gc_local_.load()) gc_local_.store(oat_cm, std::memory_order_release);
  if (gc_cm > gc_.load()) gc_.store(gc_cm, std::memory_order_release);
  if (seq > sync_applied_seq_.load()) sync_applied_seq_.store(seq, std::memory_order_release);
}

}  // namespace farmdb::cluster
