#include "types/numeric.h"

#include <algorithm>
#include <cstdlib>
#include <vector>

namespace farmdb {
namespace {

// Magnitudes are decimal digit strings without leading zeros ("" is zero).
int CompareMag(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
  int c = a.compare(b);
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

std::string Strip(std::string s) {
  size_t i = s.find_first_not_of('0');
  return i == std::string::npos ? std::string() : s.substr(i);
}

std::string AddMag(std::string_view a, std::string_view b) {
  std::string out;
  int carry = 0;
  for (size_t i = 0; i < std::max(a.size(), b.size()) || carry; ++i) {
    int d = carry;
    if (i < a.size()) d += a[a.size() - 1 - i] - '0';
    if (i < b.size()) d += b[b.size() - 1 - i] - '0';
    out.push_back(static_cast<char>('0' + d % 10));
    carry = d / 10;
  }
  std::reverse(out.begin(), out.end());
  return Strip(std::move(out));
}

// REQUIRES: a >= b.
std::string SubMag(std::string_view a, std::string_view b) {
  std::string out;
  int borrow = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    int d = (a[a.size() - 1 - i] - '0') - borrow;
    if (i < b.size()) d -= b[b.size() - 1 - i] - '0';
    borrow = d < 0;
    out.push_back(static_cast<char>('0' + (d + 10) % 10));
  }
  std::reverse(out.begin(), out.end());
  return Strip(std::move(out));
}

std::string MulMag(std::string_view a, std::string_view b) {
  if (a.empty() || b.empty()) return {};
  std::vector<int> acc(a.size() + b.size(), 0);
  for (size_t i = 0; i < a.size(); ++i) {
    for (size_t j = 0; j < b.size(); ++j) {
      acc[i + j + 1] += (a[i] - '0') * (b[j] - '0');
    }
  }
  for (size_t k = acc.size() - 1; k > 0; --k) {
    acc[k - 1] += acc[k] / 10;
    acc[k] %= 10;
  }
  std::string out;
  for (int d : acc) out.push_back(static_cast<char>('0' + d));
  return Strip(std::move(out));
}

// Schoolbook long division; REQUIRES: b non-zero. Returns {quotient, remainder}.
std::pair<std::string, std::string> DivModMag(std::string_view a, std::string_view b) {
  std::string quotient;
  std::string rem;
  for (char c : a) {
    rem = Strip(rem + c);
    int q = 0;
    while (CompareMag(rem, b) >= 0) {
      rem = SubMag(rem, b);
      ++q;
    }
    quotient.push_back(static_cast<char>('0' + q));
  }
  return {Strip(std::move(quotient)), rem};
}

std::string Shift(std::string_view digits, int zeros) {
  if (digits.empty()) return {};
  return std::string(digits) + std::string(static_cast<size_t>(zeros), '0');
}

int FloorDiv(int a, int b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

Error NumericSyntax(std::string_view text) {
  return MakeError("22P02", "invalid input syntax for type numeric: \"" + std::string(text) + "\"");
}

constexpr int kMaxScale = 1000;      // NUMERIC_MAX_DISPLAY_SCALE
constexpr int kMaxDscale = 0x3FFF;   // NUMERIC_DSCALE_MAX
constexpr long kMaxExponent = 131072;  // beyond NUMERIC_WEIGHT_MAX's reach either way
constexpr int kMinSigDigits = 16;    // NUMERIC_MIN_SIG_DIGITS
constexpr int kDecDigits = 4;        // decimal digits per base-10000 digit
constexpr int kSignNeg = 0x4000;
constexpr int kSignNaN = 0xC000;

}  // namespace

Numeric Numeric::FromInt(int64_t value) {
  Numeric n;
  n.negative_ = value < 0;
  uint64_t mag = value < 0 ? 0 - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
  n.digits_ = mag == 0 ? std::string() : std::to_string(mag);
  return n;
}

Numeric Numeric::NaN() {
  Numeric n;
  n.nan_ = true;
  return n;
}

void Numeric::Normalize() {
  digits_ = Strip(std::move(digits_));
  if (digits_.empty()) negative_ = false;
}

std::expected<Numeric, Error> Numeric::Parse(std::string_view text) {
  std::string_view s = text;
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  if (s.size() == 3 && (s[0] | 0x20) == 'n' && (s[1] | 0x20) == 'a' && (s[2] | 0x20) == 'n') {
    return NaN();
  }
  Numeric n;
  size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) n.negative_ = s[i++] == '-';
  std::string mantissa;
  int frac = 0;
  bool seen_point = false;
  bool seen_digit = false;
  for (; i < s.size(); ++i) {
    if (std::isdigit(static_cast<unsigned char>(s[i]))) {
      mantissa.push_back(s[i]);
      seen_digit = true;
      if (seen_point) ++frac;
    } else if (s[i] == '.' && !seen_point) {
      seen_point = true;
    } else {
      break;
    }
  }
  if (!seen_digit) return std::unexpected(NumericSyntax(text));
  long exponent = 0;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    bool exp_neg = false;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) exp_neg = s[i++] == '-';
    if (i == s.size()) return std::unexpected(NumericSyntax(text));
    for (; i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); ++i) {
      exponent = exponent * 10 + (s[i] - '0');
      if (exponent > kMaxExponent) {
        return std::unexpected(MakeError("22003", "value overflows numeric format"));
      }
    }
    if (exp_neg) exponent = -exponent;
  }
  if (i != s.size()) return std::unexpected(NumericSyntax(text));
  long shift = exponent - frac;
  if (shift >= 0) {
    n.digits_ = Shift(Strip(mantissa), static_cast<int>(shift));
    n.scale_ = 0;
  } else {
    n.digits_ = mantissa;
    n.scale_ = static_cast<int>(-shift);
  }
  n.Normalize();
  return n;
}

