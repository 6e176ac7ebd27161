#include "storage/btree.h"

#include <algorithm>
#include <cstring>

#include "cluster/crash_point.h"

namespace farmdb::storage {

using txn::Txn;

std::shared_ptr<const CachedNode> CachedNode::Copy(const NodeView& node) {
  auto c = std::make_shared<CachedNode>();
  c->bytes.resize(node.capacity());
  std::memcpy(c->bytes.data(), node.bytes().data(), node.capacity());
  c->node = *NodeView::Open(c->bytes);  // a copy of a node that opened
  return c;
}

namespace {
// Asks for every cache line of a cached node before searching it. A node that is not in the
// CPU's caches costs the binary search one miss per probe, each waiting for the one before (the
// next probe's slot depends on this comparison); prefetched, the misses overlap. On TPC-C,
// BTree::Descend's own share of farmdb's samples fell from 11.8% to 8.6% (perf).
void PrefetchNode(const NodeView& node) {
  const std::byte* bytes = node.bytes().data();
  for (size_t at = 0; at < node.capacity(); at += txn::kLineSize) __builtin_prefetch(bytes + at);
}

// The first position in [from, node.count()) where `pred` turns false; `pred` must hold for a
// prefix of the items and fail for the rest.
template <typename Pred>
size_t PartitionPoint(const NodeView& node, size_t from, Pred pred) {
  size_t lo = from, hi = node.count();
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (pred(node.item(mid))) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}
}  // namespace

// Where a descent is going. No item is +infinity. With a bias the target sits just below (-1)
// or just above (+1) every item with item->key, so it never equals an item; otherwise it is the
// item itself, and `before` asks for the node holding what is just below it (a step to the
// previous leaf) instead of the node holding it.
struct BTree::Target {
  std::optional<ItemView> item;
  int bias = 0;
  bool before = false;
  // Whether the node or child starting at separator x may hold the target: x <= target
  // (x < target when `before`).
  bool Reaches(ItemView x, bool unique) const {
    if (!item) return true;
    if (bias != 0) {
      auto c = x.key <=> item->key;
      return c != 0 ? c < 0 : bias > 0;
    }
    auto c = CompareItems(x, *item, unique);
    return before ? c < 0 : c <= 0;
  }
  // The leftmost nodes cover even a target below the least item ("" just below).
  bool Covers(const NodeView& n) const {
    auto high = n.high();
    return (Leftmost(n) || Reaches(n.low(), n.unique())) && (!high || !Reaches(*high, n.unique()));
  }
  static bool Leftmost(const NodeView& n) {
    ItemView low = n.low();
    return low.key.empty() && (n.unique() || low.value.empty());
  }
};

StorageResult<BTree> BTree::Create(Txn& t, BTreeOptions options, BTreeCache* cache) {
  if (options.node_bytes < 512 || options.node_bytes > 14000) {
    return Failure(StorageError::Code::kInvalidArgument);
  }
  auto a = t.Alloc(options.node_bytes);
  if (!a) return TxnFailure(a.error());
  // The node fills its object's whole payload (the size class at or above node_bytes).
  size_t capacity = txn::PayloadCapacity(txn::LinesFor(options.node_bytes));
  auto root = NodeBuffer::Build(*a, 0, options.unique, capacity, {}, std::nullopt, {});
  if (!root) return Failure(StorageError::Code::kCorrupt);
  if (auto w = t.Write(*a, root->bytes()); !w) return TxnFailure(w.error());
  return BTree(*a, cache);
}

StorageResult<NodeView> BTree::ReadNode(Txn& t, Addr a) const {
  auto p = t.ReadView(a);
  if (!p) return TxnFailure(p.error());
  auto n = NodeView::Open(*p);
  if (!n || n->tree() != root_) return Failure(StorageError::Code::kCorrupt);
  return *n;
}

StorageResult<void> BTree::WriteNode(Txn& t, Addr a, const NodeBuffer& node) const {
  if (cache_ && !node.view().leaf()) cache_->Erase(a);
  if (auto w = t.Write(a, node.bytes()); !w) return TxnFailure(w.error());
  return {};
}

namespace {

// A descent through nodes read by `t` found them inconsistent. Reads at one R are (opacity), so
// when R has moved (READ COMMITTED's next statement) a node came from the write set: written at
// an earlier R and changed by a concurrent commit since, so that write's LOCK would fail at
// commit. Abort now, retryably, as commit would. With R unmoved the tree is broken.
std::unexpected<StorageError> Inconsistent(Txn& t) {
  if (!t.read_ts_moved()) return Failure(StorageError::Code::kCorrupt);
  t.Abort(txn::AbortReason::kLockConflict);
  return TxnFailure(txn::TxnError{txn::TxnErrorCode::kAborted, txn::AbortReason::kLockConflict});
}

}  // namespace

StorageResult<BTree::Path> BTree::Descend(Txn& t, const Target& target, bool use_cache) const {
  for (;;) {
    Path path;
    // Trees of TPC-C's size are three or four levels deep: one allocation per descent, not one
    // per level.
    path.reserve(4);
    Addr a = root_;
    // The bounds the parent gave this node: views into the parent's bytes, which `path` keeps.
    ItemView low;
    std::optional<ItemView> high;
    bool via_cache = false;  // some node on this path came from the cache
    bool stale = false;
    for (;;) {
      // Leaves are never cached: below level 1 the lookup would only miss.
      const bool cacheable = use_cache && cache_ && (path.empty() || path.back().node.level() > 1);
      PathNode step{a, {}, cacheable ? cache_->Get(a) : nullptr};
      if (step.pin) {
        step.node = step.pin->node;
        via_cache = true;
        PrefetchNode(step.node);
        // A cached node is a hint and goes unchecked: what counts is the check of the leaf, which
        // is always read through the transaction, so its fences show whether the hints led to
        // the leaf covering the target. Only the levels must fall, so that a descent through
        // stale hints still ends.
        stale = !path.empty() && step.node.level() >= path.back().node.level();
      } else {
        auto n = ReadNode(t, a);
        // Below a stale cached node the address may hold anything, or nothing, by now.
        if (!n && !(via_cache && !n.error().IsRetryable())) {
          // After R moved, a child that decodes as no node of this tree, or is gone, is the
          // same inconsistency as mismatched fences.
          const bool gone = n.error().code == StorageError::Code::kTxn && n.error().txn.code == txn::TxnErrorCode::kNotAllocated;
          if (t.read_ts_moved() && (gone || n.error().code == StorageError::Code::kCorrupt)) return Inconsistent(t);
          return std::unexpected(n.error());
        }
        // The fence check of this parent-to-child step (and, at the root, the whole key space).
        stale = !n || n->low() != low || n->high() != high || !target.Covers(*n);
        if (n) step.node = *n;
      }
      if (stale) {
        if (!via_cache) return Inconsistent(t);
        break;
      }
      path.push_back(std::move(step));
      const NodeView& node = path.back().node;
      if (node.leaf()) return path;
      if (cache_ && !path.back().pin) cache_->Put(a, CachedNode::Copy(node));
      // The last child whose separator the target reaches; separator 0 is the low fence, which
      // Covers showed it reaches.
      size_t i = PartitionPoint(node, 1, [&](ItemView x) { return target.Reaches(x, node.unique()); }) - 1;
      low = node.item(i);
      high = node.HighAfter(i);
      a = node.child(i);
    }
    // Stale: forget this path's cached nodes and descend through the transaction.
    for (const PathNode& step : path) cache_->Erase(step.addr);
    cache_->Erase(a);
    use_cache = false;
  }
}

namespace {
// Where a node of `entries` splits: the left half takes entries [0, m). Among the points that
// leave each half between a quarter and three quarters of the bytes, the one whose neighbouring
// keys share the shortest prefix, and of those the one nearest the middle. Keys that share a
// shorter prefix differ in a more significant column, so leaves come to end where a leading
// column changes: TPC-C's new_order (w, d, o) leaves end at district boundaries, so Delivery's
// scan of one district's oldest orders does not read the leaf holding the previous district's
// newest ones, where New-Order inserts. Entries are at most an eighth of a node, so both halves
// fit.
size_t SplitPoint(std::span<const NodeEntry> entries, bool leaf) {
  auto bytes = [&](const NodeEntry& e) { return 2 + e.item.RecordSize(!leaf); };  // slot + record
  size_t total = 0;
  for (const NodeEntry& e : entries) total += bytes(e);
  size_t best = 0, best_prefix = 0, best_distance = 0;
  size_t left_bytes = 0;
  for (size_t m = 1; m < entries.size(); ++m) {
    left_bytes += bytes(entries[m - 1]);
    if (4 * left_bytes < total) continue;
    if (4 * left_bytes > 3 * total) break;
    std::string_view a = entries[m - 1].item.key, b = entries[m].item.key;
    size_t prefix = std::ranges::mismatch(a, b).in1 - a.begin();
    size_t distance = 2 * left_bytes > total ? 2 * left_bytes - total : total - 2 * left_bytes;
    if (best == 0 || prefix < best_prefix || (prefix == best_prefix && distance < best_distance)) {
      best = m, best_prefix = prefix, best_distance = distance;
    }
  }
  if (best != 0) return best;
  // No point in that window (a few large entries): the byte middle.
  size_t m = 0;
  left_bytes = 0;
  while (m + 1 < entries.size() && left_bytes < total / 2) left_bytes += bytes(entries[m++]);
  return std::max<size_t>(m, 1);
}
}  // namespace

StorageResult<void> BTree::SplitUp(Txn& t, const Path& path, NodeEntry entry) const {
  cluster::CrashPoint("btree.split");
  // `entry` may point into `owned` (a separator carried up from the level below).
  BTreeItem owned;
  for (size_t k = path.size(); k-- > 0;) {
    const NodeView& node = path[k].node;
    size_t at = node.LowerBound(entry.item);
    // A separator goes right after the child that split.
    if (k + 1 < path.size() && (at == 0 || node.child(at - 1) != path[k + 1].addr)) {
      return Failure(StorageError::Code::kCorrupt);
    }
    NodeBuffer changed(node);
    if (changed.Insert(at, entry)) return WriteNode(t, path[k].addr, changed);
    // Split the node's entries, `entry` among them, at the middle byte, leaving at least one
    // entry on each side.
    std::vector<NodeEntry> entries;
    entries.reserve(node.count() + 1);
    for (size_t i = 0; i <= node.count(); ++i) {
      if (i == at) entries.push_back(entry);
      if (i < node.count()) entries.push_back({node.item(i), node.leaf() ? Addr{} : node.child(i)});
    }
    size_t m = SplitPoint(entries, node.leaf());
    ItemView separator = entries[m].item;
    // A leaf's separator is cut to the shortest prefix of the right half's first key that is
    // still above the left half's last key (suffix truncation, as in prefix B-trees): a scan
    // from a key prefix, such as one district's rows, then descends straight into the leaf where
    // they start, not into the leaf before it, whose changes would fail the scan's validation.
    // Any item between the halves' neighbours is a valid separator; internal splits keep theirs,
    // since an internal node's first separator is also its low fence.
    BTreeItem truncated;
    if (node.leaf()) {
      std::string_view last_left = entries[m - 1].item.key, first_right = separator.key;
      size_t common = std::ranges::mismatch(last_left, first_right).in2 - first_right.begin();
      if (common < first_right.size()) {
        truncated = BTreeItem(std::string(first_right.substr(0, common + 1)), std::string());
        separator = truncated.view();
      }
    }
    std::span<const NodeEntry> all(entries);
    auto left = NodeBuffer::Build(root_, node.level(), node.unique(), node.capacity(), node.low(),
                                  separator, all.first(m));
    auto right = NodeBuffer::Build(root_, node.level(), node.unique(), node.capacity(), separator,
                                   node.high(), all.subspan(m));
    if (!left || !right) return Failure(StorageError::Code::kCorrupt);
    // The halves are built: from here on the node's bytes (and `owned`) may change.
    BTreeItem separator_copy(right->view().low());
    auto right_addr = t.Alloc(node.capacity());
    if (!right_addr) return TxnFailure(right_addr.error());
    if (auto w = WriteNode(t, *right_addr, *right); !w) return w;
    if (k == 0) {
      // Root split: the left half moves out too, and the root becomes their parent. The root's
      // low fence is the empty item, the least of all.
      auto left_addr = t.Alloc(node.capacity());
      if (!left_addr) return TxnFailure(left_addr.error());
      if (auto w = WriteNode(t, *left_addr, *left); !w) return w;
      NodeEntry children[] = {{ItemView{}, *left_addr}, {separator_copy.view(), *right_addr}};
      auto root = NodeBuffer::Build(root_, node.level() + 1, node.unique(), node.capacity(), ItemView{},
                                    std::nullopt, children);
      if (!root) return Failure(StorageError::Code::kCorrupt);
      return WriteNode(t, path[0].addr, *root);
    }
    if (auto w = WriteNode(t, path[k].addr, *left); !w) return w;
    owned = std::move(separator_copy);
    entry = {owned.view(), *right_addr};
  }
  return Failure(StorageError::Code::kCorrupt);
}

StorageResult<void> BTree::Insert(Txn& t, std::string_view key, std::string_view value) const {
  ItemView item{key, value};
  Target target{item};
  auto path = Descend(t, target, true);
  if (!path) return std::unexpected(path.error());
  const NodeView& leaf = path->back().node;
  if (item.RecordSize(false) > leaf.capacity() / 8) return Failure(StorageError::Code::kTooLarge);
  size_t at = leaf.LowerBound(item);
  if (at < leaf.count() && CompareItems(leaf.item(at), item, leaf.unique()) == 0) {
    return Failure(StorageError::Code::kDuplicateKey);
  }
  NodeBuffer changed(leaf);
  if (changed.Insert(at, {item, {}})) return WriteNode(t, path->back().addr, changed);
  // A split changes ancestors: take the path again through the transaction.
  auto full = Descend(t, target, false);
  if (!full) return std::unexpected(full.error());
  return SplitUp(t, *full, {item, {}});
}

// The empty leaf covering `target` goes, with every ancestor that has it as its only child (the
// chain [top, leaf] of the path). The parent of `top` drops it, and the neighbour next to it
// takes over its range: a right neighbour's low fence moves down to top's low fence, a left
// neighbour's high fence up to top's high fence. Fences are checked at every step read through
// the transaction, so the neighbour's edge descendants down to the leaf level (its first
// children, or its last) get the new fence too. This writes the parent and that edge, once per
// emptied leaf. If the neighbour's edge cannot hold the new fence (variable-width keys, a full
// node) the empty leaf stays, which is still a correct tree. Descents through stale cached nodes
// reach either a freed address or a node whose fences disagree, and both send them back through
// the transaction (Descend).
StorageResult<void> BTree::UnlinkEmpty(Txn& t, const Target& target) const {
  auto path = Descend(t, target, false);
  if (!path) return std::unexpected(path.error());
  size_t top = path->size() - 1;
  while (top > 0 && (*path)[top - 1].node.count() == 1) --top;
  auto free_chain = [&]() -> StorageResult<void> {
    for (size_t k = std::max<size_t>(top, 1); k < path->size(); ++k) {
      if (cache_) cache_->Erase((*path)[k].addr);
      if (auto f = t.Free((*path)[k].addr); !f) return TxnFailure(f.error());
    }
    return {};
  };
  if (top == 0) {
    // The whole tree is the empty chain: the root becomes an empty leaf.
    const NodeView& root = path->front().node;
    auto leaf = NodeBuffer::Build(root_, 0, root.unique(), root.capacity(), ItemView{}, std::nullopt, {});
    if (!leaf) return Failure(StorageError::Code::kCorrupt);
    if (auto f = free_chain(); !f) return f;
    return WriteNode(t, root_, *leaf);
  }
  const NodeView& parent = (*path)[top - 1].node;
  size_t i = 0;
  while (i < parent.count() && parent.child(i) != (*path)[top].addr) ++i;
  if (i == parent.count()) return Failure(StorageError::Code::kCorrupt);
  // The range [parent.item(i), next) goes to the right neighbour when there is one.
  const bool to_right = i + 1 < parent.count();
  const size_t s = to_right ? i + 1 : i - 1;
  std::vector<NodeEntry> parent_entries;
  for (size_t j = 0; j < parent.count(); ++j) {
    if (j == i) continue;
    parent_entries.push_back({j == s && to_right ? parent.item(i) : parent.item(j), parent.child(j)});
  }
  auto new_parent = NodeBuffer::Build(root_, parent.level(), parent.unique(), parent.capacity(),
                                      parent.low(), parent.high(), parent_entries);
  if (!new_parent) return Failure(StorageError::Code::kCorrupt);
  // The neighbour's edge, from the neighbour down to a leaf, rebuilt with the moved fence. Nothing
  // is written until every node of it has been built.
  const ItemView new_low = parent.item(i);
  const std::optional<ItemView> new_high = parent.HighAfter(i);
  std::vector<std::pair<Addr, NodeBuffer>> edge;
  Addr a = parent.child(s);
  ItemView low = parent.item(s);
  std::optional<ItemView> high = parent.HighAfter(s);
  for (;;) {
    auto n = ReadNode(t, a);
    if (!n) return std::unexpected(n.error());
    if (n->low() != low || n->high() != high) return Failure(StorageError::Code::kCorrupt);
    std::vector<NodeEntry> entries;
    entries.reserve(n->count());
    for (size_t j = 0; j < n->count(); ++j) entries.push_back({n->item(j), n->leaf() ? Addr{} : n->child(j)});
    // An internal node's first separator is its low fence.
    if (to_right && !n->leaf()) entries.front().item = new_low;
    auto rebuilt = NodeBuffer::Build(root_, n->level(), n->unique(), n->capacity(), to_right ? new_low : n->low(),
                                     to_right ? n->high() : new_high, entries);
    if (!rebuilt) return {};  // no room for the moved fence: leave the empty leaf in place
    edge.emplace_back(a, std::move(*rebuilt));
    if (n->leaf()) break;
    size_t c = to_right ? 0 : n->count() - 1;
    low = n->item(c);
    high = n->HighAfter(c);
    a = n->child(c);
  }
  for (const auto& [addr, node] : edge) {
    if (auto w = WriteNode(t, addr, node); !w) return w;
  }
  if (auto w = WriteNode(t, (*path)[top - 1].addr, *new_parent); !w) return w;
  return free_chain();
}

// Reads leaves in the transaction one at a time, moving to the neighbour leaf by descending to
// the current leaf's high fence (forward) or to just below its low fence (backward). It keeps a
// copy of the current leaf, so the transaction may change that leaf while the scan is on it.
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
    const std::optional<KeyBound>& from = forward_ ? lower_ : upper_;
    ItemView edge{from ? std::string_view(from->key) : std::string_view(), ""};
    Target target{edge, forward_ ? (lower_ && !lower_->inclusive ? 1 : 0)
                                 : (upper_ && !upper_->inclusive ? -1 : 1)};
    if (!forward_ && !upper_) target = Target{};
    if (auto s = Load(target); !s) return s;
    // forward: items [next_..) are past the bound; backward: items [..next_) are before it.
    next_ = forward_ ? PartitionPoint(leaf_, 0, [&](ItemView x) { return BelowLower(x); })
                     : PartitionPoint(leaf_, 0, [&](ItemView x) { return target.Reaches(x, leaf_.unique()); });
    return {};
  }

  StorageResult<bool> Next() override {
    for (;;) {
      if (forward_ ? next_ < leaf_.count() : next_ > 0) {
        current_ = leaf_.item(forward_ ? next_++ : --next_);
        return InBounds(current_);
      }
      if (forward_ ? !leaf_.high().has_value() : Target::Leftmost(leaf_)) return false;
      if (!forward_ ? BeyondLower(leaf_) : !InBounds(*leaf_.high())) return false;
      // The fence is copied: loading the neighbour replaces the leaf it lives in.
      BTreeItem fence(forward_ ? *leaf_.high() : leaf_.low());
      if (auto s = Load(Target{fence.view(), 0, !forward_}); !s) return std::unexpected(s.error());
      next_ = forward_ ? 0 : leaf_.count();
    }
  }
  std::string_view key() const override { return current_.key; }
  std::string_view value() const override { return current_.value; }

 private:
  StorageResult<void> Load(const Target& target) {
    auto path = tree_.Descend(t_, target, true);
    if (!path) return std::unexpected(path.error());
    const NodeView& leaf = path->back().node;
    leaf_bytes_.resize(leaf.capacity());
    std::memcpy(leaf_bytes_.data(), leaf.bytes().data(), leaf.capacity());
    leaf_ = *NodeView::Open(leaf_bytes_);
    return {};
  }
  // Whether x lies below the lower bound (a forward scan skips it).
  bool BelowLower(ItemView x) const {
    if (!lower_) return false;
    auto c = x.key <=> lower_->key;
    return c < 0 || (c == 0 && !lower_->inclusive);
  }
  // The fences bound the neighbour leaves, so a scan ends without reading (and so without
  // conflicting on) a neighbour that holds nothing in bounds; a point lookup reads one leaf.
  // Forward: every item after the leaf is >= its high fence (Next checks InBounds(high)).
  // Backward (here): every item before the leaf is < its low fence.
  bool BeyondLower(const NodeView& leaf) const {
    if (!lower_) return false;
    auto c = leaf.low().key <=> lower_->key;
    return c < 0 || (c == 0 && (leaf.unique() || !lower_->inclusive));
  }
  bool InBounds(ItemView x) const {
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
  txn::RawBytes leaf_bytes_;
  NodeView leaf_;  // over leaf_bytes_
  size_t next_ = 0;
  ItemView current_;
};

