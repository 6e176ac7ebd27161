// Cursors that run set-returning function calls: ProjectSet (the calls of a target list) and
// the function scan (a call in FROM), plan.h.
#include "sql/exec/builtins.h"
#include "sql/plan/plan.h"

namespace farmdb::sql {
namespace {

// The rows of set-returning `call` with its arguments evaluated over `row`; null (no rows)
// when a strict function gets a NULL argument.
std::expected<RowSourcePtr, Error> OpenCall(const BoundExpr& call, std::span<const Value> row, ExecContext& ctx) {
  std::vector<Value> args;
  for (const BoundExprPtr& a : call.args) {
    auto v = EvaluateOn(*a, row, ctx);
    if (!v) return std::unexpected(v.error());
    if (v->IsNull() && call.builtin->strict) return RowSourcePtr();
    args.push_back(std::move(*v));
  }
  return call.builtin->rows(args, call, ctx);
}

class ProjectSetCursor final : public Cursor {
 public:
  ProjectSetCursor(const ProjectSetNode& node, CursorPtr child, ExecContext& ctx)
      : node_(node), child_(std::move(child)), ctx_(ctx), sources_(node.calls.size()) {}

  std::expected<bool, Error> Next(Row& row) override {
    while (true) {
      if (!active_) {
        auto more = child_->Next(input_);
        if (!more || !*more) return more;
        for (size_t i = 0; i < node_.calls.size(); ++i) {
          auto source = OpenCall(*node_.calls[i], input_, ctx_);
          if (!source) return std::unexpected(source.error());
          sources_[i] = std::move(*source);
        }
        active_ = true;
      }
      // One step of every call; a call that is done contributes NULL until all are.
      std::vector<Value> values;
      bool any = false;
      for (size_t i = 0; i < sources_.size(); ++i) {
        std::optional<Value> v;
        if (sources_[i]) {
          auto next = sources_[i]->Next();
          if (!next) return std::unexpected(next.error());
          v = std::move(*next);
          if (!v) sources_[i].reset();
        }
        any |= v.has_value();
        values.push_back(v ? std::move(*v) : Value::Null(node_.calls[i]->type));
      }
      if (!any) {
        active_ = false;
        continue;
      }
      row = input_;
      for (Value& v : values) row.push_back(std::move(v));
      return true;
    }
  }

 private:
  const ProjectSetNode& node_;
  CursorPtr child_;
  ExecContext& ctx_;
  Row input_;
  std::vector<RowSourcePtr> sources_;
  bool active_ = false;
};

class FunctionScanCursor final : public Cursor {
 public:
  FunctionScanCursor(const FunctionScanNode& node, RowSourcePtr source, std::optional<Value> single)
      : node_(node), source_(std::move(source)), single_(std::move(single)) {}

  std::expected<bool, Error> Next(Row& row) override {
    std::optional<Value> v;
    if (source_) {
      auto next = source_->Next();
      if (!next) return std::unexpected(next.error());
      v = std::move(*next);
    } else {
      v = std::exchange(single_, std::nullopt);
    }
    if (!v) return false;
    row.clear();
    if (node_.call->type == TypeId::kRecord && node_.call->record) {
      // A record's fields are the scan's columns (all NULL for a NULL record).
      for (size_t i = 0; i < node_.width; ++i) {
        row.push_back(v->IsNull() ? Value::Null((*node_.call->record)[i].type) : v->AsRecord().fields[i]);
      }
    } else {
      row.push_back(std::move(*v));
    }
    return true;
  }

 private:
  const FunctionScanNode& node_;
  RowSourcePtr source_;
  std::optional<Value> single_;  // the one row of a call that returns no set
};

}  // namespace

std::expected<CursorPtr, Error> ProjectSetNode::Open(ExecContext& ctx) const {
  auto c = child->Open(ctx);
  if (!c) return c;
  return std::make_unique<ProjectSetCursor>(*this, std::move(*c), ctx);
}

std::expected<CursorPtr, Error> FunctionScanNode::Open(ExecContext& ctx) const {
  if (IsSetReturning(*call)) {
    auto source = OpenCall(*call, {}, ctx);
    if (!source) return std::unexpected(source.error());
    return std::make_unique<FunctionScanCursor>(*this, std::move(*source), std::nullopt);
  }
  auto v = EvaluateOn(*call, {}, ctx);
  if (!v) return std::unexpected(v.error());
  return std::make_unique<FunctionScanCursor>(*this, nullptr, std::move(*v));
}

}  // namespace farmdb::sql