std::string Numeric::ToString() const {
  if (nan_) return "NaN";
  std::string d = digits_;
  if (d.size() <= static_cast<size_t>(scale_)) d.insert(0, scale_ + 1 - d.size(), '0');
  if (scale_ > 0) d.insert(d.size() - scale_, 1, '.');
  return negative_ ? "-" + d : d;
}

namespace {

// The decimal digit at 10^position of an unscaled magnitude with the given scale.
int DigitAt(std::string_view digits, int scale, int position) {
  long index = static_cast<long>(digits.size()) - 1 - (position + scale);
  if (index < 0 || index >= static_cast<long>(digits.size())) return 0;
  return digits[index] - '0';
}

// Base-10000 form, as numeric.c's NumericVar: weight of the first digit and the digits.
struct Base10000 {
  int weight = 0;
  std::vector<int> digits;
};

Base10000 ToBase10000(std::string_view digits, int scale) {
  Base10000 out;
  if (digits.empty()) return out;
  int top = static_cast<int>(digits.size()) - 1 - scale;
  out.weight = FloorDiv(top, kDecDigits);
  int bottom = FloorDiv(-scale, kDecDigits);
  out.digits.reserve(out.weight - bottom + 1);
  for (int g = out.weight; g >= bottom; --g) {
    int v = 0;
    for (int p = kDecDigits - 1; p >= 0; --p) v = v * 10 + DigitAt(digits, scale, g * kDecDigits + p);
    out.digits.push_back(v);
  }
  while (!out.digits.empty() && out.digits.back() == 0) out.digits.pop_back();
  return out;
}

void PutInt16(std::string& out, int v) {
  out.push_back(static_cast<char>((v >> 8) & 0xff));
  out.push_back(static_cast<char>(v & 0xff));
}

}  // namespace

std::string Numeric::EncodeBinary() const {
  std::string out;
  if (nan_) {
    for (int v : {0, 0, kSignNaN, 0}) PutInt16(out, v);
    return out;
  }
  Base10000 b = ToBase10000(digits_, scale_);
  out.reserve(2 * (4 + b.digits.size()));
  PutInt16(out, static_cast<int>(b.digits.size()));
  PutInt16(out, b.weight);
  PutInt16(out, negative_ ? kSignNeg : 0);
  PutInt16(out, scale_);
  for (int d : b.digits) PutInt16(out, d);
  return out;
}

