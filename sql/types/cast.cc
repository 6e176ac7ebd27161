#include "sql/types/cast.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "sql/types/datetime.h"

namespace farmdb::sql {
namespace {

bool IsTextLike(TypeId t) { return IsString(t) || t == TypeId::kUnknown; }

bool IsFloat(TypeId t) { return t == TypeId::kFloat4 || t == TypeId::kFloat8; }

std::expected<Value, Error> FloatToInt(double v, TypeId target) {
  double r = std::nearbyint(v);  // rint(): half to even, as float8_int4
  if (std::isnan(r) || r < -9.3e18 || r > 9.3e18) return std::unexpected(IntOutOfRange(target));
  if (r < -9223372036854775808.0 || r >= 9223372036854775808.0) {
    return std::unexpected(IntOutOfRange(target));
  }
  return CheckedInt(target, static_cast<int64_t>(r));
}

// Between date, timestamp and timestamptz; the session's zone turns local times into instants
// and back (date_timestamptz, timestamptz_timestamp, ...). Infinities map to infinities.
std::expected<Value, Error> CastDateTime(int64_t v, TypeId from, TypeId target, const TimeZone& zone) {
  bool pos_inf = from == TypeId::kDate ? v == kDatePosInfinity : v == kTimestampPosInfinity;
  bool neg_inf = from == TypeId::kDate ? v == kDateNegInfinity : v == kTimestampNegInfinity;
  if (pos_inf || neg_inf) {
    if (target == TypeId::kDate) return Value::Int(target, pos_inf ? kDatePosInfinity : kDateNegInfinity);
    return Value::Int(target, pos_inf ? kTimestampPosInfinity : kTimestampNegInfinity);
  }
  // Local wall-clock microseconds first.
  int64_t local = v;
  if (from == TypeId::kDate) {
    // A date past the timestamp range overflows int64 as microseconds: compare days first.
    if (v > INT64_MAX / kMicrosPerDay || v < INT64_MIN / kMicrosPerDay || !IsValidTimestamp(v * kMicrosPerDay)) {
      return std::unexpected(MakeError("22008", "date out of range for timestamp"));
    }
    local = v * kMicrosPerDay;
  } else if (from == TypeId::kTimestampTz) {
    local = v + int64_t{zone.OffsetAt(v).seconds_east} * 1'000'000;
  }
  switch (target) {
    case TypeId::kDate:
      return Value::Int(target, local / kMicrosPerDay - (local % kMicrosPerDay < 0 ? 1 : 0));
    case TypeId::kTimestamp:
      return Value::Int(target, local);
    default: {
      int64_t utc = zone.ToUtc(local);
      if (!IsValidTimestamp(utc)) return std::unexpected(MakeError("22008", "timestamp out of range"));
      return Value::Int(target, utc);
    }
  }
}

}  // namespace

Error IntOutOfRange(TypeId type) {
  return MakeError("22003", fmt::format("{} out of range", Info(type).sql_name));
}

std::expected<Value, Error> CheckedInt(TypeId type, int64_t value) {
  bool ok = type == TypeId::kInt2   ? value >= INT16_MIN && value <= INT16_MAX
            : type == TypeId::kInt4 ? value >= INT32_MIN && value <= INT32_MAX
                                    : true;
  if (!ok) return std::unexpected(IntOutOfRange(type));
  return Value::Int(type, value);
}

bool CanCast(TypeId from, TypeId to) {
  if (from == to || IsTextLike(from) || IsString(to)) return true;
  if (IsNumeric(from) && IsNumeric(to)) return true;
  if ((from == TypeId::kBool && to == TypeId::kInt4) || (from == TypeId::kInt4 && to == TypeId::kBool)) {
    return true;
  }
  // pg_cast: integers to oid/regclass/regtype, back to int4/int8, and among the three.
  if (IsOidLike(to) && (IsInteger(from) || IsOidLike(from))) return true;
  if (IsOidLike(from) && (to == TypeId::kInt4 || to == TypeId::kInt8)) return true;
  // Arrays (and int2vector/oidvector) cast element by element (array_map).
  if (IsArray(from) && IsArray(to)) return CanCast(Info(from).element, Info(to).element);
  auto date_time = [](TypeId t) { return t == TypeId::kDate || t == TypeId::kTimestamp || t == TypeId::kTimestampTz; };
  return date_time(from) && date_time(to);
}


std::expected<Value, Error> Cast(const Value& value, TypeId target, const TextOptions& options) {
  TypeId from = value.type;
  if (!CanCast(from, target)) {
    return std::unexpected(MakeError("42846", fmt::format("cannot cast type {} to {}", Info(from).sql_name,
                                                          Info(target).sql_name)));
  }
  if (value.IsNull()) return Value::Null(target);
  if (from == target) return value;
  if (IsString(target)) {
    // bool's cast to text spells the word out (booltext), unlike boolout's t/f.
    // bpchar's rtrim cast drops the padding (char(n) -> text/varchar).
    std::string text = from == TypeId::kBpchar && target != TypeId::kBpchar ? std::string(TrimTrailingBlanks(value.AsString()))
                       : IsTextLike(from)                                  ? value.AsString()
                       : from == TypeId::kBool                             ? (value.AsBool() ? "true" : "false")
                                                                           : FormatText(value, options);
    return ParseText(target, text, options);  // name truncates; text/varchar keep it whole
  }
  if (IsTextLike(from)) return ParseText(target, value.AsString(), options);
  if (IsArray(from) && IsArray(target)) {
    const ArrayValue& in = value.AsArray();
    ArrayValue out{.lower_bound = in.lower_bound, .elements = {}};
    TypeId element = Info(target).element;
    for (const Value& e : in.elements) {
      auto c = Cast(e, element, options);
      if (!c) return std::unexpected(c.error());
      out.elements.push_back(std::move(*c));
    }
    return Value::Array(target, std::move(out));
  }
  if (IsOidLike(target)) {
    // int2/int4 -> oid reinterpret the bits (binary coercion); int8 -> oid checks the range
    // (int8_to_oid); between oid, regclass and regtype the value is the same.
    int64_t v = value.AsInt();
    if (from == TypeId::kInt8 && (v < 0 || v > UINT32_MAX)) return std::unexpected(MakeError("22003", "OID out of range"));
    return Value::Int(target, v & int64_t{UINT32_MAX});
  }
  if (IsOidLike(from)) {  // oid -> int4 is a binary coercion (wraps); oid -> int8 widens
    int64_t v = value.AsInt();
    return Value::Int(target, target == TypeId::kInt4 ? static_cast<int64_t>(static_cast<int32_t>(static_cast<uint32_t>(v))) : v);
  }
  if (IsInteger(from)) {
    int64_t v = value.AsInt();
    if (IsInteger(target)) return CheckedInt(target, v);
    if (target == TypeId::kFloat4) return Value::Float(target, static_cast<float>(v));
    if (target == TypeId::kFloat8) return Value::Float(target, static_cast<double>(v));
    if (target == TypeId::kNumeric) return Value::Num(Numeric::FromInt(v));
    if (target == TypeId::kBool) return Value::Bool(v != 0);
  }
  if (IsFloat(from)) {
    double v = value.AsFloat();
    if (IsInteger(target)) return FloatToInt(v, target);
    if (target == TypeId::kFloat8) return Value::Float(target, v);
    if (target == TypeId::kFloat4) {
      float f = static_cast<float>(v);
      if (std::isinf(f) && !std::isinf(v)) return std::unexpected(MakeError("22003", "value out of range: overflow"));
      if (f == 0 && v != 0) return std::unexpected(MakeError("22003", "value out of range: underflow"));
      return Value::Float(target, f);
    }
    if (target == TypeId::kNumeric) {
      if (std::isnan(v)) return Value::Num(Numeric::NaN());
      if (std::isinf(v)) return std::unexpected(MakeError("0A000", "cannot convert infinity to numeric"));
      // float8_numeric / float4_numeric print DBL_DIG / FLT_DIG significant digits.
      auto n = Numeric::Parse(fmt::format("{:.{}g}", v, from == TypeId::kFloat4 ? 6 : 15));
      if (!n) return std::unexpected(n.error());
      return Value::Num(std::move(*n));
    }
  }
  if (from == TypeId::kNumeric) {
    const Numeric& n = value.AsNumeric();
    if (IsInteger(target)) {
      if (n.IsNaN()) {
        return std::unexpected(MakeError("0A000", fmt::format("cannot convert NaN to {}", Info(target).sql_name)));
      }
      auto v = n.ToInt64();
      if (!v) return std::unexpected(IntOutOfRange(target));
      return CheckedInt(target, *v);
    }
    if (IsFloat(target)) {
      double d = n.ToDouble();
      return Value::Float(target, target == TypeId::kFloat4 ? static_cast<float>(d) : d);
    }
  }
  if (from == TypeId::kBool && target == TypeId::kInt4) return Value::Int(target, value.AsBool() ? 1 : 0);
  if (CanCast(from, target)) return CastDateTime(value.AsInt(), from, target, options.time_zone);
  return std::unexpected(MakeError("42846", fmt::format("cannot cast type {} to {}", Info(from).sql_name,
                                                        Info(target).sql_name)));
}

std::expected<int32_t, Error> Typmod(TypeId type, std::span<const int64_t> mods) {
  constexpr int32_t kVarHeader = 4;  // VARHDRSZ, which PostgreSQL adds to every typmod
  if (type == TypeId::kNumeric && mods.size() <= 2) {
    int64_t precision = mods[0];
    int64_t scale = mods.size() == 2 ? mods[1] : 0;
    if (precision < 1 || precision > 1000) {
      return std::unexpected(MakeError("22023", fmt::format("NUMERIC precision {} must be between 1 and 1000", precision)));
    }
    if (scale < 0 || scale > precision) {
      return std::unexpected(MakeError("22023", fmt::format("NUMERIC scale {} must be between 0 and precision {}", scale, precision)));
    }
    return static_cast<int32_t>((precision << 16) | scale) + kVarHeader;
  }
  if ((type == TypeId::kVarchar || type == TypeId::kBpchar) && mods.size() == 1) {
    std::string_view name = type == TypeId::kVarchar ? "varchar" : "char";
    if (mods[0] < 1) return std::unexpected(MakeError("22023", fmt::format("length for type {} must be at least 1", name)));
    if (mods[0] > 10485760) return std::unexpected(MakeError("22023", fmt::format("length for type {} cannot exceed 10485760", name)));
    return static_cast<int32_t>(mods[0]) + kVarHeader;
  }
  if ((type == TypeId::kTimestamp || type == TypeId::kTimestampTz) && mods.size() == 1) {
    // anytimestamp_typmodin: the typmod is the precision itself; above 6 it is reduced (the
    // caller issues PostgreSQL's WARNING).
    if (mods[0] < 0) {
      return std::unexpected(MakeError("22023", fmt::format("TIMESTAMP({}){} precision must not be negative", mods[0],
                                                            type == TypeId::kTimestampTz ? " WITH TIME ZONE" : "")));
    }
    return static_cast<int32_t>(std::min<int64_t>(mods[0], kMaxTimestampPrecision));
  }
  if (type == TypeId::kNumeric || type == TypeId::kVarchar || type == TypeId::kBpchar || type == TypeId::kTimestamp ||
      type == TypeId::kTimestampTz) {
    return std::unexpected(MakeError("22023", fmt::format("invalid type modifier")));
  }
  return std::unexpected(MakeError("42601", fmt::format("type modifier is not allowed for type \"{}\"", Info(type).name)));
}

std::expected<Value, Error> ApplyTypmod(Value value, int32_t typmod, bool assignment) {
  if (value.IsNull() || typmod < 0) return value;
  if (value.type == TypeId::kTimestamp || value.type == TypeId::kTimestampTz) {
    auto rounded = RoundTimestamp(value.AsInt(), typmod);
    if (!rounded) return std::unexpected(rounded.error());
    return Value::Int(value.type, *rounded);
  }
  if (typmod < 4) return value;
  int32_t mod = typmod - 4;
  if (value.type == TypeId::kVarchar || value.type == TypeId::kBpchar) {
    const std::string& s = value.AsString();
    size_t limit = static_cast<size_t>(mod);
    if (s.size() <= limit) {  // no more characters than bytes: nothing to cut, at most to pad
      if (value.type == TypeId::kVarchar) return value;
      size_t chars = std::ranges::count_if(s, [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; });
      if (chars == limit) return value;
      std::string padded = std::move(std::get<std::string>(value.data));
      padded.append(limit - chars, ' ');
      return Value::Str(value.type, std::move(padded));
    }
    size_t chars = 0, i = 0;
    for (; i < s.size(); ++i) {
      if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80 && chars++ == static_cast<size_t>(mod)) break;
    }
    // An assignment may drop only blanks (varchar/bpchar input functions); a cast truncates.
    if (assignment && s.find_first_not_of(' ', i) != std::string::npos) {
      return std::unexpected(MakeError("22001", fmt::format("value too long for type {}({})",
                                                            value.type == TypeId::kVarchar ? "character varying" : "character", mod)));
    }
    std::string out = s.substr(0, i);
    // bpchar pads short values with blanks to n characters.
    if (value.type == TypeId::kBpchar && chars < limit) out.append(limit - chars, ' ');
    return Value::Str(value.type, std::move(out));
  }
  if (value.type == TypeId::kNumeric && !value.AsNumeric().IsNaN()) {
    int precision = mod >> 16, scale = mod & 0xffff;
    Numeric rounded = value.AsNumeric().Round(scale);
    // Digits left of the point may not exceed precision - scale. The unscaled digits carry no
    // leading zeros, so those left of the point are all but the last scale() of them.
    int int_digits = std::max(0, static_cast<int>(rounded.digits().size()) - rounded.scale());
    int max_digits = precision - scale;
    if (int_digits > max_digits) {
      Error e = MakeError("22003", "numeric field overflow");
      e.detail = fmt::format("A field with precision {}, scale {} must round to an absolute value less than {}{}.",
                             precision, scale, max_digits ? "10^" : "", max_digits ? max_digits : 1);
      return std::unexpected(e);
    }
    return Value::Num(std::move(rounded));
  }
  return value;
}

}  // namespace farmdb::sql
