#include "sql/types/array_io.h"

#include <strings.h>

#include <bit>
#include <cctype>
#include <charconv>
#include <cstring>
#include <optional>
#include <fmt/format.h>

namespace farmdb::sql {
namespace {

bool IsSpace(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

Error Malformed(std::string_view text, std::string detail) {
  Error e = MakeError("22P02", fmt::format("malformed array literal: \"{}\"", text));
  e.detail = std::move(detail);
  return e;
}

Error Multidimensional() { return MakeError("0A000", "multidimensional arrays is not supported yet"); }

std::string Unexpected(char c) { return fmt::format("Unexpected \"{}\" character.", c); }

// One element as array_in reads it: its text (escapes resolved) and whether it was the bare
// word NULL.
struct RawElement {
  std::string text;
  bool is_null = false;
};

// ReadArrayStr for one dimension: the elements between '{' (at `pos`) and the matching '}',
// leaving `pos` after it.
std::expected<std::vector<RawElement>, Error> ReadElements(std::string_view text, size_t& pos) {
  std::vector<RawElement> out;
  auto at_end = [&] { return pos >= text.size(); };
  auto skip_space = [&] {
    while (!at_end() && IsSpace(text[pos])) ++pos;
  };
  ++pos;  // '{'
  skip_space();
  if (!at_end() && text[pos] == '}') {
    ++pos;
    return out;
  }
  while (true) {
    skip_space();
    if (at_end()) return std::unexpected(Malformed(text, "Unexpected end of input."));
    char c = text[pos];
    if (c == '{') return std::unexpected(Multidimensional());
    if (c == ',' || c == '}') return std::unexpected(Malformed(text, Unexpected(c)));
    RawElement element;
    if (c == '"') {
      ++pos;
      while (true) {
        if (at_end()) return std::unexpected(Malformed(text, "Unexpected end of input."));
        char d = text[pos++];
        if (d == '"') break;
        if (d == '\\') {
          if (at_end()) return std::unexpected(Malformed(text, "Unexpected end of input."));
          d = text[pos++];
        }
        element.text.push_back(d);
      }
      skip_space();
    } else {
      // Unquoted: up to the delimiter or '}', trailing unescaped blanks dropped.
      size_t keep = 0;  // length up to the last character that is not an unescaped blank
      bool escaped_any = false;
      while (true) {
        if (at_end()) return std::unexpected(Malformed(text, "Unexpected end of input."));
        char d = text[pos];
        if (d == ',' || d == '}') break;
        if (d == '{' || d == '"') return std::unexpected(Malformed(text, Unexpected(d)));
        ++pos;
        if (d == '\\') {
          if (at_end()) return std::unexpected(Malformed(text, "Unexpected end of input."));
          element.text.push_back(text[pos++]);
          keep = element.text.size();
          escaped_any = true;
          continue;
        }
        element.text.push_back(d);
        if (!IsSpace(d)) keep = element.text.size();
      }
      element.text.resize(keep);
      element.is_null = !escaped_any && element.text.size() == 4 && strncasecmp(element.text.c_str(), "NULL", 4) == 0;
    }
    if (at_end()) return std::unexpected(Malformed(text, "Unexpected end of input."));
    out.push_back(std::move(element));
    char d = text[pos++];
    if (d == '}') return out;
    if (d != ',') return std::unexpected(Malformed(text, "Unexpected array element."));
  }
}

// [lo:hi]= before the braces; `pos` after the '='.
std::expected<std::pair<int32_t, int32_t>, Error> ReadDimensions(std::string_view text, size_t& pos) {
  auto number = [&](int32_t& v) {
    const char* begin = text.data() + pos;
    const char* end = text.data() + text.size();
    if (begin < end && *begin == '+') ++begin;
    auto [ptr, ec] = std::from_chars(begin, end, v);
    if (ec != std::errc()) return false;
    pos = static_cast<size_t>(ptr - text.data());
    return true;
  };
  ++pos;  // '['
  int32_t lower = 1, upper = 0;
  if (!number(upper)) return std::unexpected(Malformed(text, "Missing array dimension value."));
  if (pos < text.size() && text[pos] == ':') {
    ++pos;
    lower = upper;
    if (!number(upper)) return std::unexpected(Malformed(text, "Missing array dimension value."));
  }
  if (pos >= text.size() || text[pos] != ']') return std::unexpected(Malformed(text, "Missing \"]\" after array dimensions."));
  ++pos;
  if (pos < text.size() && text[pos] == '[') return std::unexpected(Multidimensional());
  while (pos < text.size() && IsSpace(text[pos])) ++pos;
  if (pos >= text.size() || text[pos] != '=') return std::unexpected(Malformed(text, "Missing \"=\" after array dimensions."));
  ++pos;
  if (upper < lower) return std::unexpected(MakeError("2202E", "upper bound cannot be less than lower bound"));
  return std::pair{lower, upper};
}

// int2vectorin / oidvectorin: elements separated by blanks.
std::expected<Value, Error> ParseVector(TypeId type, std::string_view text, const TextOptions& options) {
  ArrayValue array{.lower_bound = 0, .elements = {}};
  size_t pos = 0;
  while (true) {
    while (pos < text.size() && IsSpace(text[pos])) ++pos;
    if (pos >= text.size()) break;
    size_t end = pos;
    while (end < text.size() && !IsSpace(text[end])) ++end;
    auto v = ParseText(Info(type).element, text.substr(pos, end - pos), options);
    if (!v) return std::unexpected(v.error());
    array.elements.push_back(std::move(*v));
    pos = end;
  }
  return Value::Array(type, std::move(array));
}

// array_out's and record_out's quoting of one element's text.
std::string Quoted(std::string_view s, bool record) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out.push_back(record ? c : '\\');
    out.push_back(c);
  }
  return out + "\"";
}

bool NeedsQuotes(std::string_view s, std::string_view specials) {
  if (s.empty()) return true;
  for (char c : s) {
    if (IsSpace(c) || specials.find(c) != std::string_view::npos) return true;
  }
  return false;
}

template <typename T>
void AppendBigEndian(std::string& out, T v) {
  if constexpr (std::endian::native == std::endian::little) v = std::byteswap(v);
  char bytes[sizeof(T)];
  std::memcpy(bytes, &v, sizeof(T));
  out.append(bytes, sizeof(T));
}

// An element or field: its length (-1 for NULL) and its binary form.
void AppendField(std::string& out, const Value& v) {
  if (v.IsNull()) {
    AppendBigEndian<int32_t>(out, -1);
    return;
  }
  std::string bytes = EncodeBinary(v);
  AppendBigEndian<int32_t>(out, static_cast<int32_t>(bytes.size()));
  out += bytes;
}

}  // namespace

