// Grouping keys: the bytes that identify a tuple of values for GROUP BY, DISTINCT, UNION and
// hash joins. They reuse storage's order-preserving key encoding, which already encodes values
// PostgreSQL treats as equal (numeric 1.0 and 1.00, float -0 and 0, char(n) 'a' and 'a ')
// identically and NULLs as one marker, so byte equality is SQL's "not distinct". Arrays and
// records, which storage never keys, add their lower bound and element count before their
// elements, so different shapes never collide.
//
// Thread-safety: pure functions.
#pragma once

#include <span>
#include <string>

#include "storage/key_codec.h"

namespace farmdb::sql {

inline void AppendGroupKey(std::string& key, const Value& v) {
  bool array = IsArray(v.type);
  if (v.IsNull() || (!array && v.type != TypeId::kRecord)) {
    storage::AppendKeyColumn(key, v, storage::KeyColumn{v.type});
    return;
  }
  const std::vector<Value>& items = array ? v.AsArray().elements : v.AsRecord().fields;
  storage::AppendKeyColumn(key, Value::Int(TypeId::kInt4, array ? v.AsArray().lower_bound : 0), storage::KeyColumn{TypeId::kInt4});
  storage::AppendKeyColumn(key, Value::Int(TypeId::kInt8, static_cast<int64_t>(items.size())), storage::KeyColumn{TypeId::kInt8});
  for (const Value& item : items) AppendGroupKey(key, item);
}

inline std::string GroupKey(std::span<const Value> values) {
  std::string key;
  for (const Value& v : values) AppendGroupKey(key, v);
  return key;
}

}  // namespace farmdb::sql
