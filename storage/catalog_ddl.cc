// Catalog::Ddl (catalog_ddl.h) and the table DDL: CREATE/DROP TABLE, CREATE/DROP INDEX.
#include "storage/catalog_ddl.h"

#include <algorithm>

namespace farmdb::storage {

std::unexpected<CatalogError> Catalog::Ddl::Fail(Code code, std::string sqlstate,
                                                 std::string message, std::string detail,
                                                 std::string hint) {
  Error e = MakeError(std::move(sqlstate), std::move(message));
  e.detail = std::move(detail);
  e.hint = std::move(hint);
  return std::unexpected(CatalogError{code, {}, std::move(e)});
}

std::unexpected<CatalogError> Catalog::Ddl::StorageFailure(StorageError e) {
  return std::unexpected(CatalogError{Code::kStorage, e, {}});
}

std::unexpected<CatalogError> Catalog::Ddl::RelationExists(std::string_view name) {
  return Fail(Code::kDuplicate, "42P07", fmt::format("relation \"{}\" already exists", name));
}

std::string Catalog::Ddl::MakeObjectName(std::string name1, std::string name2,
                                         std::string_view label) {
  constexpr size_t kMaxNameBytes = 63;  // NAMEDATALEN - 1
  size_t overhead = label.size() + 1 + (name2.empty() ? 0 : 1);
  while (name1.size() + name2.size() + overhead > kMaxNameBytes) {
    (name1.size() > name2.size() ? name1 : name2).pop_back();
  }
  return name1 + (name2.empty() ? "" : "_" + name2) + "_" + std::string(label);
}

CatalogResult<Catalog::Ddl> Catalog::Ddl::Begin(const Catalog& c, txn::Txn& t) {
  auto loaded = c.Load(t);
  if (!loaded) return std::unexpected(loaded.error());
  return Ddl(c, t, std::move(*loaded));
}

CatalogResult<void> Catalog::Ddl::Finish() {
  loaded_.root.version = {loaded_.root.version.counter + 1, t_.id()};
  if (auto w = WriteCatalogRoot(t_, catalog_.root_, loaded_.root); !w) {
    return StorageFailure(w.error());
  }
  return {};
}

SystemTable Catalog::Ddl::Sys(SystemTableId id) const {
  return SystemTable::Open(id, loaded_.root.tables[static_cast<size_t>(id)],
                           &catalog_.cache_->btree_cache());
}

CatalogResult<void> Catalog::Ddl::Insert(SystemTableId id, const SystemRow& row) {
  if (auto r = Sys(id).Insert(t_, row); !r) return StorageFailure(r.error());
  return {};
}

CatalogResult<void> Catalog::Ddl::Update(SystemTableId id, const SystemRow& row) {
  if (auto r = Sys(id).Update(t_, row); !r) return StorageFailure(r.error());
  return {};
}

CatalogResult<void> Catalog::Ddl::Erase(SystemTableId id, const SystemRow& key) {
  if (auto n = Sys(id).Erase(t_, key); !n) return StorageFailure(n.error());
  return {};
}

CatalogResult<void> Catalog::Ddl::PutTable(const TableDesc& d, const TableDesc* old) {
  if (old) {
    if (auto r = EraseTable(*old); !r) return r;
  }
  if (auto r = Insert(SystemTableId::kClass, TableRow(d)); !r) return r;
  for (const ColumnDesc& c : d.columns) {
    if (auto r = Insert(SystemTableId::kAttribute, ColumnRow(d.oid, c)); !r) return r;
  }
  for (const IndexDesc& i : d.indexes) {
    if (auto r = Insert(SystemTableId::kIndex, IndexRow(i)); !r) return r;
  }
  for (const ConstraintDesc& c : d.constraints) {
    if (auto r = Insert(SystemTableId::kConstraint, ConstraintRow(c)); !r) return r;
  }
  return {};
}

CatalogResult<void> Catalog::Ddl::EraseTable(const TableDesc& d) {
  if (auto r = Erase(SystemTableId::kClass, OidKey(d.oid)); !r) return r;
  for (const ColumnDesc& c : d.columns) {
    if (auto r = Erase(SystemTableId::kAttribute, ColumnKey(d.oid, c.attnum)); !r) return r;
  }
  for (const IndexDesc& i : d.indexes) {
    if (auto r = Erase(SystemTableId::kIndex, OidKey(i.oid)); !r) return r;
  }
  for (const ConstraintDesc& c : d.constraints) {
    if (auto r = Erase(SystemTableId::kConstraint, OidKey(c.oid)); !r) return r;
  }
  return {};
}

CatalogResult<const TableDesc*> Catalog::Ddl::Table(Oid oid) const {
  const TableDesc* d = snap().TableByOid(oid);
  if (!d) {
    return Fail(Code::kUndefined, "42P01", fmt::format("relation with OID {} does not exist", oid));
  }
  return d;
}

CatalogResult<const NamespaceDesc*> Catalog::Ddl::Namespace(std::string_view nspname) const {
  const NamespaceDesc* n = snap().FindNamespace(nspname);
  if (!n) {
    return Fail(Code::kUndefined, "3F000", fmt::format("schema \"{}\" does not exist", nspname));
  }
  return n;
}

bool Catalog::Ddl::RelationTaken(Oid nsp, std::string_view name) const {
  return snap().FindRelation(nsp, name) || std::ranges::find(new_names_, name) != new_names_.end();
}

CatalogResult<std::vector<IndexKeyColumn>> Catalog::Ddl::KeyColumns(
    const TableDesc& table, const std::vector<IndexColumnDef>& cols) {
  std::vector<IndexKeyColumn> keys;
  for (const IndexColumnDef& c : cols) {
    const ColumnDesc* col = table.FindColumn(c.column);
    if (!col) {
      return Fail(Code::kUndefined, "42703",
                  fmt::format("column \"{}\" named in key does not exist", c.column));
    }
    keys.push_back({col->attnum, c.descending, c.nulls_first.value_or(c.descending)});
  }
  return keys;
}

CatalogResult<std::string> Catalog::Ddl::IndexName(const TableDesc& table, const IndexDef& def,
                                                   std::string_view label) {
  std::string name = def.name;
  if (name.empty()) {
    std::string columns;
    for (const IndexColumnDef& c : def.columns) columns += (columns.empty() ? "" : "_") + c.column;
    name = ChooseName(table.relname, label == "pkey" ? "" : columns, label,
                      [&](const std::string& n) { return RelationTaken(table.relnamespace, n); });
  } else if (RelationTaken(table.relnamespace, name)) {
    return RelationExists(name);
  }
  TakeName(name);
  return name;
}

CatalogResult<ConstraintDesc> Catalog::Ddl::Check(const TableDesc& table, const CheckDef& def) {
  auto taken = [&](std::string_view n) {
    return std::ranges::any_of(table.constraints,
                               [&](const ConstraintDesc& c) { return c.conname == n; });
  };
  std::string name = def.name;
  if (name.empty()) {
    // AddRelationNewConstraints: named for its column when it mentions exactly one.
    name = ChooseName(table.relname, def.columns.size() == 1 ? def.columns.front() : "", "check",
                      [&](const std::string& n) { return taken(n); });
  } else if (taken(name)) {
    return Fail(Code::kDuplicate, "42710",
                fmt::format("constraint \"{}\" for relation \"{}\" already exists", name,
                            table.relname));
  }
  ConstraintDesc c{NewOid(), name, table.oid, 'c', 0, {}, def.expr};
  for (const std::string& col : def.columns) {
    const ColumnDesc* d = table.FindColumn(col);
    if (!d) {
      return Fail(Code::kUndefined, "42703", fmt::format("column \"{}\" does not exist", col));
    }
    c.conkey.push_back(d->attnum);
  }
  return c;
}

CatalogResult<void> Catalog::Ddl::CreateStorage(TableDesc& table) {
  TableDescriptor spec = StorageDescriptor(table);
  std::vector<IndexSpec> secondary;
  for (const IndexDescriptor& s : spec.secondary) secondary.push_back(s.spec);
  auto created = storage::Table::Create(t_, spec.schema, spec.primary.spec, std::move(secondary));
  if (!created) return StorageFailure(created.error());
  // Positions as in StorageDescriptor: primary, then the non-primary indexes in order.
  table.primary_root = created->primary.root;
  table.rowid_sequence = created->row_id_sequence;
  size_t next = 0;
  for (IndexDesc& x : table.indexes) {
    x.root = x.indisprimary ? created->primary.root : created->secondary[next++].root;
  }
  return {};
}

CatalogResult<Oid> Catalog::CreateTable(txn::Txn& t, const CreateTableDef& def) {
  auto d = Ddl::Begin(*this, t);
  if (!d) return std::unexpected(d.error());
  auto nsp = d->Namespace(def.nspname);
  if (!nsp) return std::unexpected(nsp.error());
  if (auto existing = d->snap().FindRelation((*nsp)->oid, def.relname)) {
    if (def.if_not_exists) return existing->oid;
    return Ddl::RelationExists(def.relname);
  }
  d->TakeName(def.relname);
  TableDesc table;
  table.oid = d->NewOid();
  table.relname = def.relname;
  table.relnamespace = (*nsp)->oid;
  for (const ColumnDef& c : def.columns) {
    if (table.FindColumn(c.name)) {
      return Ddl::Fail(Ddl::Code::kDuplicate, "42701",
                       fmt::format("column \"{}\" specified more than once", c.name));
    }
    table.columns.push_back({static_cast<int16_t>(table.columns.size() + 1), c.name, c.type,
                             c.typmod, c.not_null, c.default_expr, false, std::nullopt});
  }
  // Index-backed constraints: the primary key first, then UNIQUE, each an index and a
  // constraint of the same name (PostgreSQL's t_pkey, t_a_key).
  auto add_keyed = [&](const IndexDef& x, bool primary) -> CatalogResult<void> {
    auto keys = d->KeyColumns(table, x.columns);
    if (!keys) return std::unexpected(keys.error());
    auto name = d->IndexName(table, x, primary ? "pkey" : "key");
    if (!name) return std::unexpected(name.error());
    IndexDesc index{d->NewOid(), table.oid, *name, *keys, true, primary, x.kind, {}};
    ConstraintDesc c{d->NewOid(), *name, table.oid, primary ? 'p' : 'u', index.oid, {}, ""};
    for (const IndexKeyColumn& k : *keys) {
      c.conkey.push_back(k.attnum);
      if (primary) table.columns[k.attnum - 1].attnotnull = true;
    }
    table.indexes.push_back(std::move(index));
    table.constraints.push_back(std::move(c));
    return {};
  };
  if (def.primary_key) {
    if (auto r = add_keyed(*def.primary_key, true); !r) return std::unexpected(r.error());
    table.primary_kind = def.primary_key->kind;
  }
  for (const IndexDef& u : def.unique_constraints) {
    if (auto r = add_keyed(u, false); !r) return std::unexpected(r.error());
  }
  for (const CheckDef& c : def.checks) {
    auto check = d->Check(table, c);
    if (!check) return std::unexpected(check.error());
    table.constraints.push_back(std::move(*check));
  }
  if (auto r = d->CreateStorage(table); !r) return std::unexpected(r.error());
  if (auto r = d->PutTable(table, nullptr); !r) return std::unexpected(r.error());
  if (auto r = d->Finish(); !r) return std::unexpected(r.error());
  return table.oid;
}

CatalogResult<void> Catalog::DropTable(txn::Txn& t, Oid oid) {
  auto d = Ddl::Begin(*this, t);
  if (!d) return std::unexpected(d.error());
  auto table = d->Table(oid);
  if (!table) return std::unexpected(table.error());
  storage::Table storage((*table)->storage, d->caches());
  if (auto r = storage.Drop(t); !r) return Ddl::StorageFailure(r.error());
  if (auto r = d->EraseTable(**table); !r) return r;
  // Sequences owned by its columns (serial) go with it, as in PostgreSQL.
  for (const auto& [seq_oid, seq] : d->snap().sequences()) {
    if (seq.owned_by_table != oid) continue;
    if (auto r = Sequence::Drop(t, seq.object); !r) return Ddl::StorageFailure(r.error());
    if (auto r = d->Erase(SystemTableId::kSequence, OidKey(seq_oid)); !r) return r;
  }
  return d->Finish();
}

CatalogResult<Oid> Catalog::CreateIndex(txn::Txn& t, Oid table_oid, const IndexDef& def) {
  auto d = Ddl::Begin(*this, t);
  if (!d) return std::unexpected(d.error());
  auto table = d->Table(table_oid);
  if (!table) return std::unexpected(table.error());
  if (!def.name.empty() && def.if_not_exists) {
    if (auto existing = d->snap().FindRelation((*table)->relnamespace, def.name)) {
      return existing->oid;
    }
  }
  auto keys = d->KeyColumns(**table, def.columns);
  if (!keys) return std::unexpected(keys.error());
  auto name = d->IndexName(**table, def, def.constraint ? "key" : "idx");
  if (!name) return std::unexpected(name.error());
  TableDesc next = **table;
  next.indexes.push_back({d->NewOid(), table_oid, *name, *keys, def.unique, false, def.kind, {}});
  if (def.constraint) {
    ConstraintDesc c{d->NewOid(), *name, table_oid, 'u', next.indexes.back().oid, {}, ""};
    for (const IndexKeyColumn& k : *keys) c.conkey.push_back(k.attnum);
    if (auto r = d->Insert(SystemTableId::kConstraint, ConstraintRow(c)); !r) {
      return std::unexpected(r.error());
    }
  }
  IndexSpec spec = StorageDescriptor(next).secondary.back().spec;
  auto built = storage::Table((*table)->storage, d->caches()).AddIndex(t, spec);
  if (!built && built.error().code == StorageError::Code::kDuplicateKey) {
    return Ddl::Fail(Ddl::Code::kInvalid, "23505",
                     fmt::format("could not create unique index \"{}\"", *name));
  }
  if (!built) return Ddl::StorageFailure(built.error());
  next.indexes.back().root = built->root;
  if (auto r = d->Insert(SystemTableId::kIndex, IndexRow(next.indexes.back())); !r) {
    return std::unexpected(r.error());
  }
  if (auto r = d->Finish(); !r) return std::unexpected(r.error());
  return next.indexes.back().oid;
}

CatalogResult<void> Catalog::DropIndex(txn::Txn& t, Oid index) {
  auto d = Ddl::Begin(*this, t);
  if (!d) return std::unexpected(d.error());
  const IndexDesc* x = d->snap().IndexByOid(index);
  if (!x) {
    return Ddl::Fail(Ddl::Code::kUndefined, "42704",
                     fmt::format("index with OID {} does not exist", index));
  }
  const TableDesc& table = *d->snap().TableByOid(x->indrelid);
  if (const ConstraintDesc* c = table.ConstraintOf(index)) {
    return Ddl::Fail(
        Ddl::Code::kInvalid, "2BP01",
        fmt::format("cannot drop index {} because constraint {} on table {} requires it",
                    x->relname, c->conname, table.relname),
        "", fmt::format("You can drop constraint {} on table {} instead.", c->conname,
                        table.relname));
  }
  // Storage position: index i of `indexes` is position i with a primary key, i + 1 without.
  auto i = static_cast<uint32_t>(x - table.indexes.data());
  uint32_t position = table.PrimaryKey() ? i : i + 1;
  if (auto r = storage::Table(table.storage, d->caches()).DropIndex(t, position); !r) {
    return Ddl::StorageFailure(r.error());
  }
  if (auto r = d->Erase(SystemTableId::kIndex, OidKey(index)); !r) return r;
  return d->Finish();
}

}  // namespace farmdb::storage
