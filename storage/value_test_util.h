// Test helpers shared by the key and row codec tests: random Values of every storable type
// (biased to duplicates and edge cases: extremes, -0, NaN, infinities, 0x00/0xFF bytes, numerics
// of many scales) and exact Value equality.
#pragma once

#include <bit>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "types/value.h"

namespace farmdb::storage::testing {

inline const std::vector<TypeId>& StorableTypes() {
  static const std::vector<TypeId> kTypes = {
      TypeId::kBool,    TypeId::kInt2, TypeId::kInt4,    TypeId::kInt8, TypeId::kFloat4,
      TypeId::kFloat8,  TypeId::kNumeric, TypeId::kText, TypeId::kVarchar, TypeId::kName,
      TypeId::kBytea,   TypeId::kDate, TypeId::kTimestamp, TypeId::kBpchar, TypeId::kTimestampTz};
  return kTypes;
}

inline Numeric RandomNumeric(std::mt19937_64& rng) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<uint64_t>(n)); };
  if (pick(20) == 0) return Numeric::NaN();
  std::string text = pick(2) ? "-" : "";
  const int int_digits = pick(5);
  for (int i = 0; i < int_digits; ++i) text += static_cast<char>('0' + (pick(3) == 0 ? 0 : pick(10)));
  if (int_digits == 0) text += '0';
  if (pick(2)) {
    text += '.';
    const int frac = pick(6);
    for (int i = 0; i < frac; ++i) text += static_cast<char>('0' + (pick(3) == 0 ? 0 : pick(10)));
  }
  if (pick(8) == 0) text += "e" + std::to_string(pick(81) - 40);  // far exponents, both ways
  return *Numeric::Parse(text);
}

inline double RandomDouble(std::mt19937_64& rng, bool float4) {
  static const double kSpecial[] = {
      0.0, -0.0, 1.0, -1.0, 0.5, -0.5, std::numeric_limits<double>::infinity(),
      -std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN(),
      -std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::denorm_min(),
      -std::numeric_limits<double>::denorm_min(), std::numeric_limits<double>::max(),
      std::numeric_limits<double>::lowest()};
  double d;
  if (rng() % 2) {
    d = kSpecial[rng() % std::size(kSpecial)];
  } else {
    d = std::uniform_real_distribution<double>(-100, 100)(rng);
    if (rng() % 2) d = static_cast<double>(static_cast<int>(d));
  }
  // A float4 holds only values exactly representable as float (value.h).
  return float4 ? static_cast<double>(static_cast<float>(d)) : d;
}

inline int64_t RandomInt(std::mt19937_64& rng, TypeId type) {
  int64_t lo = std::numeric_limits<int64_t>::min(), hi = std::numeric_limits<int64_t>::max();
  if (type == TypeId::kInt2) lo = std::numeric_limits<int16_t>::min(), hi = std::numeric_limits<int16_t>::max();
  if (type == TypeId::kInt4 || type == TypeId::kDate) {
    lo = std::numeric_limits<int32_t>::min(), hi = std::numeric_limits<int32_t>::max();
  }
  switch (rng() % 4) {
    case 0: return rng() % 2 ? lo : hi;
    case 1: return static_cast<int64_t>(rng() % 7) - 3;
    default: return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  }
}

inline std::string RandomBytes(std::mt19937_64& rng) {
  static const char kAlphabet[] = {'\x00', '\x01', 'a', 'b', '\xFE', '\xFF'};
  std::string s(rng() % 5, '\0');
  for (char& c : s) c = kAlphabet[rng() % std::size(kAlphabet)];
  return s;
}

// A non-null Value of `type`.
inline Value RandomValue(std::mt19937_64& rng, TypeId type) {
  switch (type) {
    case TypeId::kBool: return Value::Bool(rng() % 2);
    case TypeId::kFloat4:
    case TypeId::kFloat8: return Value::Float(type, RandomDouble(rng, type == TypeId::kFloat4));
    case TypeId::kNumeric: return Value::Num(RandomNumeric(rng));
    case TypeId::kText:
    case TypeId::kVarchar:
    case TypeId::kName:
    case TypeId::kBytea: return Value::Str(type, RandomBytes(rng));
    // Trailing blanks, which bpchar comparison ignores, half the time.
    case TypeId::kBpchar: return Value::Str(type, RandomBytes(rng) + std::string(rng() % 2 ? rng() % 3 : 0, ' '));
    default: return Value::Int(type, RandomInt(rng, type));
  }
}

// Exact equality: same type, same alternative, same bits (numeric: same text, so same scale).
inline bool SameValue(const Value& a, const Value& b) {
  if (a.type != b.type || a.data.index() != b.data.index()) return false;
  if (a.IsNull()) return true;
  if (std::holds_alternative<double>(a.data)) {
    return std::bit_cast<uint64_t>(a.AsFloat()) == std::bit_cast<uint64_t>(b.AsFloat());
  }
  if (std::holds_alternative<Numeric>(a.data)) return a.AsNumeric().ToString() == b.AsNumeric().ToString();
  if (std::holds_alternative<bool>(a.data)) return a.AsBool() == b.AsBool();
  if (std::holds_alternative<int64_t>(a.data)) return a.AsInt() == b.AsInt();
  return a.AsString() == b.AsString();
}

}  // namespace farmdb::storage::testing
