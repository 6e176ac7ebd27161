#include "sql/types/type_io.h"

#include <bit>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>

#include "types/binary_reader.h"
#include "sql/types/array_io.h"
#include "sql/types/catalog_types.h"
#include "sql/types/datetime.h"

namespace farmdb::sql {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

Error Syntax(TypeId type, std::string_view text) {
  return MakeError("22P02", fmt::format("invalid input syntax for type {}: \"{}\"",
                                        Info(type).sql_name, text));
}

std::expected<Value, Error> ParseBool(std::string_view text) {
  std::string s(Trim(text));
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  auto prefix_of = [&](std::string_view word, size_t min_len) {
    return s.size() >= min_len && s.size() <= word.size() && word.starts_with(s);
  };
  // parse_bool_with_len: unique prefixes of true/false/yes/no, "on", "off" (2+ chars), 1, 0.
  if (prefix_of("true", 1) || prefix_of("yes", 1) || prefix_of("on", 2) || s == "1") {
    return Value::Bool(true);
  }
  if (prefix_of("false", 1) || prefix_of("no", 1) || prefix_of("off", 2) || s == "0") {
    return Value::Bool(false);
  }
  return std::unexpected(MakeError("22P02", fmt::format("invalid input syntax for type boolean: \"{}\"", text)));
}

int64_t MinOf(TypeId type) {
  return type == TypeId::kInt2 ? INT16_MIN : type == TypeId::kInt4 ? INT32_MIN : INT64_MIN;
}
int64_t MaxOf(TypeId type) {
  return type == TypeId::kInt2 ? INT16_MAX : type == TypeId::kInt4 ? INT32_MAX : INT64_MAX;
}

std::expected<Value, Error> ParseInt(TypeId type, std::string_view text) {
  std::string_view s = Trim(text);
  bool negative = false;
  if (!s.empty() && (s.front() == '+' || s.front() == '-')) {
    negative = s.front() == '-';
    s.remove_prefix(1);
  }
  if (s.empty()) return std::unexpected(Syntax(type, text));
  uint64_t mag = 0;
  bool overflow = false;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::unexpected(Syntax(type, text));
    if (mag > (UINT64_MAX - 9) / 10) overflow = true;
    else mag = mag * 10 + (c - '0');
  }
  uint64_t limit = negative ? static_cast<uint64_t>(-(MinOf(type) + 1)) + 1 : static_cast<uint64_t>(MaxOf(type));
  if (overflow || mag > limit) {
    return std::unexpected(MakeError("22003", fmt::format("value \"{}\" is out of range for type {}",
                                                          text, Info(type).sql_name)));
  }
  return Value::Int(type, negative ? static_cast<int64_t>(0 - mag) : static_cast<int64_t>(mag));
}

std::expected<Value, Error> ParseFloat(TypeId type, std::string_view text) {
  std::string s(Trim(text));
  std::string lower = s;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  double v;
  if (lower == "nan") v = std::nan("");
  else if (lower == "infinity" || lower == "+infinity" || lower == "inf" || lower == "+inf") v = HUGE_VAL;
  else if (lower == "-infinity" || lower == "-inf") v = -HUGE_VAL;
  else {
    if (s.empty() || lower.find_first_of("xpn") != std::string::npos) return std::unexpected(Syntax(type, text));
    errno = 0;
    char* end = nullptr;
    v = std::strtod(s.c_str(), &end);
    if (end != s.c_str() + s.size()) return std::unexpected(Syntax(type, text));
    bool out_of_range = errno == ERANGE && (v == 0 || std::isinf(v));
    if (type == TypeId::kFloat4 && !out_of_range) {
      float f = static_cast<float>(v);
      out_of_range = (std::isinf(f) && !std::isinf(v)) || (f == 0 && v != 0);
      v = f;
    }
    if (out_of_range) {
      return std::unexpected(MakeError("22003", fmt::format("\"{}\" is out of range for type {}", s,
                                                            Info(type).sql_name)));
    }
  }
  return Value::Float(type, type == TypeId::kFloat4 ? static_cast<float>(v) : v);
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::expected<Value, Error> ParseBytea(std::string_view text) {
  std::string out;
  if (text.starts_with("\\x")) {
    for (size_t i = 2; i < text.size();) {
      if (std::isspace(static_cast<unsigned char>(text[i]))) {
        ++i;
        continue;
      }
      int hi = HexDigit(text[i]);
      if (hi < 0) {
        return std::unexpected(MakeError("22023", fmt::format("invalid hexadecimal digit: \"{}\"", text[i])));
      }
      if (i + 1 >= text.size()) {
        return std::unexpected(MakeError("22023", "invalid hexadecimal data: odd number of digits"));
      }
      int lo = HexDigit(text[i + 1]);
      if (lo < 0) {
        return std::unexpected(MakeError("22023", fmt::format("invalid hexadecimal digit: \"{}\"", text[i + 1])));
      }
      out.push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    }
    return Value::Str(TypeId::kBytea, std::move(out));
  }
  // Escape format: \\ is a backslash, \ooo an octal byte; anything else after \ is an error.
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\') {
      out.push_back(text[i]);
    } else if (i + 1 < text.size() && text[i + 1] == '\\') {
      out.push_back('\\');
      ++i;
    } else if (i + 3 < text.size() && text[i + 1] >= '0' && text[i + 1] <= '3' &&
               text[i + 2] >= '0' && text[i + 2] <= '7' && text[i + 3] >= '0' && text[i + 3] <= '7') {
      out.push_back(static_cast<char>((text[i + 1] - '0') * 64 + (text[i + 2] - '0') * 8 + (text[i + 3] - '0')));
      i += 3;
    } else {
      return std::unexpected(MakeError("22P02", "invalid input syntax for type bytea"));
    }
  }
  return Value::Str(TypeId::kBytea, std::move(out));
}

