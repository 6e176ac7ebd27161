#include "storage/catalog_snapshot.h"

#include <algorithm>

namespace farmdb::storage {

const ColumnDesc* TableDesc::FindColumn(std::string_view name) const {
  for (const ColumnDesc& c : columns) {
    if (!c.attisdropped && c.attname == name) return &c;
  }
  return nullptr;
}

const IndexDesc* TableDesc::PrimaryKey() const {
  return !indexes.empty() && indexes.front().indisprimary ? &indexes.front() : nullptr;
}

const IndexDesc* TableDesc::IndexAt(uint32_t position) const {
  // Secondary i is the i-th non-primary index in both cases.
  size_t i = PrimaryKey() ? position : size_t{position} - 1;
  if (position == 0 && !PrimaryKey()) return nullptr;
  return i < indexes.size() ? &indexes[i] : nullptr;
}

const ConstraintDesc* TableDesc::ConstraintOf(Oid index) const {
  for (const ConstraintDesc& c : constraints) {
    if (c.contype != 'c' && c.conindid == index) return &c;
  }
  return nullptr;
}

TableDescriptor StorageDescriptor(const TableDesc& table) {
  TableDescriptor d;
  d.schema.version = table.schema_version;
  for (const ColumnDesc& c : table.columns) {
    d.schema.columns.push_back(c.type);
    if (c.attmissingval) {
      for (size_t i = d.missing.size(); i + 1 < d.schema.columns.size(); ++i) {
        d.missing.push_back(Value::Null(table.columns[i].type));
      }
      d.missing.push_back(*c.attmissingval);
    }
  }
  auto spec_of = [&](const IndexDesc& x) {
    IndexSpec spec{x.kind, x.indisunique || x.indisprimary, {}};
    for (const IndexKeyColumn& k : x.keys) {
      const ColumnDesc& c = table.columns[k.attnum - 1];
      spec.columns.push_back(
          {static_cast<uint16_t>(k.attnum - 1), KeyColumn{c.type, k.descending, k.nulls_first}});
    }
    return spec;
  };
  const IndexDesc* pk = table.PrimaryKey();
  d.primary = pk ? IndexDescriptor{spec_of(*pk), pk->root}
                 : IndexDescriptor{IndexSpec{table.primary_kind, true, {}}, table.primary_root};
  d.row_id_sequence = table.rowid_sequence;
  for (const IndexDesc& x : table.indexes) {
    if (!x.indisprimary) d.secondary.push_back({spec_of(x), x.root});
  }
  return d;
}

CatalogSnapshot::CatalogSnapshot(CatalogVersion version, std::vector<NamespaceDesc> namespaces,
                                 std::vector<TableDesc> tables,
                                 std::vector<SequenceDesc> sequences, std::vector<RoleDesc> roles,
                                 std::vector<SettingDesc> settings)
    : version_(version), settings_(std::move(settings)) {
  for (NamespaceDesc& n : namespaces) namespaces_.emplace(n.oid, std::move(n));
  for (TableDesc& t : tables) {
    t.storage = std::make_shared<const TableDescriptor>(StorageDescriptor(t));
    Oid oid = t.oid;
    const TableDesc& d = tables_.emplace(oid, std::move(t)).first->second;
    relations_.emplace(std::pair(d.relnamespace, d.relname),
                       RelationRef{RelationRef::Kind::kTable, oid});
    for (const IndexDesc& i : d.indexes) {
      indexes_.emplace(i.oid, &i);
      relations_.emplace(std::pair(d.relnamespace, i.relname),
                         RelationRef{RelationRef::Kind::kIndex, i.oid});
    }
  }
  for (SequenceDesc& s : sequences) {
    relations_.emplace(std::pair(s.relnamespace, s.relname),
                       RelationRef{RelationRef::Kind::kSequence, s.oid});
    Oid oid = s.oid;
    sequences_.emplace(oid, std::move(s));
  }
  for (RoleDesc& r : roles) {
    Oid oid = r.oid;
    roles_.emplace(oid, std::move(r));
  }
}

const NamespaceDesc* CatalogSnapshot::FindNamespace(std::string_view nspname) const {
  for (const auto& [oid, n] : namespaces_) {
    if (n.nspname == nspname) return &n;
  }
  return nullptr;
}

const NamespaceDesc* CatalogSnapshot::NamespaceByOid(Oid oid) const {
  auto it = namespaces_.find(oid);
  return it == namespaces_.end() ? nullptr : &it->second;
}

std::optional<RelationRef> CatalogSnapshot::FindRelation(Oid nsp, std::string_view relname) const {
  auto it = relations_.find(std::pair(nsp, std::string(relname)));
  if (it == relations_.end()) return std::nullopt;
  return it->second;
}

const TableDesc* CatalogSnapshot::FindTable(Oid nsp, std::string_view relname) const {
  auto r = FindRelation(nsp, relname);
  return r && r->kind == RelationRef::Kind::kTable ? TableByOid(r->oid) : nullptr;
}

const TableDesc* CatalogSnapshot::TableByOid(Oid oid) const {
  auto it = tables_.find(oid);
  return it == tables_.end() ? nullptr : &it->second;
}

const IndexDesc* CatalogSnapshot::FindIndex(Oid nsp, std::string_view relname) const {
  auto r = FindRelation(nsp, relname);
  return r && r->kind == RelationRef::Kind::kIndex ? IndexByOid(r->oid) : nullptr;
}

const IndexDesc* CatalogSnapshot::IndexByOid(Oid oid) const {
  auto it = indexes_.find(oid);
  return it == indexes_.end() ? nullptr : it->second;
}

const SequenceDesc* CatalogSnapshot::FindSequence(Oid nsp, std::string_view relname) const {
  auto r = FindRelation(nsp, relname);
  return r && r->kind == RelationRef::Kind::kSequence ? SequenceByOid(r->oid) : nullptr;
}

const SequenceDesc* CatalogSnapshot::SequenceByOid(Oid oid) const {
  auto it = sequences_.find(oid);
  return it == sequences_.end() ? nullptr : &it->second;
}

const RoleDesc* CatalogSnapshot::FindRole(std::string_view rolname) const {
  for (const auto& [oid, r] : roles_) {
    if (r.rolname == rolname) return &r;
  }
  return nullptr;
}

const RoleDesc* CatalogSnapshot::RoleByOid(Oid oid) const {
  auto it = roles_.find(oid);
  return it == roles_.end() ? nullptr : &it->second;
}

const ConstraintDesc* CatalogSnapshot::FindConstraint(Oid table, std::string_view conname) const {
  const TableDesc* t = TableByOid(table);
  if (!t) return nullptr;
  for (const ConstraintDesc& c : t->constraints) {
    if (c.conname == conname) return &c;
  }
  return nullptr;
}

std::optional<RelationRef> CatalogSnapshot::ResolveRelation(
    std::span<const std::string> search_path, std::string_view relname) const {
  // PostgreSQL searches pg_catalog first unless the path names it explicitly.
  bool explicit_catalog = std::ranges::find(search_path, "pg_catalog") != search_path.end();
  if (!explicit_catalog) {
    if (auto r = FindRelation(kPgCatalogNamespace, relname)) return r;
  }
  for (const std::string& nspname : search_path) {
    const NamespaceDesc* n = FindNamespace(nspname);
    if (!n) continue;
    if (auto r = FindRelation(n->oid, relname)) return r;
  }
  return std::nullopt;
}

SnapshotPtr CatalogCache::Get(const CatalogVersion& v) const {
  std::lock_guard lock(mu_);
  for (const SnapshotPtr& s : entries_) {
    if (s->version() == v) return s;
  }
  return nullptr;
}

void CatalogCache::Put(SnapshotPtr snapshot) {
  std::lock_guard lock(mu_);
  std::erase_if(entries_, [&](const SnapshotPtr& s) { return s->version() == snapshot->version(); });
  entries_.push_back(std::move(snapshot));
  if (entries_.size() > kEntries) entries_.erase(entries_.begin());
}

uint64_t CatalogCache::loads() const {
  std::lock_guard lock(mu_);
  return loads_;
}

void CatalogCache::CountLoad() {
  std::lock_guard lock(mu_);
  ++loads_;
}

}  // namespace farmdb::storage
