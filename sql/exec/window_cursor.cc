// Window functions (plan.h WindowNode), as PostgreSQL's WindowAgg computes them: the input is
// materialised, and for each call its rows are ordered by PARTITION BY then ORDER BY; ranks
// count peers (rows equal in ORDER BY), aggregates and first/last_value read the call's frame.
#include <algorithm>

#include "sql/exec/aggregate_state.h"

namespace farmdb::sql {
namespace {

// One call's view of the input: positions in partition/order, with partition and peer bounds.
struct Ordering {
  std::vector<size_t> rows;         // input row indices in window order
  std::vector<size_t> partition;    // per position: first position of its partition
  std::vector<size_t> partition_end;
  std::vector<size_t> peer_begin;   // per position: first and one past last position of its peers
  std::vector<size_t> peer_end;
};

class WindowCursor final : public Cursor {
 public:
  WindowCursor(const WindowNode& node, CursorPtr child, ExecContext& ctx) : node_(node), child_(std::move(child)), ctx_(ctx) {}

  std::expected<bool, Error> Next(Row& row) override {
    if (!done_) {
      if (auto run = Compute(); !run) return std::unexpected(run.error());
      done_ = true;
    }
    if (next_ >= output_order_.size()) return false;
    size_t i = output_order_[next_++];
    row = std::move(input_[i]);
    for (std::vector<Value>& values : results_) row.push_back(std::move(values[i]));
    return true;
  }

 private:
  std::expected<void, Error> Compute() {
    Row r;
    while (true) {
      auto more = child_->Next(r);
      if (!more) return std::unexpected(more.error());
      if (!*more) break;
      input_.push_back(std::move(r));
      if (input_.size() % 1024 == 0) {
        if (auto interrupted = ctx_.CheckInterrupts(); !interrupted) return interrupted;
      }
    }
    output_order_.resize(input_.size());
    for (size_t i = 0; i < input_.size(); ++i) output_order_[i] = i;
    for (const WindowCall& call : node_.calls) {
      auto ordering = Order(call);
      if (!ordering) return std::unexpected(ordering.error());
      results_.emplace_back(input_.size());
      if (auto run = Evaluate(call, *ordering, results_.back()); !run) return run;
      output_order_ = ordering->rows;  // rows leave in the last call's order, as WindowAgg's
    }
    return {};
  }

  std::expected<Ordering, Error> Order(const WindowCall& call) {
    // Each row's key: partition values, then order values; partitions sort ascending.
    std::vector<Row> keys(input_.size());
    for (size_t i = 0; i < input_.size(); ++i) {
      for (const auto* list : {&call.partition_by, &call.order_by}) {
        for (const BoundExprPtr& e : *list) {
          auto v = EvaluateOn(*e, input_[i], ctx_);
          if (!v) return std::unexpected(v.error());
          keys[i].push_back(std::move(*v));
        }
      }
    }
    size_t np = call.partition_by.size();
    std::vector<SortKey> partition_keys, all_keys;
    for (size_t k = 0; k < np; ++k) partition_keys.push_back(SortKey{k, false, false});
    all_keys = partition_keys;
    for (const SortKey& k : call.order) all_keys.push_back(SortKey{np + k.column, k.descending, k.nulls_first});
    Ordering o;
    o.rows = std::vector<size_t>(input_.size());
    for (size_t i = 0; i < input_.size(); ++i) o.rows[i] = i;
    std::ranges::stable_sort(o.rows, [&](size_t a, size_t b) { return CompareByKeys(keys[a], keys[b], all_keys) < 0; });
    size_t n = o.rows.size();
    o.partition.resize(n), o.partition_end.resize(n), o.peer_begin.resize(n), o.peer_end.resize(n);
    for (size_t p = 0; p < n;) {
      size_t end = p + 1;
      while (end < n && CompareByKeys(keys[o.rows[p]], keys[o.rows[end]], partition_keys) == 0) ++end;
      for (size_t q = p; q < end;) {
        size_t peers = q + 1;
        while (peers < end && CompareByKeys(keys[o.rows[q]], keys[o.rows[peers]], all_keys) == 0) ++peers;
        for (size_t x = q; x < peers; ++x) o.partition[x] = p, o.partition_end[x] = end, o.peer_begin[x] = q, o.peer_end[x] = peers;
        q = peers;
      }
      p = end;
    }
    return o;
  }

  std::expected<Value, Error> Arg(const WindowCall& call, size_t i, size_t row) {
    return EvaluateOn(*call.call.args[i], input_[row], ctx_);
  }

