// Predicates PostgreSQL's parse analysis rewrites into operators (transformAExprIn,
// transformAExprBetween, LIKE as ~~, make_distinct_op, transformBooleanTest) and GREATEST/LEAST
// (transformMinMaxExpr).
#include <fmt/format.h>

#include "sql/bind/binder.h"
#include "sql/exec/builtins.h"

namespace farmdb::sql {
namespace {

BoundExprPtr Combine(BoundKind kind, BoundExprPtr a, BoundExprPtr b, int location) {
  BoundExprPtr e = MakeBound(kind, TypeId::kBool, location);
  e->args.push_back(std::move(a));
  e->args.push_back(std::move(b));
  return e;
}

}  // namespace

std::expected<BoundExprPtr, Error> Binder::BindInList(const Expr& expr) {
  // x IN (a, b, ...) is x = ANY(ARRAY[a, b, ...]) over the common type of x and the items;
  // without a common type (or with a single item) it is x = a OR x = b ..., each operator
  // resolved alone. NOT IN is x <> ALL(...), which is NOT (x = ANY(...)) in three-valued logic.
  std::string_view op = expr.negated ? "<>" : "=";
  if (expr.args.size() > 2) {
    std::vector<BoundExprPtr> all;
    for (const ExprPtr& arg : expr.args) {
      auto bound = BindExpr(*arg);
      if (!bound) return bound;
      all.push_back(std::move(*bound));
    }
    std::vector<BoundExprPtr*> ptrs;
    for (BoundExprPtr& e : all) ptrs.push_back(&e);
    auto common = CommonType(ptrs, "IN");
    if (common) {
      BoundExprPtr in = MakeBound(BoundKind::kInList, TypeId::kBool, expr.location);
      in->args = std::move(all);
      if (!expr.negated) return in;
      BoundExprPtr negated = MakeBound(BoundKind::kNot, TypeId::kBool, expr.location);
      negated->args.push_back(std::move(in));
      return negated;
    }
    // CommonType fails on the types before it converts anything (42804); other errors (a
    // literal that does not parse as the common type) are PostgreSQL's too.
    if (common.error().sqlstate != "42804") return std::unexpected(common.error());
  }
  BoundExprPtr chain;
  for (size_t i = 1; i < expr.args.size(); ++i) {
    auto l = BindExpr(*expr.args[0]);
    if (!l) return l;
    auto r = BindExpr(*expr.args[i]);
    if (!r) return r;
    auto cmp = BindCompare(op, std::move(*l), std::move(*r), expr.location);
    if (!cmp) return cmp;
    chain = chain ? Combine(expr.negated ? BoundKind::kAnd : BoundKind::kOr, std::move(chain), std::move(*cmp), expr.location)
                  : std::move(*cmp);
  }
  return chain;
}

std::expected<BoundExprPtr, Error> Binder::BindBetween(const Expr& expr) {
  // a BETWEEN b AND c is a >= b AND a <= c, a bound anew for each comparison as PostgreSQL
  // copies it; NOT BETWEEN is a < b OR a > c; SYMMETRIC also tries the bounds swapped.
  auto compare = [&](std::string_view op, size_t bound) -> std::expected<BoundExprPtr, Error> {
    auto a = BindExpr(*expr.args[0]);
    if (!a) return a;
    auto b = BindExpr(*expr.args[bound]);
    if (!b) return b;
    return BindCompare(op, std::move(*a), std::move(*b), expr.location);
  };
  auto range = [&](size_t low, size_t high) -> std::expected<BoundExprPtr, Error> {
    auto first = compare(expr.negated ? "<" : ">=", low);
    if (!first) return first;
    auto second = compare(expr.negated ? ">" : "<=", high);
    if (!second) return second;
    return Combine(expr.negated ? BoundKind::kOr : BoundKind::kAnd, std::move(*first), std::move(*second), expr.location);
  };
  auto forward = range(1, 2);
  if (!forward || !expr.symmetric) return forward;
  auto backward = range(2, 1);
  if (!backward) return backward;
  return Combine(expr.negated ? BoundKind::kAnd : BoundKind::kOr, std::move(*forward), std::move(*backward), expr.location);
}

std::expected<BoundExprPtr, Error> Binder::BindLike(const Expr& expr) {
  // ESCAPE arrives as like_escape(pattern, escape), a function of its own.
  std::vector<BoundExprPtr> args;
  for (const ExprPtr& arg : expr.args) {
    auto bound = BindExpr(*arg);
    if (!bound) return bound;
    args.push_back(std::move(*bound));
  }
  std::string op = std::string(expr.negated ? "!" : "") + (expr.case_insensitive ? "~~*" : "~~");
  return BindExtraOperator(op, std::move(args), expr.location);
}

std::expected<BoundExprPtr, Error> Binder::BindDistinct(const Expr& expr) {
  auto l = BindExpr(*expr.args[0]);
  if (!l) return l;
  auto r = BindExpr(*expr.args[1]);
  if (!r) return r;
  auto cmp = BindCompare("=", std::move(*l), std::move(*r), expr.location);
  if (!cmp) return cmp;
  (*cmp)->kind = expr.negated ? BoundKind::kIsNotDistinct : BoundKind::kIsDistinct;
  return cmp;
}

std::expected<BoundExprPtr, Error> Binder::BindBooleanTest(const Expr& expr) {
  auto arg = BindExpr(*expr.args[0]);
  if (!arg) return arg;
  std::string context = fmt::format("IS {}{}", expr.negated ? "NOT " : "", expr.text == "true" ? "TRUE"
                                                                          : expr.text == "false" ? "FALSE" : "UNKNOWN");
  auto b = RequireBool(std::move(*arg), context);
  if (!b) return b;
  BoundKind kind = expr.text == "true"    ? (expr.negated ? BoundKind::kIsNotTrue : BoundKind::kIsTrue)
                   : expr.text == "false" ? (expr.negated ? BoundKind::kIsNotFalse : BoundKind::kIsFalse)
                                          : (expr.negated ? BoundKind::kIsNotNull : BoundKind::kIsNull);
  BoundExprPtr e = MakeBound(kind, TypeId::kBool, expr.location);
  e->args.push_back(std::move(*b));
  return e;
}

std::expected<BoundExprPtr, Error> Binder::BindMinMax(std::string_view name, std::vector<BoundExprPtr> args, int location) {
  std::vector<BoundExprPtr*> ptrs;
  for (BoundExprPtr& e : args) ptrs.push_back(&e);
  auto common = CommonType(ptrs, name == "greatest" ? "GREATEST" : "LEAST");
  if (!common) return std::unexpected(common.error());
  for (const Builtin& b : MathFunctions()) {
    if (b.name != name) continue;
    BoundExprPtr e = MakeBound(BoundKind::kBuiltin, *common, location);
    e->builtin = &b;
    e->args = std::move(args);
    return e;
  }
  return std::unexpected(ErrorAt("XX000", fmt::format("no built-in {}", name), location));
}

}  // namespace farmdb::sql
