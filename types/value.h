// Value: one SQL datum in farmdb's in-memory form, tagged with its type.
//
// Storage by type: bool -> bool; int2/int4/int8 -> int64_t; float4/float8 -> double (a float4
// holds a value exactly representable as float); numeric -> Numeric; text/varchar/bpchar/name/
// bytea/unknown -> std::string (bytea: raw bytes; bpchar: with its padding blanks);
// date -> int64_t days since 2000-01-01; timestamp -> int64_t microseconds since 2000-01-01
// 00:00 (PostgreSQL's epoch); timestamptz -> the same count, of UTC.
// Infinite dates/timestamps are the int32/int64 extremes, as in PostgreSQL.
// Thread-safety: a value type.
#pragma once

#include <cstdint>
#include <string>
#include <variant>

#include "types/numeric.h"
#include "types/type.h"

namespace farmdb {

struct Value {
  TypeId type = TypeId::kUnknown;
  std::variant<std::monostate, bool, int64_t, double, Numeric, std::string> data;

  static Value Null(TypeId type) { return Value{type, std::monostate{}}; }
  static Value Bool(bool v) { return Value{TypeId::kBool, v}; }
  static Value Int(TypeId type, int64_t v) { return Value{type, v}; }
  static Value Float(TypeId type, double v) { return Value{type, v}; }
  static Value Num(Numeric v) { return Value{TypeId::kNumeric, std::move(v)}; }
  static Value Str(TypeId type, std::string v) { return Value{type, std::move(v)}; }

  bool IsNull() const { return std::holds_alternative<std::monostate>(data); }
  bool AsBool() const { return std::get<bool>(data); }
  int64_t AsInt() const { return std::get<int64_t>(data); }
  double AsFloat() const { return std::get<double>(data); }
  const Numeric& AsNumeric() const { return std::get<Numeric>(data); }
  const std::string& AsString() const { return std::get<std::string>(data); }
};

}  // namespace farmdb
