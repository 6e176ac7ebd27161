// BTree: an ordered index over opaque byte-string keys and values whose nodes are FaRM objects
// (FaRM SOSP'15 §6.2 and FaRMv2 §2), built only from txn transactions.
//
// Every node carries fence keys (btree_node.h); each step to a node read through the transaction
// checks its fences against the bounds the parent gave it. A per-machine BTreeCache keeps copies
// of internal nodes, so a lookup usually reads only its leaf through the transaction: the leaf
// enters the read set, and its fences prove it is the leaf for the key at the read timestamp, so
// cached nodes are hints that go unchecked: stale ones can only send a lookup to a leaf whose
// fences then disagree, which drops them from the cache and repeats the descent through the
// transaction. Range scans read each leaf they
// cover in the transaction, so a concurrent insert into the range (which writes one of those
// leaves) fails the scanner's validation: no phantoms under serializable transactions.
//
// Inserts that overflow a leaf split it (and overflowing parents) in the caller's transaction;
// the root node never moves, so its Addr names the tree. An erase that empties a leaf unlinks it
// in the same transaction (UnlinkEmpty), so scans never step through runs of empty leaves left
// by queue-like deletes (TPC-C's new_order); nodes that are merely underfull are not merged.
//
// Unique trees map a key to one value; non-unique trees hold a set of distinct (key, value)
// pairs ordered by key then value. A BTree value is the root's Addr and a cache pointer: copyable
// and thread-safe; the cache must outlive it.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "storage/addr_cache.h"
#include "storage/btree_node.h"
#include "storage/index.h"

namespace farmdb::storage {

// An internal node as the cache keeps it: a copy of its bytes, read in place.
struct CachedNode {
  txn::RawBytes bytes;
  NodeView node;  // over `bytes`
  static std::shared_ptr<const CachedNode> Copy(const NodeView& node);
};

// Internal nodes of any number of trees, per machine (addr_cache.h). Entries are hints that
// descents check with fence keys; a descent that finds the fences disagree erases the entry
// (Descend). 1024 front slots per thread (about 32 KB): the internal nodes a TPC-C workload
// descends through most are the upper levels of nine tables' trees, a few hundred.
class BTreeCache : public AddrCache<CachedNode, 1024> {};

struct BTreeOptions {
  bool unique = true;
  // Node object payload; an item (key + value + 4) may use at most an eighth of it, so a split
  // always leaves both halves room for their fences.
  size_t node_bytes = 4096;
};

struct KeyBound {
  std::string key;
  bool inclusive = true;
};

enum class ScanDirection { kForward, kBackward };

class BTree {
 public:
  static StorageResult<BTree> Create(txn::Txn& t, BTreeOptions options, BTreeCache* cache);
  static BTree Open(Addr root, BTreeCache* cache) { return BTree(root, cache); }
  Addr root() const { return root_; }

  StorageResult<std::vector<std::string>> Lookup(txn::Txn& t, std::string_view key) const;
  StorageResult<void> Insert(txn::Txn& t, std::string_view key, std::string_view value) const;
  StorageResult<size_t> Erase(txn::Txn& t, std::string_view key,
                              std::optional<std::string_view> value = std::nullopt) const;
  // Pairs with lower <= key <= upper (bounds optional, each inclusive or not), in key order
  // (then value order) or its reverse.
  StorageResult<std::unique_ptr<IndexIterator>> Scan(txn::Txn& t, std::optional<KeyBound> lower,
                                                     std::optional<KeyBound> upper,
                                                     ScanDirection direction) const;
  // Walks the whole tree in `t`: fences, order, levels, sizes. "" if sound.
  StorageResult<std::string> CheckInvariants(txn::Txn& t) const;

 private:
  class Iterator;
  struct Target;
  // A node on a root-to-leaf path: a view into the transaction's copy of it, or into the cached
  // copy it pins.
  struct PathNode {
    Addr addr;
    NodeView node;
    std::shared_ptr<const CachedNode> pin;
  };
  using Path = std::vector<PathNode>;

  BTree(Addr root, BTreeCache* cache) : root_(root), cache_(cache) {}
  // A node of this tree read through `t`: a view valid until `t` writes `a` again.
  StorageResult<NodeView> ReadNode(txn::Txn& t, Addr a) const;
  // Root-to-leaf path to the leaf covering `target`. With the cache, internal nodes come from it
  // where present (and only the leaf is certain to be read through t).
  StorageResult<Path> Descend(txn::Txn& t, const Target& target, bool use_cache) const;
  // Inserts `entry` into the last node of `path` (read through t), splitting it and its
  // ancestors as needed, and writes every changed node.
  StorageResult<void> SplitUp(txn::Txn& t, const Path& path, NodeEntry entry) const;
  StorageResult<void> WriteNode(txn::Txn& t, Addr a, const NodeBuffer& node) const;
  // Frees the empty leaf covering `target` and the chain of single-child ancestors above it, and
  // hands their key range to a neighbour under the lowest ancestor with two or more children.
  StorageResult<void> UnlinkEmpty(txn::Txn& t, const Target& target) const;
  StorageResult<std::string> CheckNode(txn::Txn& t, Addr a, ItemView low, std::optional<ItemView> high,
                                       int level) const;

  Addr root_;
  BTreeCache* cache_;
};

}  // namespace farmdb::storage
