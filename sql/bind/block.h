// The state of one SELECT block while the binder builds it (bind_query.cc binds its FROM and
// names; bind_block.cc its clauses and plan). Internal to sql/bind.
#pragma once

#include "sql/bind/binder.h"
#include "sql/plan/planner.h"

namespace farmdb::sql {

struct AggregateScope {
  std::vector<AggregateCall> calls;
};

struct WindowScope {
  std::vector<WindowCall> calls;
};

// One SELECT block while it is bound.
struct Binder::Block {
  Scope scope;
  std::vector<FromItem> items;
  size_t width = 0;                     // the block row's width
  std::vector<BoundExprPtr> conjuncts;  // WHERE and inner joins' ON, over the block row
  AggregateScope aggregates;
  WindowScope windows;
  std::vector<BoundExprPtr> groups;
  BoundExprPtr having;
  bool aggregated = false;
  std::vector<BoundExprPtr> targets;   // visible ones first, then ORDER BY's extra keys
  std::vector<OutputColumn> columns;   // the visible ones
  std::vector<SortKey> order;          // over targets
  PlanPtr values;                      // a VALUES block: its rows (targets read them)
};

}  // namespace farmdb::sql
