// Operators: arithmetic, comparison and ||, resolved the way PostgreSQL's operator lookup
// resolves them for the built-in types (unknown literals take the other side's type).
#include <fmt/format.h>

#include "sql/bind/binder.h"

namespace farmdb::sql {
namespace {

bool IsDateTime(TypeId t) { return t == TypeId::kDate || t == TypeId::kTimestamp || t == TypeId::kTimestampTz; }

constexpr std::string_view kNoOperatorHint =
    "No operator matches the given name and argument types. You might need to add explicit type casts.";

}  // namespace

std::expected<BoundExprPtr, Error> Binder::BindOperator(const Expr& expr) {
  std::vector<BoundExprPtr> args;
  for (const ExprPtr& arg : expr.args) {
    auto bound = BindExpr(*arg);
    if (!bound) return bound;
    args.push_back(std::move(*bound));
  }
  return BindOperatorArgs(expr.text, std::move(args), expr.location);
}

std::expected<BoundExprPtr, Error> Binder::BindOperatorArgs(const std::string& op, std::vector<BoundExprPtr> args, int location) {
  if (args.size() == 1) {
    if (op != "-" && op != "+") return BindExtraOperator(op, std::move(args), location);
    TypeId t = args[0]->type;
    // Prefix + exists for the numeric types only (float8 preferred); prefix - for interval too.
    if (t == TypeId::kUnknown && op == "+") return CoerceOrFail(std::move(args[0]), TypeId::kFloat8);
    if (t == TypeId::kUnknown) {
      Error e = ErrorAt("42725", fmt::format("operator is not unique: {} unknown", op), location);
      e.hint = "Could not choose a best candidate operator. You might need to add explicit type casts.";
      return std::unexpected(e);
    }
    if (!IsNumeric(t)) {
      Error e = ErrorAt("42883", fmt::format("operator does not exist: {} {}", op, Info(t).sql_name), location);
      e.hint = kNoOperatorHint;
      return std::unexpected(e);
    }
    if (op == "+") return std::move(args[0]);
    BoundExprPtr e = MakeBound(BoundKind::kNegate, t, location);
    e->args.push_back(std::move(args[0]));
    return e;
  }
  if (op == "+" || op == "-" || op == "*" || op == "/" || op == "%") {
    return BindArith(op, std::move(args[0]), std::move(args[1]), location);
  }
  if (op == "=" || op == "<>" || op == "<" || op == "<=" || op == ">" || op == ">=") {
    return BindCompare(op, std::move(args[0]), std::move(args[1]), location);
  }
  if (op == "||") return BindConcat(std::move(args[0]), std::move(args[1]), location);
  return BindExtraOperator(op, std::move(args), location);
}

std::expected<BoundExprPtr, Error> Binder::BindArith(std::string_view op, BoundExprPtr l, BoundExprPtr r, int location) {
  TypeId lt = l->type, rt = r->type;
  if (lt == TypeId::kUnknown && rt == TypeId::kUnknown) {
    Error e = ErrorAt("42725", fmt::format("operator is not unique: unknown {} unknown", op), location);
    e.hint = "Could not choose a best candidate operator. You might need to add explicit type casts.";
    return std::unexpected(e);
  }
  // An unknown side takes the known side's type (date +/- unknown: the integer day count).
  if (lt == TypeId::kUnknown) lt = rt == TypeId::kDate ? TypeId::kInt4 : rt;
  if (rt == TypeId::kUnknown) rt = lt == TypeId::kDate ? TypeId::kInt4 : lt;
  ArithOp arith = op == "+" ? ArithOp::kAdd : op == "-" ? ArithOp::kSub : op == "*" ? ArithOp::kMul
                  : op == "/" ? ArithOp::kDiv : ArithOp::kMod;
  TypeId in_left, in_right, result;
  bool float_mod = arith == ArithOp::kMod && (lt == TypeId::kFloat4 || lt == TypeId::kFloat8 ||
                                              rt == TypeId::kFloat4 || rt == TypeId::kFloat8);
  // % exists for integers and numeric only.
  if (IsNumeric(lt) && IsNumeric(rt) && !float_mod) {
    in_left = in_right = result = PromoteNumeric(lt, rt);
  } else if (lt == TypeId::kDate && (rt == TypeId::kInt4 || rt == TypeId::kInt2) && (arith == ArithOp::kAdd || arith == ArithOp::kSub)) {
    in_left = TypeId::kDate, in_right = TypeId::kInt4, result = TypeId::kDate;
  } else if ((lt == TypeId::kInt4 || lt == TypeId::kInt2) && rt == TypeId::kDate && arith == ArithOp::kAdd) {
    in_left = TypeId::kInt4, in_right = TypeId::kDate, result = TypeId::kDate;
  } else if (lt == TypeId::kDate && rt == TypeId::kDate && arith == ArithOp::kSub) {
    in_left = in_right = TypeId::kDate, result = TypeId::kInt4;
  } else if (IsDateTime(lt) && IsDateTime(rt) && arith == ArithOp::kSub) {
    // timestamp - timestamp is an interval, a type farmdb does not have yet.
    return std::unexpected(ErrorAt("0A000", "type interval is not supported yet", location));
  } else {
    Error e = ErrorAt("42883", fmt::format("operator does not exist: {} {} {}", Info(l->type).sql_name, op,
                                           Info(r->type).sql_name), location);
    e.hint = kNoOperatorHint;
    return std::unexpected(e);
  }
  auto cl = Coerce(std::move(l), in_left);
  if (!cl) return cl;
  auto cr = Coerce(std::move(r), in_right);
  if (!cr) return cr;
  BoundExprPtr e = MakeBound(BoundKind::kArith, result, location);
  e->arith = arith;
  e->args.push_back(std::move(*cl));
  e->args.push_back(std::move(*cr));
  return e;
}

std::expected<BoundExprPtr, Error> Binder::BindCompare(std::string_view op, BoundExprPtr l, BoundExprPtr r, int location) {
  TypeId lt = l->type, rt = r->type;
  TypeId common;
  if (lt == TypeId::kUnknown && rt == TypeId::kUnknown) common = TypeId::kText;
  else if (lt == TypeId::kUnknown) common = rt;
  else if (rt == TypeId::kUnknown) common = lt;
  else if (lt == rt) common = lt;
  else if (IsNumeric(lt) && IsNumeric(rt)) common = PromoteNumeric(lt, rt);
  else if (IsString(lt) && IsString(rt)) common = TypeId::kText;
  // oideq: oid, regclass, regtype and integers compare as oid; "char" with a string as text.
  else if ((IsOidLike(lt) || IsOidLike(rt)) && (IsOidLike(lt) || IsInteger(lt)) && (IsOidLike(rt) || IsInteger(rt))) common = TypeId::kOid;
  else if ((lt == TypeId::kChar && IsString(rt)) || (rt == TypeId::kChar && IsString(lt))) common = TypeId::kText;
  // Date/time operands meet at the later of the two in date -> timestamp -> timestamptz.
  else if (IsDateTime(lt) && IsDateTime(rt)) common = ImplicitlyCastable(lt, rt) ? rt : lt;
  else {
    Error e = ErrorAt("42883", fmt::format("operator does not exist: {} {} {}", Info(lt).sql_name, op,
                                           Info(rt).sql_name), location);
    e.hint = kNoOperatorHint;
    return std::unexpected(e);
  }
  if (common == TypeId::kVoid) {
    Error e = ErrorAt("42883", fmt::format("operator does not exist: void {} void", op), location);
    e.hint = kNoOperatorHint;
    return std::unexpected(e);
  }
  auto cl = Coerce(std::move(l), common);
  if (!cl) return cl;
  auto cr = Coerce(std::move(r), common);
  if (!cr) return cr;
  BoundExprPtr e = MakeBound(BoundKind::kCompare, TypeId::kBool, location);
  e->compare = op == "=" ? CompareOp::kEq : op == "<>" ? CompareOp::kNe : op == "<" ? CompareOp::kLt
               : op == "<=" ? CompareOp::kLe : op == ">" ? CompareOp::kGt : CompareOp::kGe;
  e->args.push_back(std::move(*cl));
  e->args.push_back(std::move(*cr));
  return e;
}

std::expected<BoundExprPtr, Error> Binder::BindConcat(BoundExprPtr l, BoundExprPtr r, int location) {
  TypeId lt = l->type, rt = r->type;
  if (IsArray(lt) || IsArray(rt)) return BindArrayConcat(std::move(l), std::move(r), location);
  TypeId result;
  if (lt == TypeId::kBytea && (rt == TypeId::kBytea || rt == TypeId::kUnknown)) result = TypeId::kBytea;
  else if (rt == TypeId::kBytea && lt == TypeId::kUnknown) result = TypeId::kBytea;
  else if (IsString(lt) || IsString(rt) || lt == TypeId::kUnknown || rt == TypeId::kUnknown) result = TypeId::kText;
  else {
    Error e = ErrorAt("42883", fmt::format("operator does not exist: {} || {}", Info(lt).sql_name, Info(rt).sql_name), location);
    e.hint = kNoOperatorHint;
    return std::unexpected(e);
  }
  // text || anynonarray: the non-text side is converted with its output function.
  auto to_result = [&](BoundExprPtr e) -> std::expected<BoundExprPtr, Error> {
    if (e->type == result) return e;
    if (e->type == TypeId::kUnknown || IsString(e->type)) return Coerce(std::move(e), result);
    return MakeCast(std::move(e), result);
  };
  auto cl = to_result(std::move(l));
  if (!cl) return cl;
  auto cr = to_result(std::move(r));
  if (!cr) return cr;
  BoundExprPtr e = MakeBound(BoundKind::kConcat, result, location);
  e->args.push_back(std::move(*cl));
  e->args.push_back(std::move(*cr));
  return e;
}

}  // namespace farmdb::sql
