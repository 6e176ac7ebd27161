// Binder: resolves an AST expression or statement into bound form (types, operators,
// functions, implicit casts), inferring parameter types from context as PostgreSQL's
// parse analysis does ($1::int4, $1 + 1 -> int4, comparisons), leaving the rest to the caller.
//
// Thread-safety: one Binder per statement analysis, one thread.
#pragma once

#include <expected>
#include <string>
#include <string_view>
#include <vector>

#include "sql/bind/bound_expr.h"
#include "sql/parse/ast.h"
#include "sql/types/type_io.h"

namespace farmdb::sql {

struct BoundSelect {
  std::vector<BoundExprPtr> targets;
  std::vector<std::string> names;
  BoundExprPtr where;  // null when absent
};

class Binder {
 public:
  // `param_types` holds the client's types (kUnknown where unspecified); binding fills in
  // inferred ones and grows it to the highest $n referenced.
  // `max_params`: 0 for the simple query protocol, where $n has no value.
  // `text_options`: the session's settings when the statement is analysed, with which
  // literals are read ('01/02/2024'::date follows DateStyle then, as in PostgreSQL).
  Binder(std::string_view source, std::vector<TypeId>& param_types, int max_params, const TextOptions& text_options)
      : source_(source), param_types_(param_types), max_params_(max_params), text_options_(text_options) {}

  std::expected<BoundSelect, Error> BindSelect(const SelectStmt& select);
  std::expected<BoundExprPtr, Error> BindExpr(const Expr& expr);
  // Makes `e` of type `target`: literals and unknown parameters take the type, other types
  // need an implicit cast. A null result means no implicit cast exists (the caller words that
  // error); an error is a literal that does not parse as `target`.
  std::expected<BoundExprPtr, Error> Coerce(BoundExprPtr e, TypeId target);
  // Resolves a still-unknown expression to text (output columns, || operands).
  std::expected<BoundExprPtr, Error> ResolveUnknown(BoundExprPtr e);

 private:
  std::expected<BoundExprPtr, Error> BindConst(const Expr& expr);
  std::expected<BoundExprPtr, Error> BindCast(const Expr& expr);
  std::expected<BoundExprPtr, Error> BindPlainCast(const Expr& expr);  // ignoring type modifiers
  std::expected<BoundExprPtr, Error> BindOperator(const Expr& expr);
  std::expected<BoundExprPtr, Error> BindArith(std::string_view op, BoundExprPtr l, BoundExprPtr r, int location);
  std::expected<BoundExprPtr, Error> BindCompare(std::string_view op, BoundExprPtr l, BoundExprPtr r, int location);
  std::expected<BoundExprPtr, Error> BindConcat(BoundExprPtr l, BoundExprPtr r, int location);
  // ~, !~, ~*, !~* (bind_catalog_function.cc).
  std::expected<BoundExprPtr, Error> BindRegexMatch(std::string_view op, BoundExprPtr l, BoundExprPtr r, int location);
  std::expected<BoundExprPtr, Error> BindBool(const Expr& expr);
  std::expected<BoundExprPtr, Error> BindCase(const Expr& expr);
  std::expected<BoundExprPtr, Error> BindCoalesce(const Expr& expr);
  std::expected<BoundExprPtr, Error> BindNullIf(const Expr& expr);
  std::expected<BoundExprPtr, Error> BindFunction(const Expr& expr);
  // Coerces to bool or fails with 42804 "argument of <context> must be type boolean, ...".
  std::expected<BoundExprPtr, Error> RequireBool(BoundExprPtr e, std::string_view context);
  // select_common_type + coercion of every expression to it (CASE, COALESCE).
  std::expected<TypeId, Error> CommonType(const std::vector<BoundExprPtr*>& exprs, std::string_view context);
  std::expected<BoundExprPtr, Error> CoerceOrFail(BoundExprPtr e, TypeId target);

  Error ErrorAt(std::string sqlstate, std::string message, int location) const;

  std::string_view source_;
  std::vector<TypeId>& param_types_;
  int max_params_;
  const TextOptions& text_options_;
};

// Whether PostgreSQL casts `from` to `to` implicitly (pg_cast castcontext 'i').
bool ImplicitlyCastable(TypeId from, TypeId to);
// The type two numeric types are promoted to for an operator (int4 + int8 -> int8, ...).
TypeId PromoteNumeric(TypeId a, TypeId b);
BoundExprPtr MakeCast(BoundExprPtr e, TypeId target);
// A node of `kind` with its result type and source location; the caller fills in the rest.
BoundExprPtr MakeBound(BoundKind kind, TypeId type, int location);

}  // namespace farmdb::sql
