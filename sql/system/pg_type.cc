// pg_type: a row for every type farmdb has (types/type.h), arrays and pseudo-types included;
// pgjdbc maps result column OIDs through typarray/typelem and typinput = 'array_in'. Values are
// copied from PG 15's pg_type (int2vector's and oidvector's array types, which farmdb lacks,
// are left out of typarray).
#include "sql/system/generated_view.h"
#include "sql/system/pg_type_rows.h"
#include "sql/types/catalog_types.h"

namespace farmdb::sql {
namespace {

using enum TypeId;

// typname, oid, typlen, typbyval, typtype, typcategory, typispreferred, typelem, typarray,
// typalign, typstorage, typcollation, typinput.
constexpr PgTypeRow kPgTypes[] = {
    {"bool", 16, 1, true, 'b', 'B', true, 0, 1000, 'c', 'p', 0, "boolin"},
    {"bytea", 17, -1, false, 'b', 'U', false, 0, 1001, 'i', 'x', 0, "byteain"},
    {"char", 18, 1, true, 'b', 'Z', false, 0, 1002, 'c', 'p', 0, "charin"},
    {"name", 19, 64, false, 'b', 'S', false, 18, 1003, 'c', 'p', kCCollation, "namein"},
    {"int8", 20, 8, true, 'b', 'N', false, 0, 1016, 'd', 'p', 0, "int8in"},
    {"int2", 21, 2, true, 'b', 'N', false, 0, 1005, 's', 'p', 0, "int2in"},
    {"int2vector", 22, -1, false, 'b', 'A', false, 21, 0, 'i', 'p', 0, "int2vectorin"},
    {"int4", 23, 4, true, 'b', 'N', false, 0, 1007, 'i', 'p', 0, "int4in"},
    {"regproc", 24, 4, true, 'b', 'N', false, 0, 1008, 'i', 'p', 0, "regprocin"},
    {"text", 25, -1, false, 'b', 'S', true, 0, 1009, 'i', 'x', kDefaultCollation, "textin"},
    {"oid", 26, 4, true, 'b', 'N', true, 0, 1028, 'i', 'p', 0, "oidin"},
    {"oidvector", 30, -1, false, 'b', 'A', false, 26, 0, 'i', 'p', 0, "oidvectorin"},
    {"pg_node_tree", 194, -1, false, 'b', 'Z', false, 0, 0, 'i', 'x', kDefaultCollation, "pg_node_tree_in"},
    {"float4", 700, 4, true, 'b', 'N', false, 0, 1021, 'i', 'p', 0, "float4in"},
    {"float8", 701, 8, true, 'b', 'N', true, 0, 1022, 'd', 'p', 0, "float8in"},
    {"unknown", 705, -2, false, 'p', 'X', false, 0, 0, 'c', 'p', 0, "unknownin"},
    {"_bool", 1000, -1, false, 'b', 'A', false, 16, 0, 'i', 'x', 0, "array_in"},
    {"_bytea", 1001, -1, false, 'b', 'A', false, 17, 0, 'i', 'x', 0, "array_in"},
    {"_char", 1002, -1, false, 'b', 'A', false, 18, 0, 'i', 'x', 0, "array_in"},
    {"_name", 1003, -1, false, 'b', 'A', false, 19, 0, 'i', 'x', kCCollation, "array_in"},
    {"_int2", 1005, -1, false, 'b', 'A', false, 21, 0, 'i', 'x', 0, "array_in"},
    {"_int4", 1007, -1, false, 'b', 'A', false, 23, 0, 'i', 'x', 0, "array_in"},
    {"_regproc", 1008, -1, false, 'b', 'A', false, 24, 0, 'i', 'x', 0, "array_in"},
    {"_text", 1009, -1, false, 'b', 'A', false, 25, 0, 'i', 'x', kDefaultCollation, "array_in"},
    {"_bpchar", 1014, -1, false, 'b', 'A', false, 1042, 0, 'i', 'x', kDefaultCollation, "array_in"},
    {"_varchar", 1015, -1, false, 'b', 'A', false, 1043, 0, 'i', 'x', kDefaultCollation, "array_in"},
    {"_int8", 1016, -1, false, 'b', 'A', false, 20, 0, 'd', 'x', 0, "array_in"},
    {"_float4", 1021, -1, false, 'b', 'A', false, 700, 0, 'i', 'x', 0, "array_in"},
    {"_float8", 1022, -1, false, 'b', 'A', false, 701, 0, 'd', 'x', 0, "array_in"},
    {"_oid", 1028, -1, false, 'b', 'A', false, 26, 0, 'i', 'x', 0, "array_in"},
    {"aclitem", 1033, 12, false, 'b', 'U', false, 0, 1034, 'i', 'p', 0, "aclitemin"},
    {"_aclitem", 1034, -1, false, 'b', 'A', false, 1033, 0, 'i', 'x', 0, "array_in"},
    {"bpchar", 1042, -1, false, 'b', 'S', false, 0, 1014, 'i', 'x', kDefaultCollation, "bpcharin"},
    {"varchar", 1043, -1, false, 'b', 'S', false, 0, 1015, 'i', 'x', kDefaultCollation, "varcharin"},
    {"date", 1082, 4, true, 'b', 'D', false, 0, 1182, 'i', 'p', 0, "date_in"},
    {"timestamp", 1114, 8, true, 'b', 'D', false, 0, 1115, 'd', 'p', 0, "timestamp_in"},
    {"_timestamp", 1115, -1, false, 'b', 'A', false, 1114, 0, 'd', 'x', 0, "array_in"},
    {"_date", 1182, -1, false, 'b', 'A', false, 1082, 0, 'i', 'x', 0, "array_in"},
    {"timestamptz", 1184, 8, true, 'b', 'D', true, 0, 1185, 'd', 'p', 0, "timestamptz_in"},
    {"_timestamptz", 1185, -1, false, 'b', 'A', false, 1184, 0, 'd', 'x', 0, "array_in"},
    {"_numeric", 1231, -1, false, 'b', 'A', false, 1700, 0, 'i', 'x', 0, "array_in"},
    {"numeric", 1700, -1, false, 'b', 'N', false, 0, 1231, 'i', 'm', 0, "numeric_in"},
    {"regclass", 2205, 4, true, 'b', 'N', false, 0, 2210, 'i', 'p', 0, "regclassin"},
    {"regtype", 2206, 4, true, 'b', 'N', false, 0, 2211, 'i', 'p', 0, "regtypein"},
    {"_regclass", 2210, -1, false, 'b', 'A', false, 2205, 0, 'i', 'x', 0, "array_in"},
    {"_regtype", 2211, -1, false, 'b', 'A', false, 2206, 0, 'i', 'x', 0, "array_in"},
    {"record", 2249, -1, false, 'p', 'P', false, 0, 0, 'd', 'x', 0, "record_in"},
    {"anyarray", 2277, -1, false, 'p', 'P', false, 0, 0, 'd', 'x', 0, "anyarray_in"},
    {"void", 2278, 4, true, 'p', 'P', false, 0, 0, 'i', 'p', 0, "void_in"},
    {"anyelement", 2283, 4, true, 'p', 'P', false, 0, 0, 'i', 'p', 0, "anyelement_in"},
    {"regnamespace", 4089, 4, true, 'b', 'N', false, 0, 4090, 'i', 'p', 0, "regnamespacein"},
    {"_regnamespace", 4090, -1, false, 'b', 'A', false, 4089, 0, 'i', 'x', 0, "array_in"},
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
                       .Set("typinput", Value::Int(kRegproc, RegprocByName(t.typinput)))
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
          {"typarray", kOid}, {"typinput", kRegproc}, {"typalign", kChar}, {"typstorage", kChar}, {"typnotnull", kBool},
          {"typbasetype", kOid}, {"typtypmod", kInt4}, {"typndims", kInt4}, {"typcollation", kOid},
          {"typdefaultbin", kPgNodeTree}, {"typdefault", kText}},
      TypeRows));
}

}  // namespace farmdb::sql
