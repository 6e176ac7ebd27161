// The SQL types farmdb knows, with PostgreSQL's OIDs, lengths and names.
//
// Thread-safety: immutable tables; safe from any thread.
// Invariant: every TypeId has exactly one TypeInfo; OIDs and typlen match pg_type of PG 15.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "types/error.h"

namespace farmdb {

// kUnknown is PostgreSQL's type of an undecorated string literal before resolution.
enum class TypeId : uint8_t {
  kUnknown,
  kBool,
  kInt2,
  kInt4,
  kInt8,
  kFloat4,
  kFloat8,
  kNumeric,
  kText,
  kVarchar,
  kBpchar,  // character(n): blank-padded; trailing blanks are insignificant
  kName,
  kBytea,
  kDate,
  kTimestamp,
  kTimestampTz,  // microseconds since 2000-01-01 00:00 UTC; shown in the session's TimeZone
  kVoid,  // result of functions that return nothing (pg_sleep)
  // Catalog types (pg_catalog views and the functions psql and pgjdbc call):
  kOid,         // unsigned 32-bit object identifier, held as int64_t in [0, 2^32)
  kChar,        // "char": one byte (or none), pg_class.relkind and friends
  kRegclass,    // an oid shown as a relation name (regclassin/out look the catalog up)
  kRegtype,     // an oid shown as a type name
  kPgNodeTree,  // pg_attrdef.adbin and other stored expressions: output only (text)
};

struct TypeInfo {
  TypeId id;
  Oid oid;
  int16_t typlen;
  std::string_view name;      // pg_type.typname, e.g. "int4" (column names of casts)
  std::string_view sql_name;  // format_type() spelling, e.g. "integer" (error messages)
};

const TypeInfo& Info(TypeId type);
std::optional<TypeId> TypeFromOid(Oid oid);
// Resolves a type name as written in SQL (`int`, `integer`, `int4`, `double precision`, ...).
std::optional<TypeId> TypeFromName(std::string_view name);

bool IsInteger(TypeId type);
bool IsNumeric(TypeId type);  // integers, floats, numeric
bool IsString(TypeId type);   // text, varchar, bpchar, name (the string category)
bool IsOidLike(TypeId type);  // oid, regclass, regtype: an int64_t in [0, 2^32)

// A bpchar value without its padding: what comparison, keys, casts to text and length() see.
inline std::string_view TrimTrailingBlanks(std::string_view s) {
  size_t end = s.find_last_not_of(' ');
  return end == std::string_view::npos ? std::string_view() : s.substr(0, end + 1);
}

}  // namespace farmdb
