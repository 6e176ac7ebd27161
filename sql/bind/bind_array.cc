// Arrays and records: ARRAY[...] (transformArrayExpr), subscripts and field selection
// (transformIndirection), `x op ANY|ALL (array)` (make_scalar_array_op) and the array forms of
// || (array_cat, array_append, array_prepend), as PostgreSQL's parse analysis types them.
#include <fmt/format.h>

#include <algorithm>

#include "sql/bind/binder.h"
#include "sql/exec/builtins.h"

namespace farmdb::sql {
namespace {

const Builtin* ArrayFunction(std::string_view name) {
  for (const Builtin& b : ArrayFunctions()) {
    if (b.name == name) return &b;
  }
  return nullptr;
}

}  // namespace

std::expected<BoundExprPtr, Error> Binder::BindArrayConstructor(const Expr& expr) {
  if (expr.args.empty()) {
    Error e = ErrorAt("42P18", "cannot determine type of empty array", expr.location);
    e.hint = "Explicitly cast to the desired type, for example ARRAY[]::integer[].";
    return std::unexpected(e);
  }
  BoundExprPtr e = MakeBound(BoundKind::kArrayCtor, TypeId::kUnknown, expr.location);
  std::vector<BoundExprPtr*> elements;
  for (const ExprPtr& arg : expr.args) {
    auto bound = BindExpr(*arg);
    if (!bound) return bound;
    e->args.push_back(std::move(*bound));
  }
  for (BoundExprPtr& a : e->args) elements.push_back(&a);
  auto element = CommonType(elements, "ARRAY");
  if (!element) return std::unexpected(element.error());
  if (IsArray(*element)) return std::unexpected(ErrorAt("0A000", "multidimensional arrays is not supported yet", expr.location));
  auto array = ArrayOf(*element);
  if (!array) {
    return std::unexpected(ErrorAt("42704", fmt::format("could not find array type for data type {}", Info(*element).sql_name),
                                   expr.location));
  }
  e->type = *array;
  return e;
}

std::expected<BoundExprPtr, Error> Binder::BindSubscript(const Expr& expr) {
  auto base = BindExpr(*expr.args[0]);
  if (!base) return base;
  TypeId type = (*base)->type;
  if (type == TypeId::kUnknown) {
    // A literal has no type to subscript ('{1}'[1] is a syntax PostgreSQL refuses too).
    return std::unexpected(ErrorAt("42804", "cannot subscript type unknown because it does not support subscripting",
                                   expr.location));
  }
  if (!IsArray(type)) {
    return std::unexpected(ErrorAt("42804", fmt::format("cannot subscript type {} because it does not support subscripting",
                                                        Info(type).sql_name), expr.location));
  }
  auto index = BindExpr(*expr.args[1]);
  if (!index) return index;
  // Subscripts take int4 by assignment coercion: any number (rounded), or a literal.
  int index_location = (*index)->location;
  std::expected<BoundExprPtr, Error> as_int =
      IsNumeric((*index)->type) && (*index)->type != TypeId::kInt4 ? MakeCast(std::move(*index), TypeId::kInt4)
                                                                   : Coerce(std::move(*index), TypeId::kInt4);
  if (!as_int) return as_int;
  if (!*as_int) return std::unexpected(ErrorAt("42804", "array subscript must have type integer", index_location));
  BoundExprPtr e = MakeBound(BoundKind::kSubscript, Info(type).element, expr.location);
  e->args.push_back(std::move(*base));
  e->args.push_back(std::move(*as_int));
  return e;
}

std::expected<BoundExprPtr, Error> Binder::BindFieldSelect(const Expr& expr) {
  auto base = BindExpr(*expr.args[0]);
  if (!base) return base;
  const BoundExpr& record = **base;
  if (record.type != TypeId::kRecord || !record.record) {
    return std::unexpected(ErrorAt("42809", fmt::format("column notation .{} applied to type {}, which is not a composite type",
                                                        expr.text, Info(record.type).sql_name), expr.location));
  }
  auto field = std::ranges::find(*record.record, expr.text, &RecordField::name);
  if (field == record.record->end()) {
    return std::unexpected(ErrorAt("42703", fmt::format("could not identify column \"{}\" in record data type", expr.text),
                                   expr.location));
  }
  BoundExprPtr e = MakeBound(BoundKind::kFieldSelect, field->type, expr.location);
  e->typmod = field->typmod;
  e->column = static_cast<int>(field - record.record->begin());
  e->args.push_back(std::move(*base));
  return e;
}

std::expected<BoundExprPtr, Error> Binder::BindAnyAll(const Expr& expr) {
  auto left = BindExpr(*expr.args[0]);
  if (!left) return left;
  auto right = BindExpr(*expr.args[1]);
  if (!right) return right;
  std::string_view form = expr.all ? "ALL" : "ANY";
  // An untyped literal on the right is an array of the left side's type ('{a,b}').
  if ((*right)->type == TypeId::kUnknown) {
    TypeId element = (*left)->type == TypeId::kUnknown ? TypeId::kText : (*left)->type;
    auto array = ArrayOf(element);
    if (!array) array = TypeId::kTextArray;
    auto typed = Coerce(std::move(*right), *array);
    if (!typed) return typed;
    right = std::move(typed);
  }
  TypeId array_type = (*right)->type;
  if (!IsArray(array_type)) {
    return std::unexpected(ErrorAt("42809", "op ANY/ALL (array) requires array on right side", expr.location));
  }
  TypeId element = Info(array_type).element;
  // An untyped left side takes the element type, as the literal would in `x op element`.
  if ((*left)->type == TypeId::kUnknown) {
    auto typed = Coerce(std::move(*left), element);
    if (!typed) return typed;
    left = std::move(typed);
  }
  // The operator is bound once over placeholders: slot 0 holds the left value, slot 1 each
  // element in turn.
  std::vector<BoundExprPtr> operands;
  operands.push_back(MakeBound(BoundKind::kColumn, (*left)->type, (*left)->location));
  operands.push_back(MakeBound(BoundKind::kColumn, element, (*right)->location));
  operands[0]->typmod = (*left)->typmod;
  operands[1]->column = 1;
  auto op = BindOperatorArgs(expr.text, std::move(operands), expr.location);
  if (!op) return op;
  if ((*op)->type != TypeId::kBool) {
    return std::unexpected(ErrorAt("42809", "op ANY/ALL (array) requires operator to yield boolean", expr.location));
  }
  if (auto refused = RefuseSetReturning(**op, form); !refused) return std::unexpected(refused.error());
  BoundExprPtr e = MakeBound(BoundKind::kScalarArrayOp, TypeId::kBool, expr.location);
  e->all = expr.all;
  e->element_op = std::shared_ptr<const BoundExpr>(std::move(*op));
  e->args.push_back(std::move(*left));
  e->args.push_back(std::move(*right));
  return e;
}

std::expected<BoundExprPtr, Error> Binder::BindArrayConcat(BoundExprPtr l, BoundExprPtr r, int location) {
  // anyarray || anyarray, anyarray || anyelement, anyelement || anyarray; an untyped literal
  // beside an array is an array too (array_cat), as PostgreSQL's operator resolution picks.
  bool left_array = IsArray(l->type) || (l->type == TypeId::kUnknown && IsArray(r->type));
  bool right_array = IsArray(r->type) || (r->type == TypeId::kUnknown && IsArray(l->type));
  const Builtin* function = left_array && right_array ? ArrayFunction("array_cat")
                            : left_array             ? ArrayFunction("array_append")
                                                     : ArrayFunction("array_prepend");
  std::vector<BoundExprPtr> args;
  args.push_back(std::move(l));
  args.push_back(std::move(r));
  return BindBuiltinCall(*function, std::move(args), location);
}

}  // namespace farmdb::sql