std::expected<Value, Error> ParseArray(TypeId type, std::string_view text, const TextOptions& options) {
  if (IsVector(type)) return ParseVector(type, text, options);
  size_t pos = 0;
  while (pos < text.size() && IsSpace(text[pos])) ++pos;
  std::optional<std::pair<int32_t, int32_t>> dims;
  if (pos < text.size() && text[pos] == '[') {
    auto d = ReadDimensions(text, pos);
    if (!d) return std::unexpected(d.error());
    dims = *d;
    while (pos < text.size() && IsSpace(text[pos])) ++pos;
  }
  if (pos >= text.size() || text[pos] != '{') {
    return std::unexpected(Malformed(text, "Array value must start with \"{\" or dimension information."));
  }
  auto raw = ReadElements(text, pos);
  if (!raw) return std::unexpected(raw.error());
  while (pos < text.size() && IsSpace(text[pos])) ++pos;
  if (pos < text.size()) return std::unexpected(Malformed(text, "Junk after closing right brace."));
  if (dims && static_cast<int64_t>(dims->second) - dims->first + 1 != static_cast<int64_t>(raw->size())) {
    return std::unexpected(Malformed(text, "Specified array dimensions do not match array contents."));
  }
  ArrayValue array{.lower_bound = dims ? dims->first : 1, .elements = {}};
  TypeId element = Info(type).element;
  for (const RawElement& r : *raw) {
    if (r.is_null) {
      array.elements.push_back(Value::Null(element));
      continue;
    }
    auto v = ParseText(element, r.text, options);
    if (!v) return std::unexpected(v.error());
    array.elements.push_back(std::move(*v));
  }
  return Value::Array(type, std::move(array));
}

std::string FormatArray(const Value& value, const TextOptions& options) {
  const ArrayValue& array = value.AsArray();
  std::string out;
  if (IsVector(value.type)) {
    for (const Value& e : array.elements) {
      if (!out.empty()) out += ' ';
      out += FormatText(e, options);
    }
    return out;
  }
  if (array.elements.empty()) return "{}";
  if (array.lower_bound != 1) {
    out = fmt::format("[{}:{}]=", array.lower_bound, array.lower_bound + static_cast<int64_t>(array.elements.size()) - 1);
  }
  out += '{';
  for (size_t i = 0; i < array.elements.size(); ++i) {
    if (i > 0) out += ',';
    const Value& e = array.elements[i];
    if (e.IsNull()) {
      out += "NULL";
      continue;
    }
    std::string s = FormatText(e, options);
    bool null_word = s.size() == 4 && strncasecmp(s.c_str(), "NULL", 4) == 0;
    out += null_word || NeedsQuotes(s, "{},\"\\") ? Quoted(s, false) : s;
  }
  return out + '}';
}

