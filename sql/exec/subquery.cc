// Subquery expressions: scalar, EXISTS, IN and ARRAY(...), each running its plan per evaluation
// with the current row pushed as the outer row its correlated references read.
#include <fmt/format.h>

#include "sql/exec/evaluate.h"
#include "sql/plan/plan.h"

namespace farmdb::sql {
namespace {

// Pushes ctx.row as the outer row for the subplan and restores both afterwards. Above its
// block's aggregation, the subquery reads the block row rebuilt from the grouped one
// (BoundExpr::grouped_outer): its correlated references name block slots.
class OuterRow {
 public:
  OuterRow(const BoundExpr& e, ExecContext& ctx) : ctx_(ctx), saved_(ctx.row) {
    if (e.grouped_outer.empty()) {
      ctx_.outer.push_back(ctx.row);
    } else {
      rebuilt_.resize(e.grouped_outer.size());
      for (size_t i = 0; i < e.grouped_outer.size(); ++i) {
        if (e.grouped_outer[i] >= 0) rebuilt_[i] = ctx.row[e.grouped_outer[i]];
      }
      ctx_.outer.push_back(rebuilt_);
    }
    ctx_.row = {};
  }
  ~OuterRow() {
    ctx_.outer.pop_back();
    ctx_.row = saved_;
  }
  OuterRow(const OuterRow&) = delete;
  OuterRow& operator=(const OuterRow&) = delete;

 private:
  ExecContext& ctx_;
  std::span<const Value> saved_;
  std::vector<Value> rebuilt_;
};

}  // namespace

std::expected<Value, Error> EvalSubquery(const BoundExpr& e, ExecContext& ctx) {
  // x IN (...) evaluates x over the current row before the subplan runs.
  std::optional<Value> probe;
  if (e.kind == BoundKind::kInSubquery) {
    auto v = Evaluate(*e.args[0], ctx);
    if (!v) return v;
    probe = std::move(*v);
  }
  OuterRow outer(e, ctx);
  auto cursor = e.subplan->Open(ctx);
  if (!cursor) return std::unexpected(cursor.error());
  Row row;
  switch (e.kind) {
    case BoundKind::kExists: {
      auto more = (*cursor)->Next(row);
      if (!more) return std::unexpected(more.error());
      return Value::Bool(*more);
    }
    case BoundKind::kArraySubquery: {
      ArrayValue array;
      while (true) {
        auto more = (*cursor)->Next(row);
        if (!more) return std::unexpected(more.error());
        if (!*more) break;
        array.elements.push_back(std::move(row[0]));
      }
      return Value::Array(e.type, std::move(array));
    }
    case BoundKind::kSubquery: {
      auto more = (*cursor)->Next(row);
      if (!more) return std::unexpected(more.error());
      if (!*more) return Value::Null(e.type);
      Value v = std::move(row[0]);
      auto second = (*cursor)->Next(row);
      if (!second) return std::unexpected(second.error());
      if (*second) return std::unexpected(MakeError("21000", "more than one row returned by a subquery used as an expression"));
      return v;
    }
    default: {
      // SQL's IN: true on a match, else NULL if x or any row is NULL (and there are rows), else false.
      bool saw_null = false;
      while (true) {
        auto more = (*cursor)->Next(row);
        if (!more) return std::unexpected(more.error());
        if (!*more) break;
        if (probe->IsNull() || row[0].IsNull()) {
          saw_null = true;
          continue;
        }
        if (CompareValues(*probe, row[0]) == 0) return Value::Bool(true);
      }
      return saw_null ? Value::Null(TypeId::kBool) : Value::Bool(false);
    }
  }
}

}  // namespace farmdb::sql
