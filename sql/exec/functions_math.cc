// Math functions and operators with PostgreSQL 15's types, results and errors (float.c,
// int.c, int8.c, numeric.c): abs/@, round, trunc, ceil, floor, sign, sqrt/|/, cbrt/||/,
// power/^, exp, ln, log, mod, div, pi, random, degrees, radians, GREATEST/LEAST, and the
// integer bit operators & | # ~ << >>.
#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>

#include "sql/exec/builtins.h"
#include "sql/exec/numeric_math.h"
#include "sql/types/cast.h"

namespace farmdb::sql {
namespace {

using enum TypeId;
using Args = std::span<const Value>;
using Result = std::expected<Value, Error>;

Error Overflow() { return MakeError("22003", "value out of range: overflow"); }
Error Underflow() { return MakeError("22003", "value out of range: underflow"); }
Error Invalid(std::string message) { return MakeError("2201F", std::move(message)); }

// float8 results: an infinite result from finite input overflows, as float.c's checks.
Result Float8(double r, bool inf_ok, bool zero_ok) {
  if (std::isinf(r) && !inf_ok) return std::unexpected(Overflow());
  if (r == 0 && !zero_ok) return std::unexpected(Underflow());
  return Value::Float(kFloat8, r);
}

Result Abs(Args a, const BoundExpr&, ExecContext&) {
  const Value& v = a[0];
  if (IsInteger(v.type)) return v.AsInt() < 0 ? EvalNegate(v) : Result(v);
  if (v.type == kNumeric) return Value::Num(v.AsNumeric().Abs());
  return Value::Float(v.type, std::fabs(v.AsFloat()));
}

// Float rounding family: rint (half to even), trunc, ceil, floor.
template <double (*F)(double)>
Result FloatRound(Args a, const BoundExpr&, ExecContext&) {
  return Value::Float(kFloat8, F(a[0].AsFloat()));
}

Result FloatSign(Args a, const BoundExpr&, ExecContext&) {
  double v = a[0].AsFloat();
  return Value::Float(kFloat8, v > 0 ? 1.0 : v < 0 ? -1.0 : 0.0);
}

// round/trunc's scale argument, limited as numeric_round does: NUMERIC_DSCALE_MAX digits after
// the point, one more than a numeric's largest weight before it.
int ScaleArg(Args a) {
  constexpr int64_t kDscaleMax = 0x3FFF;
  constexpr int64_t kMinScale = -(0x7FFF + 1) * 4 - 1;
  return a.size() > 1 ? static_cast<int>(std::clamp<int64_t>(a[1].AsInt(), kMinScale, kDscaleMax)) : 0;
}

Result NumRound(Args a, const BoundExpr&, ExecContext&) { return Value::Num(a[0].AsNumeric().Round(ScaleArg(a))); }
Result NumTrunc(Args a, const BoundExpr&, ExecContext&) { return Value::Num(NumericTrunc(a[0].AsNumeric(), ScaleArg(a))); }
Result NumCeil(Args a, const BoundExpr&, ExecContext&) { return Value::Num(NumericCeilFloor(a[0].AsNumeric(), true)); }
Result NumFloor(Args a, const BoundExpr&, ExecContext&) { return Value::Num(NumericCeilFloor(a[0].AsNumeric(), false)); }

Result NumSign(Args a, const BoundExpr&, ExecContext&) {
  const Numeric& n = a[0].AsNumeric();
  if (n.IsNaN()) return Value::Num(n);
  return Value::Num(Numeric::FromInt(n.IsZero() ? 0 : n.negative() ? -1 : 1));
}

Result FloatSqrt(Args a, const BoundExpr&, ExecContext&) {
  double v = a[0].AsFloat();
  if (v < 0) return std::unexpected(Invalid("cannot take square root of a negative number"));
  return Float8(std::sqrt(v), std::isinf(v), v == 0);
}

Result FloatCbrt(Args a, const BoundExpr&, ExecContext&) {
  double v = a[0].AsFloat();
  return Float8(std::cbrt(v), std::isinf(v), v == 0);
}

Result FloatExp(Args a, const BoundExpr&, ExecContext&) {
  double v = a[0].AsFloat();
  if (std::isnan(v)) return Value::Float(kFloat8, v);
  if (std::isinf(v)) return Value::Float(kFloat8, v > 0 ? v : 0.0);
  return Float8(std::exp(v), false, false);
}

template <double (*F)(double)>
Result FloatLog(Args a, const BoundExpr&, ExecContext&) {
  double v = a[0].AsFloat();
  if (v == 0) return std::unexpected(MakeError("2201E", "cannot take logarithm of zero"));
  if (v < 0) return std::unexpected(MakeError("2201E", "cannot take logarithm of a negative number"));
  return Float8(F(v), std::isinf(v), v == 1);
}

Result FloatPower(Args a, const BoundExpr&, ExecContext&) {
  double x = a[0].AsFloat(), y = a[1].AsFloat();
  // dpow: NaN rules first (1 ^ NaN and NaN ^ 0 are 1), then the domain errors.
  if (std::isnan(x)) return Value::Float(kFloat8, y == 0 ? 1.0 : x);
  if (std::isnan(y)) return Value::Float(kFloat8, x == 1 ? 1.0 : y);
  if (x == 0 && y < 0) return std::unexpected(Invalid("zero raised to a negative power is undefined"));
  if (x < 0 && std::floor(y) != y && !std::isinf(y)) {
    return std::unexpected(Invalid("a negative number raised to a non-integer power yields a complex result"));
  }
  double r = std::pow(x, y);
  if (std::isinf(x) || std::isinf(y)) return Value::Float(kFloat8, r);
  return Float8(r, false, x == 0);
}

Result NumSqrt(Args a, const BoundExpr&, ExecContext&) { return NumericSqrt(a[0].AsNumeric()); }
Result NumExp(Args a, const BoundExpr&, ExecContext&) { return NumericExp(a[0].AsNumeric()); }
Result NumLn(Args a, const BoundExpr&, ExecContext&) { return NumericLn(a[0].AsNumeric()); }
Result NumLog10(Args a, const BoundExpr&, ExecContext&) { return NumericLog(Numeric::FromInt(10), a[0].AsNumeric()); }
Result NumLog(Args a, const BoundExpr&, ExecContext&) { return NumericLog(a[0].AsNumeric(), a[1].AsNumeric()); }
Result NumPower(Args a, const BoundExpr&, ExecContext&) { return NumericPower(a[0].AsNumeric(), a[1].AsNumeric()); }

Result Mod(Args a, const BoundExpr& e, ExecContext&) { return EvalArith(ArithOp::kMod, e.type, a[0], a[1]); }

Result NumDiv(Args a, const BoundExpr&, ExecContext&) {
  const Numeric& x = a[0].AsNumeric();
  const Numeric& y = a[1].AsNumeric();
  if (x.IsNaN() || y.IsNaN()) return Value::Num(Numeric::NaN());
  if (y.IsZero()) return std::unexpected(MakeError("22012", "division by zero"));
  // div_var with rscale 0 and truncation: the quotient's integer part.
  auto m = x.Mod(y);
  if (!m) return std::unexpected(m.error());
  auto q = x.Sub(*m).Div(y);
  if (!q) return std::unexpected(q.error());
  return Value::Num(NumericTrunc(*q, 0));
}

Result Pi(Args, const BoundExpr&, ExecContext&) { return Value::Float(kFloat8, std::numbers::pi); }

Result Random(Args, const BoundExpr&, ExecContext&) {
  // 53 random bits in [0, 1), as pg_prng_double; a fresh device read keeps no shared state.
  std::random_device device;
  uint64_t bits = (uint64_t{device()} << 32 | device()) >> 11;
  return Value::Float(kFloat8, std::ldexp(static_cast<double>(bits), -53));
}

Result Degrees(Args a, const BoundExpr&, ExecContext&) {
  double v = a[0].AsFloat();
  return Float8(v / (std::numbers::pi / 180.0), std::isinf(v), v == 0);
}

Result Radians(Args a, const BoundExpr&, ExecContext&) {
  double v = a[0].AsFloat();
  return Float8(v * (std::numbers::pi / 180.0), std::isinf(v), v == 0);
}

Error WidthBucketError(std::string message) { return MakeError("2201G", std::move(message)); }

// width_bucket(operand, b1, b2, count): 0 below the range, count + 1 above it, else the
// bucket of count equal ones (b1 > b2 counts downwards), as width_bucket_float8/_numeric.
Result AboveRange(int64_t count) {
  if (count == INT32_MAX) return std::unexpected(MakeError("22003", "integer out of range"));
  return Value::Int(kInt4, count + 1);
}

Result FloatWidthBucket(Args a, const BoundExpr&, ExecContext&) {
  double x = a[0].AsFloat(), b1 = a[1].AsFloat(), b2 = a[2].AsFloat();
  int64_t count = a[3].AsInt();
  if (count <= 0) return std::unexpected(WidthBucketError("count must be greater than zero"));
  if (std::isnan(x) || std::isnan(b1) || std::isnan(b2)) {
    return std::unexpected(WidthBucketError("operand, lower bound, and upper bound cannot be NaN"));
  }
  if (std::isinf(b1) || std::isinf(b2)) return std::unexpected(WidthBucketError("lower and upper bounds must be finite"));
  if (b1 == b2) return std::unexpected(WidthBucketError("lower bound cannot equal upper bound"));
  bool up = b1 < b2;
  if (up ? x < b1 : x > b1) return Value::Int(kInt4, 0);
  if (up ? x >= b2 : x <= b2) return AboveRange(count);
  // PostgreSQL 15's arithmetic, in this order; a quotient that overflows (huge bounds) ends as
  // the x86 conversion of a non-finite double to int4 does, INT_MIN.
  double bucket = up ? static_cast<double>(count) * (x - b1) / (b2 - b1) + 1
                     : static_cast<double>(count) * (b1 - x) / (b1 - b2) + 1;
  if (!(bucket >= INT32_MIN && bucket < 2147483648.0)) return Value::Int(kInt4, INT32_MIN);
  return Value::Int(kInt4, static_cast<int64_t>(bucket));
}

Result NumWidthBucket(Args a, const BoundExpr&, ExecContext&) {
  const Numeric &x = a[0].AsNumeric(), &b1 = a[1].AsNumeric(), &b2 = a[2].AsNumeric();
  int64_t count = a[3].AsInt();
  if (count <= 0) return std::unexpected(WidthBucketError("count must be greater than zero"));
  if (x.IsNaN() || b1.IsNaN() || b2.IsNaN()) {
    return std::unexpected(WidthBucketError("operand, lower bound, and upper bound cannot be NaN"));
  }
  auto order = b1.Compare(b2);
  if (order == 0) return std::unexpected(WidthBucketError("lower bound cannot equal upper bound"));
  bool up = order < 0;
  if (up ? x.Compare(b1) < 0 : x.Compare(b1) > 0) return Value::Int(kInt4, 0);
  if (up ? x.Compare(b2) >= 0 : x.Compare(b2) <= 0) return AboveRange(count);
  // compute_bucket: floor(count * (x - b1) / (b2 - b1) + 1), the division rounded at its
  // select_div_scale as div_var rounds it (so a quotient a hair below an integer can reach it).
  Numeric scaled = (up ? x.Sub(b1) : b1.Sub(x)).Mul(Numeric::FromInt(count));
  auto quotient = scaled.Div(up ? b2.Sub(b1) : b1.Sub(b2));
  if (!quotient) return std::unexpected(quotient.error());
  auto bucket = NumericCeilFloor(quotient->Add(Numeric::FromInt(1)), false).ToInt64();
  if (!bucket || *bucket > INT32_MAX) return std::unexpected(MakeError("22003", "integer out of range"));
  return Value::Int(kInt4, *bucket);
}

// GREATEST/LEAST: NULLs are ignored; NULL only when all are.
template <bool kGreatest>
Result MinMax(Args a, const BoundExpr& e, ExecContext&) {
  const Value* best = nullptr;
  for (const Value& v : a) {
    if (v.IsNull()) continue;
    if (best == nullptr || (kGreatest ? CompareValues(v, *best) > 0 : CompareValues(v, *best) < 0)) best = &v;
  }
  return best ? *best : Value::Null(e.type);
}

// Integer bit operators; results keep the operand's width (int2 wraps as PostgreSQL's casts do).
int64_t Wrap(TypeId t, int64_t v) {
  if (t == kInt2) return static_cast<int16_t>(v);
  if (t == kInt4) return static_cast<int32_t>(v);
  return v;
}

template <char kOp>
Result BitOp(Args a, const BoundExpr& e, ExecContext&) {
  int64_t x = a[0].AsInt();
  switch (kOp) {
    case '&': return Value::Int(e.type, x & a[1].AsInt());
    case '|': return Value::Int(e.type, x | a[1].AsInt());
    case '#': return Value::Int(e.type, x ^ a[1].AsInt());
    case '~': return Value::Int(e.type, ~x);
    default: break;
  }
  // Shifts: C semantics of the operand width (the count taken modulo 32 or 64 as x86 does).
  int64_t count = a[1].AsInt() & (e.type == kInt8 ? 63 : 31);
  if (kOp == '<') return Value::Int(e.type, Wrap(e.type, static_cast<int64_t>(static_cast<uint64_t>(x) << count)));
  return Value::Int(e.type, Wrap(e.type, x >> count));
}

}  // namespace

std::span<const Builtin> MathFunctions() {
  static const std::vector<Builtin> kFunctions = {
      {"abs", {kInt2}, kInt2, Abs},
      {"abs", {kInt4}, kInt4, Abs},
      {"abs", {kInt8}, kInt8, Abs},
      {"abs", {kFloat4}, kFloat4, Abs},
      {"abs", {kFloat8}, kFloat8, Abs},
      {"abs", {kNumeric}, kNumeric, Abs},
      {"round", {kFloat8}, kFloat8, FloatRound<std::nearbyint>},
      {"round", {kNumeric}, kNumeric, NumRound},
      {"round", {kNumeric, kInt4}, kNumeric, NumRound},
      {"trunc", {kFloat8}, kFloat8, FloatRound<std::trunc>},
      {"trunc", {kNumeric}, kNumeric, NumTrunc},
      {"trunc", {kNumeric, kInt4}, kNumeric, NumTrunc},
      {"ceil", {kFloat8}, kFloat8, FloatRound<std::ceil>},
      {"ceil", {kNumeric}, kNumeric, NumCeil},
      {"ceiling", {kFloat8}, kFloat8, FloatRound<std::ceil>},
      {"ceiling", {kNumeric}, kNumeric, NumCeil},
      {"floor", {kFloat8}, kFloat8, FloatRound<std::floor>},
      {"floor", {kNumeric}, kNumeric, NumFloor},
      {"sign", {kFloat8}, kFloat8, FloatSign},
      {"sign", {kNumeric}, kNumeric, NumSign},
      {"sqrt", {kFloat8}, kFloat8, FloatSqrt},
      {"sqrt", {kNumeric}, kNumeric, NumSqrt},
      {"cbrt", {kFloat8}, kFloat8, FloatCbrt},
      {"exp", {kFloat8}, kFloat8, FloatExp},
      {"exp", {kNumeric}, kNumeric, NumExp},
      {"ln", {kFloat8}, kFloat8, FloatLog<std::log>},
      {"ln", {kNumeric}, kNumeric, NumLn},
      {"log", {kFloat8}, kFloat8, FloatLog<std::log10>},
      {"log", {kNumeric}, kNumeric, NumLog10},
      {"log", {kNumeric, kNumeric}, kNumeric, NumLog},
      {"log10", {kFloat8}, kFloat8, FloatLog<std::log10>},
      {"log10", {kNumeric}, kNumeric, NumLog10},
      {"power", {kFloat8, kFloat8}, kFloat8, FloatPower},
      {"power", {kNumeric, kNumeric}, kNumeric, NumPower},
      {"pow", {kFloat8, kFloat8}, kFloat8, FloatPower},
      {"pow", {kNumeric, kNumeric}, kNumeric, NumPower},
      {"mod", {kInt2, kInt2}, kInt2, Mod},
      {"mod", {kInt4, kInt4}, kInt4, Mod},
      {"mod", {kInt8, kInt8}, kInt8, Mod},
      {"mod", {kNumeric, kNumeric}, kNumeric, Mod},
      {"div", {kNumeric, kNumeric}, kNumeric, NumDiv},
      {"pi", {}, kFloat8, Pi},
      {"random", {}, kFloat8, Random},
      {"width_bucket", {kFloat8, kFloat8, kFloat8, kInt4}, kInt4, FloatWidthBucket},
      {"width_bucket", {kNumeric, kNumeric, kNumeric, kInt4}, kInt4, NumWidthBucket},
      {"degrees", {kFloat8}, kFloat8, Degrees},
      {"radians", {kFloat8}, kFloat8, Radians},
      // Bound by Binder::BindMinMax over the arguments' common type.
      {"greatest", {}, kUnknown, MinMax<true>, false, true},
      {"least", {}, kUnknown, MinMax<false>, false, true},
  };
  return kFunctions;
}

std::span<const Builtin> MathOperators() {
  static const std::vector<Builtin> kOperators = {
      {"^", {kFloat8, kFloat8}, kFloat8, FloatPower},
      {"^", {kNumeric, kNumeric}, kNumeric, NumPower},
      {"@", {kInt2}, kInt2, Abs},
      {"@", {kInt4}, kInt4, Abs},
      {"@", {kInt8}, kInt8, Abs},
      {"@", {kFloat4}, kFloat4, Abs},
      {"@", {kFloat8}, kFloat8, Abs},
      {"@", {kNumeric}, kNumeric, Abs},
      {"|/", {kFloat8}, kFloat8, FloatSqrt},
      {"||/", {kFloat8}, kFloat8, FloatCbrt},
      {"&", {kInt2, kInt2}, kInt2, BitOp<'&'>},
      {"&", {kInt4, kInt4}, kInt4, BitOp<'&'>},
      {"&", {kInt8, kInt8}, kInt8, BitOp<'&'>},
      {"|", {kInt2, kInt2}, kInt2, BitOp<'|'>},
      {"|", {kInt4, kInt4}, kInt4, BitOp<'|'>},
      {"|", {kInt8, kInt8}, kInt8, BitOp<'|'>},
      {"#", {kInt2, kInt2}, kInt2, BitOp<'#'>},
      {"#", {kInt4, kInt4}, kInt4, BitOp<'#'>},
      {"#", {kInt8, kInt8}, kInt8, BitOp<'#'>},
      {"~", {kInt2}, kInt2, BitOp<'~'>},
      {"~", {kInt4}, kInt4, BitOp<'~'>},
      {"~", {kInt8}, kInt8, BitOp<'~'>},
      {"<<", {kInt2, kInt4}, kInt2, BitOp<'<'>},
      {"<<", {kInt4, kInt4}, kInt4, BitOp<'<'>},
      {"<<", {kInt8, kInt4}, kInt8, BitOp<'<'>},
      {">>", {kInt2, kInt4}, kInt2, BitOp<'>'>},
      {">>", {kInt4, kInt4}, kInt4, BitOp<'>'>},
      {">>", {kInt8, kInt4}, kInt8, BitOp<'>'>},
  };
  return kOperators;
}

}  // namespace farmdb::sql
