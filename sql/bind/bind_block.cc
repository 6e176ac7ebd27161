// A query block's clauses (targets, WHERE, GROUP BY, HAVING, ORDER BY, LIMIT, DISTINCT), VALUES
// and set operations, and the plan they become: joins (planner.cc) -> aggregation -> HAVING ->
// projection -> DISTINCT -> sort -> limit.
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <utility>

#include "sql/bind/bind_grouping.h"
#include "sql/bind/block.h"
#include "sql/parse/ast_print.h"

namespace farmdb::sql {
namespace {

// NULLS FIRST is the default for DESC, as in PostgreSQL.
SortKey OrderKey(size_t target, const OrderItem& item) {
  bool nulls_first = item.nulls == OrderItem::Nulls::kFirst || (item.nulls == OrderItem::Nulls::kDefault && item.descending);
  return SortKey{target, item.descending, nulls_first};
}

}  // namespace

std::expected<BoundQuery, Error> Binder::BindQuery(const SelectStmt& select, const Scope* outer) {
  size_t ctes_before = ctes_.size();
  for (const CommonTableExpr& cte : select.with) ctes_.push_back(&cte);
  std::expected<BoundQuery, Error> result;
  auto pushed_lock = std::exchange(pushed_lock_, std::nullopt);  // for this query, not its parts
  if (select.op != SelectStmt::SetOp::kNone) {
    // transformSetOperationTree refuses a leaf's clause; the whole operation's is refused below.
    for (const SelectStmt* leaf : {select.left.get(), select.right.get()}) {
      if (leaf->op == SelectStmt::SetOp::kNone && !leaf->locking.empty()) {
        ctes_.resize(ctes_before);
        return std::unexpected(MakeError(
            "0A000", fmt::format("{} is not allowed with UNION/INTERSECT/EXCEPT", ToString(leaf->locking.front().strength))));
      }
    }
    result = BindSetOperation(select, outer);
    if (result && (!select.locking.empty() || pushed_lock)) {
      // CheckSelectLocking
      auto strength = select.locking.empty() ? *pushed_lock : select.locking.front().strength;
      Error e = MakeError("0A000", fmt::format("{} is not allowed with UNION/INTERSECT/EXCEPT", ToString(strength)));
      if (auto raised = LockError(std::move(e), select.locking.empty()); !raised) result = std::unexpected(raised.error());
    }
  } else {
    auto block = BindBlock(select, outer, pushed_lock);
    if (!block) result = std::unexpected(block.error());
    else result = FinishQuery(std::move(*block), select);
  }
  ctes_.resize(ctes_before);
  return result;
}

std::expected<Binder::Block, Error> Binder::BindBlock(const SelectStmt& select, const Scope* outer,
                                                     std::optional<LockingClause::Strength> pushed_lock) {
  Block block;
  block.scope.parent = outer;
  block.locks.pushed = pushed_lock;
  for (const LockingClause& clause : select.locking) {
    block.locks.clauses.push_back(&clause);
    for (const QualifiedName& name : clause.tables) block.locks.named.push_back({&name, clause.strength});
  }
  const Scope* saved_scope = scope_;
  AggregateScope* saved_aggregates = aggregates_;
  WindowScope* saved_windows = windows_;
  bool saved_sets = set_returning_allowed_;
  std::string_view saved_clause = no_aggregates_clause_, saved_window_clause = clause_;
  auto restore = [&] {
    scope_ = saved_scope, aggregates_ = saved_aggregates, no_aggregates_clause_ = saved_clause;
    windows_ = saved_windows, set_returning_allowed_ = saved_sets, clause_ = saved_window_clause;
  };
  // Window and set-returning calls: only in the targets and ORDER BY (each clause says so).
  auto enter = [&](std::string_view clause, bool targets) {
    clause_ = clause;
    windows_ = targets ? &block.windows : nullptr;
    set_returning_allowed_ = targets;
  };
  auto fail = [&](Error e) {
    restore();
    return std::unexpected(std::move(e));
  };
  scope_ = &block.scope;
  aggregates_ = nullptr;

  if (!select.values.empty()) {
    // VALUES: each column's type is the common type of its rows (transformValuesClause).
    size_t width = select.values[0].size();
    std::vector<std::vector<BoundExprPtr>> rows;
    for (const std::vector<ExprPtr>& row : select.values) {
      if (row.size() != width) return fail(ErrorAt("42601", "VALUES lists must all be the same length", row.empty() ? -1 : row[0]->location));
      std::vector<BoundExprPtr> bound;
      no_aggregates_clause_ = "VALUES";
      enter("VALUES", false);
      for (const ExprPtr& e : row) {
        auto b = BindExpr(*e);
        if (!b) return fail(b.error());
        bound.push_back(std::move(*b));
      }
      rows.push_back(std::move(bound));
    }
    for (size_t c = 0; c < width; ++c) {
      std::vector<BoundExprPtr*> column;
      for (auto& row : rows) column.push_back(&row[c]);
      auto t = CommonType(column, "VALUES");
      if (!t) return fail(t.error());
    }
    for (size_t c = 0; c < width; ++c) {
      block.targets.push_back(MakeBound(BoundKind::kColumn, rows[0][c]->type, -1));
      block.targets.back()->column = static_cast<int>(c);
      block.columns.push_back(OutputColumn{fmt::format("column{}", c + 1), rows[0][c]->type});
    }
    block.values = std::make_shared<ValuesNode>(width, std::move(rows));
  }

  for (const TableRefPtr& item : select.from) {
    if (auto r = BindFromItem(*item, block); !r) return fail(r.error());
  }
  if (select.where) {
    no_aggregates_clause_ = "WHERE";
    enter("WHERE", false);
    auto where = BindExpr(*select.where);
    if (!where) return fail(where.error());
    auto b = RequireBool(std::move(*where), "WHERE");
    if (!b) return fail(b.error());
    for (BoundExprPtr& c : SplitConjuncts(std::move(*b))) block.conjuncts.push_back(std::move(c));
  }

  if (select.values.empty()) {
    if (select.from.empty()) {
      for (const SelectTarget& t : select.targets) {
        if (t.expr->kind == ExprKind::kStar) {
          return fail(ErrorAt("42601", "SELECT * with no tables specified is not valid", t.expr->location));
        }
      }
    }
    aggregates_ = &block.aggregates;
    enter("SELECT", true);
    auto targets = BindTargetList(select.targets, block.scope, "SELECT");
    if (!targets) return fail(targets.error());
    block.targets = std::move(targets->first);
    block.columns = std::move(targets->second);
  }
  size_t visible = block.targets.size();

  // GROUP BY: an output position, an input expression, or (failing that) an output name.
  aggregates_ = nullptr;
  no_aggregates_clause_ = "GROUP BY";
  enter("GROUP BY", false);
  for (const ExprPtr& g : select.group_by) {
    if (g->kind == ExprKind::kInteger) {
      if (g->int_value < 1 || static_cast<size_t>(g->int_value) > visible) {
        return fail(ErrorAt("42P10", fmt::format("GROUP BY position {} is not in select list", g->int_value), g->location));
      }
      BoundExprPtr& target = block.targets[g->int_value - 1];
      if (target->kind == BoundKind::kAggregate) return fail(ErrorAt("42803", "aggregate functions are not allowed in GROUP BY", g->location));
      block.groups.push_back(CloneExpr(*target));
      continue;
    }
    auto e = BindExpr(*g);
    if (!e && e.error().sqlstate == "42703" && g->kind == ExprKind::kColumnRef && g->names.size() == 1) {
      auto named = std::ranges::find_if(block.columns, [&](const OutputColumn& c) { return c.name == g->names[0]; });
      if (named != block.columns.end()) e = CloneExpr(*block.targets[named - block.columns.begin()]);
    }
    if (!e) return fail(e.error());
    block.groups.push_back(std::move(*e));
  }
  aggregates_ = &block.aggregates;
  enter("HAVING", false);
  if (select.having) {
    auto having = BindExpr(*select.having);
    if (!having) return fail(having.error());
    auto b = RequireBool(std::move(*having), "HAVING");
    if (!b) return fail(b.error());
    block.having = std::move(*b);
  }

  // ORDER BY: an output position or name first (as PostgreSQL's findTargetlistEntrySQL92), else
  // an expression over the input, added as a hidden target unless it is one already.
  for (const OrderItem& item : select.order_by) {
    const Expr& x = *item.expr;
    int target = -1;
    if (x.kind == ExprKind::kInteger) {
      if (x.int_value < 1 || static_cast<size_t>(x.int_value) > visible) {
        return fail(ErrorAt("42P10", fmt::format("ORDER BY position {} is not in select list", x.int_value), x.location));
      }
      target = static_cast<int>(x.int_value - 1);
    } else if (x.kind == ExprKind::kColumnRef && x.names.size() == 1) {
      for (size_t i = 0; i < visible; ++i) {
        if (block.columns[i].name != x.names[0]) continue;
        if (target >= 0 && !SameExpr(*block.targets[target], *block.targets[i])) {
          return fail(ErrorAt("42702", fmt::format("ORDER BY \"{}\" is ambiguous", x.names[0]), x.location));
        }
        if (target < 0) target = static_cast<int>(i);
      }
    }
    if (target < 0) {
      no_aggregates_clause_ = "ORDER BY";
      enter("ORDER BY", true);
      auto e = BindExpr(x);
      if (!e) return fail(e.error());
      auto resolved = ResolveUnknown(std::move(*e));
      if (!resolved) return fail(resolved.error());
      for (size_t i = 0; i < block.targets.size() && target < 0; ++i) {
        if (SameExpr(**resolved, *block.targets[i])) target = static_cast<int>(i);
      }
      if (target < 0) {
        if (select.distinct) {
          return fail(ErrorAt("42P10", "for SELECT DISTINCT, ORDER BY expressions must appear in select list", x.location));
        }
        target = static_cast<int>(block.targets.size());
        block.targets.push_back(std::move(*resolved));
      }
    }
    block.order.push_back(OrderKey(static_cast<size_t>(target), item));
  }

  // Output columns of unknown type become text (PostgreSQL 10+ resolveTargetListUnknowns).
  for (size_t i = 0; i < visible; ++i) {
    block.columns[i].from_unknown = block.targets[i]->type == TypeId::kUnknown;
    auto resolved = ResolveUnknown(std::move(block.targets[i]));
    if (!resolved) return fail(resolved.error());
    block.targets[i] = std::move(*resolved);
    block.columns[i].type = block.targets[i]->type;
  }

  // transformSelectStmt checks the locking clauses before parseCheckAggregates.
  if (auto locked = FinishRowLocks(select, block); !locked) return fail(locked.error());
  block.aggregated = !block.aggregates.calls.empty() || !block.groups.empty() || block.having;
  if (block.aggregated) {
    auto error = [&](std::string message, int location) { return ErrorAt("42803", std::move(message), location); };
    GroupedRewriter grouped(block.groups, block.scope, block.items, error);
    // What runs over the grouped rows: the targets (ORDER BY's too), HAVING and window calls.
    std::vector<BoundExprPtr*> above;
    for (BoundExprPtr& t : block.targets) above.push_back(&t);
    if (block.having) above.push_back(&block.having);
    for (WindowCall& w : block.windows.calls) {
      for (auto* list : {&w.call.args, &w.partition_by, &w.order_by}) {
        for (BoundExprPtr& e : *list) above.push_back(&e);
      }
      if (w.call.filter) above.push_back(&w.call.filter);
    }
    for (BoundExprPtr* e : above) {
      if (auto r = grouped.Rewrite(*e); !r) return fail(r.error());
    }
    for (BoundExprPtr* e : above) grouped.Finish(**e);
  }
  restore();
  return block;
}

std::expected<BoundQuery, Error> Binder::FinishQuery(Block block, const SelectStmt& select) {
  PlanPtr plan;
  if (block.values) {
    plan = block.values;
  } else if (block.items.empty()) {
    std::vector<std::vector<BoundExprPtr>> one_row(1);
    plan = std::make_shared<ValuesNode>(0, std::move(one_row));
    if (!block.conjuncts.empty()) plan = std::make_shared<FilterNode>(plan, CombineConjuncts(std::move(block.conjuncts)));
  } else {
    // An index order can serve ORDER BY when every key is a column of the block's only item.
    OrderRequest request;
    bool plain = !block.aggregated && !select.distinct && !block.order.empty() && block.windows.calls.empty() &&
                 std::ranges::none_of(block.targets, [](const BoundExprPtr& t) { return FindSetReturning(*t) != nullptr; });
    for (const SortKey& k : block.order) {
      const BoundExpr& t = *block.targets[k.column];
      if (t.kind != BoundKind::kColumn || t.levels_up != 0) plain = false;
      else request.keys.push_back(SortKey{static_cast<size_t>(t.column), k.descending, k.nulls_first});
    }
    // What reads the block row above the joins: the targets and window calls, or once
    // aggregated (they then read the grouped row) the groups and the aggregates' arguments.
    std::vector<const BoundExpr*> above;
    auto add = [&](const std::vector<BoundExprPtr>& list) {
      for (const BoundExprPtr& e : list) above.push_back(e.get());
    };
    if (block.aggregated) {
      add(block.groups);
      for (const AggregateCall& a : block.aggregates.calls) {
        add(a.args), add(a.order_by);
        if (a.filter) above.push_back(a.filter.get());
      }
    } else {
      add(block.targets);
      for (const WindowCall& w : block.windows.calls) {
        add(w.call.args), add(w.partition_by), add(w.order_by);
        if (w.call.filter) above.push_back(w.call.filter.get());
      }
    }
    plan = PlanFrom(catalog_ != nullptr ? catalog_->snapshot : nullptr, std::move(block.items), std::move(block.conjuncts),
                    plain ? &request : nullptr, &above);
    if (request.satisfied) block.order.clear();
  }
  size_t row_width = block.width;  // the row the targets read
  if (block.aggregated) {
    row_width = block.groups.size() + block.aggregates.calls.size();
    plan = std::make_shared<AggregateNode>(plan, std::move(block.groups), std::move(block.aggregates.calls));
    if (block.having) plan = std::make_shared<FilterNode>(plan, std::move(block.having));
  }
  plan = PlanWindowsAndSets(std::move(plan), block, row_width);
  size_t visible = block.columns.size();
  size_t width = block.targets.size();
  plan = std::make_shared<ProjectNode>(plan, std::move(block.targets));
  if (select.distinct) plan = std::make_shared<DistinctNode>(plan, visible);
  if (!block.order.empty()) plan = std::make_shared<SortNode>(plan, std::move(block.order));
  // Below LIMIT, so only the rows returned are locked (PostgreSQL's grouping_planner).
  if (!block.locks.targets.empty()) plan = std::make_shared<LockRowsNode>(plan, std::move(block.locks.targets));
  auto limited = AddLimit(std::move(plan), select);
  if (!limited) return std::unexpected(limited.error());
  plan = std::move(*limited);
  if (width > visible) {
    std::vector<BoundExprPtr> keep;
    for (size_t i = 0; i < visible; ++i) {
      keep.push_back(MakeBound(BoundKind::kColumn, block.columns[i].type, -1));
      keep.back()->column = static_cast<int>(i);
    }
    plan = std::make_shared<ProjectNode>(plan, std::move(keep));
  }
  return BoundQuery{std::move(plan), std::move(block.columns)};
}

std::expected<PlanPtr, Error> Binder::AddLimit(PlanPtr plan, const SelectStmt& select) {
  if (!select.limit && !select.offset) return plan;
  BoundExprPtr limit, offset;
  Scope none;  // LIMIT cannot read the query's columns
  for (auto [expr, slot, clause] : {std::tuple{select.limit.get(), &limit, "LIMIT"}, std::tuple{select.offset.get(), &offset, "OFFSET"}}) {
    if (expr == nullptr) continue;
    auto e = BindExprIn(*expr, none, clause);
    if (!e) return std::unexpected(e.error());
    auto c = CoerceOrFail(std::move(*e), TypeId::kInt8);
    if (!c) return std::unexpected(c.error());
    *slot = std::move(*c);
  }
  return std::make_shared<LimitNode>(std::move(plan), std::move(limit), std::move(offset));
}

std::expected<BoundQuery, Error> Binder::BindSetOperation(const SelectStmt& select, const Scope* outer) {
  std::string_view op = select.op == SelectStmt::SetOp::kUnion       ? "UNION"
                        : select.op == SelectStmt::SetOp::kIntersect ? "INTERSECT"
                                                                     : "EXCEPT";
  if (select.op != SelectStmt::SetOp::kUnion) {
    return std::unexpected(MakeError("0A000", fmt::format("{} is not supported yet", op)));
  }
  // Each side is bound as a query; the column types are then unified and the side whose type
  // differs is cast over its rows. A literal's unknown type is resolved by the other side first.
  auto left = BindQuery(*select.left, outer);
  if (!left) return left;
  auto right = BindQuery(*select.right, outer);
  if (!right) return right;
  if (left->columns.size() != right->columns.size()) {
    return std::unexpected(MakeError("42601", fmt::format("each {} query must have the same number of columns", op)));
  }
  std::vector<BoundExprPtr> left_cast, right_cast;
  bool cast_left = false, cast_right = false;
  for (size_t i = 0; i < left->columns.size(); ++i) {
    OutputColumn& lc = left->columns[i];
    const OutputColumn& rc = right->columns[i];
    BoundExprPtr l = MakeBound(BoundKind::kColumn, lc.type, -1);
    BoundExprPtr r = MakeBound(BoundKind::kColumn, rc.type, -1);
    l->column = r->column = static_cast<int>(i);
    // A side that was an untyped literal (its text) takes the other side's type, as the
    // literal itself would have.
    std::expected<TypeId, Error> t = TypeId::kText;
    if (lc.from_unknown && !rc.from_unknown) {
      t = rc.type;
      if (*t != TypeId::kText) l = MakeCast(std::move(l), *t);
    } else if (rc.from_unknown && !lc.from_unknown) {
      t = lc.type;
      if (*t != TypeId::kText) r = MakeCast(std::move(r), *t);
    } else if (!lc.from_unknown) {
      std::vector<BoundExprPtr*> both = {&l, &r};
      t = CommonType(both, op);
      if (!t) return std::unexpected(t.error());
    }
    lc.from_unknown = lc.from_unknown && rc.from_unknown;
    cast_left |= l->kind != BoundKind::kColumn;
    cast_right |= r->kind != BoundKind::kColumn;
    if (lc.type != *t || lc.typmod != rc.typmod) lc.typmod = -1;
    lc.type = *t;
    lc.table_oid = 0, lc.attnum = 0;
    left_cast.push_back(std::move(l));
    right_cast.push_back(std::move(r));
  }
  PlanPtr lp = cast_left ? std::make_shared<ProjectNode>(left->plan, std::move(left_cast)) : left->plan;
  PlanPtr rp = cast_right ? std::make_shared<ProjectNode>(right->plan, std::move(right_cast)) : right->plan;
  PlanPtr plan = std::make_shared<AppendNode>(std::vector<PlanPtr>{lp, rp});
  size_t width = left->columns.size();
  if (!select.all) plan = std::make_shared<DistinctNode>(plan, width);
  // ORDER BY over a set operation names output columns only.
  std::vector<SortKey> keys;
  for (const OrderItem& item : select.order_by) {
    const Expr& x = *item.expr;
    int target = -1;
    if (x.kind == ExprKind::kInteger && x.int_value >= 1 && static_cast<size_t>(x.int_value) <= width) {
      target = static_cast<int>(x.int_value - 1);
    } else if (x.kind == ExprKind::kColumnRef && x.names.size() == 1) {
      for (size_t i = 0; i < width && target < 0; ++i) {
        if (left->columns[i].name == x.names[0]) target = static_cast<int>(i);
      }
    }
    if (target < 0) {
      Error e = ErrorAt("0A000", fmt::format("invalid {}/INTERSECT/EXCEPT ORDER BY clause", op), x.location);
      e.detail = "Only result column names can be used, not expressions or functions.";
      return std::unexpected(e);
    }
    keys.push_back(OrderKey(static_cast<size_t>(target), item));
  }
  if (!keys.empty()) plan = std::make_shared<SortNode>(plan, std::move(keys));
  auto limited = AddLimit(std::move(plan), select);
  if (!limited) return std::unexpected(limited.error());
  return BoundQuery{std::move(*limited), std::move(left->columns)};
}

}  // namespace farmdb::sql
