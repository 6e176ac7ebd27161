#include "storage/hash_index.h"

#include <algorithm>
#include <iterator>
#include <set>

namespace farmdb::storage {
namespace {

using txn::Txn;

template <typename T>
StorageResult<T> Load(Txn& t, Addr a,
                      std::expected<T, std::string> (*decode)(std::span<const std::byte>)) {
  auto p = t.ReadView(a);
  if (!p) return TxnFailure(p.error());
  auto v = decode(*p);
  if (!v) return Failure(StorageError::Code::kCorrupt);
  return std::move(*v);
}

StorageResult<HashBucket> LoadBucket(Txn& t, Addr a) { return Load<HashBucket>(t, a, DecodeBucket); }
// The view points into t's copy of the bucket (Txn::ReadView).
StorageResult<HashBucketView> ViewBucketAt(Txn& t, Addr a) {
  return Load<HashBucketView>(t, a, ViewBucket);
}

StorageResult<void> Store(Txn& t, Addr a, const std::vector<std::byte>& bytes) {
  if (auto r = t.Write(a, bytes); !r) return TxnFailure(r.error());
  return {};
}

StorageResult<Addr> AllocWith(Txn& t, size_t size, const std::vector<std::byte>& bytes) {
  auto a = t.Alloc(size);
  if (!a) return TxnFailure(a.error());
  if (auto r = Store(t, *a, bytes); !r) return std::unexpected(r.error());
  return *a;
}

StorageResult<Addr> NewBucket(Txn& t, const HashBucket& b) {
  return AllocWith(t, kBucketPayload, EncodeBucket(b));
}

StorageResult<void> Free(Txn& t, Addr a) {
  if (auto r = t.Free(a); !r) return TxnFailure(r.error());
  return {};
}

// The top `bits` bits of h (0 when bits is 0).
uint64_t TopBits(uint64_t h, uint32_t bits) { return bits == 0 ? 0 : h >> (64 - bits); }

// An entry's key and value bytes, reading its blob if it is out of line.
StorageResult<std::string> KeyValue(Txn& t, const HashEntryRef& e) {
  if (e.blob.null()) return std::string(e.bytes);
  auto p = t.ReadView(e.blob);
  if (!p) return TxnFailure(p.error());
  auto kv = DecodeBlob(*p, e.key_len + e.value_len);
  if (!kv) return Failure(StorageError::Code::kCorrupt);
  return std::move(*kv);
}

}  // namespace

// Where a hash lives: the root as read (shared with the directory cache; from the cache only
// its fixed fields are used), its segment, and the home bucket's index.
struct HashIndex::Place {
  std::shared_ptr<const HashRoot> root;
  Addr segment_addr;
  HashSegment segment;
  uint32_t home = 0;
  uint32_t Next(uint32_t b) const { return (b + 1) % segment.buckets.size(); }
  uint32_t Prev(uint32_t b) const { return (b + segment.buckets.size() - 1) % segment.buckets.size(); }
  uint32_t HomeOf(uint64_t hash) const { return hash % segment.buckets.size(); }
};

// A matching pair: the bucket holding it, its index there, the bucket before it in the overflow
// chain (null for array buckets), its key length and blob (null if inline), and the decoded
// key+value.
struct HashIndex::Found {
  Addr bucket;
  size_t index = 0;
  Addr chain_prev;
  uint32_t key_len = 0;
  Addr blob;
  std::string kv;
};

uint64_t HashIndex::Hash(std::string_view key) {
  // FNV-1a, then the splitmix64 finaliser so every bit depends on every byte: the directory uses
  // the top bits and buckets the low ones.
  uint64_t h = 0xcbf29ce484222325ull;
  for (char c : key) h = (h ^ static_cast<uint8_t>(c)) * 0x100000001b3ull;
  h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
  h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
  return h ^ (h >> 31);
}

StorageResult<HashIndex> HashIndex::Create(Txn& t, HashIndexOptions options,
                                           HashDirectoryCache* cache) {
  if (options.buckets_per_segment < 2 || options.buckets_per_segment > 1024 ||
      options.max_global_depth > kMaxGlobalDepth) {
    return Failure(StorageError::Code::kInvalidArgument);
  }
  // The root first: the segment names it.
  auto root_addr = t.Alloc(HashRootCapacity());
  if (!root_addr) return TxnFailure(root_addr.error());
  HashSegment seg;
  seg.index = *root_addr;
  for (uint32_t i = 0; i < options.buckets_per_segment; ++i) {
    auto b = NewBucket(t, {});
    if (!b) return std::unexpected(b.error());
    seg.buckets.push_back(*b);
  }
  auto encoded = EncodeSegment(seg);
  auto seg_addr = AllocWith(t, encoded.size(), encoded);
  if (!seg_addr) return std::unexpected(seg_addr.error());
  HashRoot root{options.unique, 0, options.max_global_depth, options.buckets_per_segment,
                {*seg_addr}};
  if (auto r = Store(t, *root_addr, EncodeRoot(root)); !r) return std::unexpected(r.error());
  return HashIndex(*root_addr, cache);
}

StorageResult<HashIndex::Place> HashIndex::Locate(Txn& t, uint64_t hash, bool use_cache) const {
  if (!use_cache || cache_ == nullptr) return LocateFromRoot(t, hash);
  if (auto dir = cache_->Get(root_)) {
    Place p;
    p.segment_addr = dir->directory[TopBits(hash, dir->global_depth)];
    auto bytes = t.ReadView(p.segment_addr);
    // The address may hold anything by now, or nothing; only a failed transaction is an error.
    if (!bytes && bytes.error().code == txn::TxnErrorCode::kAborted) {
      return TxnFailure(bytes.error());
    }
    auto seg = bytes ? DecodeSegment(*bytes) : std::unexpected(std::string("unreadable"));
    if (seg && seg->index == root_ && seg->depth <= kMaxGlobalDepth &&
        TopBits(hash, seg->depth) == seg->prefix &&
        seg->buckets.size() == dir->buckets_per_segment) {
      p.root = std::move(dir);  // Split re-reads the root through t
      p.segment = std::move(*seg);
      p.home = p.HomeOf(hash);
      return p;
    }
    cache_->stale_.fetch_add(1, std::memory_order_relaxed);
    cache_->EraseIf(root_, dir);
  } else {
    cache_->misses_.fetch_add(1, std::memory_order_relaxed);
  }
  auto p = LocateFromRoot(t, hash);
  // A root read from t's own uncommitted split may enter the cache: it is only a hint, and if t
  // aborts its new segment address holds no segment of this index, which the check above sees.
  if (p) cache_->Put(root_, p->root);
  return p;
}

StorageResult<HashIndex::Place> HashIndex::LocateFromRoot(Txn& t, uint64_t hash) const {
  Place p;
  auto root = Load<HashRoot>(t, root_, DecodeRoot);
  if (!root) return std::unexpected(root.error());
  p.root = std::make_shared<const HashRoot>(std::move(*root));
  p.segment_addr = p.root->directory[TopBits(hash, p.root->global_depth)];
  auto seg = Load<HashSegment>(t, p.segment_addr, DecodeSegment);
  if (!seg) return std::unexpected(seg.error());
  p.segment = std::move(*seg);
  // Opacity makes root and segment one snapshot, so a mismatch here is a bug, not a race.
  if (p.segment.index != root_ || p.segment.depth > p.root->global_depth ||
      TopBits(hash, p.segment.depth) != p.segment.prefix) {
    return Failure(StorageError::Code::kCorrupt);
  }
  p.home = p.HomeOf(hash);
  return p;
}

StorageResult<std::vector<HashIndex::Found>> HashIndex::FindAll(Txn& t, const Place& p,
                                                                uint64_t hash, std::string_view key,
                                                                bool first_only) const {
  std::vector<Found> found;
  // Scans one bucket in place; true once the first match is found and that is all the caller
  // wants. Only matches are copied out.
  auto scan = [&](Addr addr, const HashBucketView& b, Addr chain_prev) -> StorageResult<bool> {
    for (size_t i = 0; i < b.count; ++i) {
      const HashEntryRef& e = b.entries[i];
      if (e.hash != hash || e.key_len != key.size()) continue;
      auto kv = KeyValue(t, e);
      if (!kv) return std::unexpected(kv.error());
      if (std::string_view(*kv).substr(0, e.key_len) != key) continue;
      found.push_back({addr, i, chain_prev, e.key_len, e.blob, std::move(*kv)});
      if (first_only) return true;
    }
    return false;
  };
  // The neighbourhood (home and the next bucket), then the home's overflow chain.
  Addr home_addr = p.segment.buckets[p.home];
  auto home = ViewBucketAt(t, home_addr);
  if (!home) return std::unexpected(home.error());
  auto done = scan(home_addr, *home, {});
  if (!done) return std::unexpected(done.error());
  if (*done) return found;
  Addr next_addr = p.segment.buckets[p.Next(p.home)];
  auto next = ViewBucketAt(t, next_addr);
  if (!next) return std::unexpected(next.error());
  done = scan(next_addr, *next, {});
  for (Addr prev = home_addr, a = home->next; done && !*done && !a.null();) {
    auto o = ViewBucketAt(t, a);
    if (!o) return std::unexpected(o.error());
    done = scan(a, *o, prev);
    prev = a;
    a = o->next;
  }
  if (!done) return std::unexpected(done.error());
  return found;
}

StorageResult<std::vector<std::string>> HashIndex::Lookup(Txn& t, std::string_view key) const {
  uint64_t hash = Hash(key);
  auto p = Locate(t, hash, true);
  if (!p) return std::unexpected(p.error());
  auto found = FindAll(t, *p, hash, key, p->root->unique);
  if (!found) return std::unexpected(found.error());
  std::vector<std::string> values;
  for (Found& f : *found) values.push_back(f.kv.substr(f.key_len));
  return values;
}

namespace {
// A hash lookup's matches, already read (they sit in one neighbourhood and its chain).
class KeyIterator : public IndexIterator {
 public:
  KeyIterator(std::string key, std::vector<std::string> values)
      : key_(std::move(key)), values_(std::move(values)) {}
  StorageResult<bool> Next() override { return ++at_ < values_.size(); }
  std::string_view key() const override { return key_; }
  std::string_view value() const override { return values_[at_]; }

