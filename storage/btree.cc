#include "storage/btree.h"

#include <algorithm>

namespace farmdb::storage {

using txn::Txn;

std::shared_ptr<const BTreeNode> BTreeCache::Get(Addr a) const {
  std::lock_guard lock(mu_);
  auto it = nodes_.find(a);
  return it == nodes_.end() ? nullptr : it->second;
}
void BTreeCache::Put(Addr a, std::shared_ptr<const BTreeNode> node) {
  std::lock_guard lock(mu_);
  nodes_[a] = std::move(node);
}
void BTreeCache::Erase(Addr a) {
  std::lock_guard lock(mu_);
  nodes_.erase(a);
}
size_t BTreeCache::size() const {
  std::lock_guard lock(mu_);
  return nodes_.size();
}

// Where a descent is going. `item` null is +infinity. With a bias the target sits just below
// (-1) or just above (+1) every item with item->key, so it never equals an item; otherwise it is
// the item itself, and `before` asks for the node holding what is just below it (a step to the
// previous leaf) instead of the node holding it.
struct BTree::Target {
  const BTreeItem* item = nullptr;
  int bias = 0;
  bool before = false;
  // Whether the node or child starting at separator x may hold the target: x <= target
  // (x < target when `before`).
  bool Reaches(const BTreeItem& x, bool unique) const {
    if (item == nullptr) return true;
    if (bias != 0) {
      auto c = x.key <=> item->key;
      return c != 0 ? c < 0 : bias > 0;
    }
    auto c = CompareItems(x, *item, unique);
    return before ? c < 0 : c <= 0;
  }
  // The leftmost nodes cover even a target below the least item ("" just below).
  bool Covers(const BTreeNode& n) const {
    return (Leftmost(n) || Reaches(n.low, n.unique)) && (!n.high || !Reaches(*n.high, n.unique));
  }
  static bool Leftmost(const BTreeNode& n) {
    return n.low.key.empty() && (n.unique || n.low.value.empty());
  }
};

StorageResult<BTree> BTree::Create(Txn& t, BTreeOptions options, BTreeCache* cache) {
  if (options.node_bytes < 512 || options.node_bytes > 14000) {
    return Failure(StorageError::Code::kInvalidArgument);
  }
  auto a = t.Alloc(options.node_bytes);
  if (!a) return TxnFailure(a.error());
  BTreeNode root;
  root.tree = *a;
  root.unique = options.unique;
  if (auto w = t.Write(*a, EncodeNode(root)); !w) return TxnFailure(w.error());
  return BTree(*a, cache);
}

StorageResult<BTree::NodePtr> BTree::ReadNode(Txn& t, Addr a) const {
  auto p = t.ReadView(a);
  if (!p) return TxnFailure(p.error());
  auto n = DecodeNode(*p);
  if (!n || n->tree != root_) return Failure(StorageError::Code::kCorrupt);
  return std::make_shared<const BTreeNode>(std::move(*n));
}

StorageResult<BTree::Path> BTree::Descend(Txn& t, const Target& target, bool use_cache) const {
  for (;;) {
    Path path;
    Addr a = root_;
    BTreeItem low;
    std::optional<BTreeItem> high;
    bool via_cache = false;  // some node on this path came from the cache
    for (;;) {
      NodePtr node = use_cache && cache_ ? cache_->Get(a) : nullptr;
      via_cache |= node != nullptr;
      if (!node) {
        auto n = ReadNode(t, a);
        // Below a stale cached node the address may hold anything, or nothing, by now.
        if (!n && !(via_cache && !n.error().IsRetryable())) return std::unexpected(n.error());
        if (n) node = std::move(*n);
      }
      // The fence check of this parent-to-child step (and, at the root, the whole key space).
      if (!node || node->low != low || node->high != high || !target.Covers(*node)) {
        if (!via_cache) return Failure(StorageError::Code::kCorrupt);
        break;
      }
      path.emplace_back(a, node);
      if (node->leaf()) return path;
      if (cache_) cache_->Put(a, node);
      size_t i = 0;
      while (i + 1 < node->items.size() && target.Reaches(node->items[i + 1], node->unique)) ++i;
      low = node->items[i];
      high = i + 1 < node->items.size() ? std::optional(node->items[i + 1]) : node->high;
      a = node->children[i];
    }
    // Stale: forget this path's cached nodes and descend through the transaction.
    for (const auto& [addr, node] : path) cache_->Erase(addr);
    cache_->Erase(a);
    use_cache = false;
  }
}

// Splits `node` (the last of `path`, already changed and too big) and its ancestors as needed,
// writing every changed node. The root keeps its Addr: on a root split its halves move to two
// new nodes and it becomes their parent one level up.
StorageResult<void> BTree::SplitUp(Txn& t, Path path, BTreeNode node) const {
  auto write = [&](Addr a, const BTreeNode& n) -> StorageResult<void> {
    if (cache_ && !n.leaf()) cache_->Erase(a);
    if (auto w = t.Write(a, EncodeNode(n)); !w) return TxnFailure(w.error());
    return {};
  };
  auto alloc = [&]() -> StorageResult<Addr> {
    auto a = t.Alloc(node.capacity);
    if (!a) return TxnFailure(a.error());
    return *a;
  };
  for (size_t k = path.size(); k-- > 0;) {
    Addr addr = path[k].first;
    if (node.EncodedSize() <= node.capacity) return write(addr, node);
    // Split at the middle item byte, leaving at least one item on each side.
    size_t total = 0, left_bytes = 0, m = 0;
    for (const BTreeItem& x : node.items) total += x.EncodedSize();
    while (m + 1 < node.items.size() && left_bytes < total / 2) {
      left_bytes += node.items[m++].EncodedSize();
    }
    m = std::max<size_t>(m, 1);
    BTreeNode right = node;
    right.items.assign(node.items.begin() + m, node.items.end());
    right.low = right.items[0];
    node.items.resize(m);
    node.high = right.low;
    if (!node.leaf()) {
      right.children.assign(node.children.begin() + m, node.children.end());
      node.children.resize(m);
    }
    auto right_addr = alloc();
    if (!right_addr) return std::unexpected(right_addr.error());
    if (auto w = write(*right_addr, right); !w) return w;
    if (k == 0) {
      // Root split: the left half moves out too, and the root becomes their parent.
      auto left_addr = alloc();
      if (!left_addr) return std::unexpected(left_addr.error());
      if (auto w = write(*left_addr, node); !w) return w;
      BTreeNode root;
      root.tree = root_, root.unique = node.unique, root.capacity = node.capacity;
      root.level = node.level + 1;
      root.items = {node.low, right.low};
      root.children = {*left_addr, *right_addr};
      return write(addr, root);
    }
    if (auto w = write(addr, node); !w) return w;
    BTreeNode parent = *path[k - 1].second;
    auto at = std::ranges::find(parent.children, addr);
    if (at == parent.children.end()) return Failure(StorageError::Code::kCorrupt);
    size_t i = at - parent.children.begin() + 1;
    parent.items.insert(parent.items.begin() + i, right.low);
    parent.children.insert(parent.children.begin() + i, *right_addr);
    node = std::move(parent);
  }
  return Failure(StorageError::Code::kCorrupt);
}

StorageResult<void> BTree::Insert(Txn& t, std::string_view key, std::string_view value) const {
  BTreeItem item{std::string(key), std::string(value)};
  Target target{&item};
  auto path = Descend(t, target, true);
  if (!path) return std::unexpected(path.error());
  BTreeNode leaf = *path->back().second;
  if (item.EncodedSize() > leaf.capacity / 8) return Failure(StorageError::Code::kTooLarge);
  auto at = std::ranges::lower_bound(leaf.items, item, [&](const BTreeItem& a, const BTreeItem& b) {
    return CompareItems(a, b, leaf.unique) < 0;
  });
  if (at != leaf.items.end() && CompareItems(*at, item, leaf.unique) == 0) {
    return Failure(StorageError::Code::kDuplicateKey);
  }
  leaf.items.insert(at, item);  // a copy: `target` still points at item
  if (leaf.EncodedSize() <= leaf.capacity) {
    if (auto w = t.Write(path->back().first, EncodeNode(leaf)); !w) return TxnFailure(w.error());
    return {};
  }
  // A split changes ancestors: take the path again through the transaction.
  auto full = Descend(t, target, false);
  if (!full) return std::unexpected(full.error());
  return SplitUp(t, std::move(*full), std::move(leaf));
}

// Reads leaves in the transaction one at a time, moving to the neighbour leaf by descending to
// the current leaf's high fence (forward) or to just below its low fence (backward).
class BTree::Iterator : public IndexIterator {
 public:
  Iterator(const BTree& tree, Txn& t, std::optional<KeyBound> lower, std::optional<KeyBound> upper,
           ScanDirection direction)
      : tree_(tree), t_(t), lower_(std::move(lower)), upper_(std::move(upper)),
        forward_(direction == ScanDirection::kForward) {}

