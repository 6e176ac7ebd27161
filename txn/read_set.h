// A transaction's read set: the version and payload of every object it has read, by address.
//
// Entries, payloads and the index over them live in an arena released all at once (Clear, or
// the set's end): about one block per transaction, where each read used to make two heap
// allocations (a map node and a payload) that were freed one by one. The block is allocated when
// the transaction starts reading, so the allocator usually hands back the one the previous
// transaction on this thread just freed, still in cache.
//
// Every object read asks Find first, so the index is an open-addressing table of entry pointers
// (power-of-two size, Fibonacci hashing, linear probing): a probe is a multiply and usually one
// slot, where std::unordered_map divided by a prime and chased a node.
//
// Entries and payloads stay where they are until Clear (Txn::ReadObject hands out pointers);
// growing the table moves only pointers.
// Thread-safety: none; a Txn is used by one thread at a time.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory_resource>
#include <new>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

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
  using Item = std::pair<const Addr, Entry>;

  ReadSet() = default;
  ReadSet(const ReadSet&) = delete;
  ReadSet& operator=(const ReadSet&) = delete;

  const Entry* Find(Addr a) const {
    if (slots_.empty()) return nullptr;
    for (size_t i = Home(a);; i = (i + 1) & (slots_.size() - 1)) {
      const Item* item = slots_[i];
      if (item == nullptr) return nullptr;
      if (item->first == a) return &item->second;
    }
  }
  bool Contains(Addr a) const { return Find(a) != nullptr; }
  // Uninitialised arena bytes for the payload of the next Add. A read that fails leaves them
  // unused until Clear.
  std::span<std::byte> NewPayload(size_t bytes) {
    return {static_cast<std::byte*>(arena_.allocate(bytes, alignof(std::max_align_t))), bytes};
  }
  // `a` must not be in the set yet.
  const Entry* Add(Addr a, const Entry& e) {
    if (2 * (items_.size() + 1) > slots_.size()) Grow();
    auto* item = static_cast<Item*>(arena_.allocate(sizeof(Item), alignof(Item)));
    new (item) Item(a, e);  // trivially destructible: Clear just releases the arena
    items_.push_back(item);
    Place(item);
    return &item->second;
  }
  // Forgets every entry and releases the arena.
  void Clear() {
    // The vectors' buffers are in the arena: let go of them before it is released.
    items_ = Items(&arena_);
    slots_ = Slots(&arena_);
    arena_.release();
  }
  size_t size() const { return items_.size(); }

  // In the order read.
  class Iterator {
   public:
    explicit Iterator(const Item* const* at) : at_(at) {}
    const Item& operator*() const { return **at_; }
    Iterator& operator++() {
      ++at_;
      return *this;
    }
    friend bool operator==(Iterator, Iterator) = default;

   private:
    const Item* const* at_;
  };
  Iterator begin() const { return Iterator(items_.data()); }
  Iterator end() const { return Iterator(items_.data() + items_.size()); }

 private:
  static_assert(std::is_trivially_destructible_v<Item>);
  using Items = std::pmr::vector<Item*>;
  using Slots = std::pmr::vector<const Item*>;
  // New-Order reads about 40 KiB: rows, B-tree leaves, hash buckets.
  static constexpr size_t kFirstBlock = 32 << 10;
  static constexpr size_t kFirstSlots = 64;

  size_t Home(Addr a) const {
    return (a.raw * 0x9e3779b97f4a7c15ull) >> (64 - std::countr_zero(slots_.size()));
  }
  void Place(const Item* item) {
    size_t i = Home(item->first);
    while (slots_[i] != nullptr) i = (i + 1) & (slots_.size() - 1);
    slots_[i] = item;
  }
  // Doubles the table (the old one stays in the arena until Clear) and places every entry again.
  void Grow() {
    slots_ = Slots(slots_.empty() ? kFirstSlots : 2 * slots_.size(), nullptr, &arena_);
    for (const Item* item : items_) Place(item);
  }

  std::pmr::monotonic_buffer_resource arena_{kFirstBlock};
  Items items_{&arena_};
  Slots slots_{&arena_};
};

}  // namespace farmdb::txn
