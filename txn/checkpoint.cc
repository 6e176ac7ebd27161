// Checkpoints (FORMATS.md "Checkpoints"): images of the regions a machine holds, so that its
// durable log can be truncated and a restart replays only what came after.
//
// A checkpoint is fuzzy: commits go on while it copies. It first takes, under progress_mu_
// exclusive, the log position P below which every record's effect is in memory (the oldest
// record of a transaction the participant still holds, or the log's end). Then, region by
// region: a copy in which every object is one committed version (copied until its line versions
// agree with its header; a locked head is its last committed version, copied with the lock bit
// clear, for no lock outlives the process), with old-version pointers cleared (old versions do
// not survive a restart); at the region's primary, the slab table with each slab's allocated
// objects as they are in the copy. Before an image replaces the last one, the log is made
// durable up to the clock's upper bound at the copy's end, so no image ever holds a transaction
// that a power loss could take out of the log (recovery's cut would then split it). Last, the
// machine state records P and the checkpoint, and the log segments wholly below P go.
//
// A replay from P installs a version only over an older one, so what the images hold already
// is skipped.

#include <algorithm>
#include <cstdio>
#include <thread>

#include "cluster/codec.h"
#include "cluster/crash_point.h"
#include "cluster/fabric/word_copy.h"
#include "txn/engine.h"
#include "txn/object.h"
#include "txn/slab.h"

namespace farmdb::txn {

using cluster::LoadWord;
using cluster::RegionPlacement;

namespace {
// One committed version of the `lines`-line object at `src`, copied to `dst`: unlocked, old-
// version pointer cleared. Returns whether it is allocated.
bool CopyObject(const std::byte* src, std::byte* dst, uint32_t lines) {
  const size_t size = size_t{lines} * kLineSize;
  for (;;) {
    cluster::CopyOut(src, dst, size);  // descending, so the header is read last (object.h)
    uint64_t header;
    std::memcpy(&header, dst, 8);
    const Timestamp ts = HeaderTs(header);
    bool consistent = true;
    for (uint32_t k = 0; k < lines && consistent; ++k) {
      uint64_t version;
      std::memcpy(&version, dst + k * kLineSize + 56, 8);
      consistent = version == ts;
    }
    if (consistent) {
      header &= ~kLockBit;
      std::memcpy(dst, &header, 8);
      std::memset(dst + 8, 0, 8);
      return HeaderAllocated(header);
    }
    std::this_thread::yield();  // an install in progress
  }
}
}  // namespace

void TxnEngine::CopyRegion(const RegionPlacement& p, std::vector<std::byte>& image, std::vector<std::byte>& meta) {
  std::span<std::byte> src = machine_->LocalReplica(p.id);
  image.resize(src.size());
  meta.clear();
  const bool primary = p.primary == machine_->id();
  std::vector<std::byte> slabs;
  cluster::ByteWriter w(&slabs);
  uint32_t formatted = 0;
  for (uint64_t base = 0; base + kSlabSize <= src.size(); base += kSlabSize) {
    const uint64_t header = LoadWord(src.data() + base);
    if ((header >> 32) != kSlabMagic) {
      cluster::CopyOut(src.data() + base, image.data() + base, kSlabSize);
      continue;
    }
    const uint32_t lines = static_cast<uint32_t>(header & 0xffffffff);
    cluster::CopyOut(src.data() + base, image.data() + base, kSlabSize);  // header line, slack
    std::vector<uint64_t> allocated((SlabCapacity(lines) + 63) / 64, 0);
    for (uint32_t i = 0; i < SlabCapacity(lines); ++i) {
      uint64_t off = base + 64 + uint64_t{i} * lines * kLineSize;
      if (CopyObject(src.data() + off, image.data() + off, lines)) allocated[i / 64] |= uint64_t{1} << (i % 64);
    }
    if (!primary) continue;
    ++formatted;
    w.U32(static_cast<uint32_t>(base / kSlabSize)), w.U32(lines);
    for (uint64_t word : allocated) w.U64(word);
  }
  if (!primary) return;
  cluster::ByteWriter m(&meta);
  m.U32(formatted);
  m.Bytes(slabs);
}

// "txn=M.W.S primary" or "... backup": the transaction whose record at `lsn` the participant
// holds. REQUIRES: progress_mu_ held (the participant changes its maps under it, shared).
std::string TxnEngine::HolderOf(uint64_t lsn) const {
  auto name = [](TxnId id, const char* role) {
    return "txn=" + std::to_string(TxnMachine(id)) + "." + std::to_string(TxnWorker(id)) + "." +
           std::to_string(static_cast<uint32_t>(id)) + " " + role;
  };
  for (const auto& [id, t] : primary_txns_) {
    if (t.lsn == lsn) return name(id, "primary");
  }
  for (const auto& [id, t] : backup_txns_) {
    if (t.lsn == lsn) return name(id, "backup");
  }
  return "unknown";
}

std::expected<void, std::string> TxnEngine::Checkpoint() {
  std::lock_guard one(checkpoint_mu_);
  const auto began = std::chrono::steady_clock::now();
  uint64_t start;
  std::string held_by;  // what keeps the log from being dropped to its end
  {
    std::unique_lock quiet(progress_mu_);
    start = active_lsns_.empty() ? wal_->end() : std::min(*active_lsns_.begin(), wal_->end());
    if (start < wal_->end()) held_by = HolderOf(start);
  }
  Timestamp through = 0;
  std::vector<std::byte> image, meta;
  for (const RegionPlacement& p : machine_->LocalRegions()) {
    CopyRegion(p, image, meta);
    // Every commit installed in the copy took its W before this upper bound.
    const Timestamp end = machine_->clock().Now().upper;
    if (!durability_->WaitDurable(end)) return std::unexpected("stopping: not every machine's log reached the copy");
    through = std::max(through, end);
    if (auto written = machine_->WriteImage(p.id, image, meta); !written) return std::unexpected(written.error().message);
    cluster::CrashPoint("checkpoint.image");
  }
  const std::string boot = machine_->files().BootId();
  auto stored = machine_->UpdateState([&](cluster::MachineState& s) {
    s.log_start = start;
    s.checkpoint_ts = std::max(s.checkpoint_ts, through);
    s.checkpoint_boot_id = boot;
    // Runs whose records all lie below the new start are no longer read.
    while (s.runs.size() > 1 && s.runs[1].log_start <= start) s.runs.erase(s.runs.begin());
  });
  if (!stored) return std::unexpected(stored.error().message);
  wal_->DropBefore(start);
  log_start_.store(start, std::memory_order_release);
  checkpoints_.fetch_add(1);
  log_room_.NotifyAll();
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - began);
  Log("event=checkpoint machine=" + std::to_string(machine_->id()) + " log_start=" + std::to_string(start) +
      " log_end=" + std::to_string(wal_->end()) + " duration_ms=" + std::to_string(took.count()) +
      (held_by.empty() ? "" : " held_by=\"" + held_by + "\""));
  return {};
}

