#include "storage/catalog_store.h"

#include <bit>
#include <cstring>
#include <utility>

#include "cluster/crash_point.h"
#include "storage/key_codec.h"
#include "storage/row.h"

namespace farmdb::storage {
namespace {

constexpr uint32_t kRootTag = 0x314c5443;  // "CTL1"
constexpr uint16_t kRowVersion = 1;        // system-table row format

struct SystemTableSchema {
  std::vector<TypeId> columns;
  size_t key_columns;
};

using enum TypeId;

// Column lists mirror the SystemRow builders below (and the PostgreSQL catalog they stand for).
const SystemTableSchema& SchemaOf(SystemTableId id) {
  static const std::array<SystemTableSchema, kSystemTables> kSchemas = {{
      // oid, nspname
      {{kInt8, kText}, 1},
      // oid, relname, relnamespace, relowner, schema_version, primary_kind, primary_root,
      // rowid_sequence addr, rowid_sequence incarnation
      {{kInt8, kText, kInt8, kInt8, kInt4, kInt2, kInt8, kInt8, kInt8}, 1},
      // attrelid, attnum, attname, atttypid, atttypmod, attnotnull, default, attisdropped,
      // attmissingval (EncodeRow of the one value)
      {{kInt8, kInt2, kText, kInt8, kInt4, kBool, kText, kBool, kBytea}, 2},
      // oid, indrelid, relname, keys, indisunique, indisprimary, kind, root
      {{kInt8, kInt8, kText, kBytea, kBool, kBool, kInt2, kInt8}, 1},
      // oid, conname, conrelid, contype, conindid, conkey, check_expr
      {{kInt8, kText, kInt8, kText, kInt8, kBytea, kText}, 1},
      // oid, relname, relnamespace, object addr, object incarnation, owned_by_table,
      // owned_by_attnum
      {{kInt8, kText, kInt8, kInt8, kInt8, kInt8, kInt2}, 1},
      // oid, rolname, rolsuper, rolcanlogin, rolpassword
      {{kInt8, kText, kBool, kBool, kText}, 1},
      // setdatabase, setrole, name, value
      {{kInt8, kInt8, kText, kText}, 3},
  }};
  return kSchemas[static_cast<size_t>(id)];
}

Value I8(uint64_t v) { return Value::Int(kInt8, static_cast<int64_t>(v)); }
Value I4(int64_t v) { return Value::Int(kInt4, v); }
Value I2(int64_t v) { return Value::Int(kInt2, v); }
Value B(bool v) { return Value::Bool(v); }
Value T(std::string v) { return Value::Str(kText, std::move(v)); }

// Index key columns: per column attnum (u16 LE) and flags (bit 0 descending, bit 1 nulls first).
std::string EncodeIndexKeys(const std::vector<IndexKeyColumn>& keys) {
  std::string out;
  for (const IndexKeyColumn& k : keys) {
    out.push_back(static_cast<char>(k.attnum & 0xff));
    out.push_back(static_cast<char>((k.attnum >> 8) & 0xff));
    out.push_back(static_cast<char>((k.descending ? 1 : 0) | (k.nulls_first ? 2 : 0)));
  }
  return out;
}

StorageResult<std::vector<IndexKeyColumn>> DecodeIndexKeys(std::string_view b) {
  if (b.size() % 3 != 0) return Failure(StorageError::Code::kCorrupt);
  std::vector<IndexKeyColumn> keys;
  for (size_t i = 0; i < b.size(); i += 3) {
    auto u = [&](size_t j) { return static_cast<uint8_t>(b[i + j]); };
    keys.push_back({static_cast<int16_t>(u(0) | (u(1) << 8)), (u(2) & 1) != 0, (u(2) & 2) != 0});
  }
  return keys;
}

std::string EncodeAttnums(const std::vector<int16_t>& attnums) {
  std::string out;
  for (int16_t a : attnums) {
    out.push_back(static_cast<char>(a & 0xff));
    out.push_back(static_cast<char>((a >> 8) & 0xff));
  }
  return out;
}

StorageResult<std::vector<int16_t>> DecodeAttnums(std::string_view b) {
  if (b.size() % 2 != 0) return Failure(StorageError::Code::kCorrupt);
  std::vector<int16_t> out;
  for (size_t i = 0; i < b.size(); i += 2) {
    out.push_back(static_cast<int16_t>(static_cast<uint8_t>(b[i]) |
                                       (static_cast<uint8_t>(b[i + 1]) << 8)));
  }
  return out;
}

Addr AddrOf(const Value& v) { return Addr{static_cast<uint64_t>(v.AsInt())}; }
Oid OidOf(const Value& v) { return static_cast<Oid>(v.AsInt()); }

void PutU32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
void PutU64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
// Every statement decodes the root (Catalog::Version), so this is a load, not a byte loop.
uint64_t GetLE(std::span<const std::byte> p, size_t offset, int bytes) {
  static_assert(std::endian::native == std::endian::little, "stored little-endian, loaded natively");
  uint64_t v = 0;
  std::memcpy(&v, p.data() + offset, bytes);
  return v;
}

}  // namespace

std::string EncodeCatalogRoot(const CatalogRoot& root) {
  std::string out;
  PutU32(out, kRootTag);
  PutU32(out, kSystemTables);
  PutU64(out, root.version.counter);
  PutU64(out, root.version.writer);
  PutU64(out, root.next_oid);
  for (Addr a : root.tables) PutU64(out, a.raw);
  return out;
}

StorageResult<CatalogRoot> DecodeCatalogRoot(std::span<const std::byte> p) {
  constexpr size_t kSize = 8 + 24 + 8 * kSystemTables;
  if (p.size() < kSize || GetLE(p, 0, 4) != kRootTag || GetLE(p, 4, 4) != kSystemTables) {
    return Failure(StorageError::Code::kCorrupt);
  }
  CatalogRoot r;
  r.version = {GetLE(p, 8, 8), GetLE(p, 16, 8)};
  r.next_oid = GetLE(p, 24, 8);
  for (size_t i = 0; i < kSystemTables; ++i) r.tables[i] = Addr{GetLE(p, 32 + 8 * i, 8)};
  return r;
}

StorageResult<CatalogRoot> ReadCatalogRoot(txn::Txn& t, Addr root) {
  auto bytes = t.ReadView(root);
  if (!bytes) return TxnFailure(bytes.error());
  return DecodeCatalogRoot(*bytes);
}

StorageResult<void> WriteCatalogRoot(txn::Txn& t, Addr root, const CatalogRoot& value) {
  // Every catalog change writes the root (its version): such commits are synchronous whatever
  // synchronous_commit says, as PostgreSQL's catalog changes are (an off commit of rows into a
  // table must never survive the table's own creation).
  t.RequireSyncCommit();
  cluster::CrashPoint("ddl.catalog");
  std::string bytes = EncodeCatalogRoot(value);
  auto w = t.Write(root, std::as_bytes(std::span(bytes)));
  if (!w) return TxnFailure(w.error());
  return {};
}

StorageResult<SystemTable> SystemTable::Create(txn::Txn& t, SystemTableId id, BTreeCache* cache) {
  auto tree = BTree::Create(t, BTreeOptions{.unique = true}, cache);
  if (!tree) return std::unexpected(tree.error());
  return SystemTable(id, *tree);
}

SystemTable SystemTable::Open(SystemTableId id, Addr root, BTreeCache* cache) {
  return SystemTable(id, BTree::Open(root, cache));
}

std::string SystemTable::KeyOf(std::span<const Value> values) const {
  const SystemTableSchema& s = SchemaOf(id_);
  std::vector<KeyColumn> cols;
  for (size_t i = 0; i < s.key_columns; ++i) cols.push_back({s.columns[i]});
  return EncodeKey(values.first(std::min(values.size(), s.key_columns)), cols);
}

StorageResult<void> SystemTable::Insert(txn::Txn& t, const SystemRow& row) const {
  const SystemTableSchema& s = SchemaOf(id_);
  return tree_.Insert(t, KeyOf(row), EncodeRow({kRowVersion, s.columns}, row));
}

StorageResult<void> SystemTable::Update(txn::Txn& t, const SystemRow& row) const {
  auto erased = tree_.Erase(t, KeyOf(row));
  if (!erased) return std::unexpected(erased.error());
  if (*erased != 1) return Failure(StorageError::Code::kCorrupt);
  return Insert(t, row);
}

StorageResult<size_t> SystemTable::Erase(txn::Txn& t, std::span<const Value> key) const {
  return tree_.Erase(t, KeyOf(key));
}

StorageResult<std::vector<SystemRow>> SystemTable::ScanAll(txn::Txn& t) const {
  const SystemTableSchema& s = SchemaOf(id_);
  auto it = tree_.Scan(t, std::nullopt, std::nullopt, ScanDirection::kForward);
  if (!it) return std::unexpected(it.error());
  std::vector<SystemRow> rows;
  for (;;) {
    auto more = (*it)->Next();
    if (!more) return std::unexpected(more.error());
    if (!*more) break;
    auto view = RowView::Parse((*it)->value());
    if (!view) return std::unexpected(view.error());
    if (view->column_count() != s.columns.size()) return Failure(StorageError::Code::kCorrupt);
    SystemRow row;
    for (size_t i = 0; i < s.columns.size(); ++i) row.push_back(view->Get(i, s.columns[i]));
    rows.push_back(std::move(row));
  }
  return rows;
}

SystemRow NamespaceRow(const NamespaceDesc& d) { return {I8(d.oid), T(d.nspname)}; }

SystemRow TableRow(const TableDesc& d) {
  return {I8(d.oid),
          T(d.relname),
          I8(d.relnamespace),
          I8(d.relowner),
          I4(d.schema_version),
          I2(static_cast<int>(d.primary_kind)),
          I8(d.primary_root.raw),
          I8(d.rowid_sequence.addr.raw),
          I8(d.rowid_sequence.incarnation)};
}

SystemRow ColumnRow(Oid table, const ColumnDesc& d) {
  return {I8(table),
          I2(d.attnum),
          T(d.attname),
          I8(Info(d.type).oid),
          I4(d.atttypmod),
          B(d.attnotnull),
          d.default_expr ? T(*d.default_expr) : Value::Null(kText),
          B(d.attisdropped),
          d.attmissingval ? Value::Str(kBytea, EncodeRow({kRowVersion, {d.type}},
                                                         std::span(&*d.attmissingval, 1)))
                          : Value::Null(kBytea)};
}

SystemRow IndexRow(const IndexDesc& d) {
  return {I8(d.oid),
          I8(d.indrelid),
          T(d.relname),
          Value::Str(kBytea, EncodeIndexKeys(d.keys)),
          B(d.indisunique),
          B(d.indisprimary),
          I2(static_cast<int>(d.kind)),
          I8(d.root.raw)};
}

SystemRow ConstraintRow(const ConstraintDesc& d) {
  return {I8(d.oid),      T(d.conname),
          I8(d.conrelid), T(std::string(1, d.contype)),
          I8(d.conindid), Value::Str(kBytea, EncodeAttnums(d.conkey)),
          T(d.check_expr)};
}

SystemRow SequenceRow(const SequenceDesc& d) {
  return {I8(d.oid),
          T(d.relname),
          I8(d.relnamespace),
          I8(d.object.addr.raw),
          I8(d.object.incarnation),
          I8(d.owned_by_table),
          I2(d.owned_by_attnum)};
}

SystemRow RoleRow(const RoleDesc& d) {
  return {I8(d.oid), T(d.rolname), B(d.rolsuper), B(d.rolcanlogin), T(d.rolpassword)};
}

SystemRow SettingRow(const SettingDesc& d) {
  return {I8(d.setdatabase), I8(d.setrole), T(d.name), T(d.value)};
}

SystemRow OidKey(Oid oid) { return {I8(oid)}; }
SystemRow ColumnKey(Oid table, int16_t attnum) { return {I8(table), I2(attnum)}; }
SystemRow SettingKey(Oid setdatabase, Oid setrole, std::string name) {
  return {I8(setdatabase), I8(setrole), T(std::move(name))};
}

StorageResult<SnapshotPtr> LoadSnapshot(txn::Txn& t, const CatalogRoot& root, BTreeCache* cache) {
  std::array<std::vector<SystemRow>, kSystemTables> rows;
  for (size_t i = 0; i < kSystemTables; ++i) {
    auto table = SystemTable::Open(static_cast<SystemTableId>(i), root.tables[i], cache);
    auto r = table.ScanAll(t);
    if (!r) return std::unexpected(r.error());
    rows[i] = std::move(*r);
  }
  auto of = [&](SystemTableId id) -> std::vector<SystemRow>& { return rows[static_cast<size_t>(id)]; };
  auto corrupt = [] { return Failure(StorageError::Code::kCorrupt); };

  std::vector<NamespaceDesc> namespaces;
  for (SystemRow& r : of(SystemTableId::kNamespace)) namespaces.push_back({OidOf(r[0]), r[1].AsString()});

  std::map<Oid, TableDesc> tables;
  for (SystemRow& r : of(SystemTableId::kClass)) {
    TableDesc d;
    d.oid = OidOf(r[0]);
    d.relname = r[1].AsString();
    d.relnamespace = OidOf(r[2]);
    d.relowner = OidOf(r[3]);
    d.schema_version = static_cast<uint16_t>(r[4].AsInt());
    d.primary_kind = static_cast<IndexKind>(r[5].AsInt());
    d.primary_root = AddrOf(r[6]);
    d.rowid_sequence = {AddrOf(r[7]), static_cast<uint64_t>(r[8].AsInt())};
    tables.emplace(d.oid, std::move(d));
  }
  // Rows come in key order: (attrelid, attnum), so columns arrive in attnum order.
  for (SystemRow& r : of(SystemTableId::kAttribute)) {
    auto it = tables.find(OidOf(r[0]));
    auto type = TypeFromOid(OidOf(r[3]));
    if (it == tables.end() || !type) return corrupt();
    ColumnDesc c;
    c.attnum = static_cast<int16_t>(r[1].AsInt());
    c.attname = r[2].AsString();
    c.type = *type;
    c.atttypmod = static_cast<int32_t>(r[4].AsInt());
    c.attnotnull = r[5].AsBool();
    if (!r[6].IsNull()) c.default_expr = r[6].AsString();
    c.attisdropped = r[7].AsBool();
    if (!r[8].IsNull()) {
      auto missing = RowView::Parse(r[8].AsString());
      if (!missing || missing->column_count() != 1) return corrupt();
      c.attmissingval = missing->Get(0, c.type);
    }
    if (c.attnum != static_cast<int16_t>(it->second.columns.size() + 1)) return corrupt();
    it->second.columns.push_back(std::move(c));
  }
  for (SystemRow& r : of(SystemTableId::kIndex)) {
    auto it = tables.find(OidOf(r[1]));
    auto keys = DecodeIndexKeys(r[3].AsString());
    if (it == tables.end() || !keys) return corrupt();
    for (const IndexKeyColumn& k : *keys) {
      if (k.attnum < 1 || static_cast<size_t>(k.attnum) > it->second.columns.size()) {
        return corrupt();
      }
    }
    IndexDesc d{OidOf(r[0]), OidOf(r[1]), r[2].AsString(), std::move(*keys), r[4].AsBool(),
                r[5].AsBool(), static_cast<IndexKind>(r[6].AsInt()), AddrOf(r[7])};
    auto& list = it->second.indexes;
    // Primary key first, then by oid (rows arrive in oid order).
    list.insert(d.indisprimary ? list.begin() : list.end(), std::move(d));
  }
  for (SystemRow& r : of(SystemTableId::kConstraint)) {
    auto it = tables.find(OidOf(r[2]));
    auto conkey = DecodeAttnums(r[5].AsString());
    if (it == tables.end() || !conkey || r[3].AsString().size() != 1) return corrupt();
    it->second.constraints.push_back({OidOf(r[0]), r[1].AsString(), OidOf(r[2]),
                                      r[3].AsString()[0], OidOf(r[4]), std::move(*conkey),
                                      r[6].AsString()});
  }
  std::vector<SequenceDesc> sequences;
  for (SystemRow& r : of(SystemTableId::kSequence)) {
    sequences.push_back({OidOf(r[0]), r[1].AsString(), OidOf(r[2]),
                         {AddrOf(r[3]), static_cast<uint64_t>(r[4].AsInt())}, OidOf(r[5]),
                         static_cast<int16_t>(r[6].AsInt())});
  }
  std::vector<RoleDesc> roles;
  for (SystemRow& r : of(SystemTableId::kAuthId)) {
    roles.push_back({OidOf(r[0]), r[1].AsString(), r[2].AsBool(), r[3].AsBool(), r[4].AsString()});
  }
  std::vector<SettingDesc> settings;
  for (SystemRow& r : of(SystemTableId::kSetting)) {
    settings.push_back({OidOf(r[0]), OidOf(r[1]), r[2].AsString(), r[3].AsString()});
  }
  std::vector<TableDesc> table_list;
  for (auto& [oid, d] : tables) table_list.push_back(std::move(d));
  return std::make_shared<const CatalogSnapshot>(root.version, std::move(namespaces),
                                                 std::move(table_list), std::move(sequences),
                                                 std::move(roles), std::move(settings));
}

}  // namespace farmdb::storage
