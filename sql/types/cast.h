// Conversions between types (PostgreSQL's cast functions and I/O conversion casts).
//
// Thread-safety: pure functions.
#pragma once

#include <expected>
#include <span>

#include "sql/types/type_io.h"
#include "types/value.h"

namespace farmdb::sql {

// Whether an explicit cast from `from` to `to` exists (pg_cast plus I/O conversion to and from
// the string types).
bool CanCast(TypeId from, TypeId to);

// Converts `value` to `target` with PostgreSQL's rounding and range errors (22003 "integer out
// of range", ...). Text output of a non-string value uses `options`.
std::expected<Value, Error> Cast(const Value& value, TypeId target, const TextOptions& options);

// PostgreSQL's typmod for `type(mods...)`: numeric(p[, s]), varchar(n) and char(n) (all +
// VARHDRSZ) and timestamp[tz](p) (p itself, at most 6); errors as numerictypmodin /
// varchartypmodin / bpchartypmodin / anytimestamp_typmodin word them.
std::expected<int32_t, Error> Typmod(TypeId type, std::span<const int64_t> mods);
// Applies a typmod as an explicit cast does: numeric rounds to the scale and fails with 22003
// "numeric field overflow" beyond the precision; varchar truncates to n characters; char(n)
// truncates or pads with blanks to n characters; timestamp[tz] rounds to p fractional digits
// (AdjustTimestampForTypmod). As an `assignment` (INSERT, UPDATE) a string longer than n fails
// with 22001 unless only blanks are cut.
std::expected<Value, Error> ApplyTypmod(Value value, int32_t typmod, bool assignment = false);

// Range-checks an integer result for its type: 22003 "smallint/integer/bigint out of range".
std::expected<Value, Error> CheckedInt(TypeId type, int64_t value);
Error IntOutOfRange(TypeId type);

}  // namespace farmdb::sql