std::expected<void, TxnError> TxnEngine::WaitForLogRoom() {
  auto room = [&] { return LogSinceCheckpoint() < options_.max_log_bytes; };
  if (room()) return {};
  log_full_waits_.fetch_add(1, std::memory_order_relaxed);
  const uint64_t failures = checkpoint_failures_.load();
  {
    std::lock_guard l(checkpoint_wait_mu_);
    checkpoint_asked_ = true;
    checkpoint_wake_.notify_all();
  }
  log_room_.Wait([&] { return room() || stop_.load() || checkpoint_failures_.load() != failures; });
  if (room()) return {};
  // A checkpoint that fails has most likely found the disk full; the log stays as it is.
  return std::unexpected(TxnError{stop_.load() ? TxnErrorCode::kInternal : TxnErrorCode::kOutOfSpace});
}

void TxnEngine::CheckpointLoop() {
  auto last = std::chrono::steady_clock::now();
  while (!stop_.load()) {
    {
      std::unique_lock l(checkpoint_wait_mu_);
      checkpoint_wake_.wait_for(l, std::chrono::seconds(1), [&] { return stop_.load() || checkpoint_asked_; });
      checkpoint_asked_ = false;
    }
    if (stop_.load()) break;
    SendIdleTruncations();
    const cluster::MachineState state = machine_->State();
    const uint64_t logged = wal_->end() - state.log_start;
    // Several runs in the log: each began a segment, and recovery would read them all.
    const bool due = logged >= options_.checkpoint_log_bytes || state.runs.size() > 2 ||
                     (logged > 0 && std::chrono::steady_clock::now() - last >= options_.checkpoint_interval);
    if (!due) continue;
    if (auto done = Checkpoint(); !done) {
      Log("event=checkpoint_failed machine=" + std::to_string(machine_->id()) + " error=\"" + done.error() + "\"");
      checkpoint_failures_.fetch_add(1);
      log_room_.NotifyAll();
    }
    last = std::chrono::steady_clock::now();
  }
}

}  // namespace farmdb::txn
