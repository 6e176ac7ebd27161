#include "types/type.h"

#include <array>
#include <string>

namespace farmdb {
namespace {

using enum TypeId;

constexpr std::array<TypeInfo, 52> kTypes = {{
    {TypeId::kUnknown, 705, -2, "unknown", "unknown"},
    {TypeId::kBool, 16, 1, "bool", "boolean"},
    {TypeId::kInt2, 21, 2, "int2", "smallint"},
    {TypeId::kInt4, 23, 4, "int4", "integer"},
    {TypeId::kInt8, 20, 8, "int8", "bigint"},
    {TypeId::kFloat4, 700, 4, "float4", "real"},
    {TypeId::kFloat8, 701, 8, "float8", "double precision"},
    {TypeId::kNumeric, 1700, -1, "numeric", "numeric"},
    {TypeId::kText, 25, -1, "text", "text"},
    {TypeId::kVarchar, 1043, -1, "varchar", "character varying"},
    {TypeId::kBpchar, 1042, -1, "bpchar", "character"},
    {TypeId::kName, 19, 64, "name", "name"},
    {TypeId::kBytea, 17, -1, "bytea", "bytea"},
    {TypeId::kDate, 1082, 4, "date", "date"},
    {TypeId::kTimestamp, 1114, 8, "timestamp", "timestamp without time zone"},
    {TypeId::kTimestampTz, 1184, 8, "timestamptz", "timestamp with time zone"},
    {TypeId::kVoid, 2278, 4, "void", "void"},
    {TypeId::kOid, 26, 4, "oid", "oid"},
    {TypeId::kChar, 18, 1, "char", "\"char\""},
    {TypeId::kRegclass, 2205, 4, "regclass", "regclass"},
    {TypeId::kRegtype, 2206, 4, "regtype", "regtype"},
    {TypeId::kPgNodeTree, 194, -1, "pg_node_tree", "pg_node_tree"},
    {kRegproc, 24, 4, "regproc", "regproc"},
    {kRegnamespace, 4089, 4, "regnamespace", "regnamespace"},
    {kAclitem, 1033, 12, "aclitem", "aclitem"},
    {kInt2Vector, 22, -1, "int2vector", "int2vector", kInt2},
    {kOidVector, 30, -1, "oidvector", "oidvector", kOid},
    {kRecord, 2249, -1, "record", "record"},
    {kAnyElement, 2283, 4, "anyelement", "anyelement"},
    {kAnyArray, 2277, -1, "anyarray", "anyarray"},
    {kBoolArray, 1000, -1, "_bool", "boolean[]", kBool},
    {kInt2Array, 1005, -1, "_int2", "smallint[]", kInt2},
    {kInt4Array, 1007, -1, "_int4", "integer[]", kInt4},
    {kInt8Array, 1016, -1, "_int8", "bigint[]", kInt8},
    {kFloat4Array, 1021, -1, "_float4", "real[]", kFloat4},
    {kFloat8Array, 1022, -1, "_float8", "double precision[]", kFloat8},
    {kNumericArray, 1231, -1, "_numeric", "numeric[]", kNumeric},
    {kTextArray, 1009, -1, "_text", "text[]", kText},
    {kVarcharArray, 1015, -1, "_varchar", "character varying[]", kVarchar},
    {kBpcharArray, 1014, -1, "_bpchar", "character[]", kBpchar},
    {kNameArray, 1003, -1, "_name", "name[]", kName},
    {kByteaArray, 1001, -1, "_bytea", "bytea[]", kBytea},
    {kDateArray, 1182, -1, "_date", "date[]", kDate},
    {kTimestampArray, 1115, -1, "_timestamp", "timestamp without time zone[]", kTimestamp},
    {kTimestampTzArray, 1185, -1, "_timestamptz", "timestamp with time zone[]", kTimestampTz},
    {kOidArray, 1028, -1, "_oid", "oid[]", kOid},
    {kCharArray, 1002, -1, "_char", "\"char\"[]", kChar},
    {kRegclassArray, 2210, -1, "_regclass", "regclass[]", kRegclass},
    {kRegtypeArray, 2211, -1, "_regtype", "regtype[]", kRegtype},
    {kRegprocArray, 1008, -1, "_regproc", "regproc[]", kRegproc},
    {kRegnamespaceArray, 4090, -1, "_regnamespace", "regnamespace[]", kRegnamespace},
    {kAclitemArray, 1034, -1, "_aclitem", "aclitem[]", kAclitem},
}};

// Every entry sits at its TypeId's position (Info indexes the table).
constexpr bool InEnumOrder() {
  for (size_t i = 0; i < kTypes.size(); ++i) {
    if (static_cast<size_t>(kTypes[i].id) != i) return false;
  }
  return true;
}
static_assert(InEnumOrder() && kTypes.back().id == kAclitemArray);

struct Alias {
  std::string_view spelling;
  TypeId type;
};

// Spellings the grammar accepts besides typname and sql_name (lower-case).
constexpr std::array<Alias, 11> kAliases = {{
    {"int", TypeId::kInt4},
    {"boolean", TypeId::kBool},
    {"float", TypeId::kFloat8},
    {"decimal", TypeId::kNumeric},
    {"character varying", TypeId::kVarchar},
    {"timestamp without time zone", TypeId::kTimestamp},
    {"double precision", TypeId::kFloat8},
    {"real", TypeId::kFloat4},
    {"smallint", TypeId::kInt2},
    {"bigint", TypeId::kInt8},
    {"timestamp with time zone", TypeId::kTimestampTz},
}};

}  // namespace

const TypeInfo& Info(TypeId type) { return kTypes[static_cast<size_t>(type)]; }

std::optional<TypeId> TypeFromOid(Oid oid) {
  for (const TypeInfo& info : kTypes) {
    if (info.oid == oid) return info.id;
  }
  return std::nullopt;
}

std::optional<TypeId> TypeFromName(std::string_view name) {
  std::string lower(name);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const TypeInfo& info : kTypes) {
    if (info.name == lower || info.sql_name == lower) return info.id;
  }
  for (const Alias& alias : kAliases) {
    if (alias.spelling == lower) return alias.type;
  }
  return std::nullopt;
}

bool IsInteger(TypeId type) {
  return type == TypeId::kInt2 || type == TypeId::kInt4 || type == TypeId::kInt8;
}

bool IsNumeric(TypeId type) {
  return IsInteger(type) || type == TypeId::kFloat4 || type == TypeId::kFloat8 ||
         type == TypeId::kNumeric;
}

bool IsOidLike(TypeId type) {
  return type == kOid || type == kRegclass || type == kRegtype || type == kRegproc || type == kRegnamespace;
}

bool IsArray(TypeId type) { return Info(type).element != kUnknown; }

bool IsVector(TypeId type) { return type == kInt2Vector || type == kOidVector; }

std::optional<TypeId> ArrayOf(TypeId element) {
  if (element == kUnknown) return std::nullopt;
  for (const TypeInfo& info : kTypes) {
    if (info.element == element && !IsVector(info.id)) return info.id;
  }
  return std::nullopt;
}

bool IsStorable(TypeId type) {
  return !IsArray(type) && type != kRecord && type != kAnyElement && type != kAnyArray;
}

bool IsString(TypeId type) {
  return type == TypeId::kText || type == TypeId::kVarchar || type == TypeId::kBpchar || type == TypeId::kName;
}

}  // namespace farmdb
