// pg_type: a row for every type farmdb supports and for the array type of each (pgjdbc maps
// result column OIDs through typarray/typelem; farmdb has no array values yet, but the rows say
// what the OIDs mean, as PostgreSQL 15's pg_type does). Values are copied from PG 15's pg_type.
#include "sql/system/generated_view.h"
#include "sql/system/pg_type_rows.h"

namespace farmdb::sql {
namespace {

using enum TypeId;

// typname, oid, typlen, typbyval, typtype, typcategory, typispreferred, typelem, typarray,
// typalign, typstorage, typcollation.
constexpr PgTypeRow kPgTypes[] = {
    {"bool", 16, 1, true, 'b', 'B', true, 0, 1000, 'c', 'p', 0},
    {"bytea", 17, -1, false, 'b', 'U', false, 0, 1001, 'i', 'x', 0},
    {"char", 18, 1, true, 'b', 'Z', false, 0, 1002, 'c', 'p', 0},
    {"name", 19, 64, false, 'b', 'S', false, 18, 1003, 'c', 'p', kCCollation},
    {"int8", 20, 8, true, 'b', 'N', false, 0, 1016, 'd', 'p', 0},
    {"int2", 21, 2, true, 'b', 'N', false, 0, 1005, 's', 'p', 0},
    {"int4", 23, 4, true, 'b', 'N', false, 0, 1007, 'i', 'p', 0},
    {"text", 25, -1, false, 'b', 'S', true, 0, 1009, 'i', 'x', kDefaultCollation},
    {"oid", 26, 4, true, 'b', 'N', true, 0, 1028, 'i', 'p', 0},
    {"pg_node_tree", 194, -1, false, 'b', 'Z', false, 0, 0, 'i', 'x', kDefaultCollation},
    {"float4", 700, 4, true, 'b', 'N', false, 0, 1021, 'i', 'p', 0},
    {"float8", 701, 8, true, 'b', 'N', true, 0, 1022, 'd', 'p', 0},
    {"unknown", 705, -2, false, 'p', 'X', false, 0, 0, 'c', 'p', 0},
    {"_bool", 1000, -1, false, 'b', 'A', false, 16, 0, 'i', 'x', 0},
    {"_bytea", 1001, -1, false, 'b', 'A', false, 17, 0, 'i', 'x', 0},
    {"_char", 1002, -1, false, 'b', 'A', false, 18, 0, 'i', 'x', 0},
    {"_name", 1003, -1, false, 'b', 'A', false, 19, 0, 'i', 'x', kCCollation},
    {"_int2", 1005, -1, false, 'b', 'A', false, 21, 0, 'i', 'x', 0},
    {"_int4", 1007, -1, false, 'b', 'A', false, 23, 0, 'i', 'x', 0},
    {"_text", 1009, -1, false, 'b', 'A', false, 25, 0, 'i', 'x', kDefaultCollation},
    {"_bpchar", 1014, -1, false, 'b', 'A', false, 1042, 0, 'i', 'x', kDefaultCollation},
    {"_varchar", 1015, -1, false, 'b', 'A', false, 1043, 0, 'i', 'x', kDefaultCollation},
    {"_int8", 1016, -1, false, 'b', 'A', false, 20, 0, 'd', 'x', 0},
    {"_float4", 1021, -1, false, 'b', 'A', false, 700, 0, 'i', 'x', 0},
    {"_float8", 1022, -1, false, 'b', 'A', false, 701, 0, 'd', 'x', 0},
    {"_oid", 1028, -1, false, 'b', 'A', false, 26, 0, 'i', 'x', 0},
    {"bpchar", 1042, -1, false, 'b', 'S', false, 0, 1014, 'i', 'x', kDefaultCollation},
    {"varchar", 1043, -1, false, 'b', 'S', false, 0, 1015, 'i', 'x', kDefaultCollation},
    {"date", 1082, 4, true, 'b', 'D', false, 0, 1182, 'i', 'p', 0},
    {"timestamp", 1114, 8, true, 'b', 'D', false, 0, 1115, 'd', 'p', 0},
    {"_timestamp", 1115, -1, false, 'b', 'A', false, 1114, 0, 'd', 'x', 0},
    {"_date", 1182, -1, false, 'b', 'A', false, 1082, 0, 'i', 'x', 0},
    {"timestamptz", 1184, 8, true, 'b', 'D', true, 0, 1185, 'd', 'p', 0},
    {"_timestamptz", 1185, -1, false, 'b', 'A', false, 1184, 0, 'd', 'x', 0},
    {"_numeric", 1231, -1, false, 'b', 'A', false, 1700, 0, 'i', 'x', 0},
    {"numeric", 1700, -1, false, 'b', 'N', false, 0, 1231, 'i', 'm', 0},
    {"regclass", 2205, 4, true, 'b', 'N', false, 0, 2210, 'i', 'p', 0},
    {"regtype", 2206, 4, true, 'b', 'N', false, 0, 2211, 'i', 'p', 0},
    {"_regclass", 2210, -1, false, 'b', 'A', false, 2205, 0, 'i', 'x', 0},
    {"_regtype", 2211, -1, false, 'b', 'A', false, 2206, 0, 'i', 'x', 0},
    {"void", 2278, 4, true, 'p', 'P', false, 0, 0, 'i', 'p', 0},
};

ViewRows TypeRows(const SystemViewContext&, const std::vector<SystemColumn>& columns) {
  ViewRows rows;
  for (const PgTypeRow& t : kPgTypes) {
    rows.push_back(RowBuilder(columns)
                       .Set("oid", OidValue(t.oid)).Set("typname", NameValue(t.typname))
                       .Set("typnamespace", OidValue(storage::kPgCatalogNamespace))
                       .Set("typowner", OidValue(storage::kBootstrapSuperuser)).Set("typlen", Int2Value(t.typlen))
                       .Set("typbyval", BoolValue(t.typbyval)).Set("typtype", CharValue(t.typtype))
                       .Set("typcategory", CharValue(t.typcategory)).Set("typispreferred", BoolValue(t.typispreferred))
                       .Set("typisdefined", BoolValue(true)).Set("typdelim", CharValue(','))
                       .Set("typrelid", OidValue(0)).Set("typelem", OidValue(t.typelem))
                       .Set("typarray", OidValue(t.typarray)).Set("typalign", CharValue(t.typalign))
                       .Set("typstorage", CharValue(t.typstorage)).Set("typnotnull", BoolValue(false))
                       .Set("typbasetype", OidValue(0)).Set("typtypmod", Int4Value(-1))
                       .Set("typndims", Int4Value(0)).Set("typcollation", OidValue(t.typcollation))
                       .SetNull("typdefaultbin").SetNull("typdefault")
                       .Take());
  }
  return rows;
}

}  // namespace

const PgTypeRow* PgTypeByOid(Oid oid) {
  for (const PgTypeRow& t : kPgTypes) {
    if (t.oid == oid) return &t;
  }
  return nullptr;
}

void AppendPgTypeViews(std::vector<std::unique_ptr<SystemView>>& views) {
  views.push_back(std::make_unique<GeneratedView>(
      "pg_catalog", "pg_type", 1247, 'r',
      std::vector<SystemColumn>{
          {"oid", kOid}, {"typname", kName}, {"typnamespace", kOid}, {"typowner", kOid}, {"typlen", kInt2},
          {"typbyval", kBool}, {"typtype", kChar}, {"typcategory", kChar}, {"typispreferred", kBool},
          {"typisdefined", kBool}, {"typdelim", kChar}, {"typrelid", kOid}, {"typelem", kOid},
          {"typarray", kOid}, {"typalign", kChar}, {"typstorage", kChar}, {"typnotnull", kBool},
          {"typbasetype", kOid}, {"typtypmod", kInt4}, {"typndims", kInt4}, {"typcollation", kOid},
          {"typdefaultbin", kPgNodeTree}, {"typdefault", kText}},
      TypeRows));
}

}  // namespace farmdb::sql