  StorageResult<void> Start() {
    // Forward from an inclusive bound the target is the item (key, ""), the least with that key,
    // so the descent reaches the leaf holding the key even when the key is that leaf's low fence
    // (a target just below the key would reach the previous leaf and cost a second read).
    BTreeItem edge{forward_ ? (lower_ ? lower_->key : "") : (upper_ ? upper_->key : ""), ""};
    Target target{&edge, forward_ ? (lower_ && !lower_->inclusive ? 1 : 0)
                                  : (upper_ && !upper_->inclusive ? -1 : 1)};
    if (!forward_ && !upper_) target = Target{};
    if (auto s = Load(target); !s) return s;
    // Skip to the first item on the far side of the bound.
    auto& items = leaf_->items;
    size_t i = 0;
    while (i < items.size() &&
           (forward_ ? BelowLower(items[i]) : target.Reaches(items[i], leaf_->unique))) {
      ++i;
    }
    next_ = i;  // forward: items[i..] are past the bound; backward: items[..i) are before it
    return {};
  }

  StorageResult<bool> Next() override {
    for (;;) {
      const auto& items = leaf_->items;
      if (forward_ ? next_ < items.size() : next_ > 0) {
        current_ = forward_ ? &items[next_++] : &items[--next_];
        return InBounds(*current_);
      }
      if (forward_ ? !leaf_->high.has_value() : Target::Leftmost(*leaf_)) return false;
      if (!forward_ ? BeyondLower(*leaf_) : !InBounds(*leaf_->high)) return false;
      NodePtr old = leaf_;
      Target target{forward_ ? &*old->high : &old->low, 0, !forward_};
      if (auto s = Load(target); !s) return std::unexpected(s.error());
      next_ = forward_ ? 0 : leaf_->items.size();
    }
  }
  std::string_view key() const override { return current_->key; }
  std::string_view value() const override { return current_->value; }

