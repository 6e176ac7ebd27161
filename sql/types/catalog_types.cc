#include "sql/types/catalog_types.h"

#include <cctype>
#include <optional>
#include <fmt/format.h>

namespace farmdb::sql {
namespace {

struct Proc {
  Oid oid;
  std::string_view proname;
};

// PostgreSQL 15's OIDs of the types' input functions (pg_type.typinput).
constexpr Proc kInputFunctions[] = {
    {34, "namein"},           {38, "int2in"},          {40, "int2vectorin"},    {42, "int4in"},
    {44, "regprocin"},        {46, "textin"},          {54, "oidvectorin"},     {109, "unknownin"},
    {195, "pg_node_tree_in"}, {200, "float4in"},       {214, "float8in"},       {460, "int8in"},
    {750, "array_in"},        {1031, "aclitemin"},     {1044, "bpcharin"},      {1046, "varcharin"},
    {1084, "date_in"},        {1150, "timestamptz_in"}, {1242, "boolin"},       {1244, "byteain"},
    {1245, "charin"},         {1312, "timestamp_in"},  {1701, "numeric_in"},    {1798, "oidin"},
    {2218, "regclassin"},     {2220, "regtypein"},     {2290, "record_in"},     {2296, "anyarray_in"},
    {2298, "void_in"},        {2312, "anyelement_in"}, {4084, "regnamespacein"},
};

// A number, or "-" for 0, as the reg*in functions accept before trying a name.
std::optional<std::expected<Value, Error>> ParseRegNumber(std::string_view text, TypeId type) {
  if (text == "-") return Value::Int(type, 0);
  if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0]))) return std::nullopt;
  auto oid = ParseOidNumber(text, type);
  if (!oid) return std::unexpected(oid.error());
  return Value::Int(type, *oid);
}

}  // namespace

std::expected<int64_t, Error> ParseOidNumber(std::string_view text, TypeId type) {
  auto syntax = [&] {
    return MakeError("22P02", fmt::format("invalid input syntax for type {}: \"{}\"", Info(type).sql_name, text));
  };
  size_t i = 0;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  bool negative = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';
  size_t digits_start = i;
  // strtoul's magnitude; anything past 2^32 is out of range for oid either way.
  uint64_t magnitude = 0;
  bool overflow = false;
  for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i) {
    magnitude = magnitude * 10 + static_cast<uint64_t>(text[i] - '0');
    if (magnitude > (uint64_t{1} << 33)) overflow = true, magnitude = uint64_t{1} << 33;
  }
  if (i == digits_start) return std::unexpected(syntax());
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  if (i != text.size()) return std::unexpected(syntax());
  // oidin_subr: a value is in range if it is a valid Oid, or a valid int32 read as unsigned.
  if (!overflow && !negative && magnitude <= UINT32_MAX) return static_cast<int64_t>(magnitude);
  if (!overflow && negative && magnitude <= (uint64_t{1} << 31)) {
    return static_cast<int64_t>((uint64_t{1} << 32) - magnitude) & int64_t{UINT32_MAX};
  }
  return std::unexpected(
      MakeError("22003", fmt::format("value \"{}\" is out of range for type {}", text, Info(type).sql_name)));
}

Value ParseChar(std::string_view text) {
  auto octal = [](char c) { return c >= '0' && c <= '7'; };
  if (text.size() == 4 && text[0] == '\\' && octal(text[1]) && octal(text[2]) && octal(text[3])) {
    int v = ((text[1] - '0') << 6) | ((text[2] - '0') << 3) | (text[3] - '0');
    return Value::Str(TypeId::kChar, v == 0 ? std::string() : std::string(1, static_cast<char>(v)));
  }
  return Value::Str(TypeId::kChar, std::string(text.substr(0, text.empty() ? 0 : 1)));
}

std::string FormatChar(std::string_view value) {
  if (value.empty()) return {};
  auto c = static_cast<unsigned char>(value[0]);
  if (c & 0x80) return fmt::format("\\{:03o}", c);
  return std::string(1, static_cast<char>(c));
}

std::expected<Value, Error> ParseRegtype(std::string_view text) {
  if (auto number = ParseRegNumber(text, TypeId::kRegtype)) return *number;
  // Accept the pg_catalog-qualified and the double-quoted ("char") spellings too.
  std::string_view name = text;
  if (name.starts_with("pg_catalog.")) name.remove_prefix(11);
  std::string unquoted(name);
  if (unquoted.size() >= 2 && unquoted.front() == '"' && unquoted.back() == '"') {
    unquoted = unquoted.substr(1, unquoted.size() - 2);
  }
  auto id = TypeFromName(unquoted);
  if (!id) return std::unexpected(MakeError("42704", fmt::format("type \"{}\" does not exist", text)));
  return Value::Int(TypeId::kRegtype, Info(*id).oid);
}

std::string FormatRegtype(int64_t oid) {
  if (oid == 0) return "-";
  auto id = TypeFromOid(static_cast<Oid>(oid));
  if (!id) return std::to_string(oid);
  return std::string(Info(*id).sql_name);
}

std::expected<Value, Error> ParseRegclassNumber(std::string_view text) {
  if (auto number = ParseRegNumber(text, TypeId::kRegclass)) return *number;
  return std::unexpected(MakeError("0A000", fmt::format("regclass input \"{}\" needs the catalog", text)));
}

Error PgNodeTreeInput() { return MakeError("0A000", "cannot accept a value of type pg_node_tree"); }

Oid RegprocByName(std::string_view name) {
  for (const Proc& p : kInputFunctions) {
    if (p.proname == name) return p.oid;
  }
  return 0;
}

std::expected<Value, Error> ParseRegproc(std::string_view text) {
  if (auto number = ParseRegNumber(text, TypeId::kRegproc)) return *number;
  std::string_view name = text;
  if (name.starts_with("pg_catalog.")) name.remove_prefix(11);
  Oid oid = RegprocByName(name);
  if (oid == 0) return std::unexpected(MakeError("42883", fmt::format("function \"{}\" does not exist", text)));
  return Value::Int(TypeId::kRegproc, oid);
}

std::string FormatRegproc(int64_t oid) {
  if (oid == 0) return "-";
  for (const Proc& p : kInputFunctions) {
    if (p.oid == oid) return std::string(p.proname);
  }
  return std::to_string(oid);
}

std::expected<Value, Error> ParseRegnamespaceNumber(std::string_view text) {
  if (auto number = ParseRegNumber(text, TypeId::kRegnamespace)) return *number;
  return std::unexpected(MakeError("0A000", fmt::format("regnamespace input \"{}\" needs the catalog", text)));
}

Error PseudoTypeInput(TypeId type) {
  return MakeError("0A000", fmt::format("cannot accept a value of type {}", Info(type).name));
}

}  // namespace farmdb::sql
