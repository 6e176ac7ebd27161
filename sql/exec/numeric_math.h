// numeric functions beyond the four operations: truncation, ceil/floor, and the inexact ones
// (sqrt, exp, ln, log, power) with the result scales numeric.c chooses (at least
// NUMERIC_MIN_SIG_DIGITS = 16 significant digits, never fewer than the inputs' scales).
//
// sqrt is exact (integer Newton iteration, rounded half away from zero at the scale). exp,
// ln, log and non-integer powers compute in long double (about 19 significant
// digits; ln from the leading digits and the exponent, so any numeric has one) and round to
// that scale, so results asking for more digits than that (inputs with large scales) differ
// from PostgreSQL's exact algorithms in the trailing digits, and exp of values beyond long
// double's range (1e4932) fails with 22003. Integer powers multiply numerics, rounded to
// as many significant digits as power_var_int keeps.
//
// Thread-safety: pure functions.
#pragma once

#include <expected>

#include "types/value.h"

namespace farmdb::sql {

// Truncates toward zero to `scale` digits after the point (negative: left of it); the
// result's scale is max(scale, 0), as trunc(numeric, int).
Numeric NumericTrunc(const Numeric& n, int scale);
// An integer numeric divided by 10^scale exactly, keeping `scale` digits after the point
// (int64_div_fast_to_numeric).
Numeric ScaledNumeric(const Numeric& integer, int scale);
Numeric NumericCeilFloor(const Numeric& n, bool ceil);

std::expected<Value, Error> NumericSqrt(const Numeric& n);
std::expected<Value, Error> NumericExp(const Numeric& n);
std::expected<Value, Error> NumericLn(const Numeric& n);
std::expected<Value, Error> NumericLog(const Numeric& base, const Numeric& n);
std::expected<Value, Error> NumericPower(const Numeric& base, const Numeric& exp);

}  // namespace farmdb::sql
