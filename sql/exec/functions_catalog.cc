// The catalog functions psql and pgjdbc call (PostgreSQL 15's pg_proc signatures) and the regular
// expression match operators ~, !~, ~*, !~* their name patterns use, as Builtin tables.
#include "sql/exec/functions_catalog.h"

#include <fmt/format.h>

#include <regex.h>

#include "sql/exec/builtins.h"
#include "sql/system/catalog_functions.h"

namespace farmdb::sql {
namespace {

using enum TypeId;
using Args = std::span<const Value>;
using Result = std::expected<Value, Error>;

// RE_compile_and_cache's messages (pg_regerror) for the errors both engines detect.
std::string_view RegexErrorMessage(int code) {
  switch (code) {
    case REG_EPAREN: return "parentheses () not balanced";
    case REG_EBRACK: return "brackets [] not balanced";
    case REG_EBRACE: return "braces {} not balanced";
    case REG_BADBR: return "invalid repetition count(s)";
    case REG_BADRPT: return "quantifier operand invalid";
    case REG_EESCAPE: return "invalid escape \\ sequence";
    case REG_ERANGE: return "invalid character range";
    case REG_ECTYPE: return "invalid character class";
    default: return "invalid regular expression";
  }
}

// textregexeq & co. PostgreSQL's regular expressions are AREs, a superset of the POSIX EREs
// regcomp reads; psql's name patterns and pgjdbc's ('^pg_', '^(name)$', escaped specials) are
// EREs, matched the same way by both.
template <bool kNegated, bool kCaseInsensitive>
Result RegexMatch(Args a, const BoundExpr&, ExecContext&) {
  int flags = REG_EXTENDED | REG_NOSUB | (kCaseInsensitive ? REG_ICASE : 0);
  regex_t re;
  if (int code = regcomp(&re, a[1].AsString().c_str(), flags); code != 0) {
    return std::unexpected(MakeError("2201B", fmt::format("invalid regular expression: {}", RegexErrorMessage(code))));
  }
  bool found = regexec(&re, a[0].AsString().c_str(), 0, nullptr, 0) == 0;
  regfree(&re);
  return Value::Bool(found != kNegated);
}

Value Name(std::string s) { return Value::Str(kName, std::move(s)); }
Value Text(std::string s) { return Value::Str(kText, std::move(s)); }
Oid OidArg(Args a, size_t i) { return static_cast<Oid>(a[i].AsInt()); }

// The statement's catalog, or 0A000 outside a session statement.
std::expected<SystemViewContext, Error> Catalog(const ExecContext& ctx) {
  auto catalog = CatalogContext(ctx);
  if (!catalog) return std::unexpected(MakeError("0A000", "catalog functions are not available in this statement yet"));
  return *catalog;
}

// Not strict: a NULL typmod means "none given".
Result FormatTypeFn(Args a, const BoundExpr&, ExecContext&) {
  if (a[0].IsNull()) return Value::Null(kText);
  return Text(FormatType(OidArg(a, 0), a[1].IsNull() ? std::nullopt : std::optional<int32_t>(static_cast<int32_t>(a[1].AsInt()))));
}

// farmdb has no COMMENT ON (column comments are NULL) and no extended statistics objects.
Result NullText(Args, const BoundExpr&, ExecContext&) { return Value::Null(kText); }

Result EncodingToChar(Args a, const BoundExpr&, ExecContext&) { return Name(PgEncodingToChar(a[0].AsInt())); }
Result QuoteIdentFn(Args a, const BoundExpr&, ExecContext&) { return Text(QuoteIdent(a[0].AsString())); }
Result GetExpr(Args a, const BoundExpr&, ExecContext&) { return Text(PgGetExpr(a[0].AsString())); }

Result GetUserById(Args a, const BoundExpr&, ExecContext& ctx) {
  auto c = Catalog(ctx);
  if (!c) return std::unexpected(c.error());
  return Name(PgGetUserById(*c, OidArg(a, 0)));
}

Result TableIsVisible(Args a, const BoundExpr&, ExecContext& ctx) {
  auto c = Catalog(ctx);
  if (!c) return std::unexpected(c.error());
  Oid oid = OidArg(a, 0);
  if (!c->catalog.TableByOid(oid) && !c->catalog.IndexByOid(oid) && !c->catalog.SequenceByOid(oid) && !SystemViewByOid(oid)) {
    return Value::Null(kBool);  // PostgreSQL: NULL for an OID with no relation
  }
  return Value::Bool(PgTableIsVisible(*c, oid));
}

Result GetIndexdef(Args a, const BoundExpr&, ExecContext& ctx) {
  auto c = Catalog(ctx);
  if (!c) return std::unexpected(c.error());
  int column = a.size() > 1 ? static_cast<int>(a[1].AsInt()) : 0;
  auto def = PgGetIndexdef(*c, OidArg(a, 0), column, a.size() > 2 && a[2].AsBool());
  return def ? Text(std::move(*def)) : Value::Null(kText);
}

Result GetConstraintdef(Args a, const BoundExpr&, ExecContext& ctx) {
  auto c = Catalog(ctx);
  if (!c) return std::unexpected(c.error());
  auto def = PgGetConstraintdef(*c, OidArg(a, 0), a.size() > 1 && a[1].AsBool());
  return def ? Text(std::move(*def)) : Value::Null(kText);
}

Result CurrentDatabase(Args, const BoundExpr&, ExecContext& ctx) {
  auto c = Catalog(ctx);
  if (!c) return std::unexpected(c.error());
  return Name(std::string(c->database));
}

// current_user and session_user: farmdb has no SET ROLE / SET SESSION AUTHORIZATION, so both are
// the user the session logged in as.
Result CurrentUser(Args, const BoundExpr&, ExecContext& ctx) {
  auto c = Catalog(ctx);
  if (!c) return std::unexpected(c.error());
  return Name(std::string(c->user));
}

Result CurrentSchemaFn(Args, const BoundExpr&, ExecContext& ctx) {
  auto c = Catalog(ctx);
  if (!c) return std::unexpected(c.error());
  auto schema = CurrentSchema(*c);
  return schema ? Name(std::move(*schema)) : Value::Null(kName);
}

Result ObjDescriptionFn(Args a, const BoundExpr&, ExecContext&) {
  auto comment = ObjDescription(OidArg(a, 0), a.size() > 1 ? std::string_view(a[1].AsString()) : std::string_view());
  return comment ? Text(std::move(*comment)) : Value::Null(kText);
}

Result CurrentSchemasFn(Args a, const BoundExpr&, ExecContext& ctx) {
  auto c = Catalog(ctx);
  if (!c) return std::unexpected(c.error());
  ArrayValue schemas;
  for (std::string& name : CurrentSchemas(*c, a[0].AsBool())) schemas.elements.push_back(Name(std::move(name)));
  return Value::Array(kNameArray, std::move(schemas));
}

Result RelationIsPublishable(Args a, const BoundExpr&, ExecContext& ctx) {
  auto c = Catalog(ctx);
  if (!c) return std::unexpected(c.error());
  return Value::Bool(PgRelationIsPublishable(*c, OidArg(a, 0)));
}

}  // namespace

std::optional<SystemViewContext> CatalogContext(const ExecContext& ctx) {
  if (ctx.db == nullptr || !ctx.db->catalog) return std::nullopt;
  return SystemViewContext{*ctx.db->catalog, ctx.db->database, ctx.db->user, ctx.db->search_path, ctx.db->databases,
                           ctx.db->cluster};
}

std::expected<Value, Error> CastRegclass(const Value& value, TypeId target, const ExecContext& ctx) {
  auto catalog = CatalogContext(ctx);
  return CastWithCatalog(value, target, ctx.output, catalog ? &*catalog : nullptr);
}

std::span<const Builtin> CatalogFunctions() {
  static const std::vector<Builtin> kFunctions = {
      {"format_type", {kOid, kInt4}, kText, FormatTypeFn, /*strict=*/false},
      {"pg_get_userbyid", {kOid}, kName, GetUserById},
      {"pg_table_is_visible", {kOid}, kBool, TableIsVisible},
      {"pg_get_indexdef", {kOid}, kText, GetIndexdef},
      {"pg_get_indexdef", {kOid, kInt4, kBool}, kText, GetIndexdef},
      {"pg_get_constraintdef", {kOid}, kText, GetConstraintdef},
      {"pg_get_constraintdef", {kOid, kBool}, kText, GetConstraintdef},
      {"pg_get_expr", {kPgNodeTree, kOid}, kText, GetExpr},
      {"pg_get_expr", {kPgNodeTree, kOid, kBool}, kText, GetExpr},
      {"obj_description", {kOid}, kText, ObjDescriptionFn},
      {"obj_description", {kOid, kName}, kText, ObjDescriptionFn},
      {"col_description", {kOid, kInt4}, kText, NullText},
      {"shobj_description", {kOid, kName}, kText, NullText},
      {"pg_get_statisticsobjdef_columns", {kOid}, kText, NullText},
      {"pg_encoding_to_char", {kInt4}, kName, EncodingToChar},
      {"current_database", {}, kName, CurrentDatabase},
      {"current_user", {}, kName, CurrentUser},
      {"session_user", {}, kName, CurrentUser},
      {"current_schema", {}, kName, CurrentSchemaFn},
      {"current_schemas", {kBool}, kNameArray, CurrentSchemasFn},
      {"quote_ident", {kText}, kText, QuoteIdentFn},
      {"pg_relation_is_publishable", {kRegclass}, kBool, RelationIsPublishable},
  };
  return kFunctions;
}

std::span<const Builtin> RegexOperators() {
  // textregexeq and friends; name ~ text is nameregexeq and bpchar ~ text bpcharregexeq, which
  // match the same way.
  static const std::vector<Builtin> kOperators = [] {
    std::vector<Builtin> ops;
    for (TypeId left : {kText, kName, kBpchar}) {
      ops.push_back({"~", {left, kText}, kBool, RegexMatch<false, false>});
      ops.push_back({"!~", {left, kText}, kBool, RegexMatch<true, false>});
      ops.push_back({"~*", {left, kText}, kBool, RegexMatch<false, true>});
      ops.push_back({"!~*", {left, kText}, kBool, RegexMatch<true, true>});
    }
    return ops;
  }();
  return kOperators;
}

}  // namespace farmdb::sql
