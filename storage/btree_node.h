// B-tree node layout, order and codec (storage/README.md "Object layouts").
//
//   node  tag | tree u64 (the root node's Addr) | level u8 (0 = leaf) | unique u8 |
//         has_high u8 | 0 u8 | count u32 | low fence item | high fence item (if has_high) |
//         leaf: count items            internal: count x (separator item, child Addr)
//   item  key length u16 | value length u16 | key | value
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
#include <expected>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "storage/hash_bucket.h"

namespace farmdb::storage {

inline constexpr uint32_t kBTreeNodeTag = 0x42544e31;  // "BTN1"

struct BTreeItem {
  std::string key, value;
  size_t EncodedSize() const { return 4 + key.size() + value.size(); }
  friend bool operator==(const BTreeItem&, const BTreeItem&) = default;
};

// The tree's order over items (see above).
std::strong_ordering CompareItems(const BTreeItem& a, const BTreeItem& b, bool unique);

struct BTreeNode {
  Addr tree;
  uint32_t level = 0;
  bool unique = false;
  BTreeItem low;
  std::optional<BTreeItem> high;  // nullopt: +infinity
  std::vector<BTreeItem> items;   // leaf items, or internal separators
  std::vector<Addr> children;     // internal only; children.size() == items.size()
  size_t capacity = 0;            // the object's payload bytes (set by DecodeNode, not stored)

  bool leaf() const { return level == 0; }
  size_t EncodedSize() const;
};

std::vector<std::byte> EncodeNode(const BTreeNode& n);
std::expected<BTreeNode, std::string> DecodeNode(std::span<const std::byte> p);

}  // namespace farmdb::storage
