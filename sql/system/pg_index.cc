// pg_index and pg_constraint: indexes (primary key first, then by OID, as the catalog keeps
// them) and the primary key, unique and check constraints of tables. The key columns
// (indkey, conkey) are int2vector / int2[] in PostgreSQL, types farmdb does not have yet, so
// those columns are absent; pg_get_indexdef and pg_get_constraintdef print them.
#include "sql/system/generated_view.h"

namespace farmdb::sql {
namespace {

using enum TypeId;

ViewRows IndexRows(const SystemViewContext& ctx, const std::vector<SystemColumn>& columns) {
  ViewRows rows;
  for (const auto& [oid, t] : ctx.catalog.tables()) {
    for (const storage::IndexDesc& index : t.indexes) {
      auto natts = Int2Value(static_cast<int64_t>(index.keys.size()));
      rows.push_back(RowBuilder(columns)
                         .Set("indexrelid", OidValue(index.oid)).Set("indrelid", OidValue(oid))
                         .Set("indnatts", natts).Set("indnkeyatts", natts)
                         .Set("indisunique", BoolValue(index.indisunique))
                         .Set("indnullsnotdistinct", BoolValue(false))
                         .Set("indisprimary", BoolValue(index.indisprimary))
                         .Set("indisexclusion", BoolValue(false)).Set("indimmediate", BoolValue(true))
                         .Set("indisclustered", BoolValue(false)).Set("indisvalid", BoolValue(true))
                         .Set("indcheckxmin", BoolValue(false)).Set("indisready", BoolValue(true))
                         .Set("indislive", BoolValue(true)).Set("indisreplident", BoolValue(false))
                         .SetNull("indexprs").SetNull("indpred")
                         .Take());
    }
  }
  return rows;
}

ViewRows ConstraintRows(const SystemViewContext& ctx, const std::vector<SystemColumn>& columns) {
  ViewRows rows;
  for (const auto& [oid, t] : ctx.catalog.tables()) {
    for (const storage::ConstraintDesc& c : t.constraints) {
      RowBuilder r(columns);
      r.Set("oid", OidValue(c.oid)).Set("conname", NameValue(c.conname))
          .Set("connamespace", OidValue(t.relnamespace)).Set("contype", CharValue(c.contype))
          .Set("condeferrable", BoolValue(false)).Set("condeferred", BoolValue(false))
          .Set("convalidated", BoolValue(true)).Set("conrelid", OidValue(oid)).Set("contypid", OidValue(0))
          .Set("conindid", OidValue(c.conindid)).Set("conparentid", OidValue(0)).Set("confrelid", OidValue(0))
          .Set("confupdtype", CharValue(' ')).Set("confdeltype", CharValue(' '))
          .Set("confmatchtype", CharValue(' ')).Set("conislocal", BoolValue(true))
          .Set("coninhcount", Int4Value(0))
          // Index-backed constraints are never inherited (PostgreSQL sets connoinherit for them).
          .Set("connoinherit", BoolValue(c.contype != 'c'));
      if (c.contype == 'c') r.Set("conbin", Value::Str(kPgNodeTree, c.check_expr));
      else r.SetNull("conbin");
      rows.push_back(r.Take());
    }
  }
  return rows;
}

}  // namespace

void AppendPgIndexViews(std::vector<std::unique_ptr<SystemView>>& views) {
  views.push_back(std::make_unique<GeneratedView>(
      "pg_catalog", "pg_index", 2610, 'r',
      std::vector<SystemColumn>{
          {"indexrelid", kOid}, {"indrelid", kOid}, {"indnatts", kInt2}, {"indnkeyatts", kInt2},
          {"indisunique", kBool}, {"indnullsnotdistinct", kBool}, {"indisprimary", kBool},
          {"indisexclusion", kBool}, {"indimmediate", kBool}, {"indisclustered", kBool}, {"indisvalid", kBool},
          {"indcheckxmin", kBool}, {"indisready", kBool}, {"indislive", kBool}, {"indisreplident", kBool},
          {"indexprs", kPgNodeTree}, {"indpred", kPgNodeTree}},
      IndexRows));
  views.push_back(std::make_unique<GeneratedView>(
      "pg_catalog", "pg_constraint", 2606, 'r',
      std::vector<SystemColumn>{
          {"oid", kOid}, {"conname", kName}, {"connamespace", kOid}, {"contype", kChar}, {"condeferrable", kBool},
          {"condeferred", kBool}, {"convalidated", kBool}, {"conrelid", kOid}, {"contypid", kOid},
          {"conindid", kOid}, {"conparentid", kOid}, {"confrelid", kOid}, {"confupdtype", kChar},
          {"confdeltype", kChar}, {"confmatchtype", kChar}, {"conislocal", kBool}, {"coninhcount", kInt4},
          {"connoinherit", kBool}, {"conbin", kPgNodeTree}},
      ConstraintRows));
}

}  // namespace farmdb::sql
