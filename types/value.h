// Value: one SQL datum in farmdb's in-memory form, tagged with its type.
//
// Storage by type: bool -> bool; int2/int4/int8 -> int64_t; float4/float8 -> double (a float4
// holds a value exactly representable as float); numeric -> Numeric; text/varchar/bpchar/name/
// bytea/unknown -> std::string (bytea: raw bytes; bpchar: with its padding blanks);
// date -> int64_t days since 2000-01-01; timestamp -> int64_t microseconds since 2000-01-01
// 00:00 (PostgreSQL's epoch); timestamptz -> the same count, of UTC.
// Infinite dates/timestamps are the int32/int64 extremes, as in PostgreSQL.
// Arrays and int2vector/oidvector -> ArrayValue; record -> RecordValue (both immutable and
// shared, so copying a Value never copies the elements).
// Thread-safety: a value type.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "types/numeric.h"
#include "types/type.h"

namespace farmdb {

struct ArrayValue;
struct RecordValue;

struct Value {
  TypeId type = TypeId::kUnknown;
  std::variant<std::monostate, bool, int64_t, double, Numeric, std::string, std::shared_ptr<const ArrayValue>,
               std::shared_ptr<const RecordValue>>
      data;

  static Value Null(TypeId type) { return Value{type, std::monostate{}}; }
  static Value Bool(bool v) { return Value{TypeId::kBool, v}; }
  static Value Int(TypeId type, int64_t v) { return Value{type, v}; }
  static Value Float(TypeId type, double v) { return Value{type, v}; }
  static Value Num(Numeric v) { return Value{TypeId::kNumeric, std::move(v)}; }
  static Value Str(TypeId type, std::string v) { return Value{type, std::move(v)}; }
  static Value Array(TypeId type, ArrayValue v);
  static Value Record(RecordValue v);

  bool IsNull() const { return std::holds_alternative<std::monostate>(data); }
  bool AsBool() const { return std::get<bool>(data); }
  int64_t AsInt() const { return std::get<int64_t>(data); }
  double AsFloat() const { return std::get<double>(data); }
  const Numeric& AsNumeric() const { return std::get<Numeric>(data); }
  const std::string& AsString() const { return std::get<std::string>(data); }
  const ArrayValue& AsArray() const { return *std::get<std::shared_ptr<const ArrayValue>>(data); }
  const RecordValue& AsRecord() const { return *std::get<std::shared_ptr<const RecordValue>>(data); }
};

// A one-dimensional array: elements (NULL or of the element type) at subscripts lower_bound,
// lower_bound + 1, ... An empty array has no dimensions (PostgreSQL's '{}').
struct ArrayValue {
  int32_t lower_bound = 1;
  std::vector<Value> elements;
};

// A record's field values, in the order of the record type its expression was bound with.
struct RecordValue {
  std::vector<Value> fields;
};

inline Value Value::Array(TypeId type, ArrayValue v) {
  return Value{type, std::make_shared<const ArrayValue>(std::move(v))};
}
inline Value Value::Record(RecordValue v) {
  return Value{TypeId::kRecord, std::make_shared<const RecordValue>(std::move(v))};
}

}  // namespace farmdb
