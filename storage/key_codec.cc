#include "storage/key_codec.h"

#include <bit>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <variant>

#include "storage/row.h"

namespace farmdb::storage {
namespace {

// Column markers before inversion. A NULL sorts below values when it must come first in the
// final order of an ascending column, or last in a descending one (inversion flips it).
constexpr uint8_t kNullLow = 0x00;
constexpr uint8_t kValue = 0x01;
constexpr uint8_t kNullHigh = 0x02;

// Numeric sign classes: negative < zero < positive < NaN (PostgreSQL: NaN above all numbers).
constexpr uint8_t kNumNegative = 0x01;
constexpr uint8_t kNumZero = 0x02;
constexpr uint8_t kNumPositive = 0x03;
constexpr uint8_t kNumNaN = 0x04;
// Digit pairs are bytes 1..100 (1 + 10*a + b); 0 ends the digits, below any pair, so a shorter
// digit string sorts first (its missing digits are zeros and it has no trailing zeros).
constexpr uint8_t kDigitsEnd = 0x00;

uint8_t NullMarker(const KeyColumn& c) { return c.nulls_first == c.descending ? kNullHigh : kNullLow; }

void AppendU64(std::string& out, uint64_t v) {
  if constexpr (std::endian::native == std::endian::little) v = std::byteswap(v);
  char buf[8];
  std::memcpy(buf, &v, 8);
  out.append(buf, 8);
}

uint64_t IntBits(int64_t v) { return static_cast<uint64_t>(v) ^ (uint64_t{1} << 63); }

// IEEE doubles order like sign-magnitude integers: flip the sign bit of positives, invert
// negatives. -0 is folded into 0 and every NaN into the positive quiet NaN, above +Infinity.
uint64_t FloatBits(double d) {
  if (d == 0) d = 0;  // -0 -> +0
  if (d != d) d = std::numeric_limits<double>::quiet_NaN();
  uint64_t bits = std::bit_cast<uint64_t>(d);
  return (bits >> 63) ? ~bits : bits | (uint64_t{1} << 63);
}

double FloatFromBits(uint64_t bits) {
  return std::bit_cast<double>((bits >> 63) ? bits & ~(uint64_t{1} << 63) : ~bits);
}

// Numeric: value = 0.d1d2...dk * 10^exponent with d1 != 0 and dk != 0 (k significant digits).
// For equal signs, order is by exponent, then digits; negatives invert both.
void AppendNumeric(std::string& out, const Numeric& n) {
  if (n.IsNaN()) {
    out.push_back(static_cast<char>(kNumNaN));
    return;
  }
  std::string_view digits = n.digits();
  size_t first = digits.find_first_not_of('0');
  if (first == std::string_view::npos) {
    out.push_back(static_cast<char>(kNumZero));
    return;
  }
  digits.remove_prefix(first);
  int32_t exponent = static_cast<int32_t>(digits.size()) - n.scale();
  digits = digits.substr(0, digits.find_last_not_of('0') + 1);
  const uint8_t mask = n.negative() ? 0xFF : 0x00;
  out.push_back(static_cast<char>(n.negative() ? kNumNegative : kNumPositive));
  uint32_t e = static_cast<uint32_t>(exponent) ^ (uint32_t{1} << 31);
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>(((e >> shift) & 0xFF) ^ mask));
  for (size_t i = 0; i < digits.size(); i += 2) {
    int a = digits[i] - '0';
    int b = i + 1 < digits.size() ? digits[i + 1] - '0' : 0;
    out.push_back(static_cast<char>((1 + 10 * a + b) ^ mask));
  }
  out.push_back(static_cast<char>(kDigitsEnd ^ mask));
}

void AppendString(std::string& out, std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    size_t zero = s.find('\0', i);
    if (zero == std::string_view::npos) zero = s.size();
    out.append(s.data() + i, zero - i);
    if (zero < s.size()) out.append("\x00\xFF", 2);
    i = zero + 1;
  }
  out.append("\x00\x00", 2);
}