std::string FormatRecord(const Value& value, const TextOptions& options) {
  std::string out = "(";
  const RecordValue& record = value.AsRecord();
  for (size_t i = 0; i < record.fields.size(); ++i) {
    if (i > 0) out += ',';
    if (record.fields[i].IsNull()) continue;
    std::string s = FormatText(record.fields[i], options);
    out += NeedsQuotes(s, "(),\"\\") ? Quoted(s, true) : s;
  }
  return out + ")";
}

std::expected<Value, Error> ReceiveArray(TypeId type, BinaryReader& reader) {
  auto ndim = reader.Read<int32_t>();
  if (!ndim) return std::unexpected(ndim.error());
  auto flags = reader.Read<int32_t>();
  if (!flags) return std::unexpected(flags.error());
  auto element_oid = reader.Read<uint32_t>();
  if (!element_oid) return std::unexpected(element_oid.error());
  if (*ndim < 0) return std::unexpected(MakeError("22P03", fmt::format("invalid number of dimensions: {}", *ndim)));
  if (*ndim > 1) return std::unexpected(Multidimensional());
  if (*flags != 0 && *flags != 1) return std::unexpected(MakeError("22P03", "invalid array flags"));
  TypeId element = Info(type).element;
  if (*element_oid != Info(element).oid) {
    return std::unexpected(MakeError("42804", fmt::format("binary data has array element type {} ({}) instead of expected {} ({})",
                                                          *element_oid, Info(TypeFromOid(*element_oid).value_or(TypeId::kUnknown)).sql_name,
                                                          Info(element).oid, Info(element).sql_name)));
  }
  ArrayValue array{.lower_bound = IsVector(type) ? 0 : 1, .elements = {}};
  int32_t count = 0;
  if (*ndim == 1) {
    auto length = reader.Read<int32_t>();
    if (!length) return std::unexpected(length.error());
    auto lower = reader.Read<int32_t>();
    if (!lower) return std::unexpected(lower.error());
    if (*length < 0) return std::unexpected(MakeError("54000", "array size exceeds the maximum allowed"));
    count = *length;
    array.lower_bound = *lower;
  }
  for (int32_t i = 0; i < count; ++i) {
    auto length = reader.Read<int32_t>();
    if (!length) return std::unexpected(length.error());
    if (*length == -1) {
      array.elements.push_back(Value::Null(element));
      continue;
    }
    if (*length < 0) return std::unexpected(MakeError("22P03", "insufficient data left in message"));
    std::string_view rest = reader.TakeRest();
    if (rest.size() < static_cast<size_t>(*length)) return std::unexpected(MakeError("08P01", "insufficient data left in message"));
    auto v = DecodeBinary(element, rest.substr(0, *length));
    if (!v) return std::unexpected(v.error());
    array.elements.push_back(std::move(*v));
    reader = BinaryReader(rest.substr(*length));
  }
  return Value::Array(type, std::move(array));
}

std::string SendArray(const Value& value) {
  const ArrayValue& array = value.AsArray();
  std::string out;
  bool has_null = false;
  for (const Value& e : array.elements) has_null |= e.IsNull();
  AppendBigEndian<int32_t>(out, array.elements.empty() ? 0 : 1);
  AppendBigEndian<int32_t>(out, has_null ? 1 : 0);
  AppendBigEndian<uint32_t>(out, Info(Info(value.type).element).oid);
  if (!array.elements.empty()) {
    AppendBigEndian<int32_t>(out, static_cast<int32_t>(array.elements.size()));
    AppendBigEndian<int32_t>(out, array.lower_bound);
  }
  for (const Value& e : array.elements) AppendField(out, e);
  return out;
}

std::string SendRecord(const Value& value) {
  const RecordValue& record = value.AsRecord();
  std::string out;
  AppendBigEndian<int32_t>(out, static_cast<int32_t>(record.fields.size()));
  for (const Value& f : record.fields) {
    AppendBigEndian<uint32_t>(out, Info(f.type).oid);
    AppendField(out, f);
  }
  return out;
}

Error RecordInput() { return MakeError("0A000", "input of anonymous composite types is not implemented"); }

}  // namespace farmdb::sql
