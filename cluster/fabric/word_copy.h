// Word-granular atomic memory access for memory reachable through the Fabric.
//
// A one-sided read can run concurrently with local CPU writes to the same bytes (that is the
// point of one-sided access). To keep such races defined (and TSan-clean) every access to
// fabric-registered memory goes word by word through std::atomic_ref<uint64_t>. Ordering contract
// used by objects (txn/object.h) and logs (txn/log.h):
//   - CopyOut reads 8-byte words in DESCENDING address order, each with acquire;
//   - CopyIn writes 8-byte words in ASCENDING address order, each with release.
// So a reader that observes a word written by a CopyIn/StoreWord also observes everything the
// writer wrote before it, and a writer's last word (highest address) is read first.
// REQUIRES: pointers 8-byte aligned, lengths multiples of 8.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace farmdb::cluster {

inline uint64_t LoadWord(const std::byte* p) {
  return std::atomic_ref<uint64_t>(*reinterpret_cast<uint64_t*>(const_cast<std::byte*>(p)))
      .load(std::memory_order_acquire);
}

inline void StoreWord(std::byte* p, uint64_t v) {
  std::atomic_ref<uint64_t>(*reinterpret_cast<uint64_t*>(p)).store(v, std::memory_order_release);
}

inline bool CasWord(std::byte* p, uint64_t& expected, uint64_t desired) {
  return std::atomic_ref<uint64_t>(*reinterpret_cast<uint64_t*>(p))
      .compare_exchange_strong(expected, desired, std::memory_order_acq_rel);
}

inline void CopyOut(const std::byte* src, std::byte* dst, size_t len) {
  for (size_t i = len; i >= 8; i -= 8) {
    uint64_t v = LoadWord(src + i - 8);
    std::memcpy(dst + i - 8, &v, 8);
  }
}

inline void CopyIn(std::byte* dst, const std::byte* src, size_t len) {
  for (size_t i = 0; i + 8 <= len; i += 8) {
    uint64_t v;
    std::memcpy(&v, src + i, 8);
    StoreWord(dst + i, v);
  }
}

}  // namespace farmdb::cluster
