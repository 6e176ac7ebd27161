// The catalog functions' overloads (PostgreSQL 15's pg_proc signatures) and the regular
// expression match operators ~, !~, ~*, !~* that psql's name patterns use.
#include <fmt/format.h>

#include "sql/bind/binder.h"
#include "sql/bind/function_signature.h"
#include "sql/system/catalog_functions.h"

namespace farmdb::sql {

using enum TypeId;

std::span<const FunctionSignature> CatalogFunctionSignatures() {
  static const std::vector<FunctionSignature> kSignatures = {
      {"format_type", Function::kFormatType, {kOid, kInt4}, kText},
      {"pg_get_userbyid", Function::kPgGetUserById, {kOid}, kName},
      {"pg_table_is_visible", Function::kPgTableIsVisible, {kOid}, kBool},
      {"pg_get_indexdef", Function::kPgGetIndexdef, {kOid}, kText},
      {"pg_get_indexdef", Function::kPgGetIndexdef, {kOid, kInt4, kBool}, kText},
      {"pg_get_constraintdef", Function::kPgGetConstraintdef, {kOid}, kText},
      {"pg_get_constraintdef", Function::kPgGetConstraintdef, {kOid, kBool}, kText},
      {"pg_get_expr", Function::kPgGetExpr, {kPgNodeTree, kOid}, kText},
      {"pg_get_expr", Function::kPgGetExpr, {kPgNodeTree, kOid, kBool}, kText},
      {"obj_description", Function::kObjDescription, {kOid}, kText},
      {"obj_description", Function::kObjDescription, {kOid, kName}, kText},
      {"col_description", Function::kColDescription, {kOid, kInt4}, kText},
      {"shobj_description", Function::kShobjDescription, {kOid, kName}, kText},
      {"pg_encoding_to_char", Function::kPgEncodingToChar, {kInt4}, kName},
      {"current_database", Function::kCurrentDatabase, {}, kName},
      {"current_schema", Function::kCurrentSchema, {}, kName},
      {"quote_ident", Function::kQuoteIdent, {kText}, kText},
      {"pg_relation_is_publishable", Function::kPgRelationIsPublishable, {kRegclass}, kBool},
      {"pg_get_statisticsobjdef_columns", Function::kPgGetStatisticsobjdefColumns, {kOid}, kText},
  };
  return kSignatures;
}

std::expected<Value, Error> Binder::ParseRegclassLiteral(std::string_view text) {
  auto catalog = LoadCatalog();
  if (!catalog) return std::unexpected(catalog.error());
  if (*catalog == nullptr || !(*catalog)->snapshot) return ParseText(kRegclass, text, text_options_);
  SystemViewContext ctx{*(*catalog)->snapshot, {}, {}, (*catalog)->search_path};
  return ParseTextWithCatalog(kRegclass, text, text_options_, &ctx);
}

std::expected<BoundExprPtr, Error> Binder::BindRegexMatch(std::string_view op, BoundExprPtr l, BoundExprPtr r,
                                                          int location) {
  // textregexeq and friends (name ~ text resolves to nameregexeq, which matches the same way).
  auto to_text = [&](BoundExprPtr e) -> std::expected<BoundExprPtr, Error> {
    TypeId from = e->type;
    auto c = Coerce(std::move(e), kText);
    if (c && !*c) {
      Error err = ErrorAt("42883", fmt::format("operator does not exist: {} {} text", Info(from).sql_name, op), location);
      err.hint = "No operator matches the given name and argument types. You might need to add explicit type casts.";
      return std::unexpected(err);
    }
    return c;
  };
  auto cl = to_text(std::move(l));
  if (!cl) return cl;
  auto cr = to_text(std::move(r));
  if (!cr) return cr;
  BoundExprPtr e = MakeBound(BoundKind::kFunction, kBool, location);
  e->function = op == "~" ? Function::kRegexMatch : op == "!~" ? Function::kRegexNotMatch
                : op == "~*" ? Function::kRegexIMatch : Function::kRegexNotIMatch;
  e->args.push_back(std::move(*cl));
  e->args.push_back(std::move(*cr));
  return e;
}

}  // namespace farmdb::sql
