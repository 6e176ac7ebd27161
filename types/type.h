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
  kRegproc,       // an oid shown as a function name (pg_type.typinput)
  kRegnamespace,  // an oid shown as a schema name
  kAclitem,       // one access privilege ("=Tc/postgres"), held as its text
  // Containers (an ArrayValue or RecordValue, types/value.h). No table column has one: the
  // DDL refuses them, so storage never encodes them (IsStorable).
  kInt2Vector,  // int2vector (pg_index.indkey): int2 elements from subscript 0, "1 2" as text
  kOidVector,   // oidvector (pg_index.indclass): oid elements from subscript 0
  kRecord,      // an anonymous composite (record-returning functions); its fields are bound
  // Pseudo-types of polymorphic function signatures; never the type of a value.
  kAnyElement,
  kAnyArray,
  // One-dimensional arrays of the base types (PostgreSQL's _bool, _int4, ...; typcategory 'A').
  kBoolArray,
  kInt2Array,
  kInt4Array,
  kInt8Array,
  kFloat4Array,
  kFloat8Array,
  kNumericArray,
  kTextArray,
  kVarcharArray,
  kBpcharArray,
  kNameArray,
  kByteaArray,
  kDateArray,
  kTimestampArray,
  kTimestampTzArray,
  kOidArray,
  kCharArray,
  kRegclassArray,
  kRegtypeArray,
  kRegprocArray,
  kRegnamespaceArray,
  kAclitemArray,
};

struct TypeInfo {
  TypeId id;
  Oid oid;
  int16_t typlen;
  std::string_view name;      // pg_type.typname, e.g. "int4" (column names of casts)
  std::string_view sql_name;  // format_type() spelling, e.g. "integer" (error messages)
  TypeId element = TypeId::kUnknown;  // an array's or vector's element type (pg_type.typelem)
};

const TypeInfo& Info(TypeId type);
std::optional<TypeId> TypeFromOid(Oid oid);
// Resolves a type name as written in SQL (`int`, `integer`, `int4`, `double precision`, ...).
std::optional<TypeId> TypeFromName(std::string_view name);

bool IsInteger(TypeId type);
bool IsNumeric(TypeId type);  // integers, floats, numeric
bool IsString(TypeId type);   // text, varchar, bpchar, name (the string category)
bool IsOidLike(TypeId type);  // oid, regclass, regtype, regproc, regnamespace: an int64_t in [0, 2^32)
// The case labels of every array and vector type, for the exhaustive switches over TypeId
// (-Werror=switch) that treat them all alike; a new array type is added here and in type.cc.
#define FARMDB_ARRAY_TYPE_CASES                                                                    \
  case ::farmdb::TypeId::kInt2Vector: case ::farmdb::TypeId::kOidVector:                           \
  case ::farmdb::TypeId::kBoolArray: case ::farmdb::TypeId::kInt2Array:                            \
  case ::farmdb::TypeId::kInt4Array: case ::farmdb::TypeId::kInt8Array:                            \
  case ::farmdb::TypeId::kFloat4Array: case ::farmdb::TypeId::kFloat8Array:                        \
  case ::farmdb::TypeId::kNumericArray: case ::farmdb::TypeId::kTextArray:                         \
  case ::farmdb::TypeId::kVarcharArray: case ::farmdb::TypeId::kBpcharArray:                       \
  case ::farmdb::TypeId::kNameArray: case ::farmdb::TypeId::kByteaArray:                           \
  case ::farmdb::TypeId::kDateArray: case ::farmdb::TypeId::kTimestampArray:                       \
  case ::farmdb::TypeId::kTimestampTzArray: case ::farmdb::TypeId::kOidArray:                      \
  case ::farmdb::TypeId::kCharArray: case ::farmdb::TypeId::kRegclassArray:                        \
  case ::farmdb::TypeId::kRegtypeArray: case ::farmdb::TypeId::kRegprocArray:                      \
  case ::farmdb::TypeId::kRegnamespaceArray: case ::farmdb::TypeId::kAclitemArray
// ... and of every type no table column may have (!IsStorable): arrays, record, pseudo-types.
#define FARMDB_UNSTORABLE_TYPE_CASES                                                               \
  FARMDB_ARRAY_TYPE_CASES:                                                                         \
  case ::farmdb::TypeId::kRecord: case ::farmdb::TypeId::kAnyElement: case ::farmdb::TypeId::kAnyArray

// Arrays and the int2vector/oidvector types: an ArrayValue of Info(type).element values.
bool IsArray(TypeId type);
bool IsVector(TypeId type);  // int2vector, oidvector: subscripts from 0, space-separated text
// The array type of `element` (int4 -> int4[]); nullopt for containers and pseudo-types.
std::optional<TypeId> ArrayOf(TypeId element);
// Whether a table column may have this type (not a container or pseudo-type).
bool IsStorable(TypeId type);

// A bpchar value without its padding: what comparison, keys, casts to text and length() see.
inline std::string_view TrimTrailingBlanks(std::string_view s) {
  size_t end = s.find_last_not_of(' ');
  return end == std::string_view::npos ? std::string_view() : s.substr(0, end + 1);
}

}  // namespace farmdb
