// pg_index and pg_constraint: indexes (primary key first, then by OID, as the catalog keeps
// them) and the primary key, unique and check constraints of tables, with their key columns
// (indkey, conkey), per-column options (indoption), operator classes and collations.
#include "sql/system/generated_view.h"
#include "sql/system/pg_type_rows.h"

namespace farmdb::sql {
namespace {

using enum TypeId;

// The default operator class of a key column's type for btree and hash (PostgreSQL 15's
// pg_opclass OIDs; varchar uses text's, the reg* types oid's).
Oid DefaultOpclass(TypeId type, storage::IndexKind kind) {
  struct Opclasses {
    TypeId type;
    Oid btree, hash;
  };
  static constexpr Opclasses kOpclasses[] = {
      {kBool, 10003, 10048},   {kBpchar, 10004, 10005},     {kBytea, 10006, 10049},      {kChar, 10007, 10008},
      {kDate, 3122, 10011},    {kFloat4, 10012, 10013},     {kFloat8, 3123, 10014},      {kInt2, 1979, 10019},
      {kInt4, 1978, 10020},    {kInt8, 3124, 10021},        {kName, 10028, 10029},       {kNumeric, 3125, 10030},
      {kOid, 1981, 10031},     {kText, 3126, 10037},        {kVarchar, 3126, 10037},     {kTimestamp, 3128, 10046},
      {kTimestampTz, 3127, 10040}, {kRegclass, 1981, 10031}, {kRegtype, 1981, 10031},
  };
  for (const Opclasses& o : kOpclasses) {
    if (o.type == type) return kind == storage::IndexKind::kHash ? o.hash : o.btree;
  }
  return 0;
}

// indoption's bits per key column (INDOPTION_DESC, INDOPTION_NULLS_FIRST).
int64_t IndexOption(const storage::IndexKeyColumn& key) { return (key.descending ? 1 : 0) | (key.nulls_first ? 2 : 0); }

Value Int2Vector(std::vector<Value> elements) { return Value::Array(kInt2Vector, ArrayValue{.lower_bound = 0, .elements = std::move(elements)}); }
Value OidVector(std::vector<Value> elements) { return Value::Array(kOidVector, ArrayValue{.lower_bound = 0, .elements = std::move(elements)}); }

ViewRows IndexRows(const SystemViewContext& ctx, const std::vector<SystemColumn>& columns) {
  ViewRows rows;
  for (const auto& [oid, t] : ctx.catalog.tables()) {
    for (const storage::IndexDesc& index : t.indexes) {
      auto natts = Int2Value(static_cast<int64_t>(index.keys.size()));
      std::vector<Value> indkey, indcollation, indclass, indoption;
      for (const storage::IndexKeyColumn& key : index.keys) {
        const storage::ColumnDesc& column = t.columns[key.attnum - 1];
        const PgTypeRow* type = PgTypeByOid(Info(column.type).oid);
        indkey.push_back(Int2Value(key.attnum));
        indcollation.push_back(OidValue(type != nullptr ? type->typcollation : 0));
        indclass.push_back(OidValue(DefaultOpclass(column.type, index.kind)));
        // Only btree keeps an order; hash index columns have no options.
        indoption.push_back(Int2Value(index.kind == storage::IndexKind::kBTree ? IndexOption(key) : 0));
      }
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
                         .Set("indkey", Int2Vector(std::move(indkey)))
                         .Set("indcollation", OidVector(std::move(indcollation)))
                         .Set("indclass", OidVector(std::move(indclass)))
                         .Set("indoption", Int2Vector(std::move(indoption)))
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
          .Set("connoinherit", BoolValue(c.contype != 'c'))
          .SetNull("confkey");
      std::vector<Value> conkey;
      for (int16_t attnum : c.conkey) conkey.push_back(Int2Value(attnum));
      // A check constraint over no column (CHECK (true)) has a NULL conkey, as in PostgreSQL.
      if (conkey.empty()) r.SetNull("conkey");
      else r.Set("conkey", Value::Array(kInt2Array, ArrayValue{.elements = std::move(conkey)}));
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
          {"indkey", kInt2Vector}, {"indcollation", kOidVector}, {"indclass", kOidVector}, {"indoption", kInt2Vector},
          {"indexprs", kPgNodeTree}, {"indpred", kPgNodeTree}},
      IndexRows));
  views.push_back(std::make_unique<GeneratedView>(
      "pg_catalog", "pg_constraint", 2606, 'r',
      std::vector<SystemColumn>{
          {"oid", kOid}, {"conname", kName}, {"connamespace", kOid}, {"contype", kChar}, {"condeferrable", kBool},
          {"condeferred", kBool}, {"convalidated", kBool}, {"conrelid", kOid}, {"contypid", kOid},
          {"conindid", kOid}, {"conparentid", kOid}, {"confrelid", kOid}, {"confupdtype", kChar},
          {"confdeltype", kChar}, {"confmatchtype", kChar}, {"conislocal", kBool}, {"coninhcount", kInt4},
          {"connoinherit", kBool}, {"conkey", kInt2Array}, {"confkey", kInt2Array}, {"conbin", kPgNodeTree}},
      ConstraintRows));
}

}  // namespace farmdb::sql
