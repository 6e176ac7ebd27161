// Object layouts of the hash index (storage/README.md "Object layouts") and their codecs.
//
// Every storage object's payload starts with a 32-bit kind tag, so a decoder that is handed the
// wrong object (a bug, never a race: reads are opaque, FaRMv2 §4.2) reports corruption instead of
// misreading it. All integers are little-endian host order (the cluster is homogeneous x86-64).
//
//   root     tag | unique u8 | global depth u8 | max global depth u8 | 0 u8 |
//            buckets per segment u32 | directory: 2^G Addr
//   segment  tag | index u64 (root Addr) | local depth u32 | prefix u64 | bucket count u32 |
//            bucket Addr x buckets per segment
//   bucket   tag | entry count u32 | next overflow bucket Addr | entries
//   blob     tag | key bytes | value bytes           (an out-of-line entry's key and value)
//   entry    hash u64 | key length u16 | value length u16 | kind u8 | inline: key, value
//                                                              | blob:   blob Addr
// Array buckets and overflow buckets share the bucket layout; an array bucket's `next` heads
// the overflow chain of the entries whose home it is.
// Pure functions, no shared state: thread-compatible.
#pragma once

#include <array>
#include <cstdint>
#include <expected>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "txn/address.h"

namespace farmdb::storage {

using txn::Addr;

enum class ObjectTag : uint32_t {
  kHashRoot = 0x48525431,     // "HRT1"
  kHashSegment = 0x48534731,  // "HSG1"
  kHashBucket = 0x48424b31,   // "HBK1"
  kBlob = 0x424c4231,         // "BLB1"
};

// Bucket geometry. Associativity and byte budget follow FaRM's buckets of a few cache lines
// holding several small key-value pairs; larger pairs go out of line so a bucket still holds
// kBucketSlots of them.
inline constexpr uint32_t kBucketLines = 8;
inline constexpr size_t kBucketPayload = 40 + 56 * (kBucketLines - 1);  // txn PayloadCapacity
inline constexpr size_t kBucketHeader = 16;
inline constexpr uint32_t kBucketSlots = 8;
inline constexpr size_t kEntryHeader = 13;
inline constexpr size_t kInlineLimit = 64;     // key + value bytes stored inline
inline constexpr size_t kMaxKeyValue = 14000;  // key + value bytes, within one blob object
inline constexpr uint32_t kMaxGlobalDepth = 10;  // directory entries live in the root object

struct HashEntry {
  uint64_t hash = 0;
  uint32_t key_len = 0;
  uint32_t value_len = 0;
  Addr blob;           // non-null: key and value live in this blob object
  std::string bytes;   // inline: key then value
  size_t EncodedSize() const { return kEntryHeader + (blob.null() ? bytes.size() : 8); }
};

struct HashBucket {
  Addr next;
  std::vector<HashEntry> entries;
  size_t EncodedSize() const;
  bool Fits(const HashEntry& e) const {
    return entries.size() < kBucketSlots && EncodedSize() + e.EncodedSize() <= kBucketPayload;
  }
};

// An entry read in place: `bytes` (inline key then value) points into the bucket's payload.
struct HashEntryRef {
  uint64_t hash = 0;
  uint32_t key_len = 0;
  uint32_t value_len = 0;
  Addr blob;
  std::string_view bytes;
};
// A bucket read in place, without copying its entries: lookups scan buckets this way and copy
// only what matches. Valid while the payload it was read from is.
struct HashBucketView {
  Addr next;
  uint32_t count = 0;
  std::array<HashEntryRef, kBucketSlots> entries;
};

struct HashSegment {
  // The index's root Addr. A per-machine cached directory (HashDirectoryCache) may name an
  // address that no longer holds this index's segment; this field, like a B-tree node's `tree`,
  // lets the check tell.
  Addr index;
  uint32_t depth = 0;
  uint64_t prefix = 0;  // the top `depth` bits of the hashes this segment holds
  std::vector<Addr> buckets;
};

struct HashRoot {
  bool unique = false;
  uint32_t global_depth = 0;
  uint32_t max_global_depth = kMaxGlobalDepth;  // segments at this depth chain instead of split
  uint32_t buckets_per_segment = 0;
  std::vector<Addr> directory;  // 2^global_depth segment addresses, indexed by the hash's top bits
};

// Room the root object needs for the largest directory.
size_t HashRootCapacity();

std::vector<std::byte> EncodeRoot(const HashRoot& r);
std::expected<HashRoot, std::string> DecodeRoot(std::span<const std::byte> p);
std::vector<std::byte> EncodeSegment(const HashSegment& s);
std::expected<HashSegment, std::string> DecodeSegment(std::span<const std::byte> p);
std::vector<std::byte> EncodeBucket(const HashBucket& b);
std::expected<HashBucket, std::string> DecodeBucket(std::span<const std::byte> p);
std::expected<HashBucketView, std::string> ViewBucket(std::span<const std::byte> p);
std::vector<std::byte> EncodeBlob(std::string_view key, std::string_view value);
// The blob's key and value bytes (key_len + value_len of them) after the tag.
std::expected<std::string, std::string> DecodeBlob(std::span<const std::byte> p, size_t kv_len);

}  // namespace farmdb::storage
