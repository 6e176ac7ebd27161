// Numeric: PostgreSQL's exact, arbitrary-precision decimal (numeric.c), with its display scale,
// rounding (half away from zero), division scale rule and base-10000 binary wire format.
//
// Representation: value = (negative ? -1 : 1) * digits * 10^-scale, where `digits` is the
// unscaled magnitude in decimal ('0'..'9', no leading zeros, empty for zero) and `scale` is
// PostgreSQL's dscale (digits shown after the point). NaN is a separate state.
// Thread-safety: a value type; no shared state.
#pragma once

#include <compare>
#include <cstdint>
#include <expected>
#include <optional>
#include <string>
#include <string_view>

#include "types/error.h"
#include "types/binary_reader.h"

namespace farmdb {

class Numeric {
 public:
  Numeric() = default;
  static Numeric FromInt(int64_t value);
  static Numeric NaN();
  // Text input as numeric_in: [sign] digits [. digits] [e exponent], NaN; surrounding spaces.
  static std::expected<Numeric, Error> Parse(std::string_view text);
  // Binary input as numeric_recv (ndigits, weight, sign, dscale, base-10000 digits), read from
  // `reader`; whatever follows the value is left for the caller to reject.
  static std::expected<Numeric, Error> DecodeBinary(BinaryReader& reader);

  std::string ToString() const;
  std::string EncodeBinary() const;

  bool IsNaN() const { return nan_; }
  bool IsZero() const { return !nan_ && digits_.empty(); }
  // The representation (see above), for codecs such as storage's order-preserving keys.
  bool negative() const { return negative_; }
  std::string_view digits() const { return digits_; }
  int scale() const { return scale_; }

  // PostgreSQL semantics: NaN equals NaN and sorts above every number.
  std::strong_ordering Compare(const Numeric& other) const;

  Numeric Add(const Numeric& other) const;
  Numeric Sub(const Numeric& other) const;
  Numeric Mul(const Numeric& other) const;
  // 22012 on a zero divisor; the result scale follows numeric.c's select_div_scale.
  std::expected<Numeric, Error> Div(const Numeric& other) const;
  std::expected<Numeric, Error> Mod(const Numeric& other) const;
  Numeric Negate() const;
  Numeric Abs() const;
  // Rounds half away from zero to `scale` digits after the point (negative: left of it).
  Numeric Round(int scale) const;
  // Rounds to an integer; std::nullopt when NaN or outside int64.
  std::optional<int64_t> ToInt64() const;
  double ToDouble() const;

 private:
  void Normalize();  // strips leading zeros; zero is never negative

  bool nan_ = false;
  bool negative_ = false;
  std::string digits_;
  int scale_ = 0;
};

}  // namespace farmdb
