#include "txn/old_versions.h"

#include "cluster/fabric/word_copy.h"
#include "txn/object.h"

namespace farmdb::txn {

std::expected<void, LockOutcome> OldVersions::NewBlock() {
  if (!free_.empty()) {
    current_ = free_.back();
    free_.pop_back();
    current_->used = kLineSize;  // line 0 of a block is reserved (its header)
    current_->gc_time = 0;
    return {};
  }
  auto region = machine_->AllocateRegion(0, machine_->id(), cluster::RegionKind::kOldVersions);
  if (!region) return std::unexpected(region.error().no_space ? LockOutcome::kNoSpace : LockOutcome::kConflict);
  auto bytes = machine_->LocalReplica(region->id);
  for (uint64_t off = 0; off + kOldVersionBlockSize <= bytes.size(); off += kOldVersionBlockSize) {
    auto b = std::make_unique<Block>();
    b->base = Addr::Of(region->id, off);
    b->mem = bytes.data() + off;
    free_.push_back(b.get());
    all_.push_back(std::move(b));
  }
  if (free_.empty()) return std::unexpected(LockOutcome::kConflict);
  return NewBlock();
}

std::expected<OldVersions::Slot, LockOutcome> OldVersions::Allocate(uint32_t lines) {
  uint64_t size = uint64_t{lines} * kLineSize;
  if (size > kOldVersionBlockSize - kLineSize) return std::unexpected(LockOutcome::kConflict);
  if (!current_ || current_->used + size > kOldVersionBlockSize) {
    if (current_) full_.push_back(current_);
    current_ = nullptr;
    if (auto fresh = NewBlock(); !fresh) return std::unexpected(fresh.error());
  }
  Slot s{Addr{current_->base.raw + current_->used}, current_->mem + current_->used, current_};
  current_->used += size;
  ++current_->in_flight;
  return s;
}

void OldVersions::Finished(Block* block, Timestamp w) {
  --block->in_flight;
  if (w > block->gc_time) block->gc_time = w;
}

int OldVersions::Collect(Timestamp gc_safe_point) {
  int freed = 0;
  for (auto it = full_.begin(); it != full_.end();) {
    Block* b = *it;
    if (b->in_flight == 0 && b->gc_time < gc_safe_point) {
      for (uint64_t off = 0; off < b->used; off += 8) {
        cluster::StoreWord(b->mem + off, off % kLineSize == 0 ? kPoisonHeader : 0);
      }
      free_.push_back(b);
      it = full_.erase(it);
      ++freed;
    } else {
      ++it;
    }
  }
  freed_total_ += freed;
  return freed;
}

}  // namespace farmdb::txn