 private:
  StorageResult<void> Load(const Target& target) {
    auto path = tree_.Descend(t_, target, true);
    if (!path) return std::unexpected(path.error());
    leaf_ = path->back().second;
    return {};
  }
  // Whether x lies below the lower bound (a forward scan skips it).
  bool BelowLower(const BTreeItem& x) const {
    if (!lower_) return false;
    auto c = x.key <=> lower_->key;
    return c < 0 || (c == 0 && !lower_->inclusive);
  }
  // The fences bound the neighbour leaves, so a scan ends without reading (and so without
  // conflicting on) a neighbour that holds nothing in bounds; a point lookup reads one leaf.
  // Forward: every item after the leaf is >= its high fence (Next checks InBounds(high)).
  // Backward (here): every item before the leaf is < its low fence.
  bool BeyondLower(const BTreeNode& leaf) const {
    if (!lower_) return false;
    auto c = leaf.low.key <=> lower_->key;
    return c < 0 || (c == 0 && (leaf.unique || !lower_->inclusive));
  }
  bool InBounds(const BTreeItem& x) const {
    const auto& bound = forward_ ? upper_ : lower_;
    if (!bound) return true;
    auto c = x.key <=> bound->key;
    if (c == 0) return bound->inclusive;
    return forward_ ? c < 0 : c > 0;
  }

