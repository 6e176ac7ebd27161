// Structural operations on bound expressions (bound_expr.h).
#include "sql/bind/bound_expr.h"

#include <algorithm>

#include "sql/exec/builtins.h"

namespace farmdb::sql {

bool SameExpr(const BoundExpr& a, const BoundExpr& b) {
  if (a.kind != b.kind || a.type != b.type || a.typmod != b.typmod || a.args.size() != b.args.size()) return false;
  switch (a.kind) {
    case BoundKind::kConst:
      // Numeric constants count as different (no equality on Numeric; only costs a re-evaluation).
      if (std::holds_alternative<Numeric>(a.value.data) || a.value.data.index() != b.value.data.index()) return false;
      if (std::visit([&](const auto& x) {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, Numeric>) return true;
            else return !(x == std::get<T>(b.value.data));
          }, a.value.data)) {
        return false;
      }
      break;
    case BoundKind::kParam:
      if (a.param_index != b.param_index) return false;
      break;
    case BoundKind::kColumn:
      if (a.column != b.column || a.levels_up != b.levels_up) return false;
      break;
    case BoundKind::kAggregate:
    case BoundKind::kFieldSelect:
    case BoundKind::kWindow:
      if (a.column != b.column) return false;
      break;
    case BoundKind::kArith:
      if (a.arith != b.arith) return false;
      break;
    case BoundKind::kCompare:
      if (a.compare != b.compare) return false;
      break;
    case BoundKind::kFunction:
      if (a.function != b.function) return false;
      break;
    case BoundKind::kCase:
      if (a.has_operand != b.has_operand || a.has_else != b.has_else) return false;
      break;
    case BoundKind::kSubquery:
    case BoundKind::kExists:
    case BoundKind::kInSubquery:
    case BoundKind::kArraySubquery:
      if (a.subplan != b.subplan) return false;
      break;
    case BoundKind::kBuiltin:
      if (a.builtin != b.builtin) return false;
      break;
    case BoundKind::kScalarArrayOp:
      if (a.all != b.all || !SameExpr(*a.element_op, *b.element_op)) return false;
      break;
    default:
      break;
  }
  for (size_t i = 0; i < a.args.size(); ++i) {
    if (!SameExpr(*a.args[i], *b.args[i])) return false;
  }
  return true;
}

BoundExprPtr CloneExpr(const BoundExpr& e) {
  auto c = std::make_unique<BoundExpr>();
  c->kind = e.kind;
  c->type = e.type;
  c->typmod = e.typmod;
  c->assignment = e.assignment;
  c->location = e.location;
  c->value = e.value;
  c->param_index = e.param_index;
  c->arith = e.arith;
  c->compare = e.compare;
  c->function = e.function;
  c->has_operand = e.has_operand;
  c->has_else = e.has_else;
  c->column = e.column;
  c->levels_up = e.levels_up;
  c->builtin = e.builtin;
  c->all = e.all;
  c->subplan = e.subplan;
  c->record = e.record;
  c->element_op = e.element_op;
  c->outer_reads = e.outer_reads;
  c->grouped_outer = e.grouped_outer;
  for (const BoundExprPtr& a : e.args) c->args.push_back(CloneExpr(*a));
  return c;
}

bool IsSetReturning(const BoundExpr& e) { return e.kind == BoundKind::kBuiltin && e.builtin->rows != nullptr; }

bool ReadsOnlyRowAndParameters(const BoundExpr& e) {
  switch (e.kind) {
    case BoundKind::kFunction:
    case BoundKind::kBuiltin:
    case BoundKind::kAggregate:
    case BoundKind::kSubquery:
    case BoundKind::kExists:
    case BoundKind::kInSubquery:
    case BoundKind::kArraySubquery:
    case BoundKind::kWindow:
      return false;
    case BoundKind::kColumn:
      if (e.levels_up != 0) return false;
      break;
    case BoundKind::kScalarArrayOp:
      if (!ReadsOnlyRowAndParameters(*e.element_op)) return false;
      break;
    default:
      break;
  }
  return std::ranges::all_of(e.args, [](const BoundExprPtr& a) { return ReadsOnlyRowAndParameters(*a); });
}

const BoundExpr* FindSetReturning(const BoundExpr& e) {
  if (IsSetReturning(e)) return &e;
  for (const BoundExprPtr& a : e.args) {
    if (const BoundExpr* found = FindSetReturning(*a)) return found;
  }
  return nullptr;
}

}  // namespace farmdb::sql