  std::expected<void, Error> Evaluate(const WindowCall& call, const Ordering& o, std::vector<Value>& out) {
    AggregateState state;
    size_t state_begin = 0, state_end = 0;  // positions [begin, end) accumulated into `state`
    bool have_state = false;
    int64_t dense_rank = 0;
    for (size_t pos = 0; pos < o.rows.size(); ++pos) {
      size_t row = o.rows[pos];
      size_t p0 = o.partition[pos], p1 = o.partition_end[pos];
      size_t frame_begin = !call.from_current ? p0 : call.rows ? pos : o.peer_begin[pos];
      size_t frame_end = call.to_end ? p1 : call.rows ? pos + 1 : o.peer_end[pos];
      Value& result = out[row];
      switch (call.function) {
        case WindowFunction::kRowNumber:
          result = Value::Int(TypeId::kInt8, static_cast<int64_t>(pos - p0 + 1));
          break;
        case WindowFunction::kRank:
          result = Value::Int(TypeId::kInt8, static_cast<int64_t>(o.peer_begin[pos] - p0 + 1));
          break;
        case WindowFunction::kDenseRank:
          // Positions arrive in order: a new partition restarts the count, a new peer group adds one.
          dense_rank = pos == p0 ? 1 : dense_rank + (pos == o.peer_begin[pos] ? 1 : 0);
          result = Value::Int(TypeId::kInt8, dense_rank);
          break;
        case WindowFunction::kPercentRank: {
          double n = static_cast<double>(p1 - p0);
          result = Value::Float(TypeId::kFloat8, n <= 1 ? 0.0 : static_cast<double>(o.peer_begin[pos] - p0) / (n - 1));
          break;
        }
        case WindowFunction::kCumeDist:
          result = Value::Float(TypeId::kFloat8, static_cast<double>(o.peer_end[pos] - p0) / static_cast<double>(p1 - p0));
          break;
        case WindowFunction::kNtile: {
          auto buckets = Arg(call, 0, o.rows[p0]);  // evaluated once per partition
          if (!buckets) return std::unexpected(buckets.error());
          if (buckets->IsNull()) {
            result = Value::Null(TypeId::kInt4);
            break;
          }
          if (buckets->AsInt() <= 0) return std::unexpected(MakeError("2201G", "argument of ntile must be greater than zero"));
          int64_t k = buckets->AsInt(), total = static_cast<int64_t>(p1 - p0), i = static_cast<int64_t>(pos - p0);
          // The first total % k buckets hold one row more than the others.
          int64_t small = total / k, extra = total % k, large_rows = extra * (small + 1);
          int64_t bucket = i < large_rows ? i / (small + 1) : extra + (small == 0 ? 0 : (i - large_rows) / small);
          result = Value::Int(TypeId::kInt4, bucket + 1);
          break;
        }
        case WindowFunction::kLag:
        case WindowFunction::kLead: {
          int64_t offset = 1;
          if (call.call.args.size() >= 2) {
            auto v = Arg(call, 1, row);
            if (!v) return std::unexpected(v.error());
            if (v->IsNull()) {
              result = Value::Null(call.call.type);
              break;
            }
            offset = v->AsInt();
          }
          int64_t target = static_cast<int64_t>(pos) + (call.function == WindowFunction::kLag ? -offset : offset);
          std::expected<Value, Error> v = Value::Null(call.call.type);
          if (target >= static_cast<int64_t>(p0) && target < static_cast<int64_t>(p1)) v = Arg(call, 0, o.rows[target]);
          else if (call.call.args.size() == 3) v = Arg(call, 2, row);
          if (!v) return std::unexpected(v.error());
          result = std::move(*v);
          break;
        }
        case WindowFunction::kFirstValue:
        case WindowFunction::kLastValue: {
          std::expected<Value, Error> v = Value::Null(call.call.type);
          if (frame_begin < frame_end) {
            v = Arg(call, 0, o.rows[call.function == WindowFunction::kFirstValue ? frame_begin : frame_end - 1]);
          }
          if (!v) return std::unexpected(v.error());
          result = std::move(*v);
          break;
        }
        case WindowFunction::kAggregate: {
          // A frame that starts where the last one did and reaches at least as far continues
          // it; any other frame is accumulated afresh.
          if (!have_state || frame_begin != state_begin || frame_end < state_end) {
            state = StartAggregate(call.call);
            state_begin = state_end = frame_begin;
            have_state = true;
          }
          for (; state_end < frame_end; ++state_end) {
            if (auto a = Accumulate(call.call, state, input_[o.rows[state_end]], ctx_); !a) return a;
          }
          auto v = FinishAggregate(call.call, state, ctx_);
          if (!v) return std::unexpected(v.error());
          result = std::move(*v);
          break;
        }
      }
    }
    return {};
  }

  const WindowNode& node_;
  CursorPtr child_;
  ExecContext& ctx_;
  bool done_ = false;
  std::vector<Row> input_;
  std::vector<std::vector<Value>> results_;  // per call, per input row
  std::vector<size_t> output_order_;
  size_t next_ = 0;
};

}  // namespace

std::expected<CursorPtr, Error> WindowNode::Open(ExecContext& ctx) const {
  auto c = child->Open(ctx);
  if (!c) return c;
  return std::make_unique<WindowCursor>(*this, std::move(*c), ctx);
}

}  // namespace farmdb::sql
