#include "sql/exec/numeric_math.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace farmdb::sql {
namespace {

constexpr int kMinSigDigits = 16;        // NUMERIC_MIN_SIG_DIGITS
constexpr int kMaxDisplayScale = 1000;   // NUMERIC_MAX_DISPLAY_SCALE
constexpr int kMaxResultScale = 2000;    // NUMERIC_MAX_RESULT_SCALE

// The decimal exponent of the leading digit (floor(log10|n|)); 0 for zero.
int DecimalWeight(const Numeric& n) {
  if (n.IsZero()) return 0;
  return static_cast<int>(n.digits().size()) - n.scale() - 1;
}

// numeric.c's `weight`: the position of the leading base-10000 digit.
int NbaseWeight(const Numeric& n) {
  int w = DecimalWeight(n);
  return w >= 0 ? w / 4 : -((-w + 3) / 4);
}

int ClampScale(int rscale, int at_least) {
  return std::min(std::max({rscale, at_least, 0}), kMaxDisplayScale);
}

long double ToLongDouble(const Numeric& n) { return std::strtold(n.ToString().c_str(), nullptr); }

std::expected<Value, Error> FromLongDouble(long double v, int rscale) {
  if (!std::isfinite(v)) return std::unexpected(MakeError("22003", "value overflows numeric format"));
  auto n = Numeric::Parse(fmt::format("{:.{}f}", v, rscale));
  if (!n) return std::unexpected(n.error());
  return Value::Num(n->Round(rscale));
}

// ln(n) for n > 0 from its leading digits and decimal exponent, so numerics beyond long
// double's range (1e4932) still have one.
long double LnOf(const Numeric& n) {
  std::string_view digits = n.digits();
  size_t lead = std::min<size_t>(digits.size(), 19);
  long double mantissa = std::strtold(std::string(digits.substr(0, lead)).c_str(), nullptr);
  long double exponent = static_cast<long double>(DecimalWeight(n)) - static_cast<long double>(lead - 1);
  return std::log(mantissa) + exponent * std::log(10.0L);
}

// estimate_ln_dweight: the decimal weight of ln(n), to choose result scales.
int LnWeight(const Numeric& n) {
  if (n.negative() || n.IsZero()) return 0;
  long double v = ToLongDouble(n);
  if (v >= 0.9L && v <= 1.1L) {
    Numeric x = n.Sub(Numeric::FromInt(1));
    return x.IsZero() ? 0 : DecimalWeight(x);
  }
  return static_cast<int>(std::log10(std::fabs(LnOf(n))));
}

std::expected<void, Error> CheckLogArg(const Numeric& n) {
  if (n.IsZero()) return std::unexpected(MakeError("2201E", "cannot take logarithm of zero"));
  if (n.negative()) return std::unexpected(MakeError("2201E", "cannot take logarithm of a negative number"));
  return {};
}

bool IsInteger(const Numeric& n) { return NumericTrunc(n, 0).Compare(n) == 0; }

}  // namespace

Numeric NumericTrunc(const Numeric& n, int scale) {
  if (n.IsNaN() || scale >= n.scale()) return n.Round(scale);  // nothing to drop; pads the scale
  // n - (n mod 10^-scale) drops the digits past `scale`, keeping the sign (mod follows n).
  auto step = Numeric::Parse(fmt::format("1e{}", -scale));
  if (!step) return Numeric::FromInt(0);  // a step beyond numeric's range: nothing is left
  auto rest = n.Mod(*step);
  return n.Sub(*rest).Round(scale);
}

Numeric NumericCeilFloor(const Numeric& n, bool ceil) {
  if (n.IsNaN()) return n;
  Numeric t = NumericTrunc(n, 0);
  auto c = n.Compare(t);
  if (ceil && c > 0) return t.Add(Numeric::FromInt(1));
  if (!ceil && c < 0) return t.Sub(Numeric::FromInt(1));
  return t;
}

Numeric ScaledNumeric(const Numeric& integer, int scale) {
  std::string digits(integer.digits());
  if (static_cast<int>(digits.size()) <= scale) digits = std::string(scale - digits.size() + 1, '0') + digits;
  size_t point = digits.size() - scale;
  return *Numeric::Parse((integer.negative() ? "-" : "") + digits.substr(0, point) + "." + digits.substr(point));
}

std::expected<Value, Error> NumericSqrt(const Numeric& n) {
  if (n.IsNaN()) return Value::Num(n);
  if (n.negative()) return std::unexpected(MakeError("2201F", "cannot take square root of a negative number"));
  int sweight = (NbaseWeight(n) + 1) * 4 / 2 - 1;
  int rscale = ClampScale(kMinSigDigits - sweight, n.scale());
  if (n.IsZero()) return Value::Num(n.Round(rscale));
  // floor(sqrt(n) * 10^(rscale + 1)) = isqrt(floor(n * 10^(2 * rscale + 2))), by Newton's
  // iteration on integers from a start above the root; then round off the extra digit.
  int shift = 2 * (rscale + 1) - n.scale();
  Numeric m = shift >= 0 ? *Numeric::Parse(std::string(n.digits()) + std::string(shift, '0'))
                         : NumericTrunc(*Numeric::Parse(std::string(n.digits()) + "e" + std::to_string(shift)), 0);
  if (m.IsZero()) return Value::Num(Numeric::FromInt(0).Round(rscale));
  auto integer_div = [](const Numeric& a, const Numeric& b) {
    return NumericTrunc(*a.Sub(*a.Mod(b)).Div(b), 0);
  };
  Numeric x = *Numeric::Parse("1" + std::string((m.digits().size() + 1) / 2, '0'));  // > sqrt(m)
  const Numeric two = Numeric::FromInt(2);
  while (true) {
    Numeric y = integer_div(x.Add(integer_div(m, x)), two);
    if (y.Compare(x) >= 0) break;
    x = y;
  }
  return Value::Num(ScaledNumeric(x, rscale + 1).Round(rscale));
}

