// Set-returning functions and window calls in a query block's plan: a function call in FROM
// (a FunctionScanNode), and the WindowNode and ProjectSetNode that compute a block's window
// and set-returning calls below its projection, as PostgreSQL 10+ plans WindowAgg and
// ProjectSet.
#include <fmt/format.h>

#include "sql/bind/block.h"

namespace farmdb::sql {
namespace {

// kWindow references become the slots the WindowNode appends after the `width` input columns.
void PlaceWindowResults(BoundExpr& e, size_t width) {
  if (e.kind == BoundKind::kWindow) {
    e.kind = BoundKind::kColumn;
    e.column += static_cast<int>(width);
    e.levels_up = 0;
    return;
  }
  for (BoundExprPtr& a : e.args) PlaceWindowResults(*a, width);
}

// Moves each set-returning call of `e` into `calls`, leaving a reference to the slot the
// ProjectSetNode puts its value in.
void ExtractSetReturning(BoundExprPtr& e, size_t width, std::vector<BoundExprPtr>& calls) {
  if (IsSetReturning(*e)) {
    BoundExprPtr slot = MakeBound(BoundKind::kColumn, e->type, e->location);
    slot->column = static_cast<int>(width + calls.size());
    slot->typmod = e->typmod;
    slot->record = e->record;
    calls.push_back(std::exchange(e, std::move(slot)));
    return;
  }
  for (BoundExprPtr& a : e->args) ExtractSetReturning(a, width, calls);
}

}  // namespace

std::expected<std::pair<PlanPtr, std::vector<OutputColumn>>, Error> Binder::BindFunctionScan(const TableRef& ref,
                                                                                               const Scope* outer) {
  // The call reads enclosing queries only (no LATERAL): an empty scope over theirs.
  Scope none;
  none.parent = outer;
  const Scope* saved_scope = scope_;
  AggregateScope* saved_aggregates = aggregates_;
  WindowScope* saved_windows = windows_;
  bool saved_sets = set_returning_allowed_;
  std::string_view saved_clause = no_aggregates_clause_, saved_window_clause = clause_;
  scope_ = &none, aggregates_ = nullptr, no_aggregates_clause_ = "functions in FROM";
  windows_ = nullptr, set_returning_allowed_ = true, clause_ = "FROM";
  auto call = BindExpr(*ref.function);
  scope_ = saved_scope, aggregates_ = saved_aggregates, no_aggregates_clause_ = saved_clause;
  windows_ = saved_windows, set_returning_allowed_ = saved_sets, clause_ = saved_window_clause;
  if (!call) return std::unexpected(call.error());
  if (const BoundExpr* inner = FindSetReturning(**call); inner != nullptr && inner != call->get()) {
    return std::unexpected(ErrorAt("0A000", "set-returning functions must appear at top level of FROM", inner->location));
  }
  auto resolved = ResolveUnknown(std::move(*call));
  if (!resolved) return std::unexpected(resolved.error());
  BoundExprPtr e = std::move(*resolved);
  std::vector<OutputColumn> columns;
  if (e->type == TypeId::kRecord && e->record) {
    for (const RecordField& f : *e->record) columns.push_back(OutputColumn{f.name, f.type, f.typmod});
  } else {
    OutputColumn column{ref.alias.empty() ? ref.function->text : ref.alias, e->type, e->typmod};
    column.record = e->record;
    columns.push_back(std::move(column));
  }
  PlanPtr plan = std::make_shared<FunctionScanNode>(std::move(e), columns.size());
  return std::pair{std::move(plan), std::move(columns)};
}

PlanPtr Binder::PlanWindowsAndSets(PlanPtr plan, Block& block, size_t width) {
  if (!block.windows.calls.empty()) {
    for (BoundExprPtr& t : block.targets) PlaceWindowResults(*t, width);
    width += block.windows.calls.size();
    plan = std::make_shared<WindowNode>(std::move(plan), std::move(block.windows.calls));
  }
  std::vector<BoundExprPtr> calls;
  for (BoundExprPtr& t : block.targets) ExtractSetReturning(t, width, calls);
  if (!calls.empty()) plan = std::make_shared<ProjectSetNode>(std::move(plan), std::move(calls));
  return plan;
}

}  // namespace farmdb::sql