std::string FormatBytea(const std::string& bytes, bool hex) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  if (hex) {
    out = "\\x";
    for (unsigned char c : bytes) {
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
    return out;
  }
  for (unsigned char c : bytes) {
    if (c == '\\') out += "\\\\";
    else if (c < 0x20 || c > 0x7e) out += fmt::format("\\{:03o}", c);
    else out.push_back(static_cast<char>(c));
  }
  return out;
}

template <typename T>
std::string BigEndian(T v) {
  if constexpr (std::endian::native == std::endian::little) v = std::byteswap(v);
  std::string out(sizeof(T), '\0');
  std::memcpy(out.data(), &v, sizeof(T));
  return out;
}

}  // namespace

std::string FormatFloat(double value, bool is_float4, int extra_float_digits) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  char buf[64];
  if (extra_float_digits <= 0) {
    int precision = (is_float4 ? 6 : 15) + extra_float_digits;
    std::snprintf(buf, sizeof buf, "%.*g", std::max(precision, 1), value);
    return buf;
  }
  // Shortest round-trip digits (Ryu in PostgreSQL), laid out like its d2s/f2s: fixed notation
  // for decimal exponents in [-4, 15) for float8 and [-4, 6) for float4, else d.ddde+XX.
  auto res = is_float4 ? std::to_chars(buf, buf + sizeof buf, static_cast<float>(value), std::chars_format::scientific)
                       : std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);
  std::string sci(buf, res.ptr);
  size_t e = sci.find('e');
  int exponent = std::atoi(sci.c_str() + e + 1);
  bool negative = sci[0] == '-';
  std::string digits;
  for (size_t i = negative ? 1 : 0; i < e; ++i) {
    if (sci[i] != '.') digits.push_back(sci[i]);
  }
  std::string out = negative ? "-" : "";
  int limit = is_float4 ? 6 : 15;
  if (exponent < -4 || exponent >= limit) {
    out += digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    out += fmt::format("e{}{:02}", exponent < 0 ? '-' : '+', std::abs(exponent));
  } else if (exponent < 0) {
    out += "0." + std::string(static_cast<size_t>(-exponent - 1), '0') + digits;
  } else if (static_cast<int>(digits.size()) <= exponent + 1) {
    out += digits + std::string(static_cast<size_t>(exponent + 1 - static_cast<int>(digits.size())), '0');
  } else {
    out += digits.substr(0, exponent + 1) + "." + digits.substr(exponent + 1);
  }
  return out;
}

