// pg_namespace, pg_class and pg_am: schemas, relations (tables, their indexes, sequences, and
// the system views themselves) and access methods, generated from the catalog snapshot.
//
// farmdb keeps no storage statistics or files, so pg_class says what PostgreSQL says of a
// relation never analysed: relpages 0, reltuples -1; relfilenode and reltype are 0 (no files,
// no composite row types). Relations have default privileges (relacl NULL) and no storage
// options (fillfactor is accepted and ignored).
#include <algorithm>

#include "sql/system/catalog_functions.h"
#include "sql/system/generated_view.h"

namespace farmdb::sql {
namespace {

using enum TypeId;

// The namespaces every database has besides those in the catalog (pg_catalog and public are
// stored; information_schema is where the information_schema views live).
struct BuiltinNamespace {
  Oid oid;
  std::string_view nspname;
  Oid nspowner;
};
constexpr BuiltinNamespace kBuiltinNamespaces[] = {
    {kInformationSchemaNamespace, "information_schema", storage::kBootstrapSuperuser},
};

Oid NamespaceOwner(const storage::NamespaceDesc& nsp) {
  // PG 15: public belongs to pg_database_owner, the system schemas to the bootstrap superuser.
  return nsp.oid == storage::kPublicNamespace ? kPgDatabaseOwner : storage::kBootstrapSuperuser;
}

// A schema's privileges as initdb grants them: the owner USAGE and CREATE, everyone USAGE
// (PostgreSQL 15: public belongs to pg_database_owner, which keeps CREATE for itself).
Value NamespaceAcl(const SystemViewContext& ctx, Oid owner) {
  std::string name = PgGetUserById(ctx, owner);
  return Value::Array(TypeId::kAclitemArray,
                      ArrayValue{.elements = {Value::Str(kAclitem, name + "=UC/" + name), Value::Str(kAclitem, "=U/" + name)}});
}

ViewRows NamespaceRows(const SystemViewContext& ctx, const std::vector<SystemColumn>& columns) {
  ViewRows rows;
  auto add = [&](Oid oid, std::string_view name, Oid owner) {
    rows.push_back(RowBuilder(columns).Set("oid", OidValue(oid)).Set("nspname", NameValue(name))
                       .Set("nspowner", OidValue(owner)).Set("nspacl", NamespaceAcl(ctx, owner)).Take());
  };
  for (const auto& [oid, nsp] : ctx.catalog.namespaces()) add(oid, nsp.nspname, NamespaceOwner(nsp));
  for (const BuiltinNamespace& b : kBuiltinNamespaces) {
    if (ctx.catalog.NamespaceByOid(b.oid) == nullptr) add(b.oid, b.nspname, b.nspowner);
  }
  return rows;
}

// The columns every pg_class row shares; the caller sets the per-kind ones.
RowBuilder ClassRow(const std::vector<SystemColumn>& columns, Oid oid, std::string_view relname, Oid nsp,
                    Oid owner, char relkind) {
  RowBuilder r(columns);
  r.Set("oid", OidValue(oid)).Set("relname", NameValue(relname)).Set("relnamespace", OidValue(nsp))
      .Set("reltype", OidValue(0)).Set("reloftype", OidValue(0)).Set("relowner", OidValue(owner))
      .Set("relfilenode", OidValue(0)).Set("reltablespace", OidValue(0)).Set("relpages", Int4Value(0))
      .Set("reltuples", Value::Float(kFloat4, -1)).Set("relallvisible", Int4Value(0))
      .Set("reltoastrelid", OidValue(0)).Set("relisshared", BoolValue(false))
      .Set("relpersistence", CharValue('p')).Set("relkind", CharValue(relkind))
      .Set("relhasrules", BoolValue(false)).Set("relhastriggers", BoolValue(false))
      .Set("relhassubclass", BoolValue(false)).Set("relrowsecurity", BoolValue(false))
      .Set("relforcerowsecurity", BoolValue(false)).Set("relispopulated", BoolValue(true))
      .Set("relreplident", CharValue(relkind == 'r' ? 'd' : 'n')).Set("relispartition", BoolValue(false))
      .Set("relrewrite", OidValue(0)).SetNull("relacl").SetNull("reloptions").SetNull("relpartbound")
      .Set("relchecks", Int2Value(0))
      .Set("relhasindex", BoolValue(false));
  return r;
}

ViewRows ClassRows(const SystemViewContext& ctx, const std::vector<SystemColumn>& columns) {
  std::vector<std::pair<Oid, std::vector<Value>>> rows;  // by oid, as a heap scan of a fresh catalog
  for (const auto& [oid, t] : ctx.catalog.tables()) {
    RowBuilder r = ClassRow(columns, oid, t.relname, t.relnamespace, t.relowner, 'r');
    auto checks = std::ranges::count_if(t.constraints, [](const auto& c) { return c.contype == 'c'; });
    r.Set("relam", OidValue(kHeapAm)).Set("relnatts", Int2Value(static_cast<int64_t>(t.columns.size())))
        .Set("relchecks", Int2Value(checks)).Set("relhasindex", BoolValue(t.relhasindex()));
    rows.emplace_back(oid, r.Take());
    for (const storage::IndexDesc& index : t.indexes) {
      RowBuilder ri = ClassRow(columns, index.oid, index.relname, t.relnamespace, t.relowner, 'i');
      ri.Set("relam", OidValue(index.kind == storage::IndexKind::kHash ? kHashAm : kBtreeAm))
          .Set("relnatts", Int2Value(static_cast<int64_t>(index.keys.size())));
      rows.emplace_back(index.oid, ri.Take());
    }
  }
  for (const auto& [oid, s] : ctx.catalog.sequences()) {
    const storage::TableDesc* owner_table = ctx.catalog.TableByOid(s.owned_by_table);
    Oid owner = owner_table != nullptr ? owner_table->relowner : storage::kBootstrapSuperuser;
    RowBuilder r = ClassRow(columns, oid, s.relname, s.relnamespace, owner, 'S');
    r.Set("relam", OidValue(0)).Set("relnatts", Int2Value(static_cast<int64_t>(SequenceColumns().size())));
    rows.emplace_back(oid, r.Take());
  }
  // The system views themselves, as PostgreSQL lists its catalogs and views.
  for (const SystemView* view : AllSystemViews()) {
    Oid nsp = view->schema() == "pg_catalog" ? storage::kPgCatalogNamespace : kInformationSchemaNamespace;
    RowBuilder r = ClassRow(columns, view->oid(), view->name(), nsp, storage::kBootstrapSuperuser, view->relkind());
    r.Set("relam", OidValue(view->relkind() == 'r' ? kHeapAm : 0))
        .Set("relnatts", Int2Value(static_cast<int64_t>(view->columns().size())))
        .Set("relisshared", BoolValue(view->name() == "pg_database" || view->name() == "pg_auth_members"))
        .Set("relreplident", CharValue('n'));
    rows.emplace_back(view->oid(), r.Take());
  }
  std::ranges::sort(rows, {}, &std::pair<Oid, std::vector<Value>>::first);
  ViewRows out;
  for (auto& [oid, row] : rows) out.push_back(std::move(row));
  return out;
}

ViewRows AmRows(const SystemViewContext&, const std::vector<SystemColumn>& columns) {
  ViewRows rows;
  for (auto [oid, name, type] : {std::tuple{kHeapAm, "heap", 't'}, {kBtreeAm, "btree", 'i'}, {kHashAm, "hash", 'i'}}) {
    rows.push_back(RowBuilder(columns).Set("oid", OidValue(oid)).Set("amname", NameValue(name))
                       .Set("amtype", CharValue(type)).Take());
  }
  return rows;
}

}  // namespace

void AppendPgClassViews(std::vector<std::unique_ptr<SystemView>>& views) {
  views.push_back(std::make_unique<GeneratedView>(
      "pg_catalog", "pg_namespace", 2615, 'r',
      std::vector<SystemColumn>{{"oid", kOid}, {"nspname", kName}, {"nspowner", kOid}, {"nspacl", kAclitemArray}},
      NamespaceRows));
  views.push_back(std::make_unique<GeneratedView>(
      "pg_catalog", "pg_class", 1259, 'r',
      std::vector<SystemColumn>{
          {"oid", kOid}, {"relname", kName}, {"relnamespace", kOid}, {"reltype", kOid}, {"reloftype", kOid},
          {"relowner", kOid}, {"relam", kOid}, {"relfilenode", kOid}, {"reltablespace", kOid},
          {"relpages", kInt4}, {"reltuples", kFloat4}, {"relallvisible", kInt4}, {"reltoastrelid", kOid},
          {"relhasindex", kBool}, {"relisshared", kBool}, {"relpersistence", kChar}, {"relkind", kChar},
          {"relnatts", kInt2}, {"relchecks", kInt2}, {"relhasrules", kBool}, {"relhastriggers", kBool},
          {"relhassubclass", kBool}, {"relrowsecurity", kBool}, {"relforcerowsecurity", kBool},
          {"relispopulated", kBool}, {"relreplident", kChar}, {"relispartition", kBool}, {"relrewrite", kOid},
          {"relacl", kAclitemArray}, {"reloptions", kTextArray}, {"relpartbound", kPgNodeTree}},
      ClassRows));
  views.push_back(std::make_unique<GeneratedView>(
      "pg_catalog", "pg_am", 2601, 'r', std::vector<SystemColumn>{{"oid", kOid}, {"amname", kName}, {"amtype", kChar}}, AmRows));
}

}  // namespace farmdb::sql
