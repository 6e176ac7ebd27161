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

#include <memory>
#include <mutex>
#include <unordered_map>

#include "cluster/thread_front.h"
#include "txn/address.h"

namespace farmdb::storage {

// kFrontSlots per thread (a power of two), over every cache of this T the thread uses.
template <typename T, size_t kFrontSlots>
class AddrCache {
 public:
  AddrCache() = default;
  AddrCache(const AddrCache&) = delete;
  AddrCache& operator=(const AddrCache&) = delete;

  std::shared_ptr<const T> Get(txn::Addr a) const {
    if (auto hit = front_.Find(a.raw, kFrontVersion)) return *hit;
    std::shared_ptr<const T> value;
    {
      std::lock_guard lock(mu_);
      auto it = entries_.find(a);
      if (it == entries_.end()) return nullptr;
      value = it->second;
    }
    front_.Fill(a.raw, value, kFrontVersion);
    return value;
  }
  void Put(txn::Addr a, std::shared_ptr<const T> value) {
    front_.Fill(a.raw, value, kFrontVersion);
    std::lock_guard lock(mu_);
    entries_[a] = std::move(value);
  }
  void Erase(txn::Addr a) {
    front_.Erase(a.raw);
    std::lock_guard lock(mu_);
    entries_.erase(a);
  }
  // Erases a's entry only while it is still `seen`: a newer one another thread put stays.
  void EraseIf(txn::Addr a, const std::shared_ptr<const T>& seen) {
    front_.Erase(a.raw);
    std::lock_guard lock(mu_);
    if (auto it = entries_.find(a); it != entries_.end() && it->second == seen) entries_.erase(it);
  }
  size_t size() const {  // entries in the shared map
    std::lock_guard lock(mu_);
    return entries_.size();
  }

 private:
  // Entries are hints checked by their users, so fronts are never invalidated wholesale.
  static constexpr uint64_t kFrontVersion = 0;

  cluster::ThreadFront<uint64_t, std::shared_ptr<const T>, kFrontSlots> front_;
  mutable std::mutex mu_;
  std::unordered_map<txn::Addr, std::shared_ptr<const T>> entries_;
};

}  // namespace farmdb::storage