StorageResult<std::unique_ptr<IndexIterator>> BTree::Scan(Txn& t, std::optional<KeyBound> lower,
                                                          std::optional<KeyBound> upper,
                                                          ScanDirection direction) const {
  auto it = std::make_unique<Iterator>(*this, t, std::move(lower), std::move(upper), direction);
  if (auto s = it->Start(); !s) return std::unexpected(s.error());
  return it;
}

StorageResult<std::vector<std::string>> BTree::Lookup(Txn& t, std::string_view key) const {
  // A unique tree holds the key, if at all, in the leaf that covers it: search that leaf where
  // the transaction holds it, without the copy a scan keeps.
  ItemView probe{key, ""};
  auto path = Descend(t, Target{probe}, true);
  if (!path) return std::unexpected(path.error());
  const NodeView& leaf = path->back().node;
  if (leaf.unique()) {
    size_t at = leaf.LowerBound(probe);
    if (at == leaf.count() || leaf.item(at).key != key) return std::vector<std::string>{};
    return std::vector<std::string>{std::string(leaf.item(at).value)};
  }
  // A key's items may run on into the next leaves.
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
    ItemView item{key, v};
    auto path = Descend(t, Target{item}, true);
    if (!path) return std::unexpected(path.error());
    const NodeView& leaf = path->back().node;
    size_t at = leaf.LowerBound(item);
    if (at == leaf.count() || CompareItems(leaf.item(at), item, leaf.unique()) != 0) {
      return Failure(StorageError::Code::kCorrupt);
    }
    NodeBuffer changed(leaf);
    changed.Erase(at);
    if (auto w = WriteNode(t, path->back().addr, changed); !w) return std::unexpected(w.error());
    if (changed.view().count() == 0 && path->size() > 1) {
      if (auto u = UnlinkEmpty(t, Target{item}); !u) return std::unexpected(u.error());
    }
    ++erased;
  }
  return erased;
}

