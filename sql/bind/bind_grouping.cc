// The GROUP BY check and rewrite of a grouped block (bind_grouping.h).
#include "sql/bind/bind_grouping.h"

#include <fmt/format.h>

#include <algorithm>

#include "sql/bind/binder.h"
#include "storage/catalog_snapshot.h"

namespace farmdb::sql {
namespace {

bool IsColumn(const BoundExpr& e, int slot) { return e.kind == BoundKind::kColumn && e.levels_up == 0 && e.column == slot; }

BoundExprPtr GroupColumn(int group, const BoundExpr& e) {
  BoundExprPtr c = MakeBound(BoundKind::kColumn, e.type, e.location);
  c->column = group;
  c->typmod = e.typmod;
  return c;
}

}  // namespace

std::expected<void, Error> GroupedRewriter::Rewrite(BoundExprPtr& e) {
  for (size_t i = 0; i < groups_.size(); ++i) {
    if (SameExpr(*e, *groups_[i])) {
      e = GroupColumn(static_cast<int>(i), *e);
      return {};
    }
  }
  if (e->kind == BoundKind::kAggregate) return {};
  if (e->kind == BoundKind::kColumn && e->levels_up == 0) {
    int group = GroupOf(e->column);
    if (group < 0) {
      return std::unexpected(error_(
          fmt::format("column \"{}\" must appear in the GROUP BY clause or be used in an aggregate function", ColumnName(e->column)),
          e->location));
    }
    e = GroupColumn(group, *e);
    return {};
  }
  for (BoundExprPtr& a : e->args) {
    if (auto r = Rewrite(a); !r) return r;
  }
  if (!e->outer_reads.empty()) {
    // A subquery evaluated over the grouped row reads the block row rebuilt from the groups, so
    // each block column it reads must be one (PostgreSQL checks the subquery's outer Vars).
    std::vector<int> rebuilt;
    for (const OuterColumnRead& read : e->outer_reads) {
      int group = GroupOf(read.slot);
      if (group < 0) {
        return std::unexpected(
            error_(fmt::format("subquery uses ungrouped column \"{}\" from outer query", ColumnName(read.slot)), read.location));
      }
      if (static_cast<size_t>(read.slot) >= rebuilt.size()) rebuilt.resize(read.slot + 1, -1);
      rebuilt[read.slot] = group;
    }
    e->grouped_outer = std::move(rebuilt);
  }
  return {};
}

void GroupedRewriter::Finish(BoundExpr& e) const {
  if (e.kind == BoundKind::kAggregate) {
    e.kind = BoundKind::kColumn;
    e.column += static_cast<int>(groups_.size());
    return;
  }
  for (BoundExprPtr& a : e.args) Finish(*a);
}

int GroupedRewriter::GroupOf(int slot) {
  for (size_t i = 0; i < groups_.size(); ++i) {
    if (IsColumn(*groups_[i], slot)) return static_cast<int>(i);
  }
  for (const FromItem& item : items_) {
    if (static_cast<size_t>(slot) < item.first_slot || static_cast<size_t>(slot) >= item.first_slot + item.width) continue;
    if (!PrimaryKeyGrouped(item)) return -1;
    const ScopeColumn* column = FindColumn(slot);
    if (column == nullptr) return -1;  // a slot without a name (dropped, row_addr) is never read
    BoundExprPtr c = MakeBound(BoundKind::kColumn, column->type, -1);
    c->column = slot;
    c->typmod = column->typmod;
    c->record = column->record;
    groups_.push_back(std::move(c));
    return static_cast<int>(groups_.size() - 1);
  }
  return -1;
}

// check_functional_grouping: the primary key's columns (conkey) are all GROUP BY items as plain
// columns of this item, whose table columns sit at first_slot + attnum - 1.
bool GroupedRewriter::PrimaryKeyGrouped(const FromItem& item) const {
  if (item.table == nullptr) return false;
  for (const storage::ConstraintDesc& c : item.table->constraints) {
    if (c.contype != 'p') continue;
    return std::ranges::all_of(c.conkey, [&](int16_t attnum) {
      int slot = static_cast<int>(item.first_slot) + attnum - 1;
      return std::ranges::any_of(groups_, [&](const BoundExprPtr& g) { return IsColumn(*g, slot); });
    });
  }
  return false;
}

const ScopeColumn* GroupedRewriter::FindColumn(int slot) const {
  for (const ScopeColumn& c : scope_.columns) {
    if (c.slot == slot) return &c;
  }
  return nullptr;
}

std::string GroupedRewriter::ColumnName(int slot) const {
  const ScopeColumn* c = FindColumn(slot);
  return c == nullptr ? std::string() : c->qualifier + "." + c->name;
}

}  // namespace farmdb::sql
