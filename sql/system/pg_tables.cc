// pg_tables and pg_indexes: PostgreSQL's convenience views over pg_class, for tools that list
// tables and index definitions through them. pg_tables lists the catalog tables among the system
// views too (relkind 'r'), as PostgreSQL does; they have no indexes in farmdb.
#include "sql/system/catalog_functions.h"
#include "sql/system/generated_view.h"

namespace farmdb::sql {
namespace {

using enum TypeId;

std::string_view SchemaName(const SystemViewContext& ctx, Oid nsp) {
  const storage::NamespaceDesc* n = ctx.catalog.NamespaceByOid(nsp);
  return n ? std::string_view(n->nspname) : std::string_view();
}

ViewRows TablesRows(const SystemViewContext& ctx, const std::vector<SystemColumn>& columns) {
  ViewRows rows;
  auto add = [&](std::string_view schema, std::string_view name, Oid owner, bool has_indexes) {
    rows.push_back(RowBuilder(columns)
                       .Set("schemaname", NameValue(schema)).Set("tablename", NameValue(name))
                       .Set("tableowner", NameValue(PgGetUserById(ctx, owner))).SetNull("tablespace")
                       .Set("hasindexes", BoolValue(has_indexes)).Set("hasrules", BoolValue(false))
                       .Set("hastriggers", BoolValue(false)).Set("rowsecurity", BoolValue(false))
                       .Take());
  };
  for (const SystemView* view : AllSystemViews()) {
    if (view->relkind() == 'r') add(view->schema(), view->name(), storage::kBootstrapSuperuser, false);
  }
  for (const auto& [oid, t] : ctx.catalog.tables()) add(SchemaName(ctx, t.relnamespace), t.relname, t.relowner, t.relhasindex());
  return rows;
}

ViewRows IndexesRows(const SystemViewContext& ctx, const std::vector<SystemColumn>& columns) {
  ViewRows rows;
  for (const auto& [oid, t] : ctx.catalog.tables()) {
    for (const storage::IndexDesc& index : t.indexes) {
      auto def = PgGetIndexdef(ctx, index.oid, 0, false);
      rows.push_back(RowBuilder(columns)
                         .Set("schemaname", NameValue(SchemaName(ctx, t.relnamespace))).Set("tablename", NameValue(t.relname))
                         .Set("indexname", NameValue(index.relname)).SetNull("tablespace")
                         .Set("indexdef", TextValue(def.value_or("")))
                         .Take());
    }
  }
  return rows;
}

}  // namespace

void AppendPgTablesViews(std::vector<std::unique_ptr<SystemView>>& views) {
  views.push_back(std::make_unique<GeneratedView>(
      "pg_catalog", "pg_tables", 12033, 'v',
      std::vector<SystemColumn>{{"schemaname", kName}, {"tablename", kName}, {"tableowner", kName},
                                {"tablespace", kName}, {"hasindexes", kBool}, {"hasrules", kBool},
                                {"hastriggers", kBool}, {"rowsecurity", kBool}},
      TablesRows));
  views.push_back(std::make_unique<GeneratedView>(
      "pg_catalog", "pg_indexes", 12043, 'v',
      std::vector<SystemColumn>{{"schemaname", kName}, {"tablename", kName}, {"indexname", kName},
                                {"tablespace", kName}, {"indexdef", kText}},
      IndexesRows));
}

}  // namespace farmdb::sql
