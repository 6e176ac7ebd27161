// SELECT ... FOR UPDATE / FOR NO KEY UPDATE / FOR SHARE / FOR KEY SHARE [OF ...] [NOWAIT], as
// PostgreSQL's parse analysis (transformLockingClause, CheckSelectLocking) and planner decide
// which rows are locked and what is refused, with its messages. The locks themselves are
// optimistic (DESIGN.md §2, txn.h): a LockRowsNode hands each returned row's object to the Txn,
// FOR [NO KEY] UPDATE as an unchanged rewrite (exclusive), FOR [KEY] SHARE as an object
// validated at commit (shared).
//
// What is locked: the rows the query returns, of the FROM items each clause reaches, every table
// and system view (and, pushed down, every one inside a subquery in FROM) without OF, only the
// named ones with OF; WITH queries, VALUES and joins are skipped unless named (then refused).
// An item reached twice takes the strongest clause. A system view's rows are generated from the
// catalog, which only DDL changes and every DDL writes its root object, so they are locked by
// validating that root, shared whatever the strength: rewriting it would fail every concurrent
// serializable transaction, since every statement reads it. A subquery reached by a clause
// locks the rows it returns, before the enclosing query's conditions (PostgreSQL does so for
// subqueries it cannot flatten); its errors come after the enclosing query's own.
#include <fmt/format.h>

#include <algorithm>

#include "sql/bind/binder.h"
#include "sql/bind/block.h"
#include "sql/parse/ast_print.h"

namespace farmdb::sql {
namespace {

using Strength = LockingClause::Strength;

// The enum lists the strengths strongest first.
Strength Stronger(Strength a, Strength b) { return std::min(a, b); }

}  // namespace

std::optional<Strength> BlockLocks::Reach(std::string_view qualifier, Kind kind) {
  std::optional<Strength> strength;
  auto add = [&](Strength s) { strength = strength ? Stronger(*strength, s) : s; };
  if (kind == Kind::kItem) {
    if (pushed) add(*pushed);
    for (const LockingClause* clause : clauses) {
      if (clause->tables.empty()) add(clause->strength);
    }
  }
  for (Named& n : named) {
    // Each name is the first item of that name (qualified names are refused later).
    if (n.found != Kind::kNothing || !n.name->schema.empty() || n.name->name != qualifier) continue;
    n.found = kind;
    if (kind == Kind::kItem) add(n.strength);
  }
  return strength;
}

std::optional<std::string> Binder::RowLockCommand() const {
  if (!row_locks_->relation || !row_locks_->command) return std::nullopt;
  return fmt::format("SELECT {}", ToString(*row_locks_->command));
}

Binder Binder::LockedSubBinder(std::optional<Strength> lock, Block& block) const {
  Binder sub = SubBinder();
  sub.pushed_lock_ = lock;
  if (lock) sub.deferred_lock_error_ = &block.locks.deferred;
  return sub;
}

std::expected<void, Error> Binder::LockError(Error e, bool pushed_only) {
  if (!pushed_only || deferred_lock_error_ == nullptr) return std::unexpected(std::move(e));
  if (!*deferred_lock_error_) *deferred_lock_error_ = std::move(e);
  return {};
}

std::expected<void, Error> Binder::FinishRowLocks(const SelectStmt& select, Block& block) {
  BlockLocks& locks = block.locks;
  if (!locks.Active()) return {};
  bool pushed_only = locks.clauses.empty();
  Strength first = pushed_only ? *locks.pushed : locks.clauses.front()->strength;
  auto fail = [&](Error e) {
    locks.items.clear();  // a deferred error: bind on, locking nothing
    return LockError(std::move(e), pushed_only);
  };
  if (!select.values.empty()) {
    // transformValuesClause; a lock pushed into VALUES has nothing to lock (RTE_VALUES).
    if (pushed_only) return {};
    return std::unexpected(MakeError("0A000", fmt::format("{} cannot be applied to VALUES", ToString(first))));
  }
  // CheckSelectLocking (set operations are refused in BindQuery; window functions and
  // set-returning functions do not bind yet).
  std::string_view refused = select.distinct            ? "DISTINCT clause"
                             : !block.groups.empty()    ? "GROUP BY clause"
                             : block.having             ? "HAVING clause"
                             : !block.aggregates.calls.empty() ? "aggregate functions"
                                                                : "";
  if (!refused.empty()) return fail(MakeError("0A000", fmt::format("{} is not allowed with {}", ToString(first), refused)));
  for (const BlockLocks::Named& n : locks.named) {
    std::string_view strength = ToString(n.strength);
    if (!n.name->schema.empty()) {
      return fail(ErrorAt("42601", fmt::format("{} must specify unqualified relation names", strength), n.name->location));
    }
    switch (n.found) {
      case BlockLocks::Kind::kNothing:
        return fail(ErrorAt("42P01", fmt::format("relation \"{}\" in {} clause not found in FROM clause", n.name->name, strength),
                            n.name->location));
      case BlockLocks::Kind::kCte:
        return fail(ErrorAt("0A000", fmt::format("{} cannot be applied to a WITH query", strength), n.name->location));
      case BlockLocks::Kind::kJoin:
        return fail(ErrorAt("0A000", fmt::format("{} cannot be applied to a join", strength), n.name->location));
      case BlockLocks::Kind::kItem:
        break;
    }
  }
  if (locks.deferred) return fail(*std::move(locks.deferred));
  // The planner's check (make_outerjoininfo): the right side of a LEFT JOIN may be NULL-extended.
  for (const BlockLocks::Item& item : locks.items) {
    if (block.items[item.index].join == JoinType::kLeft) {
      return fail(MakeError("0A000", fmt::format("{} cannot be applied to the nullable side of an outer join", ToString(item.strength))));
    }
  }
  if (locks.items.empty()) return {};
  // The statement's command names the strength of its first row mark: the first item the first
  // clause reaches (FROM order without OF, name order with it); the outermost query's first.
  const BlockLocks::Item* first_item = &locks.items.front();
  if (!pushed_only && !locks.clauses.front()->tables.empty()) {
    const QualifiedName& name = locks.clauses.front()->tables.front();
    auto named = std::ranges::find(locks.items, name.name, &BlockLocks::Item::qualifier);
    if (named != locks.items.end()) first_item = &*named;
  }
  if (depth_ == 0 || !row_locks_->command) row_locks_->command = first_item->strength;
  for (const BlockLocks::Item& item : locks.items) {
    if (!item.relation) continue;
    row_locks_->relation = true;
    locks.targets.push_back({block.targets.size(), item.exclusive});
    BoundExprPtr addr = MakeBound(BoundKind::kColumn, TypeId::kInt8, -1);
    addr->column = static_cast<int>(item.addr_slot);
    block.targets.push_back(std::move(addr));
  }
  return {};
}

}  // namespace farmdb::sql
