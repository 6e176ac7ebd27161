// Binding of INSERT, UPDATE and DELETE into dml_plan.h's plans: target columns, assignment
// coercion (transformAssignedExpr), column defaults re-read from their stored SQL text, NOT NULL
// and CHECK constraints, ON CONFLICT's arbiter index, and RETURNING.
#include <fmt/format.h>

#include <algorithm>

#include "sql/bind/binder.h"
#include "sql/plan/planner.h"

namespace farmdb::sql {
namespace {

// Types between which PostgreSQL has an assignment cast beyond the implicit ones: numeric types
// among themselves, anything to a string type (I/O conversion), date/time types among themselves.
bool AssignmentCastable(TypeId from, TypeId to) {
  if (IsNumeric(from) && IsNumeric(to)) return true;
  if (IsString(to)) return true;
  auto datetime = [](TypeId t) { return t == TypeId::kDate || t == TypeId::kTimestamp || t == TypeId::kTimestampTz; };
  return datetime(from) && datetime(to);
}

// Where PostgreSQL points for the i-th target column: the column in the list, else the table.
int TargetLocation(const InsertStmt& stmt, size_t i) {
  return i < stmt.column_locations.size() ? stmt.column_locations[i] : stmt.table.location;
}

// An index's key columns (attnums) in ascending order: ON CONFLICT's target names a set.
std::vector<int16_t> KeyColumnSet(const storage::IndexDesc& index) {
  std::vector<int16_t> keys;
  for (const storage::IndexKeyColumn& k : index.keys) keys.push_back(k.attnum);
  std::ranges::sort(keys);
  return keys;
}

}  // namespace

std::expected<BoundExprPtr, Error> Binder::CoerceToColumn(BoundExprPtr e, const storage::ColumnDesc& column) {
  TypeId from = e->type;
  BoundExprPtr out;
  if (from == TypeId::kUnknown || ImplicitlyCastable(from, column.type)) {
    auto c = Coerce(std::move(e), column.type);
    if (!c) return c;
    out = std::move(*c);
  } else if (AssignmentCastable(from, column.type)) {
    out = MakeCast(std::move(e), column.type);
  } else {
    Error err = ErrorAt("42804", fmt::format("column \"{}\" is of type {} but expression is of type {}", column.attname,
                                             Info(column.type).sql_name, Info(from).sql_name), e->location);
    err.hint = "You will need to rewrite or cast the expression.";
    return std::unexpected(err);
  }
  if (column.atttypmod >= 0) {
    out = MakeCast(std::move(out), column.type);
    out->typmod = column.atttypmod;
    out->assignment = true;
  }
  return out;
}

std::expected<BoundExprPtr, Error> Binder::BindDefault(const storage::ColumnDesc& column) {
  if (!column.default_expr) return BoundExprPtr();
  // The stored text is what pg_get_expr prints; it is parsed and bound again here, against the
  // same catalog (nextval('t_id_seq'::regclass) names its sequence).
  auto parsed = Parse("SELECT " + *column.default_expr);
  if (!parsed || parsed->size() != 1 || !std::holds_alternative<SelectStmt>(parsed->front().node)) {
    return std::unexpected(MakeError("XX000", fmt::format("cannot parse the default of column \"{}\"", column.attname)));
  }
  const Statement& statement = parsed->front();
  Binder sub = SubBinder();
  sub.source_ = *statement.source;
  Scope none;
  auto e = sub.BindExprIn(*std::get<SelectStmt>(statement.node).targets[0].expr, none, "DEFAULT expressions");
  if (!e) return e;
  return CoerceToColumn(std::move(*e), column);
}

std::expected<RowChecks, Error> Binder::BindRowChecks(const storage::TableDesc& table) {
  RowChecks checks;
  for (const storage::ColumnDesc& c : table.columns) {
    if (!c.attisdropped && c.attnotnull) checks.not_null.push_back(c.attnum - 1);
  }
  Scope scope = TableScope(table, table.relname);
  for (const storage::ConstraintDesc& con : table.constraints) {
    if (con.contype != 'c') continue;
    auto parsed = Parse("SELECT " + con.check_expr);
    if (!parsed || parsed->size() != 1 || !std::holds_alternative<SelectStmt>(parsed->front().node)) {
      return std::unexpected(MakeError("XX000", fmt::format("cannot parse check constraint \"{}\"", con.conname)));
    }
    const Statement& statement = parsed->front();
    Binder sub = SubBinder();
    sub.source_ = *statement.source;
    auto e = sub.BindExprIn(*std::get<SelectStmt>(statement.node).targets[0].expr, scope, "check constraints");
    if (!e) return std::unexpected(e.error());
    checks.checks.push_back(RowChecks::Check{con.conname, std::move(*e)});
  }
  return checks;
}

std::expected<Binder::BoundDml, Error> Binder::BindInsert(const InsertStmt& stmt) {
  auto table = ResolveTable(stmt.table);
  if (!table) return std::unexpected(table.error());
  const storage::TableDesc& t = **table;
  InsertPlan plan;
  plan.catalog = catalog_->snapshot;
  plan.table = &t;
  auto listed = TargetColumns(t, stmt.columns, stmt.column_locations);
  if (!listed) return std::unexpected(listed.error());
  std::vector<const storage::ColumnDesc*> targets = std::move(*listed);
  const SelectStmt* source = stmt.source.get();
  if (source != nullptr && !source->values.empty() && source->op == SelectStmt::SetOp::kNone && source->with.empty()) {
    // VALUES rows: each item is coerced to its column (DEFAULT is the column's default).
    std::vector<std::vector<BoundExprPtr>> rows;
    // Without a column list, VALUES may fill only the first columns (the rest take defaults).
    if (stmt.columns.empty() && source->values[0].size() < targets.size()) targets.resize(source->values[0].size());
    for (const std::vector<ExprPtr>& row : source->values) {
      if (row.size() != source->values[0].size()) {
        return std::unexpected(ErrorAt("42601", "VALUES lists must all be the same length", row.empty() ? -1 : row[0]->location));
      }
      if (row.size() > targets.size()) {
        return std::unexpected(ErrorAt("42601", "INSERT has more expressions than target columns", row[targets.size()]->location));
      }
      if (row.size() < targets.size()) {
        return std::unexpected(ErrorAt("42601", "INSERT has more target columns than expressions", TargetLocation(stmt, row.size())));
      }
      std::vector<BoundExprPtr> bound;
      for (size_t i = 0; i < row.size(); ++i) {
        BoundExprPtr item;
        if (row[i]->kind == ExprKind::kDefault) {
          auto d = BindDefault(*targets[i]);
          if (!d) return std::unexpected(d.error());
          item = *d ? std::move(*d) : MakeBound(BoundKind::kConst, targets[i]->type, -1);
          if (item->kind == BoundKind::kConst && item->value.type == TypeId::kUnknown) item->value = Value::Null(targets[i]->type);
        } else {
          Scope none;
          auto e = BindExprIn(*row[i], none, "VALUES");
          if (!e) return std::unexpected(e.error());
          auto c = CoerceToColumn(std::move(*e), *targets[i]);
          if (!c) return std::unexpected(c.error());
          item = std::move(*c);
        }
        bound.push_back(std::move(item));
      }
      rows.push_back(std::move(bound));
    }
    plan.source = std::make_shared<ValuesNode>(targets.size(), std::move(rows));
  } else if (source != nullptr) {
    auto query = BindQuery(*source);
    if (!query) return std::unexpected(query.error());
    if (stmt.columns.empty() && query->columns.size() < targets.size()) targets.resize(query->columns.size());
    if (query->columns.size() > targets.size()) {
      return std::unexpected(ErrorAt("42601", "INSERT has more expressions than target columns", stmt.table.location));
    }
    if (query->columns.size() < targets.size()) {
      return std::unexpected(ErrorAt("42601", "INSERT has more target columns than expressions",
                                     TargetLocation(stmt, query->columns.size())));
    }
    std::vector<BoundExprPtr> coerced;
    for (size_t i = 0; i < targets.size(); ++i) {
      BoundExprPtr col = MakeBound(BoundKind::kColumn, query->columns[i].type, -1);
      col->column = static_cast<int>(i);
      auto c = CoerceToColumn(std::move(col), *targets[i]);
      if (!c) return std::unexpected(c.error());
      coerced.push_back(std::move(*c));
    }
    plan.source = std::make_shared<ProjectNode>(query->plan, std::move(coerced));
  } else {
    // DEFAULT VALUES: one row of defaults.
    targets.clear();
    plan.source = std::make_shared<ValuesNode>(0, std::vector<std::vector<BoundExprPtr>>(1));
  }
  if (auto r = BindInsertTargets(t, targets, plan); !r) return std::unexpected(r.error());

  std::string qualifier = stmt.alias.empty() ? t.relname : stmt.alias;
  Scope scope = TableScope(t, qualifier);
  if (stmt.on_conflict) {
    auto on_conflict = BindOnConflict(*stmt.on_conflict, t, scope);
    if (!on_conflict) return std::unexpected(on_conflict.error());
    plan.on_conflict = std::move(*on_conflict);
  }
  BoundDml out;
  auto returning = BindTargetList(stmt.returning, scope, "RETURNING");
  if (!returning) return std::unexpected(returning.error());
  plan.returning = std::move(returning->first);
  out.returning = std::move(returning->second);
  out.plan = std::move(plan);
  return out;
}

// COPY's errors carry no position in PostgreSQL.
std::expected<const storage::TableDesc*, Error> Binder::ResolveCopyTable(const CopyStmt& stmt) {
  auto table = ResolveTable(stmt.relation);
  if (!table) {
    Error e = table.error();
    e.position = 0;
    return std::unexpected(e);
  }
  return table;
}

std::expected<InsertPlan, Error> Binder::BindCopyFrom(const CopyStmt& stmt) {
  auto table = ResolveCopyTable(stmt);
  if (!table) return std::unexpected(table.error());
  const storage::TableDesc& t = **table;
  InsertPlan plan;
  plan.catalog = catalog_->snapshot;
  plan.table = &t;
  auto targets = TargetColumns(t, stmt.columns, {});  // COPY's errors carry no position
  if (!targets) return std::unexpected(targets.error());
  if (auto r = BindInsertTargets(t, *targets, plan); !r) return std::unexpected(r.error());
  return plan;
}

std::expected<BoundQuery, Error> Binder::BindCopyTo(const CopyStmt& stmt) {
  auto table = ResolveCopyTable(stmt);
  if (!table) return std::unexpected(table.error());
  auto targets = TargetColumns(**table, stmt.columns, {});
  if (!targets) return std::unexpected(targets.error());
  // COPY t (cols) TO is SELECT cols FROM t, in the table's storage order.
  std::vector<FromItem> items(1);
  items[0].table = *table;
  items[0].alias = (*table)->relname;
  items[0].width = (*table)->columns.size();
  std::vector<BoundExprPtr> columns;
  std::vector<OutputColumn> out;
  for (const storage::ColumnDesc* c : *targets) {
    BoundExprPtr e = MakeBound(BoundKind::kColumn, c->type, -1);
    e->column = c->attnum - 1;
    columns.push_back(std::move(e));
    out.push_back(OutputColumn{c->attname, c->type, c->atttypmod});
  }
  PlanPtr scan = PlanFrom(catalog_->snapshot, std::move(items), {}, nullptr);
  return BoundQuery{std::make_shared<ProjectNode>(scan, std::move(columns)), std::move(out)};
}

std::expected<std::vector<const storage::ColumnDesc*>, Error> Binder::TargetColumns(const storage::TableDesc& t,
                                                                                   const std::vector<std::string>& names,
                                                                                   std::span<const int> locations) {
  std::vector<const storage::ColumnDesc*> targets;
  if (names.empty()) {
    for (const storage::ColumnDesc& c : t.columns) {
      if (!c.attisdropped) targets.push_back(&c);
    }
    return targets;
  }
  for (size_t i = 0; i < names.size(); ++i) {
    int location = i < locations.size() ? locations[i] : -1;
    const storage::ColumnDesc* c = t.FindColumn(names[i]);
    if (c == nullptr) {
      return std::unexpected(ErrorAt("42703", fmt::format("column \"{}\" of relation \"{}\" does not exist", names[i], t.relname),
                                     location));
    }
    if (std::ranges::find(targets, c) != targets.end()) {
      return std::unexpected(ErrorAt("42701", fmt::format("column \"{}\" specified more than once", names[i]), location));
    }
    targets.push_back(c);
  }
  return targets;
}

std::expected<void, Error> Binder::BindInsertTargets(const storage::TableDesc& t,
                                                     const std::vector<const storage::ColumnDesc*>& targets,
                                                     InsertPlan& plan) {
  for (const storage::ColumnDesc* c : targets) plan.targets.push_back(c->attnum - 1);
  plan.defaults.resize(t.columns.size());
  for (const storage::ColumnDesc& c : t.columns) {
    if (c.attisdropped || std::ranges::find(plan.targets, c.attnum - 1) != plan.targets.end()) continue;
    auto d = BindDefault(c);
    if (!d) return std::unexpected(d.error());
    plan.defaults[c.attnum - 1] = std::move(*d);
  }
  auto checks = BindRowChecks(t);
  if (!checks) return std::unexpected(checks.error());
  plan.checks = std::move(*checks);
  return {};
}

std::expected<OnConflictPlan, Error> Binder::BindOnConflict(const OnConflict& oc, const storage::TableDesc& t,
                                                            const Scope& scope) {
  OnConflictPlan plan;
  plan.update = oc.action == OnConflict::Action::kUpdate;
  // The arbiter: the unique index over exactly the target columns, or the named constraint's.
  const storage::IndexDesc* arbiter = nullptr;
  if (!oc.constraint.empty()) {
    const storage::ConstraintDesc* con = nullptr;
    for (const storage::ConstraintDesc& c : t.constraints) {
      if (c.conname == oc.constraint) con = &c;
    }
    if (con == nullptr || con->conindid == 0) {
      return std::unexpected(ErrorAt("42704", fmt::format("constraint \"{}\" for table \"{}\" does not exist", oc.constraint,
                                                          t.relname), oc.location));
    }
    for (const storage::IndexDesc& i : t.indexes) {
      if (i.oid == con->conindid) arbiter = &i;
    }
  } else if (!oc.columns.empty()) {
    std::vector<int16_t> wanted;
    for (const std::string& name : oc.columns) {
      const storage::ColumnDesc* c = t.FindColumn(name);
      if (c == nullptr) {
        return std::unexpected(ErrorAt("42703", fmt::format("column \"{}\" does not exist", name), oc.location));
      }
      wanted.push_back(c->attnum);
    }
    std::ranges::sort(wanted);
    for (const storage::IndexDesc& i : t.indexes) {
      if (i.indisunique && KeyColumnSet(i) == wanted) arbiter = &i;
    }
  }
  if ((!oc.columns.empty() || !oc.constraint.empty()) && arbiter == nullptr) {
    return std::unexpected(MakeError("42P10", "there is no unique or exclusion constraint matching the ON CONFLICT specification"));
  }
  if (plan.update && arbiter == nullptr) {
    Error e = ErrorAt("42601", "ON CONFLICT DO UPDATE requires inference specification or constraint name", oc.location);
    e.hint = "For example, ON CONFLICT (column_name).";
    return std::unexpected(e);
  }
  if (arbiter != nullptr) {
    uint32_t found = 0;
    for (uint32_t pos = 0; pos <= t.storage->secondary.size(); ++pos) {
      const storage::IndexDesc* i = t.IndexAt(pos);
      if (i == arbiter) found = pos;
      if (i == arbiter || (i->indisunique && KeyColumnSet(*i) == KeyColumnSet(*arbiter))) {
        plan.arbiters.push_back(pos);
      }
    }
    // The existing row is found by the arbiter's key columns of the proposed row (the outer
    // row when the lookup opens).
    IndexAccess access;
    access.index = found;
    for (const storage::IndexKeyColumn& k : arbiter->keys) {
      const storage::ColumnDesc& c = t.columns[k.attnum - 1];
      BoundExprPtr col = MakeBound(BoundKind::kColumn, c.type, -1);
      col->column = k.attnum - 1;
      access.equal.push_back(std::move(col));
    }
    plan.existing = std::make_shared<TableScanNode>(catalog_->snapshot, &t, t.relname, std::move(access), nullptr);
  }
  if (plan.update) {
    // SET and WHERE see the existing row by the table's name (or alias) and the proposed one as
    // EXCLUDED, after it in the combined row.
    Scope both = scope;
    for (const ScopeColumn& c : scope.columns) {
      ScopeColumn excluded = c;
      excluded.qualifier = "excluded";
      excluded.slot += static_cast<int>(t.columns.size());
      excluded.unqualified = false;
      both.columns.push_back(std::move(excluded));
    }
    auto set = BindAssignments(oc.set, t, both);
    if (!set) return std::unexpected(set.error());
    plan.set = std::move(*set);
    if (oc.where) {
      auto w = BindExprIn(*oc.where, both, "WHERE");
      if (!w) return std::unexpected(w.error());
      auto b = RequireBool(std::move(*w), "WHERE");
      if (!b) return std::unexpected(b.error());
      plan.where = std::move(*b);
    }
  }
  return plan;
}

std::expected<std::vector<Assignment>, Error> Binder::BindAssignments(const std::vector<UpdateSet>& set,
                                                                      const storage::TableDesc& t, const Scope& scope) {
  std::vector<Assignment> out;
  for (const UpdateSet& item : set) {
    const storage::ColumnDesc* c = t.FindColumn(item.column);
    if (c == nullptr) {
      return std::unexpected(ErrorAt("42703", fmt::format("column \"{}\" of relation \"{}\" does not exist", item.column, t.relname),
                                     item.location));
    }
    if (std::ranges::any_of(out, [&](const Assignment& a) { return a.column == c->attnum - 1; })) {
      return std::unexpected(MakeError("42601", fmt::format("multiple assignments to same column \"{}\"", item.column)));
    }
    BoundExprPtr value;
    if (item.value->kind == ExprKind::kDefault) {
      auto d = BindDefault(*c);
      if (!d) return std::unexpected(d.error());
      value = *d ? std::move(*d) : MakeBound(BoundKind::kConst, c->type, -1);
      if (value->kind == BoundKind::kConst && value->value.type == TypeId::kUnknown) value->value = Value::Null(c->type);
    } else {
      auto e = BindExprIn(*item.value, scope, "UPDATE");
      if (!e) return std::unexpected(e.error());
      auto coerced = CoerceToColumn(std::move(*e), *c);
      if (!coerced) return std::unexpected(coerced.error());
      value = std::move(*coerced);
    }
    out.push_back(Assignment{c->attnum - 1, std::move(value)});
  }
  return out;
}

namespace {
// UpdatePlan::reapplicable.
bool Reapplicable(const UpdatePlan& plan) {
  const storage::TableDesc& t = *plan.table;
  if (t.PrimaryKey() == nullptr || !plan.returning.empty()) return false;
  for (const Assignment& a : plan.set) {
    if (!ReadsOnlyRowAndParameters(*a.value)) return false;
    for (const storage::IndexDesc& index : t.indexes) {
      if (std::ranges::any_of(index.keys, [&](const storage::IndexKeyColumn& k) { return k.attnum - 1 == a.column; })) {
        return false;
      }
    }
  }
  for (const BoundExprPtr* condition : {&plan.scan->filter, &plan.scan->index_condition}) {
    if (*condition && !ReadsOnlyRowAndParameters(**condition)) return false;
  }
  return std::ranges::all_of(plan.checks.checks,
                             [](const RowChecks::Check& c) { return ReadsOnlyRowAndParameters(*c.predicate); });
}
}  // namespace

// UPDATE and DELETE select their rows the same way: a scan of the table whose access path and
// filter come from WHERE. The scan and RETURNING go into `plan` (an UpdatePlan or DeletePlan).
template <typename Plan>
std::expected<void, Error> Binder::BindRowSelection(const storage::TableDesc& t, const std::string& alias,
                                                    const Expr* where, const std::vector<SelectTarget>& returning,
                                                    const Scope& scope, std::vector<const BoundExpr*> reads,
                                                    std::span<const int> also_read, Plan& plan, BoundDml& out) {
  plan.catalog = catalog_->snapshot;
  plan.table = &t;
  std::vector<BoundExprPtr> conjuncts;
  if (where != nullptr) {
    auto w = BindExprIn(*where, scope, "WHERE");
    if (!w) return std::unexpected(w.error());
    auto b = RequireBool(std::move(*w), "WHERE");
    if (!b) return std::unexpected(b.error());
    conjuncts = SplitConjuncts(std::move(*b));
  }
  auto targets = BindTargetList(returning, scope, "RETURNING");
  if (!targets) return std::unexpected(targets.error());
  plan.returning = std::move(targets->first);
  out.returning = std::move(targets->second);
  for (const BoundExprPtr& e : plan.returning) reads.push_back(e.get());
  plan.scan = PlanTableScan(catalog_->snapshot, &t, alias, std::move(conjuncts), reads, also_read);
  return {};
}

std::expected<Binder::BoundDml, Error> Binder::BindUpdate(const UpdateStmt& stmt) {
  auto table = ResolveTable(stmt.table);
  if (!table) return std::unexpected(table.error());
  const storage::TableDesc& t = **table;
  std::string alias = stmt.alias.empty() ? t.relname : stmt.alias;
  Scope scope = TableScope(t, alias);
  UpdatePlan plan;
  BoundDml out;
  auto set = BindAssignments(stmt.set, t, scope);
  if (!set) return std::unexpected(set.error());
  plan.set = std::move(*set);
  plan.changed.assign(t.columns.size(), false);
  for (const Assignment& a : plan.set) plan.changed[a.column] = true;
  auto checks = BindRowChecks(t);
  if (!checks) return std::unexpected(checks.error());
  plan.checks = std::move(*checks);
  // The scan decodes what SET and the CHECKs read, and the NOT NULL columns the checks test.
  std::vector<const BoundExpr*> reads;
  for (const Assignment& a : plan.set) reads.push_back(a.value.get());
  for (const RowChecks::Check& c : plan.checks.checks) reads.push_back(c.predicate.get());
  if (auto r = BindRowSelection(t, alias, stmt.where.get(), stmt.returning, scope, std::move(reads),
                                plan.checks.not_null, plan, out);
      !r) {
    return std::unexpected(r.error());
  }
  plan.reapplicable = Reapplicable(plan);
  out.plan = std::move(plan);
  return out;
}

std::expected<Binder::BoundDml, Error> Binder::BindDelete(const DeleteStmt& stmt) {
  auto table = ResolveTable(stmt.table);
  if (!table) return std::unexpected(table.error());
  const storage::TableDesc& t = **table;
  std::string alias = stmt.alias.empty() ? t.relname : stmt.alias;
  Scope scope = TableScope(t, alias);
  DeletePlan plan;
  BoundDml out;
  if (auto r = BindRowSelection(t, alias, stmt.where.get(), stmt.returning, scope, {}, {}, plan, out); !r) {
    return std::unexpected(r.error());
  }
  out.plan = std::move(plan);
  return out;
}

}  // namespace farmdb::sql
