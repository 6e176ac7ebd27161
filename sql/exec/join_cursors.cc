// Join cursors (plan.h): nested loop (re-opening the inner plan per outer row, so an inner index
// scan is keyed by the outer row) and hash join (inner side built once, probed per outer row).
// LEFT joins emit an unmatched outer row once, with NULLs for the inner side.
#include <unordered_map>

#include "sql/exec/evaluate.h"
#include "sql/exec/row_hash.h"
#include "sql/plan/plan.h"

namespace farmdb::sql {
namespace {

// A LEFT JOIN's unmatched outer row: the inner side's `width` columns are NULL.
void NullExtend(const Row& outer, size_t width, Row& row) {
  row = outer;
  for (size_t i = 0; i < width; ++i) row.push_back(Value::Null(TypeId::kUnknown));
}

// The joined row of `outer` and `inner`, and whether the join's condition (null: none) holds.
std::expected<bool, Error> JoinPair(const Row& outer, const Row& inner, const BoundExpr* condition, Row& row,
                                    ExecContext& ctx) {
  row = outer;
  row.insert(row.end(), inner.begin(), inner.end());
  return condition == nullptr ? std::expected<bool, Error>(true) : Holds(*condition, row, ctx);
}

class NestedLoopCursor final : public Cursor {
 public:
  NestedLoopCursor(const NestedLoopJoinNode& node, CursorPtr left, ExecContext& ctx)
      : node_(node), left_(std::move(left)), ctx_(ctx) {}

  std::expected<bool, Error> Next(Row& row) override {
    while (true) {
      if (!inner_) {
        auto more = left_->Next(outer_);
        if (!more || !*more) return more;
        matched_ = false;
        std::span<const Value> saved = ctx_.row;
        ctx_.row = outer_;  // the inner plan's keys read the outer row
        auto inner = node_.right->Open(ctx_);
        ctx_.row = saved;
        if (!inner) return std::unexpected(inner.error());
        inner_ = std::move(*inner);
      }
      auto more = inner_->Next(inner_row_);
      if (!more) return std::unexpected(more.error());
      if (!*more) {
        inner_.reset();
        if (node_.type == JoinType::kLeft && !matched_) {
          NullExtend(outer_, node_.right->width, row);
          return true;
        }
        continue;
      }
      auto keep = JoinPair(outer_, inner_row_, node_.condition.get(), row, ctx_);
      if (!keep) return std::unexpected(keep.error());
      if (!*keep) continue;
      matched_ = true;
      return true;
    }
  }

 private:
  const NestedLoopJoinNode& node_;
  CursorPtr left_;
  ExecContext& ctx_;
  Row outer_, inner_row_;
  CursorPtr inner_;
  bool matched_ = false;
};

// Evaluates join keys over `row`; nullopt when one is NULL (it matches nothing).
std::expected<std::optional<std::string>, Error> JoinKey(const std::vector<BoundExprPtr>& keys, const Row& row,
                                                         ExecContext& ctx) {
  std::vector<Value> values;
  for (const BoundExprPtr& k : keys) {
    auto v = EvaluateOn(*k, row, ctx);
    if (!v) return std::unexpected(v.error());
    if (v->IsNull()) return std::nullopt;
    values.push_back(std::move(*v));
  }
  return GroupKey(values);
}

class HashJoinCursor final : public Cursor {
 public:
  HashJoinCursor(const HashJoinNode& node, CursorPtr left, ExecContext& ctx) : node_(node), left_(std::move(left)), ctx_(ctx) {}

  std::expected<bool, Error> Next(Row& row) override {
    if (!built_) {
      if (auto b = Build(); !b) return std::unexpected(b.error());
    }
    while (true) {
      if (matches_ == nullptr) {
        auto more = left_->Next(outer_);
        if (!more || !*more) return more;
        auto key = JoinKey(node_.left_keys, outer_, ctx_);
        if (!key) return std::unexpected(key.error());
        matched_ = false;
        next_match_ = 0;
        static const std::vector<Row> kNone;
        matches_ = &kNone;
        if (*key) {
          auto it = table_.find(**key);
          if (it != table_.end()) matches_ = &it->second;
        }
      }
      if (next_match_ >= matches_->size()) {
        matches_ = nullptr;
        if (node_.type == JoinType::kLeft && !matched_) {
          NullExtend(outer_, node_.right->width, row);
          return true;
        }
        continue;
      }
      auto keep = JoinPair(outer_, (*matches_)[next_match_++], node_.condition.get(), row, ctx_);
      if (!keep) return std::unexpected(keep.error());
      if (!*keep) continue;
      matched_ = true;
      return true;
    }
  }

 private:
  std::expected<void, Error> Build() {
    auto inner = node_.right->Open(ctx_);
    if (!inner) return std::unexpected(inner.error());
    Row r;
    while (true) {
      auto more = (*inner)->Next(r);
      if (!more) return std::unexpected(more.error());
      if (!*more) break;
      auto key = JoinKey(node_.right_keys, r, ctx_);
      if (!key) return std::unexpected(key.error());
      if (*key) table_[**key].push_back(std::move(r));
    }
    built_ = true;
    return {};
  }

  const HashJoinNode& node_;
  CursorPtr left_;
  ExecContext& ctx_;
  bool built_ = false;
  std::unordered_map<std::string, std::vector<Row>> table_;
  Row outer_;
  const std::vector<Row>* matches_ = nullptr;
  size_t next_match_ = 0;
  bool matched_ = false;
};

}  // namespace

std::expected<CursorPtr, Error> NestedLoopJoinNode::Open(ExecContext& ctx) const {
  auto l = left->Open(ctx);
  if (!l) return l;
  return std::make_unique<NestedLoopCursor>(*this, std::move(*l), ctx);
}

std::expected<CursorPtr, Error> HashJoinNode::Open(ExecContext& ctx) const {
  auto l = left->Open(ctx);
  if (!l) return l;
  return std::make_unique<HashJoinCursor>(*this, std::move(*l), ctx);
}

}  // namespace farmdb::sql
