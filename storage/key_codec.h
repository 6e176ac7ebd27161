// Order-preserving key encoding: typed SQL tuples <-> byte strings whose memcmp order is
// PostgreSQL's ORDER BY order, so the B-tree and hash indexes (which see opaque byte keys) can
// index typed columns (DESIGN.md "storage/", storage_v2 contract A).
//
// Per column: a marker byte (NULL vs not NULL, ordered per nulls_first), then the value:
//   bool                        1 byte (0, 1)
//   int2/int4/int8/date         8-byte big-endian int64 with the sign bit flipped (one encoding
//                               for every integer width, so an int8 probe finds an int4 key)
//   timestamp                   likewise (µs since 2000-01-01)
//   float4/float8               8-byte order-preserving double; -0 encodes as 0, every NaN as one
//                               NaN above +Infinity (PostgreSQL's float order)
//   numeric                     sign class byte (neg < zero < pos < NaN), then for non-zero
//                               numbers the decimal exponent and significant digits, inverted for
//                               negatives (so 1.0 and 1.00 encode identically)
//   text/varchar/name/bytea     the bytes with 0x00 escaped as 0x00 0xFF, then 0x00 0x00 (C
//   (and unknown, void)         collation: byte order, shorter first)
// A descending column has all its bytes (marker included) inverted.
// Every column encoding is prefix-free, so memcmp order of concatenations is the lexicographic
// order of the columns, and the first k columns' encoding is a byte prefix of the whole key's.
//
// Thread-safety: pure functions. No allocation beyond the output string.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "storage/index.h"
#include "types/value.h"

namespace farmdb::storage {

struct KeyColumn {
  TypeId type;
  bool descending = false;
  bool nulls_first = false;  // PostgreSQL default: NULLS LAST for ASC, NULLS FIRST for DESC
};

// Appends one column's encoding. memcmp order of the concatenated encodings equals PostgreSQL's
// ORDER BY order of the tuples under these KeyColumns; equal values (numeric 1.0 and 1.00, float
// -0 and 0) encode identically; every column encoding is prefix-free, so the encoding of the
// first k columns is a byte prefix of the full key's (prefix scans).
// REQUIRES: v is NULL or holds the Value alternative of c.type's family (integers, date and
// timestamp: int64_t; floats: double; numeric: Numeric; bool: bool; the rest: std::string).
void AppendKeyColumn(std::string& out, const Value& v, const KeyColumn& c);
// The most bytes AppendKeyColumn writes for a column of `type` (marker included), or nullopt
// when the encoding has no bound (numeric, strings).
std::optional<size_t> MaxKeyColumnBytes(TypeId type);
// REQUIRES: values.size() <= columns.size() (fewer values: a prefix key for a prefix scan).
std::string EncodeKey(std::span<const Value> values, std::span<const KeyColumn> columns);
// Inverse (numeric comes back normalised, scale = minimal; text as text). kCorrupt on bad bytes,
// including bytes left over after the last column.
StorageResult<std::vector<Value>> DecodeKey(std::string_view key, std::span<const KeyColumn> columns);
// Smallest string greater than every string that starts with `prefix` ("" if none: no bound).
std::string PrefixSuccessor(std::string_view prefix);

}  // namespace farmdb::storage
