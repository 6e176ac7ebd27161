// Join trees and access paths (planner.h).
#include "sql/plan/planner.h"

#include <algorithm>
#include <map>
#include <optional>

namespace farmdb::sql {

std::vector<BoundExprPtr> SplitConjuncts(BoundExprPtr e) {
  std::vector<BoundExprPtr> out;
  if (!e) return out;
  if (e->kind != BoundKind::kAnd) {
    out.push_back(std::move(e));
    return out;
  }
  for (BoundExprPtr& arg : e->args) {
    auto sub = SplitConjuncts(std::move(arg));
    for (BoundExprPtr& s : sub) out.push_back(std::move(s));
  }
  return out;
}

BoundExprPtr CombineConjuncts(std::vector<BoundExprPtr> conjuncts) {
  if (conjuncts.empty()) return nullptr;
  if (conjuncts.size() == 1) return std::move(conjuncts[0]);
  auto e = std::make_unique<BoundExpr>();
  e->kind = BoundKind::kAnd;
  e->type = TypeId::kBool;
  e->args = std::move(conjuncts);
  return e;
}

namespace {

// The block slots `e` reads (kColumn at levels_up 0). Subqueries count as reading every slot:
// their correlated references were bound against the whole block row.
struct Reads {
  std::vector<int> slots;
  bool everything = false;
};

void CollectReads(const BoundExpr& e, Reads& r) {
  if (e.kind == BoundKind::kColumn && e.levels_up == 0) r.slots.push_back(e.column);
  if (e.subplan) r.everything = true;
  for (const BoundExprPtr& a : e.args) CollectReads(*a, r);
}

// Which of `width` slots `r` reads, one flag each; empty when it reads everything.
std::vector<bool> SlotsRead(const Reads& r, size_t width) {
  if (r.everything) return {};
  std::vector<bool> read(width, false);
  for (int slot : r.slots) {
    if (static_cast<size_t>(slot) < width) read[slot] = true;
  }
  return read;
}

Reads ReadsOf(const BoundExpr& e) {
  Reads r;
  CollectReads(e, r);
  return r;
}

// Moves every block-row reference of `e` by -delta (a conjunct pushed into an item's scan reads
// the item's own row).
void ShiftColumns(BoundExpr& e, int delta) {
  if (e.kind == BoundKind::kColumn && e.levels_up == 0) e.column -= delta;
  for (BoundExprPtr& a : e.args) ShiftColumns(*a, delta);
}

// `e` is the item's column `slot` (a plain reference, or a cast that keeps the key encoding:
// between integer widths, or between string types).
std::optional<int> KeyColumnOf(const BoundExpr& e) {
  if (e.kind == BoundKind::kColumn && e.levels_up == 0) return e.column;
  if (e.kind == BoundKind::kCast && e.typmod < 0) {
    const BoundExpr& inner = *e.args[0];
    bool same_family = (IsInteger(inner.type) && IsInteger(e.type)) ||
                       (IsString(inner.type) && IsString(e.type) && inner.type != TypeId::kBpchar);
    if (same_family && inner.kind == BoundKind::kColumn && inner.levels_up == 0) return inner.column;
  }
  return std::nullopt;
}

// A conjunct usable as an index bound: item column (item slot) op value. `exact`: the index
// enforces the conjunct exactly once it bounds the scan (ExactKeyCondition).
struct KeyCondition {
  int slot;
  CompareOp op;
  const BoundExpr* value;
  const BoundExpr* conjunct;
  bool exact;
};

// Whether `value` is computed once per scan: from constants, parameters and outer columns
// only, through casts and arithmetic (no function, which may be volatile).
bool ComputedOnce(const BoundExpr& value) {
  switch (value.kind) {
    case BoundKind::kConst:
    case BoundKind::kParam:
    case BoundKind::kColumn:
      return true;
    case BoundKind::kCast:
    case BoundKind::kArith:
    case BoundKind::kNegate:
      return std::ranges::all_of(value.args, [](const BoundExprPtr& a) { return ComputedOnce(*a); });
    default:
      return false;
  }
}

// A key condition the index answers exactly, so the scan need not test it again on each row:
// the column itself (no cast) against a value of its own integer-encoded type, computed once.
// Such keys encode the value as it is, in SQL order, and a NULL value makes the scan return
// nothing, as the comparison would. Strings (collations, char(n) padding) and floats (-0, NaN)
// keep their test.
bool ExactKeyCondition(const BoundExpr& column, const BoundExpr& value) {
  if (column.kind != BoundKind::kColumn || value.type != column.type || !ComputedOnce(value)) return false;
  TypeId t = column.type;
  return IsInteger(t) || t == TypeId::kDate || t == TypeId::kTimestamp || t == TypeId::kTimestampTz;
}

CompareOp Flip(CompareOp op) {
  switch (op) {
    case CompareOp::kLt: return CompareOp::kGt;
    case CompareOp::kLe: return CompareOp::kGe;
    case CompareOp::kGt: return CompareOp::kLt;
    case CompareOp::kGe: return CompareOp::kLe;
    default: return op;
  }
}

// `value` may read only slots before `first` (earlier items, the outer row) and nothing else.
bool IsOuterValue(const BoundExpr& value, size_t first) {
  Reads r = ReadsOf(value);
  if (r.everything) return false;
  return std::ranges::all_of(r.slots, [&](int s) { return static_cast<size_t>(s) < first; });
}

std::vector<KeyCondition> KeyConditions(const std::vector<const BoundExpr*>& conjuncts, size_t first, size_t width) {
  std::vector<KeyCondition> out;
  auto in_item = [&](int s) { return static_cast<size_t>(s) >= first && static_cast<size_t>(s) < first + width; };
  for (const BoundExpr* c : conjuncts) {
    if (c->kind != BoundKind::kCompare || c->compare == CompareOp::kNe) continue;
    for (int side = 0; side < 2; ++side) {
      auto col = KeyColumnOf(*c->args[side]);
      const BoundExpr& other = *c->args[1 - side];
      if (col && in_item(*col) && IsOuterValue(other, first)) {
        out.push_back({*col - static_cast<int>(first), side == 0 ? c->compare : Flip(c->compare), &other, c,
                       ExactKeyCondition(*c->args[side], other)});
        break;
      }
    }
  }
  return out;
}

// An IN list over item columns, from `col IN (v, ...)` or `(a = v AND b = w) OR ...` (what
// row IN lists become): `slots` (item-relative, ascending) and per point their values.
struct PointSet {
  std::vector<int> slots;
  std::vector<std::vector<const BoundExpr*>> points;
};

void Flatten(const BoundExpr& e, BoundKind kind, std::vector<const BoundExpr*>& out) {
  if (e.kind == kind) {
    for (const BoundExprPtr& a : e.args) Flatten(*a, kind, out);
  } else {
    out.push_back(&e);
  }
}

std::vector<PointSet> PointSets(const std::vector<const BoundExpr*>& conjuncts, size_t first, size_t width) {
  auto item_column = [&](const BoundExpr& e) -> std::optional<int> {
    auto col = KeyColumnOf(e);
    if (!col || static_cast<size_t>(*col) < first || static_cast<size_t>(*col) >= first + width) return std::nullopt;
    return *col - static_cast<int>(first);
  };
  std::vector<PointSet> out;
  for (const BoundExpr* c : conjuncts) {
    if (c->kind == BoundKind::kInList) {
      auto col = item_column(*c->args[0]);
      if (!col) continue;
      PointSet set{{*col}, {}};
      for (size_t i = 1; i < c->args.size(); ++i) {
        if (!IsOuterValue(*c->args[i], first)) break;
        set.points.push_back({c->args[i].get()});
      }
      if (set.points.size() == c->args.size() - 1) out.push_back(std::move(set));
      continue;
    }
    if (c->kind != BoundKind::kOr) continue;
    std::vector<const BoundExpr*> alternatives;
    Flatten(*c, BoundKind::kOr, alternatives);
    PointSet set;
    for (const BoundExpr* alt : alternatives) {
      std::vector<const BoundExpr*> parts;
      Flatten(*alt, BoundKind::kAnd, parts);
      std::map<int, const BoundExpr*> point;  // slot -> value
      for (const BoundExpr* part : parts) {
        if (part->kind != BoundKind::kCompare || part->compare != CompareOp::kEq) break;
        for (int side = 0; side < 2; ++side) {
          auto col = item_column(*part->args[side]);
          if (col && IsOuterValue(*part->args[1 - side], first) && point.emplace(*col, part->args[1 - side].get()).second) break;
        }
      }
      std::vector<int> slots;
      for (auto& [slot, value] : point) slots.push_back(slot);
      if (point.size() != parts.size() || (!set.points.empty() && slots != set.slots)) {
        set.points.clear();
        break;
      }
      set.slots = std::move(slots);
      std::vector<const BoundExpr*> values;
      for (auto& [slot, value] : point) values.push_back(value);
      set.points.push_back(std::move(values));
    }
    if (!set.points.empty()) out.push_back(std::move(set));
  }
  return out;
}

struct AccessChoice {
  IndexAccess access;
  int score = -1;
  bool serves_order = false;
  // Conjuncts the access enforces exactly: the scan's filter leaves them out.
  std::vector<const BoundExpr*> enforced = {};
};

// The index columns [from, ...) in `order`'s direction (all forward or all backward)?
std::optional<bool> OrderDirection(const storage::IndexSpec& spec, size_t from, const std::vector<SortKey>& keys,
                                   size_t first) {
  if (keys.empty() || spec.columns.size() - std::min(from, spec.columns.size()) < keys.size()) return std::nullopt;
  std::optional<bool> backward;
  for (size_t i = 0; i < keys.size(); ++i) {
    const storage::IndexColumn& ic = spec.columns[from + i];
    if (keys[i].column < first || keys[i].column - first != ic.column) return std::nullopt;
    bool same = keys[i].descending == ic.key.descending && keys[i].nulls_first == ic.key.nulls_first;
    bool reversed = keys[i].descending != ic.key.descending && keys[i].nulls_first != ic.key.nulls_first;
    if (!same && !reversed) return std::nullopt;
    if (backward && *backward != reversed) return std::nullopt;
    backward = reversed;
  }
  return backward;
}

AccessChoice ChooseAccess(const storage::TableDesc& table, const std::vector<KeyCondition>& conditions,
                          const std::vector<PointSet>& point_sets, const OrderRequest* order, size_t first) {
  const storage::TableDescriptor& d = *table.storage;
  AccessChoice best;
  // An IN list on exactly an index's leading columns: a lookup per point, scored just below an
  // equality prefix as long (the filter still tests the list on each row).
  auto consider_points = [&](uint32_t pos, const storage::IndexSpec& spec, bool is_hash) {
    for (const PointSet& set : point_sets) {
      const size_t m = set.slots.size();
      if (m > spec.columns.size() || (is_hash && m != spec.columns.size())) continue;
      std::vector<size_t> order_of(m);  // index column j is the set's slot order_of[j]
      bool leading = true;
      for (size_t j = 0; j < m && leading; ++j) {
        auto at = std::ranges::find(set.slots, spec.columns[j].column);
        leading = at != set.slots.end();
        if (leading) order_of[j] = static_cast<size_t>(at - set.slots.begin());
      }
      if (!leading) continue;
      int point_score = m == spec.columns.size() && spec.unique ? 999 : static_cast<int>(m) * 10 - 1;
      if (point_score <= best.score) continue;
      IndexAccess points;
      points.index = pos;
      for (const auto& point : set.points) {
        std::vector<BoundExprPtr> values;
        for (size_t j = 0; j < m; ++j) values.push_back(CloneExpr(*point[order_of[j]]));
        points.points.push_back(std::move(values));
      }
      best = AccessChoice{std::move(points), point_score, false};
    }
  };
  size_t positions = 1 + d.secondary.size();
  for (uint32_t pos = 0; pos < positions; ++pos) {
    const storage::IndexSpec& spec = pos == 0 ? d.primary.spec : d.secondary[pos - 1].spec;
    if (spec.columns.empty()) {  // hidden row id: only a whole scan
      if (best.score < 0) best = AccessChoice{IndexAccess{pos}, 0, false};
      continue;
    }
    IndexAccess access;
    access.index = pos;
    std::vector<const BoundExpr*> enforced;
    size_t k = 0;
    for (; k < spec.columns.size(); ++k) {
      auto eq = std::ranges::find_if(conditions, [&](const KeyCondition& c) {
        return c.slot == spec.columns[k].column && c.op == CompareOp::kEq;
      });
      if (eq == conditions.end()) break;
      access.equal.push_back(CloneExpr(*eq->value));
      if (eq->exact) enforced.push_back(eq->conjunct);
    }
    bool full = k == spec.columns.size();
    bool is_hash = spec.kind == storage::IndexKind::kHash;
    consider_points(pos, spec, is_hash);
    if (is_hash && !full) continue;  // hash: equality on the whole key only
    bool range = false;
    if (!full) {
      const KeyCondition* lower_by = nullptr;
      const KeyCondition* upper_by = nullptr;
      for (const KeyCondition& c : conditions) {
        if (c.slot != spec.columns[k].column) continue;
        bool lower = c.op == CompareOp::kGt || c.op == CompareOp::kGe;
        bool upper = c.op == CompareOp::kLt || c.op == CompareOp::kLe;
        if (lower && !access.lower) {
          access.lower = CloneExpr(*c.value);
          access.lower_inclusive = c.op == CompareOp::kGe;
          lower_by = &c;
          range = true;
        } else if (upper && !access.upper) {
          access.upper = CloneExpr(*c.value);
          access.upper_inclusive = c.op == CompareOp::kLe;
          upper_by = &c;
          range = true;
        }
      }
      // Only a range closed on both sides: with one side open the scan also reaches the
      // column's NULLs, which sort at one end of the index.
      if (lower_by && upper_by && lower_by->exact && upper_by->exact) {
        enforced.push_back(lower_by->conjunct);
        enforced.push_back(upper_by->conjunct);
      }
    }
    bool serves = false;
    if (order != nullptr && !is_hash) {
      if (auto backward = OrderDirection(spec, k, order->keys, first)) {
        serves = true;
        access.backward = *backward;
      }
    }
    int score = full && spec.unique ? 1000 : static_cast<int>(k) * 10 + (range ? 5 : 0) + (serves ? 3 : 0);
    if (score == 0 && !serves && pos != 0) continue;  // a whole scan: use the primary index
    if (score > best.score) best = AccessChoice{std::move(access), score, serves, std::move(enforced)};
  }
  return best;
}

// Moves the conjuncts the access enforces (AccessChoice::enforced) out of `conjuncts`, which
// keeps the scan's filter, and returns them.
std::vector<BoundExprPtr> TakeEnforced(std::vector<BoundExprPtr>& conjuncts, const AccessChoice& choice) {
  std::vector<BoundExprPtr> enforced;
  std::erase_if(conjuncts, [&](BoundExprPtr& c) {
    if (std::ranges::find(choice.enforced, c.get()) == choice.enforced.end()) return false;
    enforced.push_back(std::move(c));
    return true;
  });
  return enforced;
}

// Joins `right` (item) to `plan`: nested loop when the item's scan is keyed by the outer row,
// hash join on equalities between the item and earlier items, else nested loop.
PlanPtr JoinStep(PlanPtr plan, PlanPtr right, const FromItem& item, bool keyed_by_outer,
                 std::vector<BoundExprPtr> step_conditions) {
  if (!keyed_by_outer) {
    // Hash join on equalities between this item and earlier ones.
    std::vector<BoundExprPtr> left_keys, right_keys;
    for (const BoundExprPtr& c : step_conditions) {
      if (c->kind != BoundKind::kCompare || c->compare != CompareOp::kEq) continue;
      for (int side = 0; side < 2; ++side) {
        Reads mine = ReadsOf(*c->args[side]);
        bool only_item = !mine.slots.empty() && std::ranges::all_of(mine.slots, [&](int s) {
          return static_cast<size_t>(s) >= item.first_slot;
        });
        if (only_item && IsOuterValue(*c->args[1 - side], item.first_slot)) {
          left_keys.push_back(CloneExpr(*c->args[1 - side]));
          BoundExprPtr r = CloneExpr(*c->args[side]);
          ShiftColumns(*r, static_cast<int>(item.first_slot));
          right_keys.push_back(std::move(r));
          break;
        }
      }
    }
    if (!left_keys.empty()) {
      return std::make_shared<HashJoinNode>(std::move(plan), std::move(right), item.join, std::move(left_keys),
                                            std::move(right_keys), CombineConjuncts(std::move(step_conditions)));
    }
  }
  return std::make_shared<NestedLoopJoinNode>(std::move(plan), std::move(right), item.join,
                                              CombineConjuncts(std::move(step_conditions)));
}

}  // namespace

std::shared_ptr<const TableScanNode> PlanTableScan(const storage::SnapshotPtr& catalog, const storage::TableDesc* table,
                                                   std::string alias, std::vector<BoundExprPtr> conjuncts,
                                                   const std::vector<const BoundExpr*>& above, std::span<const int> also_read) {
  std::vector<const BoundExpr*> view;
  for (const BoundExprPtr& c : conjuncts) view.push_back(c.get());
  Reads r;
  for (const BoundExpr* e : view) CollectReads(*e, r);
  for (const BoundExpr* e : above) CollectReads(*e, r);
  std::vector<bool> columns = SlotsRead(r, table->columns.size());  // empty: all
  if (!columns.empty()) {
    for (int c : also_read) columns[c] = true;
  }
  auto conditions = KeyConditions(view, 0, table->columns.size());
  AccessChoice choice = ChooseAccess(*table, conditions, PointSets(view, 0, table->columns.size()), nullptr, 0);
  BoundExprPtr index_condition = CombineConjuncts(TakeEnforced(conjuncts, choice));
  auto scan = std::make_shared<TableScanNode>(catalog, table, std::move(alias), std::move(choice.access),
                                              CombineConjuncts(std::move(conjuncts)), false, std::move(columns));
  scan->index_condition = std::move(index_condition);
  return scan;
}

PlanPtr PlanFrom(const storage::SnapshotPtr& catalog, std::vector<FromItem> items, std::vector<BoundExprPtr> conjuncts,
                 OrderRequest* order, const std::vector<const BoundExpr*>* above) {
  // The block-row slots anything reads (empty: all of them). A subquery or function item may
  // read earlier items' columns itself (LATERAL, function arguments), out of sight here.
  std::vector<bool> read;
  if (above != nullptr && std::ranges::all_of(items, [](const FromItem& i) { return i.plan == nullptr; })) {
    Reads r;
    for (const BoundExpr* e : *above) CollectReads(*e, r);
    for (const BoundExprPtr& c : conjuncts) CollectReads(*c, r);
    for (const FromItem& item : items) {
      for (const BoundExprPtr& c : item.on) CollectReads(*c, r);
    }
    read = SlotsRead(r, items.back().first_slot + items.back().width);
  }
  // The columns of item `item`'s table that the block reads (empty: all).
  auto columns_read = [&](const FromItem& item) {
    if (read.empty()) return std::vector<bool>();
    return std::vector<bool>(read.begin() + item.first_slot, read.begin() + item.first_slot + item.table->columns.size());
  };
  // The step (item index) each conjunct belongs to, or items.size() for "above the joins".
  auto item_of_slot = [&](int slot) {
    for (size_t i = 0; i < items.size(); ++i) {
      if (static_cast<size_t>(slot) < items[i].first_slot + items[i].width) return i;
    }
    return items.size() - 1;
  };
  // A WHERE conjunct must stay above a LEFT JOIN whose inner side it reads (it filters the
  // null-extended rows too), so it is applied after that join, never pushed into the scan.
  struct Placed {
    BoundExprPtr expr;
    size_t step;
    bool single_item;  // reads only items[step] (pushable into its scan)
    bool above;        // a WHERE conjunct over a LEFT JOIN's inner item: filters the joined rows
  };
  std::vector<Placed> placed;
  auto place = [&](BoundExprPtr c, size_t min_step, bool from_on) {
    Reads r = ReadsOf(*c);
    if (r.everything) {
      placed.push_back({std::move(c), items.size(), false, false});
      return;
    }
    size_t step = min_step, lowest = items.size();
    for (int s : r.slots) {
      step = std::max(step, item_of_slot(s));
      lowest = std::min(lowest, item_of_slot(s));
    }
    bool single = r.slots.empty() ? true : lowest == step;
    bool above = !from_on && items[step].join == JoinType::kLeft;
    placed.push_back({std::move(c), step, single && !above, above});
  };
  for (BoundExprPtr& c : conjuncts) place(std::move(c), 0, false);
  for (size_t i = 0; i < items.size(); ++i) {
    for (BoundExprPtr& c : items[i].on) place(std::move(c), i, true);
  }

  PlanPtr plan;
  for (size_t i = 0; i < items.size(); ++i) {
    FromItem& item = items[i];
    std::vector<BoundExprPtr> pushed;  // over the block row; shifted when the scan takes them
    std::vector<BoundExprPtr> step_conditions;  // over the joined row
    std::vector<BoundExprPtr> after;            // applied over the joined rows (see Placed::above)
    for (Placed& p : placed) {
      if (!p.expr || p.step != i) continue;
      if (p.above) after.push_back(std::move(p.expr));
      else if (p.single_item) pushed.push_back(std::move(p.expr));
      else step_conditions.push_back(std::move(p.expr));
    }
    PlanPtr right;
    bool keyed_by_outer = false;
    std::vector<const BoundExpr*> candidates;
    for (const BoundExprPtr& c : pushed) candidates.push_back(c.get());
    for (const BoundExprPtr& c : step_conditions) candidates.push_back(c.get());
    if (item.table != nullptr) {
      auto conditions = KeyConditions(candidates, item.first_slot, item.width);
      OrderRequest* item_order = items.size() == 1 ? order : nullptr;
      AccessChoice choice = ChooseAccess(*item.table, conditions, PointSets(candidates, item.first_slot, item.width),
                                         item_order, item.first_slot);
      auto reads_outer = [&](const BoundExprPtr& e) { return e && !ReadsOf(*e).slots.empty(); };
      keyed_by_outer = std::ranges::any_of(choice.access.equal, reads_outer) || reads_outer(choice.access.lower) ||
                       reads_outer(choice.access.upper) ||
                       std::ranges::any_of(choice.access.points, [&](const std::vector<BoundExprPtr>& point) {
                         return std::ranges::any_of(point, reads_outer);
                       });
      if (item_order != nullptr && choice.serves_order) item_order->satisfied = true;
      std::vector<BoundExprPtr> enforced = TakeEnforced(pushed, choice);
      // A join condition the scan is keyed by (inner.k = outer.k): every inner row the scan
      // returns for an outer row meets it.
      TakeEnforced(step_conditions, choice);
      for (BoundExprPtr& c : pushed) ShiftColumns(*c, static_cast<int>(item.first_slot));
      for (BoundExprPtr& c : enforced) ShiftColumns(*c, static_cast<int>(item.first_slot));
      auto scan = std::make_shared<TableScanNode>(catalog, item.table, item.alias, std::move(choice.access),
                                                  CombineConjuncts(std::move(pushed)), item.row_addr, columns_read(item));
      scan->index_condition = CombineConjuncts(std::move(enforced));
      right = std::move(scan);
    } else {
      right = item.view != nullptr
                  ? PlanPtr(std::make_shared<SystemViewScanNode>(item.view, item.width, nullptr, item.row_addr))
                  : item.plan;
      if (!pushed.empty()) {
        for (BoundExprPtr& c : pushed) ShiftColumns(*c, static_cast<int>(item.first_slot));
        right = std::make_shared<FilterNode>(right, CombineConjuncts(std::move(pushed)));
      }
    }
    if (i == 0) {
      plan = right;
      if (!step_conditions.empty()) plan = std::make_shared<FilterNode>(plan, CombineConjuncts(std::move(step_conditions)));
      continue;
    }
    plan = JoinStep(std::move(plan), std::move(right), item, keyed_by_outer, std::move(step_conditions));
    if (!after.empty()) plan = std::make_shared<FilterNode>(plan, CombineConjuncts(std::move(after)));
  }
  std::vector<BoundExprPtr> top;
  for (Placed& p : placed) {
    if (p.expr) top.push_back(std::move(p.expr));
  }
  if (!top.empty()) plan = std::make_shared<FilterNode>(plan, CombineConjuncts(std::move(top)));
  return plan;
}

}  // namespace farmdb::sql