  const BTree tree_;
  Txn& t_;
  std::optional<KeyBound> lower_, upper_;
  bool forward_;
  NodePtr leaf_;
  size_t next_ = 0;
  const BTreeItem* current_ = nullptr;
};

StorageResult<std::unique_ptr<IndexIterator>> BTree::Scan(Txn& t, std::optional<KeyBound> lower,
                                                          std::optional<KeyBound> upper,
                                                          ScanDirection direction) const {
  auto it = std::make_unique<Iterator>(*this, t, std::move(lower), std::move(upper), direction);
  if (auto s = it->Start(); !s) return std::unexpected(s.error());
  return it;
}

StorageResult<std::vector<std::string>> BTree::Lookup(Txn& t, std::string_view key) const {
  KeyBound bound{std::string(key), true};
  auto it = Scan(t, bound, bound, ScanDirection::kForward);
  if (!it) return std::unexpected(it.error());
  std::vector<std::string> values;
  for (;;) {
    auto more = (*it)->Next();
    if (!more) return std::unexpected(more.error());
    if (!*more) return values;
    values.emplace_back((*it)->value());
  }
}

StorageResult<size_t> BTree::Erase(Txn& t, std::string_view key,
                                   std::optional<std::string_view> value) const {
  auto values = Lookup(t, key);
  if (!values) return std::unexpected(values.error());
  size_t erased = 0;
  for (const std::string& v : *values) {
    if (value && v != *value) continue;
    BTreeItem item{std::string(key), v};
    auto path = Descend(t, Target{&item}, true);
    if (!path) return std::unexpected(path.error());
    BTreeNode leaf = *path->back().second;
    auto at = std::ranges::find_if(leaf.items, [&](const BTreeItem& x) {
      return CompareItems(x, item, leaf.unique) == 0;
    });
    if (at == leaf.items.end()) return Failure(StorageError::Code::kCorrupt);
    leaf.items.erase(at);
    if (auto w = t.Write(path->back().first, EncodeNode(leaf)); !w) return TxnFailure(w.error());
    ++erased;
  }
  return erased;
}

StorageResult<std::string> BTree::CheckInvariants(Txn& t) const {
  auto root = ReadNode(t, root_);
  if (!root) return std::unexpected(root.error());
  return CheckNode(t, root_, {}, std::nullopt, (*root)->level);
}

StorageResult<std::string> BTree::CheckNode(Txn& t, Addr a, const BTreeItem& low,
                                            const std::optional<BTreeItem>& high,
                                            int level) const {
  auto n = ReadNode(t, a);
  if (!n) return std::unexpected(n.error());
  const BTreeNode& node = **n;
  std::string where = "node at level " + std::to_string(node.level) + ": ";
  if (static_cast<int>(node.level) != level) return where + "wrong level";
  if (node.low != low || node.high != high) return where + "fences differ from parent's bounds";
  if (node.EncodedSize() > node.capacity) return where + "over capacity";
  if (!node.leaf() && (node.items.empty() || node.items[0] != node.low)) {
    return where + "first separator is not the low fence";
  }

  for (size_t i = 0; i < node.items.size(); ++i) {
    const BTreeItem& x = node.items[i];
    if (CompareItems(x, node.low, node.unique) < 0 ||
        (node.high && CompareItems(x, *node.high, node.unique) >= 0)) {
      return where + "item outside fences";
    }
    if (i > 0 && CompareItems(node.items[i - 1], x, node.unique) >= 0) return where + "unsorted";
    if (!node.leaf()) {
      auto next = i + 1 < node.items.size() ? std::optional(node.items[i + 1]) : node.high;
      auto r = CheckNode(t, node.children[i], x, next, level - 1);
      if (!r || !r->empty()) return r;
    }
  }
  return std::string();
}

}  // namespace farmdb::storage
