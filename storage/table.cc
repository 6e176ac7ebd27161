#include "storage/table.h"

#include <algorithm>
#include <cstring>
#include <set>

#include "txn/object.h"

namespace farmdb::storage {

namespace {

using Code = StorageError::Code;

constexpr size_t kLengthBytes = 4;  // the row object's u32 row length
constexpr size_t kRowIdBytes = 8;
// Txn::Alloc's largest object: rows beyond it fail kTooLarge (no multi-object rows yet).
constexpr size_t kMaxObject = txn::PayloadCapacity(256);
const KeyColumn kRowIdColumn{TypeId::kInt8};

std::string AddrBytes(Addr a) {
  std::string s(sizeof(a.raw), '\0');
  std::memcpy(s.data(), &a.raw, sizeof(a.raw));
  return s;
}

StorageResult<Addr> ParseAddr(std::string_view s) {
  if (s.size() != sizeof(uint64_t)) return Failure(Code::kCorrupt);
  Addr a;
  std::memcpy(&a.raw, s.data(), sizeof(a.raw));
  return a;
}

// Entry key of an index for a row whose column i is get(i) (table.h "Secondary entries").
template <typename Get>
std::string EntryKey(const IndexSpec& spec, bool primary, Get&& get, Addr addr, int64_t row_id) {
  std::string key;
  if (spec.columns.empty()) {  // hidden row id
    AppendKeyColumn(key, Value::Int(TypeId::kInt8, row_id), kRowIdColumn);
    return key;
  }
  bool has_null = false;
  for (const IndexColumn& c : spec.columns) {
    const Value& v = get(c.column);
    has_null |= v.IsNull();
    AppendKeyColumn(key, v, c.key);
  }
  bool suffixed = !primary && (spec.kind == IndexKind::kBTree ? !spec.unique || has_null
                                                              : spec.unique && has_null);
  if (suffixed) key += AddrBytes(addr);
  return key;
}

// The index structure behind a spec: primary and B-tree secondaries are unique structures (their
// keys are made distinct by the Addr suffix where needed); non-unique hash secondaries are not.
bool UniqueStructure(const IndexSpec& spec, bool primary) {
  return primary || spec.kind == IndexKind::kBTree || spec.unique;
}

using IndexHandle = std::variant<BTree, HashIndex>;

IndexHandle OpenIndex(const IndexDescriptor& d, const TableCaches& caches) {
  if (d.spec.kind == IndexKind::kHash) return HashIndex::Open(d.root, caches.hash);
  return BTree::Open(d.root, caches.btree);
}

// B-tree node size for an index. A point read copies a whole leaf into the read set and a
// leaf write copies it into the log, the old version and the new head, so small leaves are
// cheaper, but a node must hold 8 of the largest items (BTreeOptions). Keys of fixed-width
// columns only (integers, dates, timestamps, floats: pgbench's and TPC-C's keys) have a small
// bound and get 1 KB nodes; a key with a string or numeric column keeps 4 KB, whose items may
// reach 512 bytes.
size_t NodeBytesFor(const IndexSpec& spec) {
  constexpr size_t kSmall = 1024, kLarge = 4096;
  size_t key = 0;
  for (const IndexColumn& c : spec.columns) {
    auto bytes = MaxKeyColumnBytes(c.key.type);
    if (!bytes) return kLarge;
    key += *bytes;
  }
  if (spec.columns.empty()) key = *MaxKeyColumnBytes(kRowIdColumn.type);
  // Record header, an Addr suffix (non-unique secondaries, NULL keys) and the Addr value.
  size_t item = 4 + key + 2 * sizeof(Addr::raw);
  return 8 * item <= kSmall ? kSmall : kLarge;
}

StorageResult<IndexDescriptor> CreateIndex(txn::Txn& t, IndexSpec spec, bool primary) {
  bool unique = UniqueStructure(spec, primary);
  if (primary) spec.unique = true;
  if (spec.kind == IndexKind::kHash) {
    auto h = HashIndex::Create(t, {.unique = unique});
    if (!h) return std::unexpected(h.error());
    return IndexDescriptor{std::move(spec), h->root()};
  }
  auto b = BTree::Create(t, {.unique = unique, .node_bytes = NodeBytesFor(spec)}, nullptr);
  if (!b) return std::unexpected(b.error());
  return IndexDescriptor{std::move(spec), b->root()};
}

StorageResult<void> InsertEntry(const IndexHandle& ix, txn::Txn& t,
                                std::string_view key, std::string_view value) {
  return std::visit([&](const auto& i) { return i.Insert(t, key, value); }, ix);
}

StorageResult<size_t> EraseEntry(const IndexHandle& ix, txn::Txn& t,
                                 std::string_view key, std::string_view value) {
  return std::visit([&](const auto& i) { return i.Erase(t, key, value); }, ix);
}

StorageResult<void> FreeObject(txn::Txn& t, Addr a) {
  if (auto f = t.Free(a); !f) return TxnFailure(f.error());
  return {};
}

StorageResult<std::vector<std::byte>> ReadObject(txn::Txn& t, Addr a) {
  auto bytes = t.Read(a);
  if (!bytes) return TxnFailure(bytes.error());
  return std::move(*bytes);
}

// Frees a B-tree's nodes, children before parents.
StorageResult<void> FreeBTree(txn::Txn& t, Addr node) {
  auto bytes = ReadObject(t, node);
  if (!bytes) return std::unexpected(bytes.error());
  auto n = NodeView::Open(*bytes);
  if (!n) return Failure(Code::kCorrupt);
  for (size_t i = 0; !n->leaf() && i < n->count(); ++i) {
    if (auto r = FreeBTree(t, n->child(i)); !r) return r;
  }
  return FreeObject(t, node);
}

// Frees a hash index: every segment once (directory entries repeat), its buckets and overflow
// chains with their blobs, then the root.
StorageResult<void> FreeHash(txn::Txn& t, Addr root) {
  auto bytes = ReadObject(t, root);
  if (!bytes) return std::unexpected(bytes.error());
  auto r = DecodeRoot(*bytes);
  if (!r) return Failure(Code::kCorrupt);
  std::set<Addr> segments(r->directory.begin(), r->directory.end());
  for (Addr s : segments) {
    auto sb = ReadObject(t, s);
    if (!sb) return std::unexpected(sb.error());
    auto seg = DecodeSegment(*sb);
    if (!seg) return Failure(Code::kCorrupt);
    for (Addr b : seg->buckets) {
      for (Addr next = b; !next.null();) {
        auto bb = ReadObject(t, next);
        if (!bb) return std::unexpected(bb.error());
        auto bucket = DecodeBucket(*bb);
        if (!bucket) return Failure(Code::kCorrupt);
        for (const HashEntry& e : bucket->entries) {
          if (!e.blob.null()) {
            if (auto f = FreeObject(t, e.blob); !f) return f;
          }
        }
        if (auto f = FreeObject(t, next); !f) return f;
        next = bucket->next;
      }
    }
    if (auto f = FreeObject(t, s); !f) return f;
  }
  return FreeObject(t, root);
}

StorageResult<void> FreeIndex(txn::Txn& t, const IndexDescriptor& d) {
  return d.spec.kind == IndexKind::kHash ? FreeHash(t, d.root) : FreeBTree(t, d.root);
}

bool ValidSpec(const IndexSpec& spec, const RowSchema& schema) {
  for (const IndexColumn& c : spec.columns) {
    if (c.column >= schema.columns.size()) return false;
  }
  return true;
}

// The hidden row id a row object carries after its tuple (0 for tables with a primary key).
int64_t RowIdOf(std::span<const std::byte> object, size_t row_len, bool hidden) {
  int64_t id = 0;
  if (hidden) std::memcpy(&id, object.data() + kLengthBytes + row_len, kRowIdBytes);
  return id;
}

// The row object's bytes (table.h): u32 length | tuple | hidden row id.
std::string RowObject(std::string row, std::optional<int64_t> row_id) {
  std::string obj(kLengthBytes, '\0');
  uint32_t len = row.size();
  std::memcpy(obj.data(), &len, kLengthBytes);
  obj.reserve(kLengthBytes + row.size() + kRowIdBytes);
  obj += row;
  if (row_id) obj.append(reinterpret_cast<const char*>(&*row_id), kRowIdBytes);
  return obj;
}

std::span<const std::byte> AsBytes(std::string_view s) {
  return {reinterpret_cast<const std::byte*>(s.data()), s.size()};
}

// Iterator over nothing: a scan whose bounds admit no key.
class EmptyIterator : public IndexIterator {
 public:
  StorageResult<bool> Next() override { return false; }
  std::string_view key() const override { return {}; }
  std::string_view value() const override { return {}; }
};

}  // namespace

StorageResult<bool> RowIterator::Next() {
  row_.reset();
  auto more = it_->Next();
  if (!more || !*more) return more;
  auto addr = ParseAddr(it_->value());
  if (!addr) return std::unexpected(addr.error());
  auto row = table_->Read(*txn_, *addr);
  if (!row) return std::unexpected(row.error());
  row_.emplace(std::move(*row));
  return true;
}

StorageResult<TableDescriptor> Table::Create(txn::Txn& t, RowSchema schema, IndexSpec primary,
                                             std::vector<IndexSpec> secondary) {
  bool ok = ValidSpec(primary, schema);
  for (const IndexSpec& s : secondary) ok = ok && ValidSpec(s, schema) && !s.columns.empty();
  if (!ok) return Failure(Code::kInvalidArgument);
  TableDescriptor d;
  d.schema = std::move(schema);
  if (primary.columns.empty()) {
    auto seq = Sequence::Create(t, {.cache = SequenceCache::kRowIdCache});
    if (!seq) return std::unexpected(seq.error());
    d.row_id_sequence = *seq;
  }
  auto p = CreateIndex(t, std::move(primary), true);
  if (!p) return std::unexpected(p.error());
  d.primary = std::move(*p);
  for (IndexSpec& s : secondary) {
    auto ix = CreateIndex(t, std::move(s), false);
    if (!ix) return std::unexpected(ix.error());
    d.secondary.push_back(std::move(*ix));
  }
  return d;
}

Table::Table(std::shared_ptr<const TableDescriptor> descriptor, TableCaches caches)
    : descriptor_(std::move(descriptor)), caches_(caches) {
  indexes_.reserve(1 + descriptor_->secondary.size());
  indexes_.push_back(OpenIndex(descriptor_->primary, caches_));
  for (const IndexDescriptor& d : descriptor_->secondary) {
    indexes_.push_back(OpenIndex(d, caches_));
  }
}

const IndexSpec& Table::Spec(uint32_t pos) const {
  return pos == 0 ? descriptor_->primary.spec : descriptor_->secondary[pos - 1].spec;
}

std::vector<std::string> Table::RowKeys(std::span<const Value> values, Addr addr,
                                        int64_t row_id) const {
  std::vector<std::string> keys;
  keys.reserve(indexes_.size());
  auto get = [&](size_t i) -> const Value& { return values[i]; };
  for (uint32_t pos = 0; pos < indexes_.size(); ++pos) {
    keys.push_back(EntryKey(Spec(pos), pos == 0, get, addr, row_id));
  }
  return keys;
}

std::vector<std::string> Table::StoredKeys(const StoredRow& row) const {
  bool hidden = descriptor_->primary.spec.columns.empty();
  int64_t row_id = RowIdOf(row.object_, row.view_.bytes().size(), hidden);
  std::vector<std::string> keys;
  keys.reserve(indexes_.size());
  // Materialise each key column once per index; key columns are few.
  auto get = [&](size_t i) { return Column(row, i); };
  for (uint32_t pos = 0; pos < indexes_.size(); ++pos) {
    keys.push_back(EntryKey(Spec(pos), pos == 0, get, row.addr_, row_id));
  }
  return keys;
}

StorageResult<Addr> Table::Insert(txn::Txn& t, std::span<const Value> values) const {
  const TableDescriptor& d = *descriptor_;
  if (values.size() != d.schema.columns.size()) return Failure(Code::kInvalidArgument);
  std::optional<int64_t> row_id;
  if (d.primary.spec.columns.empty()) {
    if (!caches_.sequences) return Failure(Code::kInvalidArgument);
    auto id = caches_.sequences->NextRowId(d.row_id_sequence, t);
    if (!id) return std::unexpected(id.error());
    row_id = *id;
  }
  std::string obj = RowObject(EncodeRow(d.schema, values), row_id);
  if (obj.size() > kMaxObject) return Failure(Code::kTooLarge);
  auto a = t.Alloc(obj.size());
  if (!a) return TxnFailure(a.error());
  if (auto w = t.Write(*a, AsBytes(obj)); !w) return TxnFailure(w.error());
  std::string value = AddrBytes(*a);
  std::vector<std::string> keys = RowKeys(values, *a, row_id.value_or(0));
  for (uint32_t pos = 0; pos < keys.size(); ++pos) {
    auto r = InsertEntry(indexes_[pos], t, keys[pos], value);
    if (r) continue;
    if (r.error().code != Code::kDuplicateKey) return std::unexpected(r.error());
    // Statement-level atomicity for unique violations: take back this row's entries and object.
    for (uint32_t q = 0; q < pos; ++q) {
      if (auto e = EraseEntry(indexes_[q], t, keys[q], value); !e) return std::unexpected(e.error());
    }
    if (auto f = FreeObject(t, *a); !f) return std::unexpected(f.error());
    StorageError dup = r.error();
    dup.index = pos;
    return std::unexpected(dup);
  }
  return *a;
}

StorageResult<std::optional<StoredRow>> Table::Get(txn::Txn& t, std::span<const Value> key) const {
  const IndexSpec& spec = descriptor_->primary.spec;
  if (spec.columns.empty() || key.size() != spec.columns.size()) {
    return Failure(Code::kInvalidArgument);
  }
  std::string k;
  for (size_t i = 0; i < key.size(); ++i) AppendKeyColumn(k, key[i], spec.columns[i].key);
  auto found = std::visit([&](const auto& ix) { return ix.Lookup(t, k); }, indexes_[0]);
  if (!found) return std::unexpected(found.error());
  if (found->empty()) return std::optional<StoredRow>();
  auto addr = ParseAddr(found->front());
  if (!addr) return std::unexpected(addr.error());
  auto row = Read(t, *addr);
  if (!row) return std::unexpected(row.error());
  return std::optional<StoredRow>(std::move(*row));
}

StorageResult<StoredRow> Table::Read(txn::Txn& t, Addr addr) const {
  auto bytes = ReadObject(t, addr);
  if (!bytes) return std::unexpected(bytes.error());
  StoredRow row;
  row.addr_ = addr;
  row.object_ = std::move(*bytes);
  uint32_t len;
  if (row.object_.size() < kLengthBytes) return Failure(Code::kCorrupt);
  std::memcpy(&len, row.object_.data(), kLengthBytes);
  size_t trailer = descriptor_->primary.spec.columns.empty() ? kRowIdBytes : 0;
  if (kLengthBytes + size_t{len} + trailer > row.object_.size()) return Failure(Code::kCorrupt);
  auto view = RowView::Parse(
      std::string_view(reinterpret_cast<const char*>(row.object_.data()) + kLengthBytes, len));
  if (!view) return std::unexpected(view.error());
  row.view_ = *view;
  return row;
}

StorageResult<Addr> Table::Update(txn::Txn& t, const StoredRow& row, std::span<const Value> values,
                                  const std::vector<bool>& changed) const {
  const TableDescriptor& d = *descriptor_;
  const size_t n = d.schema.columns.size();
  if (values.size() != n || (!changed.empty() && changed.size() != n)) return Failure(Code::kInvalidArgument);
  bool hidden = d.primary.spec.columns.empty();
  int64_t row_id = RowIdOf(row.object_, row.view_.bytes().size(), hidden);
  std::string encoded =
      changed.empty() ? EncodeRow(d.schema, values) : PatchRow(d.schema, row.view_, d.missing, values, changed);
  std::string obj = RowObject(std::move(encoded), hidden ? std::optional(row_id) : std::nullopt);
  Addr old = row.addr_, addr = old;
  bool moved = obj.size() > row.object_.size();
  if (moved) {
    // Outgrew its object: a new one, and every index entry follows it.
    if (obj.size() > kMaxObject) return Failure(Code::kTooLarge);
    auto a = t.Alloc(obj.size());
    if (!a) return TxnFailure(a.error());
    addr = *a;
    if (auto f = FreeObject(t, old); !f) return std::unexpected(f.error());
  }
  if (auto w = t.Write(addr, AsBytes(obj)); !w) return TxnFailure(w.error());
  // Only the entries of indexes over a changed column can change, unless the row moved.
  auto is_changed = [&](size_t i) { return changed.empty() || changed[i]; };
  auto old_column = [&](size_t i) { return Column(row, i); };
  auto new_column = [&](size_t i) { return is_changed(i) ? values[i] : Column(row, i); };
  std::string old_value = AddrBytes(old), new_value = AddrBytes(addr);
  for (uint32_t pos = 0; pos < indexes_.size(); ++pos) {
    const IndexSpec& spec = Spec(pos);
    if (!moved && std::ranges::none_of(spec.columns, [&](const IndexColumn& c) { return is_changed(c.column); })) {
      continue;
    }
    std::string old_key = EntryKey(spec, pos == 0, old_column, old, row_id);
    std::string new_key = EntryKey(spec, pos == 0, new_column, addr, row_id);
    if (!moved && old_key == new_key) continue;
    auto e = EraseEntry(indexes_[pos], t, old_key, old_value);
    if (!e) return std::unexpected(e.error());
    if (*e != 1) return Failure(Code::kCorrupt);
    auto r = InsertEntry(indexes_[pos], t, new_key, new_value);
    if (!r) {
      StorageError err = r.error();
      err.index = pos;
      return std::unexpected(err);
    }
  }
  return addr;
}

StorageResult<void> Table::Delete(txn::Txn& t, const StoredRow& row) const {
  std::vector<std::string> keys = StoredKeys(row);
  std::string value = AddrBytes(row.addr_);
  for (uint32_t pos = 0; pos < indexes_.size(); ++pos) {
    auto e = EraseEntry(indexes_[pos], t, keys[pos], value);
    if (!e) return std::unexpected(e.error());
    if (*e != 1) return Failure(Code::kCorrupt);
  }
  return FreeObject(t, row.addr_);
}

StorageResult<RowIterator> Table::Scan(txn::Txn& t, const IndexScan& scan) const {
  if (scan.index >= indexes_.size()) return Failure(Code::kInvalidArgument);
  if (const auto* h = std::get_if<HashIndex>(&indexes_[scan.index])) {
    if (!scan.lower || !scan.upper || !scan.lower->inclusive || !scan.upper->inclusive ||
        scan.lower->key != scan.upper->key) {
      return Failure(Code::kInvalidArgument);
    }
    auto it = h->Scan(t, scan.lower->key);
    if (!it) return std::unexpected(it.error());
    return RowIterator(this, &t, std::move(*it));
  }
  // Column-prefix bounds (table.h) as byte bounds: "> L" starts after every key beginning with
  // L, "<= U" ends before the first key past those beginning with U. Prefix-freeness of the
  // column encodings makes this exact, Addr suffixes included.
  std::optional<KeyBound> lower, upper;
  if (scan.lower) {
    if (scan.lower->inclusive) {
      lower = KeyBound{scan.lower->key, true};
    } else {
      std::string after = PrefixSuccessor(scan.lower->key);
      if (after.empty()) return RowIterator(this, &t, std::make_unique<EmptyIterator>());
      lower = KeyBound{std::move(after), true};
    }
  }
  if (scan.upper) {
    if (!scan.upper->inclusive) {
      upper = KeyBound{scan.upper->key, false};
    } else if (std::string after = PrefixSuccessor(scan.upper->key); !after.empty()) {
      upper = KeyBound{std::move(after), false};
    }
  }
  auto it = std::get<BTree>(indexes_[scan.index]).Scan(t, lower, upper, scan.direction);
  if (!it) return std::unexpected(it.error());
  return RowIterator(this, &t, std::move(*it));
}

std::string Table::IndexKey(uint32_t index, std::span<const Value> values) const {
  const IndexSpec& spec = Spec(index);
  std::string key;
  for (size_t i = 0; i < values.size(); ++i) {
    AppendKeyColumn(key, values[i], spec.columns.empty() ? kRowIdColumn : spec.columns[i].key);
  }
  return key;
}

Value Table::Column(const StoredRow& row, size_t i) const {
  Value v;
  ColumnInto(row, i, v);
  return v;
}

void Table::ColumnInto(const StoredRow& row, size_t i, Value& out) const {
  const TableDescriptor& d = *descriptor_;
  if (row.view_.IsMissing(i)) {
    out = i < d.missing.size() ? d.missing[i] : Value::Null(d.schema.columns[i]);
    return;
  }
  row.view_.GetInto(i, d.schema.columns[i], out);
}

std::vector<Value> Table::Columns(const StoredRow& row) const {
  std::vector<Value> out;
  Columns(row, {}, out);
  return out;
}

void Table::Columns(const StoredRow& row, const std::vector<bool>& wanted, std::vector<Value>& out) const {
  // Locals, not members re-read after each ColumnInto call: most columns of a wide row are not
  // wanted, and their check is the whole loop's cost.
  const std::span<const TypeId> types = descriptor_->schema.columns;
  const bool every = wanted.empty();
  out.resize(types.size());
  Value* values = out.data();
  auto want = wanted.begin();
  for (size_t i = 0; i < types.size(); ++i) {
    if (every || *want++) {
      ColumnInto(row, i, values[i]);
    } else if (!values[i].IsNull() || values[i].type != types[i]) {
      values[i].data.emplace<std::monostate>();  // else already so: a scan's previous row left it
      values[i].type = types[i];
    }
  }
}

StorageResult<std::vector<Addr>> Table::RowAddrs(txn::Txn& t) const {
  std::vector<Addr> addrs;
  if (const auto* h = std::get_if<HashIndex>(&indexes_[0])) {
    bool bad = false;
    auto r = h->ForEach(t, [&](std::string_view, std::string_view v) {
      auto a = ParseAddr(v);
      bad |= !a;
      if (a) addrs.push_back(*a);
    });
    if (!r) return std::unexpected(r.error());
    if (bad) return Failure(Code::kCorrupt);
    return addrs;
  }
  auto it = std::get<BTree>(indexes_[0]).Scan(t, std::nullopt, std::nullopt,
                                               ScanDirection::kForward);
  if (!it) return std::unexpected(it.error());
  for (;;) {
    auto more = (*it)->Next();
    if (!more) return std::unexpected(more.error());
    if (!*more) return addrs;
    auto a = ParseAddr((*it)->value());
    if (!a) return std::unexpected(a.error());
    addrs.push_back(*a);
  }
}

StorageResult<IndexDescriptor> Table::AddIndex(txn::Txn& t, IndexSpec spec) const {
  if (spec.columns.empty() || !ValidSpec(spec, descriptor_->schema)) {
    return Failure(Code::kInvalidArgument);
  }
  auto addrs = RowAddrs(t);
  if (!addrs) return std::unexpected(addrs.error());
  auto d = CreateIndex(t, std::move(spec), false);
  if (!d) return std::unexpected(d.error());
  IndexHandle ix = OpenIndex(*d, caches_);
  for (Addr a : *addrs) {
    auto row = Read(t, a);
    if (!row) return std::unexpected(row.error());
    auto get = [&](size_t i) { return Column(*row, i); };
    std::string key = EntryKey(d->spec, false, get, a, 0);
    if (auto r = InsertEntry(ix, t, key, AddrBytes(a)); !r) {
      StorageError err = r.error();
      err.index = descriptor_->secondary.size() + 1;
      return std::unexpected(err);
    }
  }
  return d;
}

StorageResult<void> Table::DropIndex(txn::Txn& t, uint32_t index) const {
  if (index == 0 || index > descriptor_->secondary.size()) return Failure(Code::kInvalidArgument);
  return FreeIndex(t, descriptor_->secondary[index - 1]);
}

StorageResult<void> Table::FreeAll(txn::Txn& t) const {
  auto addrs = RowAddrs(t);
  if (!addrs) return std::unexpected(addrs.error());
  for (Addr a : *addrs) {
    if (auto f = FreeObject(t, a); !f) return f;
  }
  if (auto r = FreeIndex(t, descriptor_->primary); !r) return r;
  for (const IndexDescriptor& d : descriptor_->secondary) {
    if (auto r = FreeIndex(t, d); !r) return r;
  }
  return {};
}

StorageResult<TableDescriptor> Table::Truncate(txn::Txn& t) const {
  if (auto r = FreeAll(t); !r) return std::unexpected(r.error());
  TableDescriptor d = *descriptor_;
  auto p = CreateIndex(t, d.primary.spec, true);
  if (!p) return std::unexpected(p.error());
  d.primary = std::move(*p);
  for (IndexDescriptor& s : d.secondary) {
    auto ix = CreateIndex(t, s.spec, false);
    if (!ix) return std::unexpected(ix.error());
    s = std::move(*ix);
  }
  return d;
}

StorageResult<void> Table::Drop(txn::Txn& t) const {
  if (auto r = FreeAll(t); !r) return r;
  if (descriptor_->primary.spec.columns.empty()) {
    return Sequence::Drop(t, descriptor_->row_id_sequence);
  }
  return {};
}

}  // namespace farmdb::storage