// Reads a key column by column, undoing a descending column's inversion byte by byte.
class KeyReader {
 public:
  explicit KeyReader(std::string_view key) : key_(key) {}
  void SetMask(uint8_t mask) { mask_ = mask; }
  bool AtEnd() const { return pos_ == key_.size(); }
  bool Byte(uint8_t& b) {
    if (pos_ >= key_.size()) return false;
    b = static_cast<uint8_t>(key_[pos_++]) ^ mask_;
    return true;
  }
  bool U64(uint64_t& v) {
    v = 0;
    for (int i = 0; i < 8; ++i) {
      uint8_t b;
      if (!Byte(b)) return false;
      v = (v << 8) | b;
    }
    return true;
  }
  bool String(std::string& s) {
    for (;;) {
      uint8_t b;
      if (!Byte(b)) return false;
      if (b != 0) {
        s.push_back(static_cast<char>(b));
        continue;
      }
      if (!Byte(b)) return false;
      if (b == 0x00) return true;
      if (b != 0xFF) return false;
      s.push_back('\0');
    }
  }

 private:
  std::string_view key_;
  size_t pos_ = 0;
  uint8_t mask_ = 0;
};

// Rebuilds the minimal-scale numeric as text "[-]0.<digits>e<exponent>" for Numeric::Parse,
// whose numeric_in rule (dscale = max(0, fraction digits - exponent)) gives the minimal scale.
std::optional<Numeric> ReadNumeric(KeyReader& r) {
  uint8_t sign;
  if (!r.Byte(sign)) return std::nullopt;
  if (sign == kNumNaN) return Numeric::NaN();
  if (sign == kNumZero) return Numeric();
  if (sign != kNumNegative && sign != kNumPositive) return std::nullopt;
  const uint8_t mask = sign == kNumNegative ? 0xFF : 0x00;
  uint32_t e = 0;
  for (int i = 0; i < 4; ++i) {
    uint8_t b;
    if (!r.Byte(b)) return std::nullopt;
    e = (e << 8) | (b ^ mask);
  }
  int32_t exponent = static_cast<int32_t>(e ^ (uint32_t{1} << 31));
  std::string text = sign == kNumNegative ? "-0." : "0.";
  for (;;) {
    uint8_t b;
    if (!r.Byte(b)) return std::nullopt;
    b ^= mask;
    if (b == kDigitsEnd) break;
    if (b > 100) return std::nullopt;
    text.push_back(static_cast<char>('0' + (b - 1) / 10));
    text.push_back(static_cast<char>('0' + (b - 1) % 10));
  }
  if (text.back() == '0') text.pop_back();  // the odd-length pad
  if (text.back() == '.' || text.back() == '0') return std::nullopt;  // no digits / not minimal
  text += 'e' + std::to_string(exponent);
  auto n = Numeric::Parse(text);
  if (!n) return std::nullopt;
  return std::move(*n);
}

