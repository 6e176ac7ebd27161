// Binding of expressions other than operators and function calls.
#include <fmt/format.h>

#include "sql/bind/binder.h"
#include "sql/types/cast.h"

namespace farmdb::sql {
namespace {

// The literal as written, before any type was chosen for it.
bool IsUnknownLiteral(const BoundExpr& e) { return e.kind == BoundKind::kConst && e.type == TypeId::kUnknown; }

int Rank(TypeId t) {
  switch (t) {
    case TypeId::kInt2: return 0;
    case TypeId::kInt4: return 1;
    case TypeId::kInt8: return 2;
    case TypeId::kNumeric: return 3;
    case TypeId::kFloat4: return 4;
    default: return 5;
  }
}

}  // namespace

bool ImplicitlyCastable(TypeId from, TypeId to) {
  if (from == to) return true;
  // Polymorphic parameters take any array / any type (ResolveCallTypes makes them agree).
  if (to == TypeId::kAnyArray) return IsArray(from);
  if (to == TypeId::kAnyElement) return from != TypeId::kVoid;
  // An array casts as its elements do (int2vector -> int2[] too).
  if (IsArray(from) && IsArray(to)) return ImplicitlyCastable(Info(from).element, Info(to).element);
  if (IsArray(from) || IsArray(to)) return false;
  if (IsNumeric(from) && IsNumeric(to)) return Rank(from) < Rank(to);
  if (IsString(from) && IsString(to)) return to != TypeId::kName;
  // pg_cast's implicit casts among the catalog types: integers -> oid/regclass/regtype, oid <->
  // regclass/regtype, "char" and pg_node_tree -> text.
  if (IsOidLike(to) && (IsInteger(from) || IsOidLike(from))) return true;
  if ((from == TypeId::kChar || from == TypeId::kPgNodeTree) && to == TypeId::kText) return true;
  // date -> timestamp -> timestamptz, as pg_cast's implicit casts.
  auto rank = [](TypeId t) { return t == TypeId::kDate ? 1 : t == TypeId::kTimestamp ? 2 : t == TypeId::kTimestampTz ? 3 : 0; };
  return rank(from) != 0 && rank(to) != 0 && rank(from) < rank(to);
}

TypeId PromoteNumeric(TypeId a, TypeId b) {
  if (a == b) return a;
  if (IsInteger(a) && IsInteger(b)) return Rank(a) > Rank(b) ? a : b;
  // float4 with anything but float4 resolves to the preferred type float8.
  if (a == TypeId::kFloat4 || b == TypeId::kFloat4 || a == TypeId::kFloat8 || b == TypeId::kFloat8) return TypeId::kFloat8;
  return TypeId::kNumeric;
}

BoundExprPtr MakeBound(BoundKind kind, TypeId type, int location) {
  auto e = std::make_unique<BoundExpr>();
  e->kind = kind;
  e->type = type;
  e->location = location;
  return e;
}

BoundExprPtr MakeCast(BoundExprPtr e, TypeId target) {
  BoundExprPtr cast = MakeBound(BoundKind::kCast, target, e->location);
  cast->args.push_back(std::move(e));
  return cast;
}

Error Binder::ErrorAt(std::string sqlstate, std::string message, int location) const {
  Error e = MakeError(std::move(sqlstate), std::move(message));
  e.position = CharPosition(source_, location);
  return e;
}

std::expected<BoundExprPtr, Error> Binder::Coerce(BoundExprPtr e, TypeId target) {
  if (e->type == target) return e;
  if (IsUnknownLiteral(*e)) {
    if (e->value.IsNull()) {
      e->value = Value::Null(target);
    } else {
      auto v = target == TypeId::kRegclass || target == TypeId::kRegnamespace
                   ? ParseCatalogNameLiteral(target, e->value.AsString())
                   : ParseText(target, e->value.AsString(), text_options_);
      if (!v) {
        Error err = v.error();
        err.position = CharPosition(source_, e->location);
        return std::unexpected(err);
      }
      e->value = std::move(*v);
    }
    e->type = target;
    return e;
  }
  if (e->kind == BoundKind::kParam && e->type == TypeId::kUnknown) {
    param_types_[e->param_index] = target;
    e->type = target;
    return e;
  }
  if (!ImplicitlyCastable(e->type, target)) return BoundExprPtr();
  return MakeCast(std::move(e), target);
}

std::expected<BoundExprPtr, Error> Binder::CoerceOrFail(BoundExprPtr e, TypeId target) {
  TypeId from = e->type;
  int location = e->location;
  auto r = Coerce(std::move(e), target);
  if (r && !*r) {
    return std::unexpected(ErrorAt("42804", fmt::format("cannot cast type {} to {}", Info(from).sql_name,
                                                        Info(target).sql_name), location));
  }
  return r;
}

std::expected<BoundExprPtr, Error> Binder::ResolveUnknown(BoundExprPtr e) {
  if (e->type != TypeId::kUnknown) return e;
  return Coerce(std::move(e), TypeId::kText);
}

std::expected<BoundExprPtr, Error> Binder::RequireBool(BoundExprPtr e, std::string_view context) {
  TypeId from = e->type;
  int location = e->location;
  auto r = Coerce(std::move(e), TypeId::kBool);
  if (r && !*r) {
    return std::unexpected(ErrorAt("42804", fmt::format("argument of {} must be type boolean, not type {}", context,
                                                        Info(from).sql_name), location));
  }
  return r;
}

std::expected<TypeId, Error> Binder::CommonType(const std::vector<BoundExprPtr*>& exprs, std::string_view context) {
  std::optional<TypeId> common;
  for (BoundExprPtr* e : exprs) {
    TypeId t = (*e)->type;
    if (t == TypeId::kUnknown) continue;
    if (!common) {
      common = t;
    } else if (*common != t) {
      if (IsNumeric(*common) && IsNumeric(t)) common = PromoteNumeric(*common, t);
      else if (IsString(*common) && IsString(t)) common = TypeId::kText;
      else if (ImplicitlyCastable(*common, t) && !IsString(t) && !IsNumeric(t)) common = t;
      else if (ImplicitlyCastable(t, *common) && !IsString(t) && !IsNumeric(t)) continue;
      else {
        return std::unexpected(ErrorAt("42804", fmt::format("{} types {} and {} cannot be matched", context,
                                                            Info(*common).sql_name, Info(t).sql_name), (*e)->location));
      }
    }
  }
  TypeId result = common.value_or(TypeId::kText);
  for (BoundExprPtr* e : exprs) {
    auto c = CoerceOrFail(std::move(*e), result);
    if (!c) return std::unexpected(c.error());
    *e = std::move(*c);
  }
  return result;
}

std::expected<BoundExprPtr, Error> Binder::BindConst(const Expr& expr) {
  switch (expr.kind) {
    case ExprKind::kInteger: {
      bool fits_int4 = expr.int_value >= INT32_MIN && expr.int_value <= INT32_MAX;
      TypeId t = fits_int4 ? TypeId::kInt4 : TypeId::kInt8;
      BoundExprPtr e = MakeBound(BoundKind::kConst, t, expr.location);
      e->value = Value::Int(t, expr.int_value);
      return e;
    }
    case ExprKind::kNumeric: {
      auto n = Numeric::Parse(expr.text);
      if (!n) return std::unexpected(ErrorAt(n.error().sqlstate, n.error().message, expr.location));
      BoundExprPtr e = MakeBound(BoundKind::kConst, TypeId::kNumeric, expr.location);
      e->value = Value::Num(std::move(*n));
      return e;
    }
    case ExprKind::kString: {
      BoundExprPtr e = MakeBound(BoundKind::kConst, TypeId::kUnknown, expr.location);
      e->value = Value::Str(TypeId::kUnknown, expr.text);
      return e;
    }
    case ExprKind::kBool: {
      BoundExprPtr e = MakeBound(BoundKind::kConst, TypeId::kBool, expr.location);
      e->value = Value::Bool(expr.bool_value);
      return e;
    }
    default: {
      BoundExprPtr e = MakeBound(BoundKind::kConst, TypeId::kUnknown, expr.location);
      e->value = Value::Null(TypeId::kUnknown);
      return e;
    }
  }
}

std::expected<BoundExprPtr, Error> Binder::BindCast(const Expr& expr) {
  auto cast = BindPlainCast(expr);
  if (!cast || expr.typmod < 0) return cast;
  BoundExprPtr with_typmod = MakeCast(std::move(*cast), expr.cast_type);
  with_typmod->typmod = expr.typmod;
  with_typmod->location = expr.location;
  return with_typmod;
}

std::expected<BoundExprPtr, Error> Binder::BindPlainCast(const Expr& expr) {
  TypeId target = expr.cast_type;
  const Expr& operand = *expr.args[0];
  if (operand.kind == ExprKind::kArray && operand.args.empty() && IsArray(target)) {
    // ARRAY[]::int4[]: the cast gives the empty constructor its type (transformArrayExpr).
    BoundExprPtr empty = MakeBound(BoundKind::kConst, target, expr.location);
    empty->value = Value::Array(target, ArrayValue{});
    return empty;
  }
  auto arg = BindExpr(operand);
  if (!arg) return arg;
  if ((*arg)->type == TypeId::kUnknown) return Coerce(std::move(*arg), target);
  if (!CanCast((*arg)->type, target)) {
    return std::unexpected(ErrorAt("42846", fmt::format("cannot cast type {} to {}", Info((*arg)->type).sql_name,
                                                        Info(target).sql_name), expr.location));
  }
  if ((*arg)->type == target) return arg;
  BoundExprPtr cast = MakeCast(std::move(*arg), target);
  cast->location = expr.location;
  return cast;
}

std::expected<BoundExprPtr, Error> Binder::BindBool(const Expr& expr) {
  BoundKind kind = expr.kind == ExprKind::kAnd ? BoundKind::kAnd : expr.kind == ExprKind::kOr ? BoundKind::kOr : BoundKind::kNot;
  std::string_view context = expr.kind == ExprKind::kAnd ? "AND" : expr.kind == ExprKind::kOr ? "OR" : "NOT";
  BoundExprPtr e = MakeBound(kind, TypeId::kBool, expr.location);
  for (const ExprPtr& arg : expr.args) {
    auto bound = BindExpr(*arg);
    if (!bound) return bound;
    auto b = RequireBool(std::move(*bound), context);
    if (!b) return b;
    e->args.push_back(std::move(*b));
  }
  return e;
}

std::expected<BoundExprPtr, Error> Binder::BindCase(const Expr& expr) {
  BoundExprPtr e = MakeBound(BoundKind::kCase, TypeId::kUnknown, expr.location);
  e->has_operand = expr.has_operand;
  e->has_else = expr.has_else;
  for (const ExprPtr& arg : expr.args) {
    auto bound = BindExpr(*arg);
    if (!bound) return bound;
    e->args.push_back(std::move(*bound));
  }
  size_t first = expr.has_operand ? 1 : 0;
  size_t pairs_end = e->args.size() - (expr.has_else ? 1 : 0);
  std::vector<BoundExprPtr*> results, tests;
  if (expr.has_operand) tests.push_back(&e->args[0]);
  for (size_t i = first; i < pairs_end; i += 2) {
    if (expr.has_operand) {
      tests.push_back(&e->args[i]);
    } else {
      auto cond = RequireBool(std::move(e->args[i]), "CASE/WHEN");
      if (!cond) return cond;
      e->args[i] = std::move(*cond);
    }
    results.push_back(&e->args[i + 1]);
  }
  if (expr.has_else) results.push_back(&e->args.back());
  if (expr.has_operand) {
    auto t = CommonType(tests, "CASE/WHEN");
    if (!t) return std::unexpected(t.error());
  }
  auto type = CommonType(results, "CASE");
  if (!type) return std::unexpected(type.error());
  e->type = *type;
  if (auto refused = RefuseSetReturning(*e, "CASE"); !refused) return std::unexpected(refused.error());
  return e;
}

std::expected<BoundExprPtr, Error> Binder::BindCoalesce(const Expr& expr) {
  BoundExprPtr e = MakeBound(BoundKind::kCoalesce, TypeId::kUnknown, expr.location);
  std::vector<BoundExprPtr*> all;
  for (const ExprPtr& arg : expr.args) {
    auto bound = BindExpr(*arg);
    if (!bound) return bound;
    e->args.push_back(std::move(*bound));
  }
  for (BoundExprPtr& arg : e->args) all.push_back(&arg);
  auto type = CommonType(all, "COALESCE");
  if (!type) return std::unexpected(type.error());
  e->type = *type;
  if (auto refused = RefuseSetReturning(*e, "COALESCE"); !refused) return std::unexpected(refused.error());
  return e;
}

std::expected<BoundExprPtr, Error> Binder::BindNullIf(const Expr& expr) {
  // NULLIF(a, b) is CASE WHEN a = b THEN NULL ELSE a END: the = operator decides the types.
  auto l = BindExpr(*expr.args[0]);
  if (!l) return l;
  auto r = BindExpr(*expr.args[1]);
  if (!r) return r;
  auto cmp = BindCompare("=", std::move(*l), std::move(*r), expr.location);
  if (!cmp) return cmp;
  BoundExprPtr e = MakeBound(BoundKind::kNullIf, (*cmp)->args[0]->type, expr.location);
  e->args = std::move((*cmp)->args);
  return e;
}

std::expected<BoundExprPtr, Error> Binder::BindExpr(const Expr& expr) {
  switch (expr.kind) {
    case ExprKind::kInteger:
    case ExprKind::kNumeric:
    case ExprKind::kString:
    case ExprKind::kBool:
    case ExprKind::kNull:
      return BindConst(expr);
    case ExprKind::kParam: {
      if (expr.param_number < 1 || expr.param_number > max_params_) {
        return std::unexpected(ErrorAt("42P02", fmt::format("there is no parameter ${}", expr.param_number), expr.location));
      }
      if (param_types_.size() < static_cast<size_t>(expr.param_number)) param_types_.resize(expr.param_number, TypeId::kUnknown);
      BoundExprPtr e = MakeBound(BoundKind::kParam, param_types_[expr.param_number - 1], expr.location);
      e->param_index = expr.param_number - 1;
      return e;
    }
    case ExprKind::kColumnRef:
      return BindColumnRef(expr);
    case ExprKind::kCast:
      return BindCast(expr);
    case ExprKind::kOperator:
      return BindOperator(expr);
    case ExprKind::kAnd:
    case ExprKind::kOr:
    case ExprKind::kNot:
      return BindBool(expr);
    case ExprKind::kIsNull:
    case ExprKind::kIsNotNull: {
      auto arg = BindExpr(*expr.args[0]);
      if (!arg) return arg;
      auto resolved = ResolveUnknown(std::move(*arg));
      if (!resolved) return resolved;
      BoundExprPtr e = MakeBound(expr.kind == ExprKind::kIsNull ? BoundKind::kIsNull : BoundKind::kIsNotNull, TypeId::kBool,
                            expr.location);
      e->args.push_back(std::move(*resolved));
      return e;
    }
    case ExprKind::kCase:
      return BindCase(expr);
    case ExprKind::kCoalesce:
      return BindCoalesce(expr);
    case ExprKind::kNullIf:
      return BindNullIf(expr);
    case ExprKind::kFunction:
      if (expr.over) return BindWindowFunction(expr);
      return IsAggregateName(expr.text) ? BindAggregate(expr) : BindFunction(expr);
    case ExprKind::kArray:
      return BindArrayConstructor(expr);
    case ExprKind::kArraySubquery:
      return BindSubquery(expr);
    case ExprKind::kSubscript:
      return BindSubscript(expr);
    case ExprKind::kFieldSelect:
      return BindFieldSelect(expr);
    case ExprKind::kAnyAll:
      return BindAnyAll(expr);
    case ExprKind::kInList:
      return BindInList(expr);
    case ExprKind::kBetween:
      return BindBetween(expr);
    case ExprKind::kLike:
      return BindLike(expr);
    case ExprKind::kDistinct:
      return BindDistinct(expr);
    case ExprKind::kBooleanTest:
      return BindBooleanTest(expr);
    case ExprKind::kExists:
    case ExprKind::kSubquery:
    case ExprKind::kInSubquery:
      return BindSubquery(expr);
    case ExprKind::kDefault:
      return std::unexpected(ErrorAt("42601", "DEFAULT is not allowed in this context", expr.location));
    case ExprKind::kError:
      return std::unexpected(*expr.error);
    case ExprKind::kStar:
      break;  // expanded by the target list binding; refused elsewhere (exec/not_runnable.cc)
  }
  return std::unexpected(ErrorAt("XX000", "unhandled expression kind", expr.location));
}

}  // namespace farmdb::sql