std::expected<Value, Error> ParseText(TypeId type, std::string_view text, const TextOptions& options) {
  switch (type) {
    case TypeId::kBool:
      return ParseBool(text);
    case TypeId::kInt2:
    case TypeId::kInt4:
    case TypeId::kInt8:
      return ParseInt(type, text);
    case TypeId::kFloat4:
    case TypeId::kFloat8:
      return ParseFloat(type, text);
    case TypeId::kNumeric: {
      auto n = Numeric::Parse(text);
      if (!n) return std::unexpected(n.error());
      return Value::Num(std::move(*n));
    }
    case TypeId::kUnknown:
    case TypeId::kText:
    case TypeId::kVarchar:
    case TypeId::kBpchar:  // padding to char(n) is the typmod's business (ApplyTypmod)
      return Value::Str(type, std::string(text));
    case TypeId::kName: {
      // NAMEDATALEN - 1 bytes, cut at a character boundary.
      size_t len = std::min<size_t>(text.size(), 63);
      while (len < text.size() && len > 0 && (static_cast<unsigned char>(text[len]) & 0xC0) == 0x80) --len;
      return Value::Str(type, std::string(text.substr(0, len)));
    }
    case TypeId::kBytea:
      return ParseBytea(text);
    case TypeId::kDate: {
      auto d = ParseDate(text, options.date_style.order);
      if (!d) return std::unexpected(d.error());
      return Value::Int(type, *d);
    }
    case TypeId::kTimestamp: {
      auto t = ParseTimestamp(text, options.date_style.order);
      if (!t) return std::unexpected(t.error());
      return Value::Int(type, *t);
    }
    case TypeId::kTimestampTz: {
      auto t = ParseTimestampTz(text, options.date_style.order, options.time_zone);
      if (!t) return std::unexpected(t.error());
      return Value::Int(type, *t);
    }
    case TypeId::kVoid:
      return Value::Str(type, "");
    case TypeId::kOid: {
      auto oid = ParseOidNumber(text, type);
      if (!oid) return std::unexpected(oid.error());
      return Value::Int(type, *oid);
    }
    case TypeId::kChar:
      return ParseChar(text);
    case TypeId::kRegclass:
      return ParseRegclassNumber(text);
    case TypeId::kRegtype:
      return ParseRegtype(text);
    case TypeId::kPgNodeTree:
      return std::unexpected(PgNodeTreeInput());
    case TypeId::kRegproc:
      return ParseRegproc(text);
    case TypeId::kRegnamespace:
      return ParseRegnamespaceNumber(text);
    case TypeId::kAclitem:
      return std::unexpected(MakeError("0A000", "aclitem input is not supported"));
    FARMDB_ARRAY_TYPE_CASES:
      return ParseArray(type, text, options);
    case TypeId::kRecord:
      return std::unexpected(RecordInput());
    case TypeId::kAnyElement:
    case TypeId::kAnyArray:
      return std::unexpected(PseudoTypeInput(type));
  }
  return std::unexpected(MakeError("XX000", "unhandled type in ParseText"));
}

// The types whose text form is the stored string itself: TextIsStored, and FormatText's case.
#define FARMDB_STORED_TEXT_TYPE_CASES                                  \
  case TypeId::kUnknown: case TypeId::kText: case TypeId::kVarchar:     \
  case TypeId::kBpchar: case TypeId::kName: case TypeId::kPgNodeTree:   \
  case TypeId::kAclitem

bool TextIsStored(TypeId type) {
  switch (type) {
    FARMDB_STORED_TEXT_TYPE_CASES:
      return true;
    default:
      return false;
  }
}

std::string FormatText(const Value& value, const TextOptions& options) {
  switch (value.type) {
    case TypeId::kBool:
      return value.AsBool() ? "t" : "f";
    case TypeId::kInt2:
    case TypeId::kInt4:
    case TypeId::kInt8:
      return std::to_string(value.AsInt());
    case TypeId::kFloat4:
    case TypeId::kFloat8:
      return FormatFloat(value.AsFloat(), value.type == TypeId::kFloat4, options.extra_float_digits);
    case TypeId::kNumeric:
      return value.AsNumeric().ToString();
    FARMDB_STORED_TEXT_TYPE_CASES:
      return value.AsString();
    case TypeId::kBytea:
      return FormatBytea(value.AsString(), options.bytea_hex);
    case TypeId::kDate:
      return FormatDate(value.AsInt(), options.date_style);
    case TypeId::kTimestamp:
      return FormatTimestamp(value.AsInt(), options.date_style);
    case TypeId::kTimestampTz:
      return FormatTimestampTz(value.AsInt(), options.date_style, options.time_zone);
    case TypeId::kVoid:
      return {};
    case TypeId::kOid:
      return std::to_string(value.AsInt());
    case TypeId::kRegclass:  // without a catalog: the number, as regclassout for an unknown oid
      return value.AsInt() == 0 ? "-" : std::to_string(value.AsInt());
    case TypeId::kRegtype:
      return FormatRegtype(value.AsInt());
    case TypeId::kChar:
      return FormatChar(value.AsString());
    case TypeId::kRegproc:
      return FormatRegproc(value.AsInt());
    case TypeId::kRegnamespace:  // as regclass: a name needs the catalog
      return value.AsInt() == 0 ? "-" : std::to_string(value.AsInt());
    FARMDB_ARRAY_TYPE_CASES:
      return FormatArray(value, options);
    case TypeId::kRecord:
      return FormatRecord(value, options);
    case TypeId::kAnyElement:
    case TypeId::kAnyArray:
      return {};
  }
  return {};
}

