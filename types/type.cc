#include "types/type.h"

#include <array>
#include <string>

namespace farmdb {
namespace {

constexpr std::array<TypeInfo, 22> kTypes = {{
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
}};

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
  return type == TypeId::kOid || type == TypeId::kRegclass || type == TypeId::kRegtype;
}

bool IsString(TypeId type) {
  return type == TypeId::kText || type == TypeId::kVarchar || type == TypeId::kBpchar || type == TypeId::kName;
}

}  // namespace farmdb
