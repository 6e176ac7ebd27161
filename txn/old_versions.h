// OldVersions: old-version memory at one primary (FaRMv2 §4.4-4.5).
//
// Old versions live in unreplicated regions whose primary is this machine, carved into 1 MiB
// blocks and bump-allocated. The block's GC time is the largest write timestamp of the commits
// that created versions in it; a full block with no commit in flight is freed whole once its GC
// time is below the GC safe point, after which no reader can reach it (readers with R >= GC never
// follow a pointer into a version created by a commit with W < GC). Freed blocks are poisoned so
// a read that did reach one is detected (object.h kPoisonHeader).
//
// Not thread-safe: the machine's TxnEngine guards it with a mutex, since both its participant
// thread and coordinators doing a local primary's work (engine.h) allocate here.
#pragma once

#include <cstdint>
#include <deque>
#include <expected>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "cluster/machine.h"
#include "txn/address.h"
#include "txn/records.h"

namespace farmdb::txn {

inline constexpr uint64_t kOldVersionBlockSize = 1 << 20;

class OldVersions {
 public:
  struct Block {
    Addr base;
    std::byte* mem = nullptr;
    uint64_t used = 0;
    Timestamp gc_time = 0;
    int in_flight = 0;  // locked transactions with an old version here, not yet committed/aborted
  };
  struct Slot {
    Addr addr;
    std::byte* mem = nullptr;
    Block* block = nullptr;
  };

  explicit OldVersions(cluster::Machine* machine) : machine_(machine) {}

  // Space for an old version of `lines` lines; counts an in-flight commit on its block. Fails
  // with kNoSpace when a new region was needed and a disk had no room for it.
  std::expected<Slot, LockOutcome> Allocate(uint32_t lines);
  // The commit that allocated in `block` committed with write timestamp w (or aborted: w = 0).
  void Finished(Block* block, Timestamp w);
  // Frees full blocks whose GC time is below the safe point; returns how many were freed.
  int Collect(Timestamp gc_safe_point);
  int blocks_in_use() const { return static_cast<int>(full_.size()) + (current_ ? 1 : 0); }
  uint64_t blocks_freed() const { return freed_total_; }

 private:
  std::expected<void, LockOutcome> NewBlock();
  cluster::Machine* machine_;
  std::vector<std::unique_ptr<Block>> all_;
  Block* current_ = nullptr;
  std::deque<Block*> full_;
  std::vector<Block*> free_;
  uint64_t freed_total_ = 0;
};

}  // namespace farmdb::txn