std::expected<Numeric, Error> Numeric::DecodeBinary(BinaryReader& reader) {
  // numeric_recv reads field by field, so a bad sign or scale is reported before missing
  // digits are noticed.
  auto ndigits = reader.Read<uint16_t>();
  if (!ndigits) return std::unexpected(ndigits.error());
  auto weight = reader.Read<int16_t>();
  if (!weight) return std::unexpected(weight.error());
  auto sign = reader.Read<uint16_t>();
  if (!sign) return std::unexpected(sign.error());
  // Infinities (PostgreSQL 15's 0xD000/0xF000) have no farmdb representation yet.
  if (*sign != 0 && *sign != kSignNeg && *sign != kSignNaN) {
    return std::unexpected(MakeError("22P03", "invalid sign in external \"numeric\" value"));
  }
  auto dscale = reader.Read<uint16_t>();
  if (!dscale) return std::unexpected(dscale.error());
  if (*dscale > kMaxDscale) {
    return std::unexpected(MakeError("22P03", "invalid scale in external \"numeric\" value"));
  }
  std::vector<int16_t> groups;
  groups.reserve(*ndigits);
  for (int i = 0; i < *ndigits; ++i) {
    auto d = reader.Read<int16_t>();
    if (!d) return std::unexpected(d.error());
    if (*d < 0 || *d >= 10000) {
      return std::unexpected(MakeError("22P03", "invalid digit in external \"numeric\" value"));
    }
    groups.push_back(*d);
  }
  if (*sign == kSignNaN) return NaN();
  Numeric n;
  n.negative_ = *sign == kSignNeg;
  n.scale_ = *dscale;
  // Decimal digits from 10^top down to 10^low; group g holds 10^(4 * (weight - g)) .. +3, and
  // positions no group covers are 0.
  int top = *weight * kDecDigits + kDecDigits - 1;
  int low = -static_cast<int>(*dscale);
  if (top >= low) {  // else every digit kept is zero
    n.digits_.assign(top - low + 1, '0');
    for (int g = 0; g < static_cast<int>(groups.size()); ++g) {
      int v = groups[g];
      for (int pos = (*weight - g) * kDecDigits; v != 0; ++pos, v /= 10) {
        if (pos >= low && pos <= top) n.digits_[top - pos] = static_cast<char>('0' + v % 10);
      }
    }
  }
  n.Normalize();
  return n;
}

std::strong_ordering Numeric::Compare(const Numeric& other) const {
  if (nan_ || other.nan_) return nan_ == other.nan_ ? std::strong_ordering::equal
                                 : (nan_ ? std::strong_ordering::greater : std::strong_ordering::less);
  if (negative_ != other.negative_) {
    return negative_ ? std::strong_ordering::less : std::strong_ordering::greater;
  }
  int s = std::max(scale_, other.scale_);
  int c = CompareMag(Shift(digits_, s - scale_), Shift(other.digits_, s - other.scale_));
  if (negative_) c = -c;
  return c < 0 ? std::strong_ordering::less
               : (c > 0 ? std::strong_ordering::greater : std::strong_ordering::equal);
}

Numeric Numeric::Add(const Numeric& other) const {
  if (nan_ || other.nan_) return NaN();
  Numeric r;
  r.scale_ = std::max(scale_, other.scale_);
  std::string a = Shift(digits_, r.scale_ - scale_);
  std::string b = Shift(other.digits_, r.scale_ - other.scale_);
  if (negative_ == other.negative_) {
    r.digits_ = AddMag(a, b);
    r.negative_ = negative_;
  } else if (CompareMag(a, b) >= 0) {
    r.digits_ = SubMag(a, b);
    r.negative_ = negative_;
  } else {
    r.digits_ = SubMag(b, a);
    r.negative_ = other.negative_;
  }
  r.Normalize();
  return r;
}

Numeric Numeric::Negate() const {
  Numeric r = *this;
  if (!nan_ && !digits_.empty()) r.negative_ = !negative_;
  return r;
}

