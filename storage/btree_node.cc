#include "storage/btree_node.h"

#include <cstring>

namespace farmdb::storage {
namespace {

template <typename T>
void Put(std::vector<std::byte>& out, T v) {
  size_t at = out.size();
  out.resize(at + sizeof(T));
  std::memcpy(out.data() + at, &v, sizeof(T));
}

void PutItem(std::vector<std::byte>& out, const BTreeItem& item) {
  Put(out, static_cast<uint16_t>(item.key.size()));
  Put(out, static_cast<uint16_t>(item.value.size()));
  for (const std::string* s : {&item.key, &item.value}) {
    size_t at = out.size();
    out.resize(at + s->size());
    std::memcpy(out.data() + at, s->data(), s->size());
  }
}

class In {
 public:
  explicit In(std::span<const std::byte> p) : p_(p) {}
  template <typename T>
  bool Get(T& v) {
    if (p_.size() - at_ < sizeof(T)) return false;
    std::memcpy(&v, p_.data() + at_, sizeof(T));
    at_ += sizeof(T);
    return true;
  }
  bool Item(BTreeItem& item) {
    uint16_t k = 0, v = 0;
    if (!Get(k) || !Get(v) || p_.size() - at_ < size_t{k} + v) return false;
    const char* base = reinterpret_cast<const char*>(p_.data() + at_);
    item.key.assign(base, k);
    item.value.assign(base + k, v);
    at_ += k + v;
    return true;
  }

 private:
  std::span<const std::byte> p_;
  size_t at_ = 0;
};

}  // namespace

std::strong_ordering CompareItems(const BTreeItem& a, const BTreeItem& b, bool unique) {
  if (auto c = a.key <=> b.key; c != 0 || unique) return c;
  return a.value <=> b.value;
}

size_t BTreeNode::EncodedSize() const {
  size_t n = 20 + low.EncodedSize() + (high ? high->EncodedSize() : 0);
  for (const BTreeItem& i : items) n += i.EncodedSize() + (leaf() ? 0 : 8);
  return n;
}

std::vector<std::byte> EncodeNode(const BTreeNode& n) {
  std::vector<std::byte> out;
  out.reserve(n.EncodedSize());
  Put(out, kBTreeNodeTag);
  Put(out, n.tree.raw);
  Put(out, static_cast<uint8_t>(n.level));
  Put(out, static_cast<uint8_t>(n.unique));
  Put(out, static_cast<uint8_t>(n.high.has_value()));
  Put(out, uint8_t{0});
  Put(out, static_cast<uint32_t>(n.items.size()));
  PutItem(out, n.low);
  if (n.high) PutItem(out, *n.high);
  for (size_t i = 0; i < n.items.size(); ++i) {
    PutItem(out, n.items[i]);
    if (!n.leaf()) Put(out, n.children[i].raw);
  }
  return out;
}

std::expected<BTreeNode, std::string> DecodeNode(std::span<const std::byte> p) {
  In in(p);
  BTreeNode n;
  uint32_t tag = 0, count = 0;
  uint8_t level = 0, unique = 0, has_high = 0, pad = 0;
  if (!in.Get(tag) || tag != kBTreeNodeTag || !in.Get(n.tree.raw) || !in.Get(level) ||
      !in.Get(unique) || !in.Get(has_high) || !in.Get(pad) || !in.Get(count) || !in.Item(n.low)) {
    return std::unexpected("corrupt b-tree node header");
  }
  n.level = level, n.unique = unique, n.capacity = p.size();
  if (has_high && !in.Item(n.high.emplace())) return std::unexpected("corrupt b-tree fence");
  n.items.resize(count);
  if (!n.leaf()) n.children.resize(count);
  for (uint32_t i = 0; i < count; ++i) {
    if (!in.Item(n.items[i]) || (!n.leaf() && (!in.Get(n.children[i].raw) || n.children[i].null()))) {
      return std::unexpected("corrupt b-tree entry");
    }
  }
  return n;
}

}  // namespace farmdb::storage
