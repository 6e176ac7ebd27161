// A transaction's read set: the version and payload of every object it has read, by address.
//
// Entries and payloads live in an arena released all at once (Clear, or the set's end): about
// one block per transaction, where each read used to make two heap allocations (a map node and
// a payload) that were freed one by one. The block is allocated when the transaction starts
// reading, so the allocator usually hands back the one the previous transaction on this thread
// just freed, still in cache.
//
// Entries and payloads stay where they are until Clear (Txn::ReadObject hands out pointers).
// Thread-safety: none; a Txn is used by one thread at a time.
#pragma once

#include <cstddef>
#include <memory_resource>
#include <optional>
#include <span>
#include <unordered_map>

#include "txn/address.h"

namespace farmdb::txn {

class ReadSet {
 public:
  struct Entry {
    Timestamp version;
    uint32_t lines;
    bool allocated;
    std::span<std::byte> payload;  // in the arena
  };

  ReadSet() { entries_.emplace(&arena_); }
  ReadSet(const ReadSet&) = delete;
  ReadSet& operator=(const ReadSet&) = delete;

  const Entry* Find(Addr a) const {
    auto it = entries_->find(a);
    return it == entries_->end() ? nullptr : &it->second;
  }
  bool Contains(Addr a) const { return entries_->contains(a); }
  // Uninitialised arena bytes for the payload of the next Add. A read that fails leaves them
  // unused until Clear.
  std::span<std::byte> NewPayload(size_t bytes) {
    return {static_cast<std::byte*>(arena_.allocate(bytes, alignof(std::max_align_t))), bytes};
  }
  // `a` must not be in the set yet.
  const Entry* Add(Addr a, const Entry& e) { return &entries_->emplace(a, e).first->second; }
  // Forgets every entry and releases the arena.
  void Clear() {
    entries_.reset();
    arena_.release();
    entries_.emplace(&arena_);
  }

  auto begin() const { return entries_->begin(); }
  auto end() const { return entries_->end(); }

 private:
  // New-Order reads about 40 KiB: rows, B-tree leaves, hash buckets.
  static constexpr size_t kFirstBlock = 32 << 10;
  std::pmr::monotonic_buffer_resource arena_{kFirstBlock};
  // Optional only so that Clear can destroy the map (its buckets are in the arena) and build a
  // new one over the released arena.
  std::optional<std::pmr::unordered_map<Addr, Entry>> entries_;
};

}  // namespace farmdb::txn