 private:
  std::string key_;
  std::vector<std::string> values_;
  size_t at_ = ~size_t{0};
};
}  // namespace

StorageResult<std::unique_ptr<IndexIterator>> HashIndex::Scan(Txn& t, std::string_view key) const {
  auto values = Lookup(t, key);
  if (!values) return std::unexpected(values.error());
  return std::make_unique<KeyIterator>(std::string(key), std::move(*values));
}

StorageResult<void> HashIndex::Insert(Txn& t, std::string_view key, std::string_view value) const {
  if (key.size() + value.size() > kMaxKeyValue) return Failure(StorageError::Code::kTooLarge);
  uint64_t hash = Hash(key);
  auto p = Locate(t, hash, true);
  if (!p) return std::unexpected(p.error());
  // Unique: the key may not be present. Non-unique: the same pair may not be present.
  auto found = FindAll(t, *p, hash, key, p->root->unique);
  if (!found) return std::unexpected(found.error());
  for (const Found& f : *found) {
    if (p->root->unique || std::string_view(f.kv).substr(f.key_len) == value) {
      return Failure(StorageError::Code::kDuplicateKey);
    }
  }
  HashEntry e{hash, static_cast<uint32_t>(key.size()), static_cast<uint32_t>(value.size()), {}, {}};
  if (key.size() + value.size() <= kInlineLimit) {
    e.bytes.append(key).append(value);
  } else {
    auto blob = EncodeBlob(key, value);
    auto a = AllocWith(t, blob.size(), blob);
    if (!a) return std::unexpected(a.error());
    e.blob = *a;
  }
  for (;;) {
    auto placed = Put(t, *p, e, p->segment.depth < p->root->max_global_depth);
    if (!placed) return std::unexpected(placed.error());
    if (*placed) return {};
    // The split writes the root: take it (and the same segment) through t, not from the cache.
    p = LocateFromRoot(t, hash);
    if (!p) return std::unexpected(p.error());
    if (auto s = Split(t, *p); !s) return std::unexpected(s.error());
    p = Locate(t, hash, false);
    if (!p) return std::unexpected(p.error());
  }
}

StorageResult<bool> HashIndex::Put(Txn& t, const Place& p, HashEntry e, bool may_split) const {
  Addr home_addr = p.segment.buckets[p.home];
  Addr next_addr = p.segment.buckets[p.Next(p.home)];
  auto home = LoadBucket(t, home_addr);
  if (!home) return std::unexpected(home.error());
  auto put = [&](Addr a, HashBucket& b) -> StorageResult<bool> {
    b.entries.push_back(std::move(e));
    if (auto r = Store(t, a, EncodeBucket(b)); !r) return std::unexpected(r.error());
    return true;
  };
  if (home->Fits(e)) return put(home_addr, *home);
  auto next = LoadBucket(t, next_addr);
  if (!next) return std::unexpected(next.error());
  if (next->Fits(e)) return put(next_addr, *next);

  // Hopscotch displacement within neighbourhoods: move an entry out of bucket `from` to bucket
  // `to`, where it is still in its own home's neighbourhood, if that frees room for e.
  auto displace = [&](uint32_t from, HashBucket& from_bucket, uint32_t to,
                      uint32_t movable_home) -> StorageResult<bool> {
    if (to == p.home || to == p.Next(p.home)) return false;
    auto target = LoadBucket(t, p.segment.buckets[to]);
    if (!target) return std::unexpected(target.error());
    for (size_t i = 0; i < from_bucket.entries.size(); ++i) {
      const HashEntry& x = from_bucket.entries[i];
      if (p.HomeOf(x.hash) != movable_home || !target->Fits(x)) continue;
      HashBucket without = from_bucket;
      without.entries.erase(without.entries.begin() + i);
      if (!without.Fits(e)) continue;
      target->entries.push_back(x);
      if (auto r = Store(t, p.segment.buckets[to], EncodeBucket(*target)); !r) {
        return std::unexpected(r.error());
      }
      from_bucket = std::move(without);
      return put(p.segment.buckets[from], from_bucket);
    }
    return false;
  };
  // An entry of the neighbour whose home is the neighbour may move one bucket further on; an
  // entry of the home bucket whose home is the bucket before may move back there.
  uint32_t nb = p.Next(p.home);
  auto moved = displace(nb, *next, p.Next(nb), nb);
  if (!moved || *moved) return moved;
  moved = displace(p.home, *home, p.Prev(p.home), p.Prev(p.home));
  if (!moved || *moved) return moved;

  for (Addr a = home->next; !a.null();) {
    auto o = LoadBucket(t, a);
    if (!o) return std::unexpected(o.error());
    if (o->Fits(e)) return put(a, *o);
    a = o->next;
  }
  // A split helps only if the full neighbourhood holds other hashes: duplicates of one key in a
  // non-unique index stay together whatever the depth, so they chain instead.
  auto other_hash = [&](const HashBucket& b) {
    return std::ranges::any_of(b.entries, [&](const HashEntry& x) { return x.hash != e.hash; });
  };
  if (may_split && (other_hash(*home) || other_hash(*next))) return false;
  HashBucket overflow;
  overflow.next = home->next;
  overflow.entries.push_back(std::move(e));
  auto o = NewBucket(t, overflow);
  if (!o) return std::unexpected(o.error());
  home->next = *o;
  if (auto r = Store(t, home_addr, EncodeBucket(*home)); !r) return std::unexpected(r.error());
  return true;
}

// Extendible hashing at segment granularity: segment (d, prefix) becomes (d+1, prefix0) in place
// and a new (d+1, prefix1); the directory doubles first if d equals the global depth. Entries keep
// their home bucket index, so each moves only between the two segments.
StorageResult<void> HashIndex::Split(Txn& t, const Place& p) const {
  HashRoot root = *p.root;
  uint32_t d = p.segment.depth;
  if (d == root.global_depth) {
    std::vector<Addr> doubled(root.directory.size() * 2);
    for (size_t j = 0; j < doubled.size(); ++j) doubled[j] = root.directory[j >> 1];
    root.directory = std::move(doubled);
    root.global_depth++;
  }
  std::vector<HashEntry> entries;
  for (Addr a : p.segment.buckets) {
    auto b = LoadBucket(t, a);
    if (!b) return std::unexpected(b.error());
    for (Addr o = b->next; !o.null();) {
      auto ob = LoadBucket(t, o);
      if (!ob) return std::unexpected(ob.error());
      std::ranges::move(ob->entries, std::back_inserter(entries));
      if (auto r = Free(t, o); !r) return r;
      o = ob->next;
    }
    std::ranges::move(b->entries, std::back_inserter(entries));
    if (auto r = Store(t, a, EncodeBucket({})); !r) return r;
  }
  Place low = p, high = p;
  low.segment.depth = high.segment.depth = d + 1;
  low.segment.prefix = p.segment.prefix << 1;
  high.segment.prefix = (p.segment.prefix << 1) | 1;
  for (Addr& a : high.segment.buckets) {
    auto b = NewBucket(t, {});
    if (!b) return std::unexpected(b.error());
    a = *b;
  }
  auto encoded = EncodeSegment(high.segment);
  auto high_addr = AllocWith(t, encoded.size(), encoded);
  if (!high_addr) return std::unexpected(high_addr.error());
  high.segment_addr = *high_addr;
  uint32_t g = root.global_depth;
  for (size_t j = 0; j < root.directory.size(); ++j) {
    if ((j >> (g - d)) != p.segment.prefix) continue;
    if ((j >> (g - d - 1)) & 1) root.directory[j] = high.segment_addr;
  }
  if (auto r = Store(t, p.segment_addr, EncodeSegment(low.segment)); !r) return r;
  if (auto r = Store(t, root_, EncodeRoot(root)); !r) return r;
  for (HashEntry& e : entries) {
    Place& target = (e.hash >> (63 - d)) & 1 ? high : low;
    target.home = target.HomeOf(e.hash);
    auto placed = Put(t, target, std::move(e), false);
    if (!placed) return std::unexpected(placed.error());
  }
  return {};
}

StorageResult<size_t> HashIndex::Erase(Txn& t, std::string_view key,
                                       std::optional<std::string_view> value) const {
  uint64_t hash = Hash(key);
  auto p = Locate(t, hash, true);
  if (!p) return std::unexpected(p.error());
  auto found = FindAll(t, *p, hash, key, false);
  if (!found) return std::unexpected(found.error());
  // Remove from the last match backwards so earlier matches' indexes stay valid.
  size_t erased = 0;
  for (auto it = found->rbegin(); it != found->rend(); ++it) {
    if (value && std::string_view(it->kv).substr(it->key_len) != *value) continue;
    if (value && erased == 1) break;
    auto b = LoadBucket(t, it->bucket);
    if (!b) return std::unexpected(b.error());
    b->entries.erase(b->entries.begin() + it->index);
    if (!it->blob.null()) {
      if (auto r = Free(t, it->blob); !r) return std::unexpected(r.error());
    }
    if (b->entries.empty() && !it->chain_prev.null()) {
      // An emptied overflow bucket leaves its chain.
      auto prev = LoadBucket(t, it->chain_prev);
      if (!prev) return std::unexpected(prev.error());
      prev->next = b->next;
      if (auto r = Store(t, it->chain_prev, EncodeBucket(*prev)); !r) return std::unexpected(r.error());
      if (auto r = Free(t, it->bucket); !r) return std::unexpected(r.error());
    } else if (auto r = Store(t, it->bucket, EncodeBucket(*b)); !r) {
      return std::unexpected(r.error());
    }
    ++erased;
  }
  return erased;
}

StorageResult<void> HashIndex::ForEach(
    Txn& t, const std::function<void(std::string_view, std::string_view)>& fn) const {
  auto root = Load<HashRoot>(t, root_, DecodeRoot);
  if (!root) return std::unexpected(root.error());
  std::set<Addr> seen;
  for (Addr s : root->directory) {
    if (!seen.insert(s).second) continue;
    auto seg = Load<HashSegment>(t, s, DecodeSegment);
    if (!seg) return std::unexpected(seg.error());
    for (Addr a : seg->buckets) {
      for (Addr b = a; !b.null();) {
        auto bucket = ViewBucketAt(t, b);
        if (!bucket) return std::unexpected(bucket.error());
        for (const HashEntryRef& e : std::span(bucket->entries).first(bucket->count)) {
          auto kv = KeyValue(t, e);
          if (!kv) return std::unexpected(kv.error());
          std::string_view v(*kv);
          fn(v.substr(0, e.key_len), v.substr(e.key_len));
        }
        b = bucket->next;
      }
    }
  }
  return {};
}

StorageResult<std::string> HashIndex::CheckInvariants(Txn& t) const {
  auto root = Load<HashRoot>(t, root_, DecodeRoot);
  if (!root) return std::unexpected(root.error());
  uint32_t g = root->global_depth;
  std::set<Addr> seen;
  for (size_t j = 0; j < root->directory.size(); ++j) {
    Addr s = root->directory[j];
    auto seg = Load<HashSegment>(t, s, DecodeSegment);
    if (!seg) return std::unexpected(seg.error());
    if (seg->index != root_ || seg->depth > g || (j >> (g - seg->depth)) != seg->prefix) {
      return "directory entry " + std::to_string(j) + " points to segment with prefix " +
             std::to_string(seg->prefix) + " depth " + std::to_string(seg->depth);
    }
    if (seg->buckets.size() != root->buckets_per_segment) return std::string("segment size");
    if (!seen.insert(s).second) continue;
    Place p{std::make_shared<const HashRoot>(*root), s, *seg, 0};
    for (uint32_t b = 0; b < seg->buckets.size(); ++b) {
      bool overflow = false;
      for (Addr a = seg->buckets[b]; !a.null(); overflow = true) {
        auto bucket = LoadBucket(t, a);
        if (!bucket) return std::unexpected(bucket.error());
        if (bucket->EncodedSize() > kBucketPayload) return std::string("bucket over budget");
        if (overflow && bucket->entries.empty()) return std::string("empty overflow bucket");
        for (const HashEntry& e : bucket->entries) {
          uint32_t home = p.HomeOf(e.hash);
          bool placed = overflow ? home == b : home == b || p.Next(home) == b;
          if (!placed || TopBits(e.hash, seg->depth) != seg->prefix) {
            return "entry with hash " + std::to_string(e.hash) + " misplaced in bucket " +
                   std::to_string(b) + (overflow ? " chain" : "");
          }
          auto kv = KeyValue(t, {e.hash, e.key_len, e.value_len, e.blob, e.bytes});
          if (!kv) return std::unexpected(kv.error());
          if (Hash(std::string_view(*kv).substr(0, e.key_len)) != e.hash) {
            return std::string("entry hash does not match its key");
          }
        }
        a = bucket->next;
      }
    }
  }
  return std::string();
}

}  // namespace farmdb::storage