Numeric Numeric::Abs() const {
  Numeric r = *this;
  r.negative_ = false;
  return r;
}

Numeric Numeric::Sub(const Numeric& other) const { return Add(other.Negate()); }

Numeric Numeric::Mul(const Numeric& other) const {
  if (nan_ || other.nan_) return NaN();
  Numeric r;
  r.digits_ = MulMag(digits_, other.digits_);
  r.scale_ = scale_ + other.scale_;
  r.negative_ = negative_ != other.negative_;
  r.Normalize();
  return r;
}

std::expected<Numeric, Error> Numeric::Div(const Numeric& other) const {
  if (nan_ || other.nan_) return NaN();
  if (other.IsZero()) return std::unexpected(MakeError("22012", "division by zero"));
  // select_div_scale: at least 16 significant digits, and no less than either input's scale.
  Base10000 a = ToBase10000(digits_, scale_);
  Base10000 b = ToBase10000(other.digits_, other.scale_);
  int first_a = a.digits.empty() ? 0 : a.digits.front();
  int weight_a = a.digits.empty() ? 0 : a.weight;
  int qweight = weight_a - b.weight;
  if (first_a <= b.digits.front()) --qweight;
  int rscale = kMinSigDigits - qweight * kDecDigits;
  rscale = std::clamp(std::max({rscale, scale_, other.scale_}), 0, kMaxScale);
  // One guard digit, then round half away from zero.
  int e = rscale + 1 + other.scale_ - scale_;
  std::string num = e >= 0 ? Shift(digits_, e) : digits_;
  std::string den = e >= 0 ? other.digits_ : Shift(other.digits_, -e);
  std::string q = DivModMag(num, den).first;
  bool round_up = !q.empty() && q.back() >= '5';
  if (!q.empty()) q.pop_back();
  if (round_up) q = AddMag(q, "1");
  Numeric r;
  r.digits_ = std::move(q);
  r.scale_ = rscale;
  r.negative_ = negative_ != other.negative_;
  r.Normalize();
  return r;
}

std::expected<Numeric, Error> Numeric::Mod(const Numeric& other) const {
  if (nan_ || other.nan_) return NaN();
  if (other.IsZero()) return std::unexpected(MakeError("22012", "division by zero"));
  Numeric r;
  r.scale_ = std::max(scale_, other.scale_);
  r.digits_ = DivModMag(Shift(digits_, r.scale_ - scale_), Shift(other.digits_, r.scale_ - other.scale_)).second;
  r.negative_ = negative_;
  r.Normalize();
  return r;
}

Numeric Numeric::Round(int scale) const {
  if (nan_) return *this;
  Numeric r = *this;
  if (scale >= scale_) {
    r.digits_ = Shift(digits_, scale - scale_);
    r.scale_ = scale;
    return r;
  }
  int drop = scale_ - scale;
  std::string kept = digits_.size() > static_cast<size_t>(drop)
                         ? digits_.substr(0, digits_.size() - drop) : std::string();
  bool round_up = DigitAt(digits_, scale_, -scale - 1) >= 5;
  kept = Strip(std::move(kept));
  if (round_up) kept = AddMag(kept, "1");
  r.digits_ = scale >= 0 ? kept : Shift(kept, -scale);
  r.scale_ = std::max(scale, 0);
  r.Normalize();
  return r;
}

std::optional<int64_t> Numeric::ToInt64() const {
  if (nan_) return std::nullopt;
  Numeric r = Round(0);
  if (r.digits_.size() > 19) return std::nullopt;
  uint64_t mag = r.digits_.empty() ? 0 : std::stoull(r.digits_);
  uint64_t limit = r.negative_ ? (uint64_t{1} << 63) : (uint64_t{1} << 63) - 1;
  if (mag > limit) return std::nullopt;
  return r.negative_ ? static_cast<int64_t>(0 - mag) : static_cast<int64_t>(mag);
}

double Numeric::ToDouble() const {
  if (nan_) return std::strtod("nan", nullptr);
  return std::strtod(ToString().c_str(), nullptr);
}

}  // namespace farmdb