std::optional<Value> ReadValue(KeyReader& r, TypeId type) {
  switch (type) {
    case TypeId::kBool: {
      uint8_t b;
      if (!r.Byte(b) || b > 1) return std::nullopt;
      return Value::Bool(b == 1);
    }
    case TypeId::kInt2:
    case TypeId::kInt4:
    case TypeId::kInt8:
    case TypeId::kDate:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kOid:
    case TypeId::kRegclass:
    case TypeId::kRegtype:
    case TypeId::kRegproc:
    case TypeId::kRegnamespace: {
      uint64_t v;
      if (!r.U64(v)) return std::nullopt;
      return Value::Int(type, static_cast<int64_t>(v ^ (uint64_t{1} << 63)));
    }
    case TypeId::kFloat4:
    case TypeId::kFloat8: {
      uint64_t v;
      if (!r.U64(v)) return std::nullopt;
      return Value::Float(type, FloatFromBits(v));
    }
    case TypeId::kNumeric: {
      std::optional<Numeric> n = ReadNumeric(r);
      if (!n) return std::nullopt;
      return Value::Num(std::move(*n));
    }
    case TypeId::kUnknown:
    case TypeId::kText:
    case TypeId::kVarchar:
    case TypeId::kBpchar:  // comes back without its padding (see AppendKeyColumn)
    case TypeId::kName:
    case TypeId::kBytea:
    case TypeId::kChar:
    case TypeId::kPgNodeTree:
    case TypeId::kVoid:
    case TypeId::kAclitem: {
      std::string s;
      if (!r.String(s)) return std::nullopt;
      return Value::Str(type, std::move(s));
    }
    // Containers and pseudo-types: no column has one (the DDL checks IsStorable).
    FARMDB_UNSTORABLE_TYPE_CASES:
      return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace

std::optional<size_t> MaxKeyColumnBytes(TypeId type) {
  // A marker byte, then one byte for bool and eight for every other fixed-width type.
  if (IsVariableWidth(type)) return std::nullopt;
  return type == TypeId::kBool ? 2 : 9;
}

void AppendKeyColumn(std::string& out, const Value& v, const KeyColumn& c) {
  const size_t start = out.size();
  if (v.IsNull()) {
    out.push_back(static_cast<char>(NullMarker(c)));
  } else {
    out.push_back(static_cast<char>(kValue));
    switch (c.type) {
      case TypeId::kBool:
        out.push_back(v.AsBool() ? 1 : 0);
        break;
      case TypeId::kInt2:
      case TypeId::kInt4:
      case TypeId::kInt8:
      case TypeId::kDate:
      case TypeId::kTimestamp:
      case TypeId::kTimestampTz:
      case TypeId::kOid:
      case TypeId::kRegclass:
      case TypeId::kRegtype:
      case TypeId::kRegproc:
      case TypeId::kRegnamespace:
        AppendU64(out, IntBits(v.AsInt()));
        break;
      case TypeId::kFloat4:
      case TypeId::kFloat8:
        AppendU64(out, FloatBits(v.AsFloat()));
        break;
      case TypeId::kNumeric:
        AppendNumeric(out, v.AsNumeric());
        break;
      case TypeId::kUnknown:
      case TypeId::kText:
      case TypeId::kVarchar:
      case TypeId::kName:
      case TypeId::kBytea:
      case TypeId::kChar:
      case TypeId::kPgNodeTree:
      case TypeId::kVoid:
      case TypeId::kAclitem:
        AppendString(out, v.AsString());
        break;
      // Containers and pseudo-types: no column has one (the DDL checks IsStorable).
      FARMDB_UNSTORABLE_TYPE_CASES:
        std::abort();
      case TypeId::kBpchar: {
        // bpchar compares without trailing blanks ('a' = 'a  '), so its key drops them.
        AppendString(out, TrimTrailingBlanks(v.AsString()));
        break;
      }
    }
  }
  if (c.descending) {
    for (size_t i = start; i < out.size(); ++i) out[i] = static_cast<char>(~out[i]);
  }
}

std::string EncodeKey(std::span<const Value> values, std::span<const KeyColumn> columns) {
  // One allocation for the common key: the marker plus 8 bytes covers every fixed-width column,
  // and strings (plus their terminator) are sized exactly when free of 0x00.
  size_t size_hint = 0;
  for (const Value& v : values) {
    size_hint += 9;
    if (const auto* s = std::get_if<std::string>(&v.data)) size_hint += s->size();
  }
  std::string out;
  out.reserve(size_hint);
  for (size_t i = 0; i < values.size(); ++i) AppendKeyColumn(out, values[i], columns[i]);
  return out;
}

StorageResult<std::vector<Value>> DecodeKey(std::string_view key, std::span<const KeyColumn> columns) {
  KeyReader r(key);
  std::vector<Value> values;
  values.reserve(columns.size());
  for (const KeyColumn& c : columns) {
    r.SetMask(c.descending ? 0xFF : 0x00);
    uint8_t marker;
    if (!r.Byte(marker)) return Failure(StorageError::Code::kCorrupt);
    if (marker == NullMarker(c)) {
      values.push_back(Value::Null(c.type));
      continue;
    }
    if (marker != kValue) return Failure(StorageError::Code::kCorrupt);
    std::optional<Value> v = ReadValue(r, c.type);
    if (!v) return Failure(StorageError::Code::kCorrupt);
    values.push_back(std::move(*v));
  }
  if (!r.AtEnd()) return Failure(StorageError::Code::kCorrupt);
  return values;
}

std::string PrefixSuccessor(std::string_view prefix) {
  size_t end = prefix.find_last_not_of('\xFF');
  if (end == std::string_view::npos) return {};
  std::string out(prefix.substr(0, end + 1));
  out.back() = static_cast<char>(static_cast<uint8_t>(out.back()) + 1);
  return out;
}

}  // namespace farmdb::storage
