// AddrCache: decoded copies of objects, keyed by their Addr, shared by every thread of one
// machine. The B-tree's internal nodes (BTreeCache) and hash indexes' directories
// (HashDirectoryCache) live in one. Entries are hints that their users check against what they
// read in the transaction (fence keys, a segment's prefix), so they need no invalidation protocol.
//
// Every descent step or hash lookup asks the cache, so each thread keeps a small direct-mapped
// front of the entries it used: a hit there takes no lock. A TPC-C profile had 13% of the
// server's time in the B-tree cache's Get, most of it waiting for its one mutex. Fronts are hints
// like the shared map: Put and Erase update the calling thread's front, and other threads' fronts
// may keep an older copy until a user finds it disagrees with what it read and erases it, as it
// would a stale shared entry.
#pragma once

#include <array>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "txn/address.h"

namespace farmdb::storage {

inline std::atomic<uint64_t> next_addr_cache_id{1};

// kFrontSlots per thread (a power of two), over every cache of this T the thread uses.
template <typename T, size_t kFrontSlots>
class AddrCache {
  static_assert(std::has_single_bit(kFrontSlots));

 public:
  AddrCache() : id_(next_addr_cache_id.fetch_add(1)) {}
  AddrCache(const AddrCache&) = delete;
  AddrCache& operator=(const AddrCache&) = delete;

  std::shared_ptr<const T> Get(txn::Addr a) const {
    Slot& slot = Front(a);
    if (slot.cache == id_ && slot.addr == a) return slot.value;
    std::shared_ptr<const T> value;
    {
      std::lock_guard lock(mu_);
      auto it = entries_.find(a);
      if (it == entries_.end()) return nullptr;
      value = it->second;
    }
    slot = {id_, a, value};
    return value;
  }
  void Put(txn::Addr a, std::shared_ptr<const T> value) {
    Front(a) = {id_, a, value};
    std::lock_guard lock(mu_);
    entries_[a] = std::move(value);
  }
  void Erase(txn::Addr a) {
    ClearFront(a);
    std::lock_guard lock(mu_);
    entries_.erase(a);
  }
  // Erases a's entry only while it is still `seen`: a newer one another thread put stays.
  void EraseIf(txn::Addr a, const std::shared_ptr<const T>& seen) {
    ClearFront(a);
    std::lock_guard lock(mu_);
    if (auto it = entries_.find(a); it != entries_.end() && it->second == seen) entries_.erase(it);
  }
  size_t size() const {  // entries in the shared map
    std::lock_guard lock(mu_);
    return entries_.size();
  }

 private:
  struct Slot {
    uint64_t cache = 0;  // id_ of the cache the entry came from; 0 = empty
    txn::Addr addr;
    std::shared_ptr<const T> value;
  };
  // This thread's slot for `a` in this cache.
  Slot& Front(txn::Addr a) const {
    thread_local std::array<Slot, kFrontSlots> front;
    // Fibonacci hashing: object addresses differ mostly in their middle bits.
    return front[((a.raw ^ id_) * 0x9e3779b97f4a7c15ull) >> (64 - std::bit_width(kFrontSlots - 1))];
  }
  void ClearFront(txn::Addr a) {
    Slot& slot = Front(a);
    if (slot.cache == id_ && slot.addr == a) slot = {};
  }

  const uint64_t id_;  // tags front slots; never reused, so a dead cache's slots never match
  mutable std::mutex mu_;
  std::unordered_map<txn::Addr, std::shared_ptr<const T>> entries_;
};

}  // namespace farmdb::storage
