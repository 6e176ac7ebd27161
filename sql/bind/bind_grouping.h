// The GROUP BY check of a grouped query block, as PostgreSQL's parseCheckAggregates /
// check_ungrouped_columns, and the rewrite of the expressions above the aggregation from the
// block row to the aggregation's row (the GROUP BY values, then the aggregate results).
// Internal to sql/bind (bind_block.cc).
//
// A column may be used ungrouped when it is a GROUP BY item itself or when it is functionally
// dependent on them (PostgreSQL 9.1+, check_functional_grouping): every column of its table's
// PRIMARY KEY is a GROUP BY item as a plain column of that same FROM item. Only a primary key
// counts (not a UNIQUE constraint), and only of a table (not a subquery's, CTE's or system
// view's columns); the same table twice in FROM is two items. A dependent column joins the
// groups as a hidden key, which changes no group: a key value fixes that table's row in every
// row of the group. A subquery above the aggregation is checked on the block columns it reads
// (BoundExpr::outer_reads, "subquery uses ungrouped column ... from outer query") and reads the
// block row rebuilt from the grouped one (BoundExpr::grouped_outer).
//
// Thread-safety: one binder's, on one thread.
#pragma once

#include <expected>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "sql/bind/bound_expr.h"
#include "sql/bind/scope.h"
#include "sql/plan/planner.h"  // FromItem
#include "types/error.h"

namespace farmdb::sql {

class GroupedRewriter {
 public:
  // `groups`: the block's GROUP BY expressions over the block row; dependent columns are
  // appended to it. `error` makes the 42803 of a message at a location.
  GroupedRewriter(std::vector<BoundExprPtr>& groups, const Scope& scope, const std::vector<FromItem>& items,
                  std::function<Error(std::string, int)> error)
      : groups_(groups), scope_(scope), items_(items), error_(std::move(error)) {}

  // Checks `e` and rewrites its GROUP BY expressions and columns to their group's slot, in
  // PostgreSQL's order (the first ungrouped column in a walk of the expression is the error).
  // Aggregates keep their kind: their slots are known only once every expression is rewritten.
  std::expected<void, Error> Rewrite(BoundExprPtr& e);
  // REQUIRES: every expression above the aggregation went through Rewrite. Aggregate number i
  // becomes slot groups + i.
  void Finish(BoundExpr& e) const;

 private:
  // The group holding block column `slot` (appended if the column is functionally
  // dependent), or -1 when it is not grouped.
  int GroupOf(int slot);
  bool PrimaryKeyGrouped(const FromItem& item) const;
  const ScopeColumn* FindColumn(int slot) const;
  std::string ColumnName(int slot) const;

  std::vector<BoundExprPtr>& groups_;
  const Scope& scope_;
  const std::vector<FromItem>& items_;
  std::function<Error(std::string, int)> error_;
};

}  // namespace farmdb::sql
