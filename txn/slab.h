// Slabs: regions are cut into 1 MiB slabs, each holding objects of one size (FaRM §3, FaRMv2 §4.8).
//
// Slab layout: line 0 is the slab header (word 0 = kSlabMagic << 32 | object lines); objects
// follow at 64 + i * lines * 64. The header is written once at the primary and copied to the
// backups through the fabric before the slab is used, and is immutable while the slab lives, so
// readers cache it.
//
// SlabBitmap is the hierarchical free bitmap kept only at the primary by the slab's owning
// thread: a summary bit per 64-object leaf word says whether the leaf has a free object, so
// finding one touches two words. Not thread-safe (owned by one thread); frees that happen on
// other threads (a committed Free processed by a participant) go through Slab::PostFree.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <span>
#include <vector>

#include "txn/address.h"

namespace farmdb::txn {

inline constexpr uint64_t kSlabSize = 1 << 20;
inline constexpr uint64_t kSlabMagic = 0x51ab;

inline uint32_t SlabCapacity(uint32_t lines) {
  return static_cast<uint32_t>((kSlabSize - 64) / (uint64_t{lines} * 64));
}

// A hash of a replica of a data region (its bytes): every formatted slab's header and objects,
// each as SameReplicaContents compares it (object.h). Once the logs drained, a backup's equals
// its primary's; while installs run it may be torn.
uint64_t ReplicaDigest(std::span<const std::byte> replica);

class SlabBitmap {
 public:
  explicit SlabBitmap(uint32_t capacity);
  std::optional<uint32_t> Allocate();
  void Free(uint32_t index);
  // Marks `index` allocated (a restart rebuilding the bitmap from a checkpoint and the log).
  void Take(uint32_t index);
  bool IsFree(uint32_t index) const;
  uint32_t free_count() const { return free_; }
  uint32_t capacity() const { return capacity_; }

 private:
  uint32_t capacity_;
  uint32_t free_;
  std::vector<uint64_t> leaves_;   // bit set = free
  std::vector<uint64_t> summary_;  // bit set = leaf has a free bit
};

// One slab at its primary. bitmap is touched only by the owning worker.
struct Slab {
  Slab(RegionId region, uint32_t index, uint32_t lines)
      : region(region), index(index), lines(lines), bitmap(SlabCapacity(lines)) {}

  uint64_t base() const { return uint64_t{index} * kSlabSize; }
  Addr ObjectAddr(uint32_t i) const {
    return Addr::Of(region, base() + 64 + uint64_t{i} * lines * 64);
  }
  uint32_t ObjectIndex(Addr a) const {
    return static_cast<uint32_t>((a.offset() - base() - 64) / (uint64_t{lines} * 64));
  }
  void PostFree(uint32_t i) {
    std::lock_guard l(mu);
    remote_frees.push_back(i);
  }
  // Owner only: moves posted frees into the bitmap.
  void DrainFrees() {
    std::lock_guard l(mu);
    for (uint32_t i : remote_frees) bitmap.Free(i);
    remote_frees.clear();
  }

  const RegionId region;
  const uint32_t index;
  const uint32_t lines;
  SlabBitmap bitmap;
  std::mutex mu;
  std::vector<uint32_t> remote_frees;  // guarded by mu
};

}  // namespace farmdb::txn
