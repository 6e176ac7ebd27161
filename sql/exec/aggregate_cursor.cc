// Hash aggregation (plan.h AggregateNode): groups in first-seen order, one state per aggregate
// call (aggregate_state.h).
#include <unordered_map>

#include "sql/exec/aggregate_state.h"
#include "sql/exec/row_hash.h"

namespace farmdb::sql {
namespace {

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
      auto v = FinishAggregate(node_.aggregates[i], g.states[i], ctx_);
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
        if (auto a = Accumulate(node_.aggregates[i], group.states[i], input, ctx_); !a) return a;
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
      Group g{keys, {}};
      for (const AggregateCall& call : node_.aggregates) g.states.push_back(StartAggregate(call));
      groups_.push_back(std::move(g));
    }
    return groups_[it->second];
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
