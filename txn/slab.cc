#include "txn/slab.h"

#include <bit>

#include "cluster/fabric/word_copy.h"
#include "txn/object.h"

namespace farmdb::txn {

uint64_t ReplicaDigest(std::span<const std::byte> replica) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (uint64_t base = 0; base + kSlabSize <= replica.size(); base += kSlabSize) {
    const uint64_t header = cluster::LoadWord(replica.data() + base);
    if ((header >> 32) != kSlabMagic) continue;
    const auto lines = static_cast<uint32_t>(header & 0xffffffff);
    if (lines == 0 || lines > kSlabSize / kLineSize) continue;
    h = (std::rotl(h, 5) ^ header ^ base) * 0x9e3779b97f4a7c15ull;
    for (uint32_t i = 0; i < SlabCapacity(lines); ++i) {
      h = HashReplicaContents(replica.data() + base + 64 + uint64_t{i} * lines * kLineSize, lines, h);
    }
  }
  return h;
}

SlabBitmap::SlabBitmap(uint32_t capacity)
    : capacity_(capacity), free_(capacity), leaves_((capacity + 63) / 64, ~uint64_t{0}),
      summary_((leaves_.size() + 63) / 64, 0) {
  if (capacity % 64) leaves_.back() = (uint64_t{1} << (capacity % 64)) - 1;
  for (size_t i = 0; i < leaves_.size(); ++i) summary_[i / 64] |= uint64_t{1} << (i % 64);
}

std::optional<uint32_t> SlabBitmap::Allocate() {
  for (size_t s = 0; s < summary_.size(); ++s) {
    if (!summary_[s]) continue;
    size_t leaf = s * 64 + std::countr_zero(summary_[s]);
    uint32_t bit = std::countr_zero(leaves_[leaf]);
    leaves_[leaf] &= leaves_[leaf] - 1;
    if (!leaves_[leaf]) summary_[s] &= ~(uint64_t{1} << (leaf % 64));
    --free_;
    return static_cast<uint32_t>(leaf * 64 + bit);
  }
  return std::nullopt;
}

void SlabBitmap::Free(uint32_t index) {
  size_t leaf = index / 64;
  uint64_t mask = uint64_t{1} << (index % 64);
  if (leaves_[leaf] & mask) return;  // already free
  leaves_[leaf] |= mask;
  summary_[leaf / 64] |= uint64_t{1} << (leaf % 64);
  ++free_;
}

void SlabBitmap::Take(uint32_t index) {
  size_t leaf = index / 64;
  uint64_t mask = uint64_t{1} << (index % 64);
  if (!(leaves_[leaf] & mask)) return;  // already allocated
  leaves_[leaf] &= ~mask;
  if (!leaves_[leaf]) summary_[leaf / 64] &= ~(uint64_t{1} << (leaf % 64));
  --free_;
}

bool SlabBitmap::IsFree(uint32_t index) const {
  return leaves_[index / 64] & (uint64_t{1} << (index % 64));
}

}  // namespace farmdb::txn
