// Object layout and the atomic-read rules for objects in region memory (FaRMv2 §4.4, Fig. 7).
//
// An object of n cache lines (64 bytes each):
//   word 0 (bytes 0-7)    header: bit 63 lock, bit 62 allocated, bits 0-52 write timestamp
//   word 1 (bytes 8-15)   old-version pointer (Addr.raw; 0 = none)
//   last word of line k   line version = the write timestamp of the install that wrote line k
//   payload               bytes 16-55 of line 0, bytes 0-55 of each later line
// Old versions use the same layout (lock always clear, old-version pointer = next older).
//
// Torn-read detection. Installs write each line's words before that line's version word, and
// the header word last; one-sided reads copy words in descending address order (word_copy.h), so
// each line's version is read before its data and the header after everything. A copy is
// consistent iff the header is unlocked and every line version equals the header's timestamp:
// seeing a newer word of line k forces seeing its newer version (release/acquire), and any newer
// install locked the header before writing, which the later header read observes. The paper keeps
// an 8-bit counter at the start of each line instead; we keep the full timestamp at the end of
// each line because our fabrics copy words, not cache lines, atomically, and the order above is
// what makes word-granular copies checkable. Write timestamps of one object strictly increase.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "txn/address.h"

namespace farmdb::txn {

inline constexpr size_t kLineSize = 64;
inline constexpr uint64_t kLockBit = uint64_t{1} << 63;
inline constexpr uint64_t kAllocBit = uint64_t{1} << 62;
// Header word of freed old-version memory (GC poisons blocks it frees, txn/old_versions.h): lock
// bit set with a marker no live header carries, so a read that reached freed memory is caught.
inline constexpr uint64_t kPoisonHeader = kLockBit | (uint64_t{0x1ff} << 53);

inline constexpr size_t PayloadCapacity(uint32_t lines) { return 40 + 56 * (lines - 1); }
// The fewest lines whose payload holds `bytes` (at least 1).
uint32_t LinesFor(size_t bytes);

inline Timestamp HeaderTs(uint64_t w0) { return w0 & cluster::kTimestampMask; }
inline bool HeaderLocked(uint64_t w0) { return w0 & kLockBit; }
inline bool HeaderAllocated(uint64_t w0) { return w0 & kAllocBit; }

enum class ReadCheck { kOk, kLocked, kTorn };

// An allocator whose resize leaves new bytes uninitialised: buffers that are overwritten whole
// right away (a one-sided read's destination) need not be zeroed first. Zeroing a 4 KiB B-tree
// node before each read was a tenth of a pgbench transaction's instructions.
template <typename T>
struct UninitializedAllocator : std::allocator<T> {
  template <typename U>
  struct rebind {
    using other = UninitializedAllocator<U>;
  };
  template <typename U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    std::allocator_traits<std::allocator<T>>::construct(*this, p, std::forward<Args>(args)...);
  }
};
using RawBytes = std::vector<std::byte, UninitializedAllocator<std::byte>>;

// What one read of an object saw besides its payload.
struct ObjectHead {
  uint64_t header = 0;
  Addr old_version;
  ReadCheck check = ReadCheck::kOk;
};

// Reads the `lines`-line object at `src` straight into payload form: the payload goes to
// `payload` (PayloadCapacity(lines) bytes), the header and old-version pointer are returned with
// the consistency check (locked, torn or ok). Words are loaded in CopyOut's descending order, so
// `src` may be a replica's live memory (a local read, FaRM §3) or a one-sided read's destination.
ObjectHead CopyPayloadOut(const std::byte* src, uint32_t lines, std::byte* payload);

// Local-memory operations on an object at `obj` (a primary's or backup's replica).
// REQUIRES for Install: the caller holds the object's lock (or is a backup applying in
// timestamp order) and ts > the object's current timestamp.
void InstallObject(std::byte* obj, uint32_t lines, std::span<const std::byte> payload,
                   Timestamp ts, bool allocated, Addr old_version);
// Copies the head at `head` (currently locked by the caller) to `dst` as an old version.
void CopyAsOldVersion(const std::byte* head, std::byte* dst, uint32_t lines);
// Objects are equal as replicas: same bytes except the lock bit and the old-version pointer
// (backups keep no old versions, FaRMv2 §4.7).
bool SameReplicaContents(const std::byte* a, const std::byte* b, uint32_t lines);
// A hash of what SameReplicaContents compares, folded into `h`: equal replicas hash alike.
uint64_t HashReplicaContents(const std::byte* object, uint32_t lines, uint64_t h);

}  // namespace farmdb::txn
