// Cursors of the row-at-a-time plan nodes: values, filter, projection, sort, distinct, limit,
// append, and the evaluation helpers every node uses (plan.h).
#include <algorithm>
#include <unordered_set>

#include <fmt/format.h>

#include "sql/exec/evaluate.h"
#include "sql/exec/row_hash.h"
#include "sql/plan/plan.h"

namespace farmdb::sql {

std::expected<Value, Error> EvaluateOn(const BoundExpr& e, std::span<const Value> row, ExecContext& ctx) {
  std::span<const Value> saved = ctx.row;
  ctx.row = row;
  auto v = Evaluate(e, ctx);
  ctx.row = saved;
  return v;
}

std::expected<bool, Error> Holds(const BoundExpr& e, std::span<const Value> row, ExecContext& ctx) {
  auto v = EvaluateOn(e, row, ctx);
  if (!v) return std::unexpected(v.error());
  return !v->IsNull() && v->AsBool();
}

int CompareByKeys(const Row& a, const Row& b, const std::vector<SortKey>& keys) {
  for (const SortKey& k : keys) {
    const Value& x = a[k.column];
    const Value& y = b[k.column];
    int c;
    if (x.IsNull() || y.IsNull()) {
      if (x.IsNull() && y.IsNull()) continue;
      c = x.IsNull() == k.nulls_first ? -1 : 1;  // placement does not flip with DESC
      return c;
    }
    c = CompareValues(x, y);
    if (c != 0) return k.descending ? -c : c;
  }
  return 0;
}

namespace {

class ValuesCursor final : public Cursor {
 public:
  ValuesCursor(const ValuesNode& node, ExecContext& ctx) : node_(node), ctx_(ctx) {}
  std::expected<bool, Error> Next(Row& row) override {
    if (next_ >= node_.rows.size()) return false;
    row.clear();
    row.reserve(node_.rows[next_].size());
    // VALUES items may be correlated to an enclosing query's row only, so ctx.row is irrelevant.
    for (const BoundExprPtr& e : node_.rows[next_]) {
      auto v = Evaluate(*e, ctx_);
      if (!v) return std::unexpected(v.error());
      row.push_back(std::move(*v));
    }
    ++next_;
    return true;
  }

 private:
  const ValuesNode& node_;
  ExecContext& ctx_;
  size_t next_ = 0;
};

class FilterCursor final : public Cursor {
 public:
  FilterCursor(const FilterNode& node, CursorPtr child, ExecContext& ctx) : node_(node), child_(std::move(child)), ctx_(ctx) {}
  std::expected<bool, Error> Next(Row& row) override {
    while (true) {
      auto more = child_->Next(row);
      if (!more || !*more) return more;
      auto keep = Holds(*node_.predicate, row, ctx_);
      if (!keep) return std::unexpected(keep.error());
      if (*keep) return true;
    }
  }

 private:
  const FilterNode& node_;
  CursorPtr child_;
  ExecContext& ctx_;
};

class ProjectCursor final : public Cursor {
 public:
  ProjectCursor(const ProjectNode& node, CursorPtr child, ExecContext& ctx) : node_(node), child_(std::move(child)), ctx_(ctx) {}
  std::expected<bool, Error> Next(Row& row) override {
    auto more = child_->Next(input_);
    if (!more || !*more) return more;
    row.clear();
    row.reserve(node_.exprs.size());
    for (const BoundExprPtr& e : node_.exprs) {
      auto v = EvaluateOn(*e, input_, ctx_);
      if (!v) return std::unexpected(v.error());
      row.push_back(std::move(*v));
    }
    return true;
  }

 private:
  const ProjectNode& node_;
  CursorPtr child_;
  ExecContext& ctx_;
  Row input_;
};


// Materialises its input at the first Next (a query's results are bounded by what one
// transaction reads), then returns it in order.
class SortCursor final : public Cursor {
 public:
  SortCursor(const SortNode& node, CursorPtr child, ExecContext& ctx) : node_(node), child_(std::move(child)), ctx_(ctx) {}
  std::expected<bool, Error> Next(Row& row) override {
    if (!sorted_) {
      Row r;
      while (true) {
        auto more = child_->Next(r);
        if (!more) return more;
        if (!*more) break;
        rows_.push_back(std::move(r));
        if (rows_.size() % 1024 == 0) {
          if (auto interrupted = ctx_.CheckInterrupts(); !interrupted) return std::unexpected(interrupted.error());
        }
      }
      std::stable_sort(rows_.begin(), rows_.end(),
                       [&](const Row& a, const Row& b) { return CompareByKeys(a, b, node_.keys) < 0; });
      sorted_ = true;
    }
    if (next_ >= rows_.size()) return false;
    row = std::move(rows_[next_++]);
    return true;
  }