namespace {

// pg_utf_mblen: the sequence length a lead byte announces (1 for an invalid lead).
int Utf8Length(unsigned char c) {
  if ((c & 0x80) == 0) return 1;
  if ((c & 0xe0) == 0xc0) return 2;
  if ((c & 0xf0) == 0xe0) return 3;
  if ((c & 0xf8) == 0xf0) return 4;
  return 1;
}

// pg_utf8_islegal: a well-formed, shortest-form sequence of `len` bytes.
bool Utf8Legal(std::string_view s, int len) {
  auto b = [&](int i) { return static_cast<unsigned char>(s[i]); };
  auto continuation = [&](int i, unsigned char lo, unsigned char hi) { return b(i) >= lo && b(i) <= hi; };
  switch (len) {
    case 1:
      return b(0) < 0x80;
    case 2:
      return b(0) >= 0xc2 && b(0) <= 0xdf && continuation(1, 0x80, 0xbf);
    case 3: {
      unsigned char lo = b(0) == 0xe0 ? 0xa0 : 0x80, hi = b(0) == 0xed ? 0x9f : 0xbf;
      return continuation(1, lo, hi) && continuation(2, 0x80, 0xbf);
    }
    case 4: {
      if (b(0) > 0xf4) return false;
      unsigned char lo = b(0) == 0xf0 ? 0x90 : 0x80, hi = b(0) == 0xf4 ? 0x8f : 0xbf;
      return continuation(1, lo, hi) && continuation(2, 0x80, 0xbf) && continuation(3, 0x80, 0xbf);
    }
  }
  return false;
}

// pq_getmsgtext's pg_verify_mbstr: text arriving in binary must be valid UTF-8 without NUL
// (22021, naming the offending sequence as report_invalid_encoding does).
std::expected<void, Error> VerifyUtf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    int len = Utf8Length(c);
    bool ok = c != 0 && i + len <= s.size() && Utf8Legal(s.substr(i), len);
    if (!ok) {
      std::string bytes;
      size_t shown = std::min<size_t>(len, s.size() - i);
      for (size_t j = 0; j < shown; ++j) {
        bytes += fmt::format("{}0x{:02x}", j == 0 ? "" : " ", static_cast<unsigned char>(s[i + j]));
      }
      return std::unexpected(MakeError("22021", fmt::format("invalid byte sequence for encoding \"UTF8\": {}", bytes)));
    }
    i += len;
  }
  return {};
}

