// Hash aggregation (plan.h AggregateNode): groups in first-seen order, one state per aggregate
// call, PostgreSQL's result types (sum(int4) is int8, sum(int8) and avg of integers are numeric)
// and NULL rules (aggregates skip NULL inputs; sum/avg/min/max of no rows are NULL, count 0).
#include <unordered_map>
#include <unordered_set>

#include "sql/exec/evaluate.h"
#include "sql/exec/row_hash.h"
#include "sql/plan/plan.h"
#include "sql/types/cast.h"

namespace farmdb::sql {
namespace {

struct AggregateState {
  int64_t count = 0;    // inputs seen (non-NULL, or rows for count(*))
  Value value;          // running sum / min / max / bool / string; NULL before the first input
  std::unordered_set<std::string> seen;  // DISTINCT inputs
};

class AggregateCursor final : public Cursor {
 public:
  AggregateCursor(const AggregateNode& node, CursorPtr child, ExecContext& ctx)
      : node_(node), child_(std::move(child)), ctx_(ctx) {}

  std::expected<bool, Error> Next(Row& row) override {
    if (!done_) {
      if (auto run = Consume(); !run) return std::unexpected(run.error());
      done_ = true;
    }
    if (next_ >= groups_.size()) return false;
    Group& g = groups_[next_++];
    row = g.keys;
    for (size_t i = 0; i < node_.aggregates.size(); ++i) {
      auto v = Final(node_.aggregates[i], g.states[i]);
      if (!v) return std::unexpected(v.error());
      row.push_back(std::move(*v));
    }
    return true;
  }

 private:
  struct Group {
    Row keys;
    std::vector<AggregateState> states;
  };

  std::expected<void, Error> Consume() {
    Row input;
    std::vector<Value> keys;
    uint64_t rows = 0;
    while (true) {
      auto more = child_->Next(input);
      if (!more) return std::unexpected(more.error());
      if (!*more) break;
      if (++rows % 1024 == 0) {
        if (auto interrupted = ctx_.CheckInterrupts(); !interrupted) return interrupted;
      }
      keys.clear();
      for (const BoundExprPtr& g : node_.groups) {
        auto v = EvaluateOn(*g, input, ctx_);
        if (!v) return std::unexpected(v.error());
        keys.push_back(std::move(*v));
      }
      Group& group = Find(keys);
      for (size_t i = 0; i < node_.aggregates.size(); ++i) {
        if (auto a = Accumulate(node_.aggregates[i], group.states[i], input); !a) return a;
      }
    }
    // Without GROUP BY an aggregate query returns one row even over no input.
    if (node_.groups.empty() && groups_.empty()) Find(keys);
    return {};
  }

  Group& Find(const std::vector<Value>& keys) {
    std::string key = GroupKey(keys);
    auto [it, inserted] = index_.try_emplace(std::move(key), groups_.size());
    if (inserted) {
      Group g{keys, std::vector<AggregateState>(node_.aggregates.size())};
      for (size_t i = 0; i < node_.aggregates.size(); ++i) g.states[i].value = Value::Null(node_.aggregates[i].type);
      groups_.push_back(std::move(g));
    }
    return groups_[it->second];
  }

  std::expected<void, Error> Accumulate(const AggregateCall& call, AggregateState& s, const Row& input) {
    if (call.function == AggregateFunction::kCountStar) {
      ++s.count;
      return {};
    }
    std::vector<Value> args;
    for (const BoundExprPtr& a : call.args) {
      auto v = EvaluateOn(*a, input, ctx_);
      if (!v) return std::unexpected(v.error());
      args.push_back(std::move(*v));
    }
    if (args[0].IsNull()) return {};  // every aggregate here is strict in its first argument
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
        auto in = Cast(v, call.function == AggregateFunction::kAvg ? AvgAccumulator(v.type) : call.type, ctx_.output);
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

  static TypeId AvgAccumulator(TypeId input) {
    return input == TypeId::kFloat4 || input == TypeId::kFloat8 ? TypeId::kFloat8 : TypeId::kNumeric;
  }

  std::expected<Value, Error> Final(const AggregateCall& call, const AggregateState& s) {
    switch (call.function) {
      case AggregateFunction::kCount:
      case AggregateFunction::kCountStar:
        return Value::Int(TypeId::kInt8, s.count);
      case AggregateFunction::kAvg: {
        if (s.value.IsNull()) return Value::Null(call.type);
        auto n = Cast(Value::Int(TypeId::kInt8, s.count), s.value.type, ctx_.output);
        if (!n) return n;
        return EvalArith(ArithOp::kDiv, s.value.type, s.value, *n);
      }
      default:
        return s.value;
    }
  }

  const AggregateNode& node_;
  CursorPtr child_;
  ExecContext& ctx_;
  bool done_ = false;
  std::vector<Group> groups_;  // in first-seen order, which is the output order
  std::unordered_map<std::string, size_t> index_;
  size_t next_ = 0;
};

}  // namespace

std::expected<CursorPtr, Error> AggregateNode::Open(ExecContext& ctx) const {
  auto c = child->Open(ctx);
  if (!c) return c;
  return std::make_unique<AggregateCursor>(*this, std::move(*c), ctx);
}

}  // namespace farmdb::sql
