// HashIndex: FaRM's chained associative hopscotch hash table (FaRM NSDI'14, used by FaRM SOSP'15
// §6.2) over opaque byte-string keys and values, built only from txn transactions.
//
// A key's home is bucket i of the segment its hash selects; it lives in bucket i, in bucket i+1
// (the two-bucket neighbourhood, read together by a lookup) or in bucket i's overflow chain.
// The table grows a segment at a time: an insert that would lengthen a full neighbourhood's chain
// splits that segment (extendible hashing over a directory of segments), inside the caller's
// transaction, so no operation ever waits for a global resize (storage/README.md says why).
//
// Every operation runs inside the caller's Txn, so index updates are replicated, atomic with the
// caller's other writes, and read one consistent snapshot (FaRMv2 §4.2 opacity): unlike FaRMv1
// there are no incarnations or per-bucket versions. Conflicts surface as the Txn's abort error
// (StorageError::Code::kTxn, retryable); the caller retries the whole transaction.
//
// Unique indexes map a key to one value (Insert of a present key fails with kDuplicateKey).
// Non-unique indexes hold a set of distinct (key, value) pairs (inserting a present pair fails
// with kDuplicateKey): a secondary index maps a key to primary keys, each at most once.
// A HashIndex value is the root's address and an optional directory cache pointer: copyable,
// immutable, thread-safe; the cache must outlive it; the Txn it is given is used by one thread at
// a time (txn.h).
//
// Directory cache: with a per-machine HashDirectoryCache an operation takes the segment address
// from the cached directory instead of reading the root, and reads only the segment (and its
// buckets) in the transaction. The segment read at R proves the cached entry right: a live index
// never frees a segment, its segments' (local depth, prefix) pairs partition the hash space at
// every snapshot, and the segment names its index, so a segment of this index whose prefix
// matches the hash's top `depth` bits is the hash's segment at R (the role fence keys play in the
// B-tree). A dropped index's root and segments are freed in one transaction, and a freed slot is
// allocated only by transactions whose snapshot has it free (Txn::Alloc), so no snapshot sees a
// dropped index's segment beside a new index at the same root address. Anything else
// (another prefix, another object, no object) drops the entry and re-reads the root through the
// transaction. So lookups and inserts no longer conflict with splits of other segments, which
// write the root.
#pragma once

#include <atomic>
#include <cstdint>
#include <expected>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "storage/addr_cache.h"
#include "storage/hash_bucket.h"
#include "storage/index.h"
#include "txn/txn.h"

namespace farmdb::storage {

// Decoded root objects (directories) of any number of hash indexes, keyed by root Addr, per
// machine (addr_cache.h). Entries are hints checked against the segment they name (above); a
// lookup that finds the segment disagrees erases the entry. Thread-safe.
//
// Only the lookups that read the root are counted: a counter every lookup bumps would be one
// cache line written by every thread of the machine on every hit. Tests see hits as reads saved.
class HashDirectoryCache : public AddrCache<HashRoot, 64> {
 public:
  struct Stats {
    uint64_t misses = 0;  // no entry: the root was read
    uint64_t stale = 0;   // the entry named a wrong segment: dropped, the root was read
  };
  Stats stats() const { return {misses_.load(), stale_.load()}; }

 private:
  friend class HashIndex;
  std::atomic<uint64_t> misses_{0}, stale_{0};
};

struct HashIndexOptions {
  bool unique = true;
  uint32_t buckets_per_segment = 32;  // 2..1024; a split rewrites one segment's buckets
  // At most 2^max_global_depth segments; beyond that, overflow chains grow (tests lower it).
  uint32_t max_global_depth = kMaxGlobalDepth;
};

class HashIndex {
 public:
  // Allocates the root, one segment and its buckets in `t` (the index exists once t commits).
  static StorageResult<HashIndex> Create(txn::Txn& t, HashIndexOptions options,
                                         HashDirectoryCache* cache = nullptr);
  static HashIndex Open(Addr root, HashDirectoryCache* cache = nullptr) {
    return HashIndex(root, cache);
  }
  Addr root() const { return root_; }

  // Values stored under `key` (at most one for a unique index), in no particular order.
  StorageResult<std::vector<std::string>> Lookup(txn::Txn& t, std::string_view key) const;
  // The same pairs behind the iterator interface the B-tree's range scans share.
  StorageResult<std::unique_ptr<IndexIterator>> Scan(txn::Txn& t, std::string_view key) const;
  StorageResult<void> Insert(txn::Txn& t, std::string_view key, std::string_view value) const;
  // Removes the pairs with this key (and this value, if given; then at most one pair).
  // Returns how many were removed.
  StorageResult<size_t> Erase(txn::Txn& t, std::string_view key,
                              std::optional<std::string_view> value = std::nullopt) const;
  // Calls fn(key, value) for every pair (tests and full scans).
  StorageResult<void> ForEach(txn::Txn& t,
                              const std::function<void(std::string_view, std::string_view)>& fn) const;
  // Checks the structure: directory vs segment depths and prefixes, every entry in its home's
  // neighbourhood or chain with the right hash, no empty overflow buckets. "" if sound.
  StorageResult<std::string> CheckInvariants(txn::Txn& t) const;

  // The 64-bit hash keys are placed by (exposed for tests that need colliding buckets).
  static uint64_t Hash(std::string_view key);

 private:
  HashIndex(Addr root, HashDirectoryCache* cache) : root_(root), cache_(cache) {}
  struct Place;
  struct Found;
  // The hash's segment. With `use_cache` (and a cache) the directory comes from the cache where
  // its entry checks out (and the cache is refilled from a root read otherwise); without, the
  // root is read through t and the cache is left alone (e.g. right after a split in t).
  StorageResult<Place> Locate(txn::Txn& t, uint64_t hash, bool use_cache) const;
  // Reads the root through t and the hash's segment, which must agree (one snapshot).
  StorageResult<Place> LocateFromRoot(txn::Txn& t, uint64_t hash) const;
  StorageResult<std::vector<Found>> FindAll(txn::Txn& t, const Place& p, uint64_t hash,
                                            std::string_view key, bool first_only) const;
  // Puts `e` into its home's neighbourhood or chain. Returns false (changing nothing) when that
  // would need a new overflow bucket and `may_split`: the caller splits the segment and retries.
  StorageResult<bool> Put(txn::Txn& t, const Place& p, HashEntry e, bool may_split) const;
  StorageResult<void> Split(txn::Txn& t, const Place& p) const;

  Addr root_;
  HashDirectoryCache* cache_;
};

}  // namespace farmdb::storage