std::expected<Value, Error> NumericExp(const Numeric& n) {
  if (n.IsNaN()) return Value::Num(n);
  long double x = ToLongDouble(n);
  double weight = std::clamp(static_cast<double>(x) * 0.434294481903252, double{-kMaxResultScale}, double{kMaxResultScale});
  return FromLongDouble(std::exp(x), ClampScale(kMinSigDigits - static_cast<int>(weight), n.scale()));
}

std::expected<Value, Error> NumericLn(const Numeric& n) {
  if (n.IsNaN()) return Value::Num(n);
  if (auto ok = CheckLogArg(n); !ok) return std::unexpected(ok.error());
  return FromLongDouble(LnOf(n), ClampScale(kMinSigDigits - LnWeight(n), n.scale()));
}

std::expected<Value, Error> NumericLog(const Numeric& base, const Numeric& n) {
  if (base.IsNaN()) return Value::Num(base);
  if (n.IsNaN()) return Value::Num(n);
  if (auto ok = CheckLogArg(base); !ok) return std::unexpected(ok.error());
  if (auto ok = CheckLogArg(n); !ok) return std::unexpected(ok.error());
  long double ln_base = LnOf(base);
  if (ln_base == 0) return std::unexpected(MakeError("22012", "division by zero"));
  int rscale = ClampScale(kMinSigDigits - (LnWeight(n) - LnWeight(base)), std::max(base.scale(), n.scale()));
  return FromLongDouble(LnOf(n) / ln_base, rscale);
}

std::expected<Value, Error> NumericPower(const Numeric& base, const Numeric& exp) {
  // numeric_power's NaN rules: 1 ^ NaN and NaN ^ 0 are 1.
  if (base.IsNaN()) return Value::Num(exp.IsZero() ? Numeric::FromInt(1) : base);
  if (exp.IsNaN()) return Value::Num(base.Compare(Numeric::FromInt(1)) == 0 ? Numeric::FromInt(1) : exp);
  if (base.IsZero() && exp.negative()) {
    return std::unexpected(MakeError("2201F", "zero raised to a negative power is undefined"));
  }
  bool integral = IsInteger(exp);
  if (base.negative() && !integral) {
    return std::unexpected(MakeError("2201F", "a negative number raised to a non-integer power yields a complex result"));
  }
  long double x = ToLongDouble(exp);
  auto exp_int = integral ? exp.ToInt64() : std::nullopt;
  if (exp_int && *exp_int >= INT32_MIN && *exp_int <= INT32_MAX) {
    // power_var's integer case: NUMERIC_MIN_SIG_DIGITS after the point, or the base's scale.
    double f = base.IsZero() ? 0 : static_cast<double>(*exp_int * (LnOf(base) / std::log(10.0L)));
    if (f > 32768.0 * 4) return std::unexpected(MakeError("22003", "value overflows numeric format"));
    int rscale = ClampScale(kMinSigDigits, base.scale());
    // A result far below the last digit kept is zero; computing |base|^|exp| first would not end.
    if (f < -(rscale + 1.0)) return Value::Num(Numeric::FromInt(0).Round(rscale));
    // power_var_int: repeated squaring, each step rounded to enough significant digits for
    // the final rscale (1 + rscale + result weight + ln|exp| + 8, as numeric.c sizes them).
    int64_t n = *exp_int < 0 ? -*exp_int : *exp_int;
    int sig_digits = 1 + rscale + static_cast<int>(f) + static_cast<int>(std::log(static_cast<double>(std::max<int64_t>(n, 1)))) + 8;
    auto keep = [&](const Numeric& v) { return v.Round(std::max(sig_digits - DecimalWeight(v) - 1, rscale)); };
    Numeric result = Numeric::FromInt(1), square = base;
    for (int64_t e = n; e > 0; e >>= 1) {
      if (e & 1) result = keep(result.Mul(square));
      if (e > 1) square = keep(square.Mul(square));
    }
    if (*exp_int < 0) {
      auto inverse = Numeric::FromInt(1).Div(result);
      if (!inverse) return std::unexpected(inverse.error());
      result = *inverse;
    }
    return Value::Num(result.Round(rscale));
  }
  if (base.IsZero()) return Value::Num(Numeric::FromInt(0).Round(kMinSigDigits));
  // 1 ^ x is 1 for any x (an infinite x would make ln(1) * x NaN below).
  if (base.Compare(Numeric::FromInt(1)) == 0) {
    return Value::Num(base.Round(ClampScale(kMinSigDigits, std::max(base.scale(), exp.scale()))));
  }
  long double ln_num = LnOf(base) * x;
  double weight = static_cast<double>(ln_num) * 0.434294481903252;
  if (weight > 32768.0 * 4) return std::unexpected(MakeError("22003", "value overflows numeric format"));
  // Far below any scale shown: zero at NUMERIC_MAX_DISPLAY_SCALE, as power_var gives it.
  if (weight < -kMaxResultScale) return Value::Num(Numeric::FromInt(0).Round(kMaxDisplayScale));
  int rscale = ClampScale(kMinSigDigits - static_cast<int>(weight), std::max(base.scale(), exp.scale()));
  return FromLongDouble(std::exp(ln_num), rscale);
}

}  // namespace farmdb::sql
