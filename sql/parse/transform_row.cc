// Row values in comparisons (PostgreSQL's RowCompareExpr and row IN lists), rewritten here into
// comparisons of their elements, which the binder, planner and executor already know:
//   (a, b) = (x, y)         a = x AND b = y
//   (a, b) <> (x, y)        a <> x OR b <> y
//   (a, b) < (x, y)         a <= x AND (a < x OR (a = x AND b < y))   (likewise <=, >, >=)
//   (a, b) IN ((x, y), ...) (a = x AND b = y) OR ...                 (NOT IN: NOT over it)
// These give PostgreSQL's NULL semantics: an ordering comparison is decided by the first pair
// that is unequal or NULL (NULL then), equality is NULL when some pair is NULL and none unequal.
// The leading non-strict bound (a <= x above) is implied by the comparison, and bounds an index
// scan on the leading key column (keyset pagination); the planner turns an OR of equalities on
// an index's leading columns into a lookup per point (planner.cc PointSets). An element is transformed once per use,
// so a volatile function in a row comparison is called once per use, not once.
#include "sql/parse/transform.h"

namespace farmdb::sql {
namespace {

ExprPtr Binary(ExprKind kind, ExprPtr a, ExprPtr b, int location) {
  ExprPtr e = MakeExpr(kind, location);
  e->args.push_back(std::move(a));
  e->args.push_back(std::move(b));
  return e;
}

ExprPtr Compare(std::string_view op, ExprPtr a, ExprPtr b, int location) {
  ExprPtr e = Binary(ExprKind::kOperator, std::move(a), std::move(b), location);
  e->text = op;
  return e;
}

}  // namespace

bool IsRow(const PgQuery__Node* node) { return node != nullptr && node->node_case == PG_QUERY__NODE__NODE_ROW_EXPR; }

std::expected<ExprPtr, Error> Transformer::TransformRowCompare(std::string_view op, const PgQuery__RowExpr& left,
                                                               const PgQuery__RowExpr& right, int location) {
  const size_t n = left.n_args;
  if (right.n_args != n) return std::unexpected(ErrorAt("42601", "unequal number of entries in row expressions", location));
  if (n == 0) return std::unexpected(NotSupported("comparisons of empty rows", location));
  // Element k of each side, transformed anew for each use.
  auto pair = [&](size_t k, std::string_view pair_op) -> std::expected<ExprPtr, Error> {
    auto a = TransformExpr(*left.args[k]);
    if (!a) return a;
    auto b = TransformExpr(*right.args[k]);
    if (!b) return b;
    return Compare(pair_op, std::move(*a), std::move(*b), location);
  };
  if (op == "=" || op == "<>") {
    ExprPtr out;
    for (size_t k = 0; k < n; ++k) {
      auto p = pair(k, op);
      if (!p) return p;
      out = out ? Binary(op == "=" ? ExprKind::kAnd : ExprKind::kOr, std::move(out), std::move(*p), location)
                : std::move(*p);
    }
    return out;
  }
  if (op != "<" && op != "<=" && op != ">" && op != ">=") {
    return std::unexpected(NotSupported("the row operator " + std::string(op), location));
  }
  const std::string_view strict = op.substr(0, 1);  // < or >
  const std::string bound = std::string(strict) + "=";
  // OR over k of (pairs before k equal AND pair k ordered), pair n-1 taking `op` itself.
  ExprPtr ordered;
  for (size_t k = 0; k < n; ++k) {
    auto term = pair(k, k + 1 == n ? op : strict);
    if (!term) return term;
    ExprPtr conj = std::move(*term);
    for (size_t j = k; j-- > 0;) {
      auto eq = pair(j, "=");
      if (!eq) return eq;
      conj = Binary(ExprKind::kAnd, std::move(*eq), std::move(conj), location);
    }
    ordered = ordered ? Binary(ExprKind::kOr, std::move(ordered), std::move(conj), location) : std::move(conj);
  }
  if (n == 1) return ordered;
  auto leading = pair(0, bound);
  if (!leading) return leading;
  return Binary(ExprKind::kAnd, std::move(*leading), std::move(ordered), location);
}

std::expected<ExprPtr, Error> Transformer::TransformRowIn(const PgQuery__RowExpr& left, PgQuery__Node** items, size_t n,
                                                          bool negated, int location) {
  ExprPtr any;
  for (size_t i = 0; i < n; ++i) {
    if (!IsRow(items[i])) return std::unexpected(NotSupported("a row IN a list of other than rows", location));
    auto eq = TransformRowCompare("=", left, *items[i]->row_expr, location);
    if (!eq) return eq;
    any = any ? Binary(ExprKind::kOr, std::move(any), std::move(*eq), location) : std::move(*eq);
  }
  if (!negated) return any;
  ExprPtr e = MakeExpr(ExprKind::kNot, location);
  e->args.push_back(std::move(any));
  return e;
}

}  // namespace farmdb::sql
