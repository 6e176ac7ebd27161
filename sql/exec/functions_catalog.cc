#include "sql/exec/functions_catalog.h"

#include <fmt/format.h>

#include <regex.h>

#include "sql/system/catalog_functions.h"

namespace farmdb::sql {
namespace {

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
std::expected<Value, Error> RegexMatch(Function f, const std::string& text, const std::string& pattern) {
  int flags = REG_EXTENDED | REG_NOSUB;
  if (f == Function::kRegexIMatch || f == Function::kRegexNotIMatch) flags |= REG_ICASE;
  regex_t re;
  if (int code = regcomp(&re, pattern.c_str(), flags); code != 0) {
    return std::unexpected(MakeError("2201B", fmt::format("invalid regular expression: {}", RegexErrorMessage(code))));
  }
  bool found = regexec(&re, text.c_str(), 0, nullptr, 0) == 0;
  regfree(&re);
  bool negated = f == Function::kRegexNotMatch || f == Function::kRegexNotIMatch;
  return Value::Bool(found != negated);
}

Value Name(std::string s) { return Value::Str(TypeId::kName, std::move(s)); }
Value Text(std::string s) { return Value::Str(TypeId::kText, std::move(s)); }

}  // namespace

std::optional<SystemViewContext> CatalogContext(const ExecContext& ctx) {
  if (ctx.db == nullptr || !ctx.db->catalog) return std::nullopt;
  return SystemViewContext{*ctx.db->catalog, ctx.db->database, ctx.db->user, ctx.db->search_path};
}

std::expected<Value, Error> CastRegclass(const Value& value, TypeId target, const ExecContext& ctx) {
  auto catalog = CatalogContext(ctx);
  return CastWithCatalog(value, target, ctx.output, catalog ? &*catalog : nullptr);
}

bool IsCatalogFunction(Function function) {
  switch (function) {
    case Function::kFormatType:
    case Function::kPgGetUserById:
    case Function::kPgTableIsVisible:
    case Function::kPgGetIndexdef:
    case Function::kPgGetConstraintdef:
    case Function::kPgGetExpr:
    case Function::kObjDescription:
    case Function::kColDescription:
    case Function::kShobjDescription:
    case Function::kPgEncodingToChar:
    case Function::kCurrentDatabase:
    case Function::kCurrentSchema:
    case Function::kQuoteIdent:
    case Function::kPgRelationIsPublishable:
    case Function::kPgGetStatisticsobjdefColumns:
    case Function::kRegexMatch:
    case Function::kRegexNotMatch:
    case Function::kRegexIMatch:
    case Function::kRegexNotIMatch:
      return true;
    default:
      return false;
  }
}

std::expected<Value, Error> EvalCatalogFunction(const BoundExpr& e, std::span<const Value> args, ExecContext& ctx) {
  auto catalog = CatalogContext(ctx);
  return EvalCatalogFunction(e, args, catalog ? &*catalog : nullptr);
}

std::expected<Value, Error> EvalCatalogFunction(const BoundExpr& e, std::span<const Value> args,
                                                const SystemViewContext* catalog) {
  auto oid = [&](size_t i) { return static_cast<Oid>(args[i].AsInt()); };
  // Functions without a catalog to read.
  switch (e.function) {
    case Function::kFormatType:  // not strict: a NULL typmod means "none given"
      if (args[0].IsNull()) return Value::Null(TypeId::kText);
      return Text(FormatType(oid(0), args[1].IsNull() ? std::nullopt
                                                      : std::optional<int32_t>(static_cast<int32_t>(args[1].AsInt()))));
    case Function::kObjDescription:
    case Function::kColDescription:
    case Function::kShobjDescription:
      return Value::Null(TypeId::kText);  // farmdb has no COMMENT ON: pg_description is empty
    case Function::kPgGetStatisticsobjdefColumns:
      return Value::Null(TypeId::kText);  // no extended statistics objects exist
    case Function::kPgEncodingToChar:
      return Name(PgEncodingToChar(args[0].AsInt()));
    case Function::kQuoteIdent:
      return Text(QuoteIdent(args[0].AsString()));
    case Function::kPgGetExpr:
      return Text(PgGetExpr(args[0].AsString()));
    case Function::kRegexMatch:
    case Function::kRegexNotMatch:
    case Function::kRegexIMatch:
    case Function::kRegexNotIMatch:
      return RegexMatch(e.function, args[0].AsString(), args[1].AsString());
    default:
      break;
  }
  if (catalog == nullptr) {
    return std::unexpected(MakeError("0A000", "catalog functions are not available in this statement yet"));
  }
  switch (e.function) {
    case Function::kPgGetUserById:
      return Name(PgGetUserById(*catalog, oid(0)));
    case Function::kPgTableIsVisible:
      if (!catalog->catalog.TableByOid(oid(0)) && !catalog->catalog.IndexByOid(oid(0)) &&
          !catalog->catalog.SequenceByOid(oid(0)) && !SystemViewByOid(oid(0))) {
        return Value::Null(TypeId::kBool);  // PostgreSQL: NULL for an OID with no relation
      }
      return Value::Bool(PgTableIsVisible(*catalog, oid(0)));
    case Function::kPgGetIndexdef: {
      int column = args.size() > 1 ? static_cast<int>(args[1].AsInt()) : 0;
      bool pretty = args.size() > 2 && args[2].AsBool();
      auto def = PgGetIndexdef(*catalog, oid(0), column, pretty);
      return def ? Text(std::move(*def)) : Value::Null(TypeId::kText);
    }
    case Function::kPgGetConstraintdef: {
      auto def = PgGetConstraintdef(*catalog, oid(0), args.size() > 1 && args[1].AsBool());
      return def ? Text(std::move(*def)) : Value::Null(TypeId::kText);
    }
    case Function::kCurrentDatabase:
      return Name(std::string(catalog->database));
    case Function::kCurrentSchema: {
      auto schema = CurrentSchema(*catalog);
      return schema ? Name(std::move(*schema)) : Value::Null(TypeId::kName);
    }
    case Function::kPgRelationIsPublishable:
      return Value::Bool(PgRelationIsPublishable(*catalog, oid(0)));
    default:
      break;
  }
  return std::unexpected(MakeError("XX000", "unhandled catalog function"));
}

}  // namespace farmdb::sql
