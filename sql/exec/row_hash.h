// Grouping keys: the bytes that identify a tuple of values for GROUP BY, DISTINCT, UNION and
// hash joins. They reuse storage's order-preserving key encoding, which already encodes values
// PostgreSQL treats as equal (numeric 1.0 and 1.00, float -0 and 0, char(n) 'a' and 'a ')
// identically and NULLs as one marker, so byte equality is SQL's "not distinct".
//
// Thread-safety: pure functions.
#pragma once

#include <span>
#include <string>

#include "storage/key_codec.h"

namespace farmdb::sql {

inline std::string GroupKey(std::span<const Value> values) {
  std::string key;
  for (const Value& v : values) storage::AppendKeyColumn(key, v, storage::KeyColumn{v.type});
  return key;
}

}  // namespace farmdb::sql
