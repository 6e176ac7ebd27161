// ThreadFront: a per-thread, direct-mapped cache in front of a shared map that is read on every
// object access (region placements, local replicas, slab object sizes, and storage's AddrCache of
// decoded B-tree nodes and hash directories).
//
// Every object read asked three such maps, each behind a shared_mutex: six atomic
// read-modify-writes on three cache lines that every thread of the machine writes, which bounce
// between cores as the thread count grows (a TPC-C profile on two cores already had 3% of the
// server's time in them). A hit here reads the owner's version (a word written only when the map
// changes) and one thread-local slot, and writes nothing shared.
//
// The owner bumps its version after each change; a slot filled at an older version misses. A
// reader loads the version before it reads the map, so a slot never carries an older value than
// the version it is tagged with. Like the map behind it, an entry may be one change behind a
// concurrent writer.
//
// Thread-safety: Find, Fill and Erase touch only the calling thread's slots.
#pragma once

#include <array>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace farmdb::cluster {

inline std::atomic<uint64_t> next_thread_front_id{1};

// kSlots per thread (a power of two), over every ThreadFront of this Key and Value the thread
// uses. A Value that is not trivially destructible (a shared_ptr) is released at thread exit.
template <typename Key, typename Value, size_t kSlots>
class ThreadFront {
  static_assert(std::has_single_bit(kSlots) && kSlots >= 2);
  static_assert(std::is_unsigned_v<Key>);

 public:
  ThreadFront() : id_(next_thread_front_id.fetch_add(1, std::memory_order_relaxed)) {}
  ThreadFront(const ThreadFront&) = delete;
  ThreadFront& operator=(const ThreadFront&) = delete;

  // The version to tag fills with: load it before reading the map behind.
  uint64_t version() const { return version_.load(std::memory_order_acquire); }
  // The owner changed the map: every slot filled before misses.
  void Invalidate() { version_.fetch_add(1, std::memory_order_acq_rel); }

  // The calling thread's entry, or null: valid until this thread's next Fill or Erase on this
  // front's type. A pointer, not a copy, so a hit on a shared_ptr copies it once, in the caller.
  const Value* Find(Key key, uint64_t version) const {
    const Slot& slot = SlotOf(key);
    if (slot.owner == id_ && slot.version == version && slot.key == key) return &slot.value;
    return nullptr;
  }
  void Fill(Key key, Value value, uint64_t version) const { SlotOf(key) = {id_, version, key, std::move(value)}; }
  // Forgets this thread's entry for `key` (other threads' stay until the version moves).
  void Erase(Key key) const {
    Slot& slot = SlotOf(key);
    if (slot.owner == id_ && slot.key == key) slot = {};
  }

 private:
  struct Slot {
    uint64_t owner = 0;  // id_ of the front that filled it; 0 = empty
    uint64_t version = 0;
    Key key{};
    Value value{};
  };
  Slot& SlotOf(Key key) const {
    thread_local std::array<Slot, kSlots> slots;
    // Fibonacci hashing spreads keys that differ in low or middle bits alike.
    return slots[((uint64_t{key} ^ id_) * 0x9e3779b97f4a7c15ull) >> (64 - std::bit_width(kSlots - 1))];
  }

  const uint64_t id_;  // never reused, so a dead front's slots never match
  std::atomic<uint64_t> version_{0};
};

}  // namespace farmdb::cluster
