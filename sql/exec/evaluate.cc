#include "sql/exec/evaluate.h"

#include <array>
#include <span>
#include <vector>

#include "cluster/fibers.h"
#include "sql/exec/builtins.h"
#include "sql/exec/functions_catalog.h"
#include "sql/plan/plan.h"
#include "sql/types/cast.h"

namespace farmdb::sql {

std::shared_ptr<const storage::Table> DatabaseAccess::TableFor(
    const std::shared_ptr<const storage::TableDescriptor>& descriptor) {
  for (const auto& t : tables_) {
    if (&t->descriptor() == descriptor.get() && t->caches() == caches) return t;
  }
  if (tables_.size() == kMaxTables) tables_.clear();
  return tables_.emplace_back(std::make_shared<const storage::Table>(descriptor, caches));
}

std::expected<void, Error> ExecContext::CheckInterrupts() const {
  cluster::FiberPool::TakeTurns();
  if (cancel != nullptr && cancel->IsRequested()) {
    return std::unexpected(MakeError("57014", "canceling statement due to user request"));
  }
  if (std::chrono::steady_clock::now() >= deadline) {
    return std::unexpected(MakeError("57014", "canceling statement due to statement timeout"));
  }
  return {};
}

namespace {

// SQL three-valued AND/OR: a NULL operand yields NULL unless another operand decides.
std::expected<Value, Error> EvalLogic(const BoundExpr& e, ExecContext& ctx) {
  bool is_and = e.kind == BoundKind::kAnd;
  bool saw_null = false;
  for (const BoundExprPtr& arg : e.args) {
    auto v = Evaluate(*arg, ctx);
    if (!v) return v;
    if (v->IsNull()) saw_null = true;
    else if (v->AsBool() != is_and) return Value::Bool(!is_and);
  }
  return saw_null ? Value::Null(TypeId::kBool) : Value::Bool(is_and);
}

std::expected<Value, Error> EvalCase(const BoundExpr& e, ExecContext& ctx) {
  size_t i = 0;
  std::optional<Value> operand;
  if (e.has_operand) {
    auto v = Evaluate(*e.args[0], ctx);
    if (!v) return v;
    operand = std::move(*v);
    i = 1;
  }
  size_t pairs_end = e.args.size() - (e.has_else ? 1 : 0);
  for (; i < pairs_end; i += 2) {
    auto test = Evaluate(*e.args[i], ctx);
    if (!test) return test;
    bool hit = operand ? !operand->IsNull() && !test->IsNull() && CompareValues(*operand, *test) == 0
                       : !test->IsNull() && test->AsBool();
    if (hit) return Evaluate(*e.args[i + 1], ctx);
  }
  if (e.has_else) return Evaluate(*e.args.back(), ctx);
  return Value::Null(e.type);
}

bool CompareHolds(CompareOp op, int c) {
  switch (op) {
    case CompareOp::kEq: return c == 0;
    case CompareOp::kNe: return c != 0;
    case CompareOp::kLt: return c < 0;
    case CompareOp::kLe: return c <= 0;
    case CompareOp::kGt: return c > 0;
    case CompareOp::kGe: return c >= 0;
  }
  return false;
}

// x op ANY|ALL (array): ANY is true when the operator holds for some element, ALL when it holds
// for every one; otherwise NULL if some comparison was NULL (or x was), else false.
std::expected<Value, Error> EvalScalarArrayOp(const BoundExpr& e, ExecContext& ctx) {
  auto left = Evaluate(*e.args[0], ctx);
  if (!left) return left;
  auto array = Evaluate(*e.args[1], ctx);
  if (!array) return array;
  if (array->IsNull()) return Value::Null(TypeId::kBool);
  bool saw_null = false;
  Value pair[2] = {std::move(*left), Value()};
  for (const Value& element : array->AsArray().elements) {
    pair[1] = element;
    auto v = EvaluateOn(*e.element_op, pair, ctx);
    if (!v) return v;
    if (v->IsNull()) saw_null = true;
    else if (v->AsBool() != e.all) return Value::Bool(!e.all);
  }
  return saw_null ? Value::Null(TypeId::kBool) : Value::Bool(e.all);
}

// The value of a constant, parameter or column expression where it lives; nullptr for any
// other expression, which has to be evaluated.
const Value* InPlace(const BoundExpr& e, const ExecContext& ctx) {
  switch (e.kind) {
    case BoundKind::kConst:
      return &e.value;
    case BoundKind::kParam:
      return &ctx.params[e.param_index];
    case BoundKind::kColumn:
      return e.levels_up == 0 ? &ctx.row[e.column] : &ctx.outer[ctx.outer.size() - e.levels_up][e.column];
    default:
      return nullptr;
  }
}

// An operator's operand: read in place when it can be (the usual case in WHERE clauses and SET
// lists, where a copy would duplicate strings and numerics only to compare or add them), else
// evaluated into `scratch`.
std::expected<const Value*, Error> Operand(const BoundExpr& e, ExecContext& ctx, Value& scratch) {
  if (const Value* v = InPlace(e, ctx)) return v;
  auto v = Evaluate(e, ctx);
  if (!v) return std::unexpected(v.error());
  scratch = std::move(*v);
  return &scratch;
}

// Comparison and arithmetic: strict (NULL if either operand is), operands read in place.
std::expected<Value, Error> EvalBinary(const BoundExpr& e, ExecContext& ctx) {
  Value scratch[2];
  auto l = Operand(*e.args[0], ctx, scratch[0]);
  if (!l) return std::unexpected(l.error());
  auto r = Operand(*e.args[1], ctx, scratch[1]);
  if (!r) return std::unexpected(r.error());
  if ((*l)->IsNull() || (*r)->IsNull()) return Value::Null(e.type);
  if (e.kind == BoundKind::kCompare) return Value::Bool(CompareHolds(e.compare, CompareValues(**l, **r)));
  return EvalArith(e.arith, e.type, **l, **r);
}

}  // namespace

std::expected<Value, Error> Evaluate(const BoundExpr& e, ExecContext& ctx) {
  if (const Value* v = InPlace(e, ctx)) return *v;
  switch (e.kind) {
    case BoundKind::kSubquery:
    case BoundKind::kExists:
    case BoundKind::kInSubquery:
    case BoundKind::kArraySubquery:
      return EvalSubquery(e, ctx);
    case BoundKind::kScalarArrayOp:
      return EvalScalarArrayOp(e, ctx);
    case BoundKind::kAnd:
    case BoundKind::kOr:
      return EvalLogic(e, ctx);
    case BoundKind::kCase:
      return EvalCase(e, ctx);
    case BoundKind::kCompare:
    case BoundKind::kArith:
      return EvalBinary(e, ctx);
    case BoundKind::kIsNull:
    case BoundKind::kIsNotNull: {
      Value scratch;
      auto v = Operand(*e.args[0], ctx, scratch);
      if (!v) return std::unexpected(v.error());
      return Value::Bool((*v)->IsNull() == (e.kind == BoundKind::kIsNull));
    }
    case BoundKind::kCoalesce:
      for (const BoundExprPtr& arg : e.args) {
        auto v = Evaluate(*arg, ctx);
        if (!v || !v->IsNull()) return v;
      }
      return Value::Null(e.type);
    default:
      break;
  }
  // The usual few arguments live on the stack: this runs for every operator and function call
  // of every row. An array constructor keeps its vector as the array's elements.
  constexpr size_t kInlineArgs = 4;
  std::array<Value, kInlineArgs> inline_args;
  std::vector<Value> heap_args;
  std::span<Value> args;
  if (e.kind == BoundKind::kArrayCtor || e.args.size() > kInlineArgs) {
    heap_args.resize(e.args.size());
    args = heap_args;
  } else {
    args = std::span(inline_args).first(e.args.size());
  }
  for (size_t i = 0; i < e.args.size(); ++i) {
    auto v = Evaluate(*e.args[i], ctx);
    if (!v) return v;
    args[i] = std::move(*v);
  }
  switch (e.kind) {
    case BoundKind::kNullIf:
      if (!args[0].IsNull() && !args[1].IsNull() && CompareValues(args[0], args[1]) == 0) return Value::Null(e.type);
      return args[0];
    case BoundKind::kFunction:
      if (e.function != Function::kSetConfig) {
        for (const Value& v : args) {
          if (v.IsNull()) return Value::Null(e.type);  // strict functions
        }
      }
      return EvalFunction(e, args, ctx);
    case BoundKind::kBuiltin:
      return CallBuiltin(e, args, ctx);
    case BoundKind::kArrayCtor:
      return Value::Array(e.type, ArrayValue{.elements = std::move(heap_args)});
    case BoundKind::kInList:
    case BoundKind::kIsDistinct:
    case BoundKind::kIsNotDistinct:
    case BoundKind::kIsTrue:
    case BoundKind::kIsNotTrue:
    case BoundKind::kIsFalse:
    case BoundKind::kIsNotFalse:
      return EvalPredicate(e, args);
    default:
      break;
  }
  for (const Value& v : args) {
    if (v.IsNull()) return Value::Null(e.type);
  }
  switch (e.kind) {
    case BoundKind::kCast: {
      auto named = [](TypeId t) { return t == TypeId::kRegclass || t == TypeId::kRegnamespace; };
      auto v = named(e.type) || named(args[0].type) ? CastRegclass(args[0], e.type, ctx) : Cast(args[0], e.type, ctx.output);
      if (!v || e.typmod < 0) return v;
      return ApplyTypmod(std::move(*v), e.typmod, e.assignment);
    }
    case BoundKind::kNegate:
      return EvalNegate(args[0]);
    case BoundKind::kConcat:
      return Value::Str(e.type, args[0].AsString() + args[1].AsString());
    case BoundKind::kNot:
      return Value::Bool(!args[0].AsBool());
    case BoundKind::kSubscript: {
      const ArrayValue& array = args[0].AsArray();
      int64_t i = args[1].AsInt() - array.lower_bound;
      if (i < 0 || i >= static_cast<int64_t>(array.elements.size())) return Value::Null(e.type);
      return array.elements[i];
    }
    case BoundKind::kFieldSelect:
      return args[0].AsRecord().fields[e.column];
    default:
      return std::unexpected(MakeError("XX000", "unhandled bound expression"));
  }
}

}  // namespace farmdb::sql
