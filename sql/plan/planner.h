// The planner's part of a query block: from the FROM items and WHERE conjuncts the binder
// produced, the join tree with access paths (which index, which bounds) and join methods.
//
// Rules (heuristic, no statistics yet):
// - Items join left-deep in the order written. Each WHERE conjunct is applied at the first step
//   where every item it reads is joined: inside the item's own scan when it reads only that
//   item (a pushed-down filter), else as the join's condition. Conjuncts with subqueries are
//   applied over the whole block row, above the joins.
// - An item's index is chosen from conjuncts `column op expr` where expr does not read the item
//   (constants, parameters, or earlier items: the outer row of a nested-loop index join): a
//   unique index with every key column equal wins (hash or B-tree point lookup), else the
//   B-tree with the longest equal prefix plus a range on the next column, preferring one whose
//   order serves ORDER BY; without any, the primary index is scanned whole. The scan's filter
//   re-checks every conjunct but those the index answers exactly (integer and date/time keys
//   against values of their own type: planner.cc ExactKeyCondition), which the scan keeps as
//   its index_condition; a join condition the inner scan is keyed by exactly is dropped.
// - A later item joins by nested loop when its index is keyed by the outer row, by hash join on
//   equality conjuncts between it and earlier items otherwise, else by nested loop over it.
//
// Thread-safety: pure functions over immutable inputs.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "sql/plan/plan.h"

namespace farmdb::sql {

struct FromItem {
  const storage::TableDesc* table = nullptr;  // a user table, or
  const SystemView* view = nullptr;           // a system view, or
  PlanPtr plan = nullptr;                     // a subquery / VALUES / CTE
  std::string alias;
  size_t first_slot = 0;  // where its columns start in the block row
  size_t width = 0;
  JoinType join = JoinType::kInner;  // how it joins the items before it
  std::vector<BoundExprPtr> on = {};  // a LEFT JOIN's ON conjuncts (over the block row)
  bool row_addr = false;  // a table or system view whose last slot is its scan's row_addr column
};

// ORDER BY of a single-item block that an index order may serve: sort keys over block slots.
struct OrderRequest {
  std::vector<SortKey> keys;
  bool satisfied = false;  // set by the planner when the scan returns rows in this order
};

// The block's join tree; `catalog` keeps the TableDesc pointers alive. `order` may be null.
// `above`: the expressions the plan above the joins evaluates over the block row (targets,
// groups, aggregate arguments); table scans decode only the columns they and the conjuncts read.
// Null: the block row is read whole.
PlanPtr PlanFrom(const storage::SnapshotPtr& catalog, std::vector<FromItem> items, std::vector<BoundExprPtr> conjuncts,
                 OrderRequest* order, const std::vector<const BoundExpr*>* above = nullptr);

// The scan of one table (UPDATE, DELETE): access path from `conjuncts` (over the table row),
// kept as its filter or, those the access answers exactly, its index_condition. It decodes
// only the columns the conjuncts and `above` (what the statement evaluates over each row) read,
// and `also_read` (attnum - 1 each).
std::shared_ptr<const TableScanNode> PlanTableScan(const storage::SnapshotPtr& catalog, const storage::TableDesc* table,
                                                   std::string alias, std::vector<BoundExprPtr> conjuncts,
                                                   const std::vector<const BoundExpr*>& above, std::span<const int> also_read);

// AND-ed conjuncts of `e` (e itself when it is not an AND), and back.
std::vector<BoundExprPtr> SplitConjuncts(BoundExprPtr e);
BoundExprPtr CombineConjuncts(std::vector<BoundExprPtr> conjuncts);

}  // namespace farmdb::sql