StorageResult<std::string> BTree::CheckInvariants(Txn& t) const {
  auto root = ReadNode(t, root_);
  if (!root) return std::unexpected(root.error());
  return CheckNode(t, root_, ItemView{}, std::nullopt, root->level());
}

StorageResult<std::string> BTree::CheckNode(Txn& t, Addr a, ItemView low, std::optional<ItemView> high,
                                            int level) const {
  auto n = ReadNode(t, a);
  if (!n) return std::unexpected(n.error());
  const NodeView& node = *n;
  std::string where = "node at level " + std::to_string(node.level()) + ": ";
  if (static_cast<int>(node.level()) != level) return where + "wrong level";
  if (node.low() != low || node.high() != high) return where + "fences differ from parent's bounds";
  if (node.LiveBytes() > node.capacity()) return where + "over capacity";
  if (!node.leaf() && (node.count() == 0 || node.item(0) != node.low())) {
    return where + "first separator is not the low fence";
  }
  // The children's checks read more nodes through t, which leaves this view valid (no writes).
  for (size_t i = 0; i < node.count(); ++i) {
    ItemView x = node.item(i);
    if (CompareItems(x, node.low(), node.unique()) < 0 ||
        (node.high() && CompareItems(x, *node.high(), node.unique()) >= 0)) {
      return where + "item outside fences";
    }
    if (i > 0 && CompareItems(node.item(i - 1), x, node.unique()) >= 0) return where + "unsorted";
    if (!node.leaf()) {
      auto r = CheckNode(t, node.child(i), x, node.HighAfter(i), level - 1);
      if (!r || !r->empty()) return r;
    }
  }
  return std::string();
}

}  // namespace farmdb::storage
