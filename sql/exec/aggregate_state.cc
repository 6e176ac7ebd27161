// Aggregate transitions (aggregate_state.h).
#include "sql/exec/aggregate_state.h"

#include <algorithm>

#include "sql/exec/row_hash.h"
#include "sql/types/cast.h"

namespace farmdb::sql {
namespace {

TypeId AvgAccumulator(TypeId input) {
  return input == TypeId::kFloat4 || input == TypeId::kFloat8 ? TypeId::kFloat8 : TypeId::kNumeric;
}

}  // namespace

AggregateState StartAggregate(const AggregateCall& call) {
  AggregateState s;
  s.value = Value::Null(call.type);
  return s;
}

namespace {

// One input's arguments (already evaluated) into the state.
std::expected<void, Error> Transition(const AggregateCall& call, AggregateState& s, std::span<const Value> args,
                                      ExecContext& ctx) {
  if (call.function == AggregateFunction::kCountStar) {
    ++s.count;
    return {};
  }
  if (call.function == AggregateFunction::kArrayAgg) {  // not strict: NULLs are elements too
    if (call.distinct && !s.seen.insert(GroupKey(args)).second) return {};
    ++s.count;
    s.elements.push_back(args[0]);
    return {};
  }
  if (args[0].IsNull()) return {};  // every other aggregate here is strict in its first argument
  if (call.distinct && !s.seen.insert(GroupKey(args)).second) return {};
  ++s.count;
  const Value& v = args[0];
  switch (call.function) {
    case AggregateFunction::kCount:
    case AggregateFunction::kCountStar:
      return {};
    case AggregateFunction::kSum:
    case AggregateFunction::kAvg: {
      // avg accumulates in its result type (numeric or float8), sum in sum's.
      auto in = Cast(v, call.function == AggregateFunction::kAvg ? AvgAccumulator(v.type) : call.type, ctx.output);
      if (!in) return std::unexpected(in.error());
      if (s.value.IsNull()) {
        s.value = std::move(*in);
        return {};
      }
      auto sum = EvalArith(ArithOp::kAdd, s.value.type, s.value, *in);
      if (!sum) return std::unexpected(sum.error());
      s.value = std::move(*sum);
      return {};
    }
    case AggregateFunction::kMin:
    case AggregateFunction::kMax: {
      int c = s.value.IsNull() ? 0 : CompareValues(v, s.value);
      if (s.value.IsNull() || (call.function == AggregateFunction::kMin ? c < 0 : c > 0)) s.value = v;
      return {};
    }
    case AggregateFunction::kBoolAnd:
    case AggregateFunction::kBoolOr: {
      bool is_and = call.function == AggregateFunction::kBoolAnd;
      s.value = Value::Bool(s.value.IsNull() ? v.AsBool() : is_and ? s.value.AsBool() && v.AsBool() : s.value.AsBool() || v.AsBool());
      return {};
    }
    case AggregateFunction::kArrayAgg:
      return {};
    case AggregateFunction::kStringAgg: {
      // string_agg(value, delimiter): the delimiter precedes every value but the first; a
      // NULL delimiter counts as empty.
      if (s.value.IsNull()) {
        s.value = Value::Str(call.type, v.AsString());
      } else {
        std::string joined = s.value.AsString();
        if (!args[1].IsNull()) joined += args[1].AsString();
        joined += v.AsString();
        s.value = Value::Str(call.type, std::move(joined));
      }
      return {};
    }
  }
  return {};
}

std::expected<Value, Error> Result(const AggregateCall& call, const AggregateState& s, ExecContext& ctx) {
  switch (call.function) {
    case AggregateFunction::kCount:
    case AggregateFunction::kCountStar:
      return Value::Int(TypeId::kInt8, s.count);
    case AggregateFunction::kAvg: {
      if (s.value.IsNull()) return Value::Null(call.type);
      auto n = Cast(Value::Int(TypeId::kInt8, s.count), s.value.type, ctx.output);
      if (!n) return n;
      return EvalArith(ArithOp::kDiv, s.value.type, s.value, *n);
    }
    case AggregateFunction::kArrayAgg:
      if (s.count == 0) return Value::Null(call.type);
      return Value::Array(call.type, ArrayValue{.elements = s.elements});
    default:
      return s.value;
  }
}

}  // namespace

std::expected<void, Error> Accumulate(const AggregateCall& call, AggregateState& s, std::span<const Value> input,
                                      ExecContext& ctx) {
  if (call.filter) {
    auto keep = EvaluateOn(*call.filter, input, ctx);
    if (!keep) return std::unexpected(keep.error());
    if (keep->IsNull() || !keep->AsBool()) return {};
  }
  Row values;  // the ORDER BY keys (if any), then the arguments
  for (const auto* list : {&call.order_by, &call.args}) {
    for (const BoundExprPtr& e : *list) {
      auto v = EvaluateOn(*e, input, ctx);
      if (!v) return std::unexpected(v.error());
      values.push_back(std::move(*v));
    }
  }
  if (!call.order_by.empty()) {
    s.ordered_inputs.push_back(std::move(values));
    return {};
  }
  return Transition(call, s, values, ctx);
}

std::expected<Value, Error> FinishAggregate(const AggregateCall& call, const AggregateState& s, ExecContext& ctx) {
  if (call.order_by.empty()) return Result(call, s, ctx);
  std::vector<const Row*> inputs;
  for (const Row& r : s.ordered_inputs) inputs.push_back(&r);
  std::ranges::stable_sort(inputs, [&](const Row* a, const Row* b) { return CompareByKeys(*a, *b, call.order) < 0; });
  AggregateState ordered = StartAggregate(call);
  for (const Row* r : inputs) {
    auto done = Transition(call, ordered, std::span(*r).subspan(call.order_by.size()), ctx);
    if (!done) return std::unexpected(done.error());
  }
  return Result(call, ordered, ctx);
}

}  // namespace farmdb::sql
