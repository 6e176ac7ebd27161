#include "storage/btree_node.h"

#include <algorithm>
#include <cstring>

namespace farmdb::storage {
namespace {

// Header field offsets (btree_node.h).
constexpr size_t kTagAt = 0, kTreeAt = 4, kLevelAt = 12, kUniqueAt = 13, kHasHighAt = 14,
                 kCountAt = 16, kHeapAt = 18, kLowAt = 20, kHighAt = 22;

template <typename T>
void Store(std::span<std::byte> p, size_t at, T v) {
  std::memcpy(p.data() + at, &v, sizeof(T));
}

// Writes `entry`'s record at `at`; returns its size.
size_t PutRecord(std::span<std::byte> p, size_t at, ItemView item, std::optional<Addr> child) {
  Store(p, at, static_cast<uint16_t>(item.key.size()));
  Store(p, at + 2, static_cast<uint16_t>(item.value.size()));
  // An empty view may have a null data(), which memcpy must not see even for 0 bytes.
  if (!item.key.empty()) std::memcpy(p.data() + at + 4, item.key.data(), item.key.size());
  if (!item.value.empty()) std::memcpy(p.data() + at + 4 + item.key.size(), item.value.data(), item.value.size());
  size_t size = 4 + item.key.size() + item.value.size();
  if (child) Store(p, at + size, child->raw), size += 8;
  return size;
}

}  // namespace

std::expected<NodeView, std::string> NodeView::Open(std::span<const std::byte> bytes) {
  if (bytes.size() < kBTreeHeaderBytes || bytes.size() > kBTreeMaxNodeBytes ||
      Load<uint32_t>(bytes, kTagAt) != kBTreeNodeTag) {
    return std::unexpected("not a b-tree node");
  }
  NodeView n = Header(bytes);
  size_t heap = Load<uint16_t>(bytes, kHeapAt);
  size_t slots_end = kBTreeHeaderBytes + 2 * n.count_;
  if (slots_end > heap || heap > bytes.size()) return std::unexpected("corrupt b-tree node header");
  // Every record must lie in the heap: then item(), child() and the fences read only node bytes.
  auto fits = [&](size_t at, bool with_child) {
    if (at < heap || at + 4 > bytes.size()) return false;
    size_t size = 4 + size_t{Load<uint16_t>(bytes, at)} + Load<uint16_t>(bytes, at + 2) + (with_child ? 8 : 0);
    return at + size <= bytes.size();
  };
  if (!fits(n.low_, false) || (n.high_ != 0 && !fits(n.high_, false))) {
    return std::unexpected("corrupt b-tree fence");
  }
  for (size_t i = 0; i < n.count_; ++i) {
    if (!fits(n.Slot(i), !n.leaf()) || (!n.leaf() && n.child(i).null())) {
      return std::unexpected("corrupt b-tree entry");
    }
  }
  return n;
}

NodeView NodeView::Header(std::span<const std::byte> bytes) {
  NodeView n;
  n.bytes_ = bytes;
  n.tree_ = Addr{Load<uint64_t>(bytes, kTreeAt)};
  n.level_ = Load<uint8_t>(bytes, kLevelAt);
  n.unique_ = Load<uint8_t>(bytes, kUniqueAt) != 0;
  n.count_ = Load<uint16_t>(bytes, kCountAt);
  n.low_ = Load<uint16_t>(bytes, kLowAt);
  n.high_ = Load<uint8_t>(bytes, kHasHighAt) ? Load<uint16_t>(bytes, kHighAt) : 0;
  return n;
}

std::optional<ItemView> NodeView::high() const {
  if (high_ == 0) return std::nullopt;
  return RecordAt(high_);
}

size_t NodeView::LowerBound(ItemView x) const {
  size_t lo = 0, hi = count_;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (CompareItems(item(mid), x, unique_) < 0) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

size_t NodeView::LiveBytes() const {
  size_t n = kBTreeHeaderBytes + low().RecordSize(false);
  if (auto h = high()) n += h->RecordSize(false);
  for (size_t i = 0; i < count_; ++i) n += 2 + item(i).RecordSize(!leaf());
  return n;
}

NodeBuffer::NodeBuffer(const NodeView& node) : bytes_(node.capacity()) {
  std::memcpy(bytes_.data(), node.bytes().data(), node.capacity());
  Reopen();
}

std::optional<NodeBuffer> NodeBuffer::Build(Addr tree, uint32_t level, bool unique, size_t capacity,
                                            ItemView low, std::optional<ItemView> high,
                                            std::span<const NodeEntry> entries) {
  size_t need = kBTreeHeaderBytes + low.RecordSize(false) + (high ? high->RecordSize(false) : 0);
  for (const NodeEntry& e : entries) need += 2 + e.item.RecordSize(level > 0);
  if (need > capacity || capacity > kBTreeMaxNodeBytes) return std::nullopt;
  NodeBuffer b(capacity);
  std::span<std::byte> p(b.bytes_);
  std::fill(p.begin(), p.end(), std::byte{0});
  Store(p, kTagAt, kBTreeNodeTag);
  Store(p, kTreeAt, tree.raw);
  Store(p, kLevelAt, static_cast<uint8_t>(level));
  Store(p, kUniqueAt, static_cast<uint8_t>(unique));
  Store(p, kHasHighAt, static_cast<uint8_t>(high.has_value()));
  Store(p, kCountAt, static_cast<uint16_t>(entries.size()));
  size_t heap = capacity;
  auto put = [&](ItemView item, std::optional<Addr> child) {
    heap -= item.RecordSize(child.has_value());
    PutRecord(p, heap, item, child);
    return static_cast<uint16_t>(heap);
  };
  Store(p, kLowAt, put(low, std::nullopt));
  Store(p, kHighAt, high ? put(*high, std::nullopt) : uint16_t{0});
  for (size_t i = 0; i < entries.size(); ++i) {
    std::optional<Addr> child = level > 0 ? std::optional(entries[i].child) : std::nullopt;
    Store(p, kBTreeHeaderBytes + 2 * i, put(entries[i].item, child));
  }
  Store(p, kHeapAt, static_cast<uint16_t>(heap));
  b.Reopen();
  return b;
}

bool NodeBuffer::Insert(size_t i, NodeEntry entry) {
  const bool internal = !view_.leaf();
  const size_t record = entry.item.RecordSize(internal);
  const size_t count = view_.count();
  auto heap_at = [&] { return size_t{NodeView::Load<uint16_t>(bytes_, kHeapAt)}; };
  if (heap_at() - (kBTreeHeaderBytes + 2 * count) < record + 2) {
    if (view_.LiveBytes() + record + 2 > view_.capacity()) return false;
    Compact();
  }
  std::span<std::byte> p(bytes_);
  size_t heap = heap_at() - record;
  PutRecord(p, heap, entry.item, internal ? std::optional(entry.child) : std::nullopt);
  std::byte* slot = p.data() + kBTreeHeaderBytes + 2 * i;
  std::memmove(slot + 2, slot, 2 * (count - i));
  Store(p, kBTreeHeaderBytes + 2 * i, static_cast<uint16_t>(heap));
  Store(p, kHeapAt, static_cast<uint16_t>(heap));
  Store(p, kCountAt, static_cast<uint16_t>(count + 1));
  Reopen();
  return true;
}

void NodeBuffer::Erase(size_t i) {
  // The record stays behind as garbage until a compaction needs its room.
  size_t count = view_.count();
  std::byte* slot = bytes_.data() + kBTreeHeaderBytes + 2 * i;
  std::memmove(slot, slot + 2, 2 * (count - i - 1));
  Store(std::span<std::byte>(bytes_), kCountAt, static_cast<uint16_t>(count - 1));
  Reopen();
}

void NodeBuffer::Compact() {
  const NodeView& v = view_;
  std::vector<NodeEntry> entries(v.count());
  for (size_t i = 0; i < v.count(); ++i) entries[i] = {v.item(i), v.leaf() ? Addr{} : v.child(i)};
  // Build reads from this buffer's old bytes, so it writes into a new one. The live bytes fit,
  // since they fitted before.
  auto compact = Build(v.tree(), v.level(), v.unique(), v.capacity(), v.low(), v.high(), entries);
  bytes_ = std::move(compact->bytes_);
  Reopen();
}

}  // namespace farmdb::storage