 private:
  const SortNode& node_;
  CursorPtr child_;
  ExecContext& ctx_;
  std::vector<Row> rows_;
  size_t next_ = 0;
  bool sorted_ = false;
};

class DistinctCursor final : public Cursor {
 public:
  DistinctCursor(const DistinctNode& node, CursorPtr child) : node_(node), child_(std::move(child)) {}
  std::expected<bool, Error> Next(Row& row) override {
    while (true) {
      auto more = child_->Next(row);
      if (!more || !*more) return more;
      if (seen_.insert(GroupKey(std::span<const Value>(row).first(node_.columns))).second) return true;
    }
  }

 private:
  const DistinctNode& node_;
  CursorPtr child_;
  std::unordered_set<std::string> seen_;
};

// LIMIT/OFFSET values as PostgreSQL checks them: NULL means none, negative is 2201W/2201X.
std::expected<std::optional<int64_t>, Error> Count(const BoundExpr* e, ExecContext& ctx, bool is_limit) {
  if (e == nullptr) return std::nullopt;
  auto v = Evaluate(*e, ctx);
  if (!v) return std::unexpected(v.error());
  if (v->IsNull()) return std::nullopt;
  int64_t n = v->AsInt();
  if (n < 0) {
    return std::unexpected(is_limit ? MakeError("2201W", "LIMIT must not be negative")
                                    : MakeError("2201X", "OFFSET must not be negative"));
  }
  return n;
}

class LimitCursor final : public Cursor {
 public:
  LimitCursor(CursorPtr child, std::optional<int64_t> limit, int64_t offset)
      : child_(std::move(child)), limit_(limit), offset_(offset) {}
  std::expected<bool, Error> Next(Row& row) override {
    if (limit_ && returned_ >= *limit_) return false;  // stop without reading further rows
    while (skipped_ < offset_) {
      auto more = child_->Next(row);
      if (!more || !*more) return more;
      ++skipped_;
    }
    auto more = child_->Next(row);
    if (more && *more) ++returned_;
    return more;
  }

 private:
  CursorPtr child_;
  std::optional<int64_t> limit_;
  int64_t offset_;
  int64_t skipped_ = 0, returned_ = 0;
};

class AppendCursor final : public Cursor {
 public:
  AppendCursor(const AppendNode& node, ExecContext& ctx) : node_(node), ctx_(ctx) {}
  std::expected<bool, Error> Next(Row& row) override {
    while (input_ < node_.inputs.size()) {
      if (!current_) {
        auto c = node_.inputs[input_]->Open(ctx_);
        if (!c) return std::unexpected(c.error());
        current_ = std::move(*c);
      }
      auto more = current_->Next(row);
      if (!more || *more) return more;
      current_.reset();
      ++input_;
    }
    return false;
  }

 private:
  const AppendNode& node_;
  ExecContext& ctx_;
  size_t input_ = 0;
  CursorPtr current_;
};

}  // namespace

std::expected<CursorPtr, Error> ValuesNode::Open(ExecContext& ctx) const { return std::make_unique<ValuesCursor>(*this, ctx); }

std::expected<CursorPtr, Error> FilterNode::Open(ExecContext& ctx) const {
  auto child_cursor = child->Open(ctx);
  if (!child_cursor) return child_cursor;
  return std::make_unique<FilterCursor>(*this, std::move(*child_cursor), ctx);
}

std::expected<CursorPtr, Error> ProjectNode::Open(ExecContext& ctx) const {
  auto child_cursor = child->Open(ctx);
  if (!child_cursor) return child_cursor;
  return std::make_unique<ProjectCursor>(*this, std::move(*child_cursor), ctx);
}

std::expected<CursorPtr, Error> SortNode::Open(ExecContext& ctx) const {
  auto child_cursor = child->Open(ctx);
  if (!child_cursor) return child_cursor;
  return std::make_unique<SortCursor>(*this, std::move(*child_cursor), ctx);
}

std::expected<CursorPtr, Error> DistinctNode::Open(ExecContext& ctx) const {
  auto child_cursor = child->Open(ctx);
  if (!child_cursor) return child_cursor;
  return std::make_unique<DistinctCursor>(*this, std::move(*child_cursor));
}

std::expected<CursorPtr, Error> LimitNode::Open(ExecContext& ctx) const {
  auto n = Count(limit.get(), ctx, true);
  if (!n) return std::unexpected(n.error());
  auto skip = Count(offset.get(), ctx, false);
  if (!skip) return std::unexpected(skip.error());
  auto child_cursor = child->Open(ctx);
  if (!child_cursor) return child_cursor;
  return std::make_unique<LimitCursor>(std::move(*child_cursor), *n, skip->value_or(0));
}

std::expected<CursorPtr, Error> AppendNode::Open(ExecContext& ctx) const { return std::make_unique<AppendCursor>(*this, ctx); }

}  // namespace farmdb::sql
