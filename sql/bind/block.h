// The state of one SELECT block while the binder builds it (bind_query.cc binds its FROM and
// names; bind_block.cc its clauses and plan). Internal to sql/bind.
#pragma once

#include "sql/bind/binder.h"
#include "sql/plan/planner.h"

namespace farmdb::sql {

struct AggregateScope {
  std::vector<AggregateCall> calls;
};

// FOR UPDATE / FOR SHARE of one query block while it is bound (bind_locking.cc).
struct BlockLocks {
  using Strength = LockingClause::Strength;
  enum class Kind { kNothing, kItem, kCte, kJoin };  // what an OF name found in FROM
  struct Named {
    const QualifiedName* name;
    Strength strength;
    Kind found = Kind::kNothing;
  };
  struct Item {
    size_t index;          // in Block::items
    std::string qualifier;
    Strength strength;
    bool relation;         // a table or system view (else a subquery the lock was pushed into)
    bool exclusive;        // locked with WriteUnchanged (a table FOR [NO KEY] UPDATE)
    size_t addr_slot = 0;  // relation: its row_addr slot in the block row
  };
  std::vector<const LockingClause*> clauses;  // the block's own
  std::optional<Strength> pushed;             // from an enclosing query's clause (every item)
  std::vector<Named> named;                   // the OF names, in clause order
  std::vector<Item> items;                    // locked FROM items, in FROM order
  std::optional<Error> deferred;              // the first error of a subquery a lock was pushed into
  std::vector<LockRowsNode::Target> targets;  // the hidden targets holding the Addrs
  bool Active() const { return !clauses.empty() || pushed; }
  // FOR [NO KEY] UPDATE of a table rewrites its rows (txn::Txn::WriteUnchanged); the rest
  // validate them (ValidateAtCommit).
  static bool Exclusive(Strength s) { return s == Strength::kUpdate || s == Strength::kNoKeyUpdate; }
  // The strength item `qualifier` is locked with (the strongest clause reaching it): every
  // table, system view and subquery when a clause has no OF list, else those named. Marks the
  // OF names found as `kind`; only kItem is locked.
  std::optional<Strength> Reach(std::string_view qualifier, Kind kind);
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
  BlockLocks locks;
};

}  // namespace farmdb::sql