// The typreceive functions: each reads its fields from `reader` and leaves the rest.
std::expected<Value, Error> Receive(TypeId type, BinaryReader& reader) {
  // Reads one big-endian T and wraps it as `make` says, or passes the reader's 08P01 on.
  auto fixed = [&]<typename T>(auto make) -> std::expected<Value, Error> {
    auto v = reader.Read<T>();
    if (!v) return std::unexpected(v.error());
    return make(*v);
  };
  switch (type) {
    case TypeId::kBool:  // boolrecv: any non-zero byte is true
      return fixed.operator()<uint8_t>([](uint8_t v) { return Value::Bool(v != 0); });
    case TypeId::kInt2:
      return fixed.operator()<int16_t>([&](int16_t v) { return Value::Int(type, v); });
    case TypeId::kInt4:
    case TypeId::kDate:
      return fixed.operator()<int32_t>([&](int32_t v) { return Value::Int(type, v); });
    case TypeId::kInt8:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
      return fixed.operator()<int64_t>([&](int64_t v) { return Value::Int(type, v); });
    case TypeId::kFloat4:
      return fixed.operator()<uint32_t>([&](uint32_t v) { return Value::Float(type, std::bit_cast<float>(v)); });
    case TypeId::kFloat8:
      return fixed.operator()<uint64_t>([&](uint64_t v) { return Value::Float(type, std::bit_cast<double>(v)); });
    case TypeId::kNumeric: {
      auto n = Numeric::DecodeBinary(reader);
      if (!n) return std::unexpected(n.error());
      return Value::Num(std::move(*n));
    }
    case TypeId::kUnknown:
    case TypeId::kText:
    case TypeId::kVarchar:
    case TypeId::kBpchar:
    case TypeId::kName: {
      std::string_view text = reader.TakeRest();
      if (auto valid = VerifyUtf8(text); !valid) return std::unexpected(valid.error());
      if (type == TypeId::kName && text.size() >= 64) {  // namerecv: NAMEDATALEN
        Error e = MakeError("42622", "identifier too long");
        e.detail = "Identifier must be less than 64 characters.";
        return std::unexpected(e);
      }
      return Value::Str(type, std::string(text));
    }
    case TypeId::kBytea:
    case TypeId::kVoid:
      return Value::Str(type, std::string(reader.TakeRest()));
    case TypeId::kOid:
    case TypeId::kRegclass:
    case TypeId::kRegtype:
    case TypeId::kRegproc:
    case TypeId::kRegnamespace:
      return fixed.operator()<uint32_t>([&](uint32_t v) { return Value::Int(type, v); });
    case TypeId::kChar:  // char_recv: one byte, the zero byte being ""
      return fixed.operator()<uint8_t>([&](uint8_t v) {
        return Value::Str(type, v == 0 ? std::string() : std::string(1, static_cast<char>(v)));
      });
    case TypeId::kPgNodeTree:
      return std::unexpected(PgNodeTreeInput());
    case TypeId::kAclitem:  // aclitem has no typreceive
      return std::unexpected(MakeError("42883", "no binary input function available for type aclitem"));
    FARMDB_ARRAY_TYPE_CASES:
      return ReceiveArray(type, reader);
    case TypeId::kRecord:
      return std::unexpected(RecordInput());
    case TypeId::kAnyElement:
    case TypeId::kAnyArray:
      return std::unexpected(PseudoTypeInput(type));
  }
  return std::unexpected(MakeError("XX000", "unhandled type in DecodeBinary"));
}

}  // namespace

std::expected<Value, Error> DecodeBinary(TypeId type, std::string_view bytes) {
  BinaryReader reader(bytes);
  auto value = Receive(type, reader);
  if (value && !reader.AtEnd()) return std::unexpected(MakeError("22P03", std::string(kIncorrectBinaryFormat)));
  return value;
}

std::string EncodeBinary(const Value& value) {
  switch (value.type) {
    case TypeId::kBool:
      return std::string(1, value.AsBool() ? '\1' : '\0');
    case TypeId::kInt2:
      return BigEndian(static_cast<int16_t>(value.AsInt()));
    case TypeId::kInt4:
    case TypeId::kDate:
      return BigEndian(static_cast<int32_t>(value.AsInt()));
    case TypeId::kInt8:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
      return BigEndian(value.AsInt());
    case TypeId::kFloat4:
      return BigEndian(std::bit_cast<uint32_t>(static_cast<float>(value.AsFloat())));
    case TypeId::kFloat8:
      return BigEndian(std::bit_cast<uint64_t>(value.AsFloat()));
    case TypeId::kNumeric:
      return value.AsNumeric().EncodeBinary();
    case TypeId::kUnknown:
    case TypeId::kText:
    case TypeId::kVarchar:
    case TypeId::kBpchar:
    case TypeId::kName:
    case TypeId::kBytea:
    case TypeId::kPgNodeTree:
    case TypeId::kAclitem:  // aclitem has no typsend; clients only ever ask for its text
      return value.AsString();
    case TypeId::kVoid:
    case TypeId::kAnyElement:
    case TypeId::kAnyArray:
      return {};
    case TypeId::kOid:
    case TypeId::kRegclass:
    case TypeId::kRegtype:
    case TypeId::kRegproc:
    case TypeId::kRegnamespace:
      return BigEndian(static_cast<uint32_t>(value.AsInt()));
    case TypeId::kChar:
      return std::string(1, value.AsString().empty() ? '\0' : value.AsString()[0]);
    FARMDB_ARRAY_TYPE_CASES:
      return SendArray(value);
    case TypeId::kRecord:
      return SendRecord(value);
  }
  return {};
}

}  // namespace farmdb::sql
