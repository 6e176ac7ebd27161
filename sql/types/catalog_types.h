// Text I/O of the catalog types oid, "char", regclass, regtype and pg_node_tree (oidin/oidout,
// charin/charout, regtypein/regtypeout, ...), used by type_io.cc's switches. regclass names
// need a catalog: RegclassIn/RegclassOut in sql/system/catalog_functions.h do that; here a
// regclass is read and written by number only.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <expected>
#include <string>
#include <string_view>

#include "types/error.h"
#include "types/value.h"

namespace farmdb::sql {

// oidin: an unsigned 32-bit number (strtoul's syntax; negative 32-bit inputs wrap, as in
// PostgreSQL), 22P02 on bad syntax, 22003 out of range. `type` names the type in messages.
std::expected<int64_t, Error> ParseOidNumber(std::string_view text, TypeId type);
// charin: the first byte, or a \ooo octal escape; "" is the zero byte (an empty string here).
Value ParseChar(std::string_view text);
// charout: bytes >= 0x80 as \ooo.
std::string FormatChar(std::string_view value);
// regtypein by number or by type name; "-" is oid 0; 42704 for an unknown name.
std::expected<Value, Error> ParseRegtype(std::string_view text);
// regtypeout: the type's format_type name, "-" for 0, the number for an unknown oid.
std::string FormatRegtype(int64_t oid);
// regclassin's numeric form ("-" is 0); a relation name needs the catalog (0A000 here).
std::expected<Value, Error> ParseRegclassNumber(std::string_view text);
// pg_node_tree_in / _recv refuse input, as in PostgreSQL.
Error PgNodeTreeInput();
// regprocin / regprocout over the functions farmdb's pg_type names (the types' input
// functions): "array_in" or "pg_catalog.array_in" or a number; 42883 for an unknown name.
std::expected<Value, Error> ParseRegproc(std::string_view text);
std::string FormatRegproc(int64_t oid);
// The OID of input function `name` (pg_type.typinput), 0 when farmdb does not list it.
Oid RegprocByName(std::string_view name);
// regnamespacein's numeric form ("-" is 0); a schema name needs the catalog (0A000 here).
std::expected<Value, Error> ParseRegnamespaceNumber(std::string_view text);
// anyelement_in and friends: pseudo-types accept no input.
Error PseudoTypeInput(TypeId type);

}  // namespace farmdb::sql
