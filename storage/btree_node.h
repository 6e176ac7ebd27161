// B-tree node layout, order and codec (storage/README.md "Object layouts").
//
// A node is a slotted page the size of its object's payload (`capacity`), read in place:
//
//   header  tag u32 | tree u64 (the root node's Addr) | level u8 (0 = leaf) | unique u8 |
//           has_high u8 | 0 u8 | count u16 | heap u16 | low u16 | high u16     (24 bytes)
//   slots   count x u16, the offsets of the items in order
//   free    ...
//   heap    [heap, capacity): item records in no particular order, and garbage left by erases
//   record  key length u16 | value length u16 | key | value | child Addr u64 (internal items)
//
// `low` and `high` are the offsets of the fence records (no child); `high` is 0 when the high
// fence is +infinity. Lookups binary-search the slots without decoding the node, and an insert
// writes its record below the heap and shifts the slots after it by two bytes, so a point
// lookup or a leaf insert costs O(log n) comparisons and one copy of the node, not a decode.
//
// Items are ordered by key (memcmp), then by value in a non-unique tree (whose items are distinct
// (key, value) pairs); a unique tree orders by key alone. A node holds exactly the items x with
// low <= x < high (high absent = +infinity); the low fence of the leftmost nodes is the empty
// item, the least of all. An internal node's first separator equals its low fence, and child i
// covers [separator i, separator i+1) (the last one up to the node's high fence): these are the
// fence keys checked at every parent-to-child step.
// Pure values and functions: thread-compatible.
#pragma once

#include <compare>
#include <cstdint>
#include <cstring>
#include <expected>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "storage/hash_bucket.h"
#include "txn/object.h"

namespace farmdb::storage {

inline constexpr uint32_t kBTreeNodeTag = 0x324e5442;  // "BTN2"
inline constexpr size_t kBTreeHeaderBytes = 24;
// Slot offsets are u16: nodes are at most this big (txn objects are smaller anyway).
inline constexpr size_t kBTreeMaxNodeBytes = 65535;

// An item inside node bytes (or anywhere else): valid while the bytes it points into are.
struct ItemView {
  std::string_view key, value;
  // Bytes of its record in a node, with the child pointer of an internal item.
  size_t RecordSize(bool internal) const { return 4 + key.size() + value.size() + (internal ? 8 : 0); }
  friend bool operator==(const ItemView&, const ItemView&) = default;
};

// An item that owns its bytes (fences carried across nodes, search targets).
struct BTreeItem {
  std::string key, value;
  BTreeItem() = default;
  BTreeItem(std::string k, std::string v) : key(std::move(k)), value(std::move(v)) {}
  explicit BTreeItem(ItemView v) : key(v.key), value(v.value) {}
  ItemView view() const { return {key, value}; }
  friend bool operator==(const BTreeItem&, const BTreeItem&) = default;
};

// The tree's order over items (see above). Inline, as the node accessors below: a descent makes
// a few dozen of these calls, and out of line each paid for a call and for passing both items
// through the stack.
inline std::strong_ordering CompareItems(ItemView a, ItemView b, bool unique) {
  if (auto c = a.key <=> b.key; c != 0 || unique) return c;
  return a.value <=> b.value;
}

// A node read in place. Open checks the header and that every slot and record lies inside the
// bytes, so the accessors need no checks of their own. The bytes must outlive the view.
class NodeView {
 public:
  NodeView() = default;
  static std::expected<NodeView, std::string> Open(std::span<const std::byte> bytes);

  Addr tree() const { return tree_; }
  uint32_t level() const { return level_; }
  bool leaf() const { return level_ == 0; }
  bool unique() const { return unique_; }
  size_t count() const { return count_; }
  size_t capacity() const { return bytes_.size(); }
  std::span<const std::byte> bytes() const { return bytes_; }

  ItemView item(size_t i) const { return RecordAt(Slot(i)); }
  // Internal nodes only.
  Addr child(size_t i) const {
    size_t at = Slot(i);
    return Addr{Load<uint64_t>(bytes_, at + 4 + Load<uint16_t>(bytes_, at) + Load<uint16_t>(bytes_, at + 2))};
  }
  ItemView low() const { return RecordAt(low_); }
  std::optional<ItemView> high() const;
  // The upper bound of item i's range: the next item, or the node's high fence after the last
  // (for an internal node, the high fence child i must have).
  std::optional<ItemView> HighAfter(size_t i) const { return i + 1 < count_ ? std::optional(item(i + 1)) : high(); }
  // The first position whose item is not below `x` (lower bound in the tree's order).
  size_t LowerBound(ItemView x) const;
  // Bytes the header, slots and live records take (what a compacted copy would use).
  size_t LiveBytes() const;

 private:
  friend class NodeBuffer;
  // The header's fields, unchecked: for bytes that are a node by construction.
  static NodeView Header(std::span<const std::byte> bytes);
  // A field of node bytes (also NodeBuffer's, a friend).
  template <typename T>
  static T Load(std::span<const std::byte> p, size_t at) {
    T v;
    std::memcpy(&v, p.data() + at, sizeof(T));
    return v;
  }
  uint16_t Slot(size_t i) const { return Load<uint16_t>(bytes_, kBTreeHeaderBytes + 2 * i); }
  ItemView RecordAt(size_t at) const {
    size_t k = Load<uint16_t>(bytes_, at), v = Load<uint16_t>(bytes_, at + 2);
    const char* base = reinterpret_cast<const char*>(bytes_.data() + at + 4);
    return {std::string_view(base, k), std::string_view(base + k, v)};
  }

  std::span<const std::byte> bytes_;
  Addr tree_;
  uint32_t level_ = 0;
  bool unique_ = false;
  size_t count_ = 0;
  uint16_t low_ = 0, high_ = 0;
};

// One item of a node under construction, and for internal nodes the child it leads to.
struct NodeEntry {
  ItemView item;
  Addr child;
};

// A node's bytes being changed: an owned copy of `capacity` bytes in the node layout.
class NodeBuffer {
 public:
  // A copy of `node` to change.
  explicit NodeBuffer(const NodeView& node);
  // A compact node holding `entries` (in order) between the fences `low` and `high`; nullopt
  // when they do not fit in `capacity` bytes.
  static std::optional<NodeBuffer> Build(Addr tree, uint32_t level, bool unique, size_t capacity, ItemView low,
                          std::optional<ItemView> high, std::span<const NodeEntry> entries);
  // The view points into bytes_, whose heap buffer a move keeps.
  NodeBuffer(NodeBuffer&&) noexcept = default;
  NodeBuffer& operator=(NodeBuffer&&) noexcept = default;
  NodeBuffer(const NodeBuffer&) = delete;
  NodeBuffer& operator=(const NodeBuffer&) = delete;

  const NodeView& view() const { return view_; }
  std::span<const std::byte> bytes() const { return bytes_; }
  // Puts `entry` at position i, compacting the heap if its garbage makes room; false (and the
  // node unchanged) when the node cannot hold it.
  bool Insert(size_t i, NodeEntry entry);
  void Erase(size_t i);

 private:
  explicit NodeBuffer(size_t capacity) : bytes_(capacity) {}
  void Reopen() { view_ = NodeView::Header(bytes_); }
  void Compact();

  txn::RawBytes bytes_;
  NodeView view_;
};

}  // namespace farmdb::storage
