// Binding of whole queries: FROM items and their scopes, column references, aggregates and
// grouping, subqueries, ORDER BY / LIMIT / DISTINCT, set operations and VALUES, assembled into
// a plan (the join tree comes from sql/plan/planner.cc), as PostgreSQL's parse analysis
// (parse_clause.c, parse_agg.c, parse_target.c) resolves them.
#include <fmt/format.h>

#include <algorithm>

#include "sql/bind/binder.h"
#include "sql/bind/block.h"
#include "sql/plan/planner.h"
#include "sql/system/system_view.h"

namespace farmdb::sql {

bool IsAggregateName(std::string_view name) {
  static constexpr std::string_view kNames[] = {"count", "sum", "avg", "min", "max", "bool_and", "bool_or", "every", "string_agg",
                                                "array_agg"};
  return std::ranges::find(kNames, name) != std::end(kNames);
}

namespace {

BoundExprPtr ColumnExpr(int slot, TypeId type, int32_t typmod, int levels_up = 0) {
  BoundExprPtr e = MakeBound(BoundKind::kColumn, type, -1);
  e->column = slot;
  e->typmod = typmod;
  e->levels_up = levels_up;
  return e;
}

const ScopeColumn* ColumnAtSlot(const Scope& scope, int slot) {
  for (const ScopeColumn& c : scope.columns) {
    if (c.slot == slot) return &c;
  }
  return nullptr;
}

OutputColumn Describe(const BoundExpr& e, std::string name, const Scope* scope) {
  OutputColumn out{std::move(name), e.type, e.typmod};
  out.record = e.record;
  if (e.kind == BoundKind::kColumn && e.levels_up == 0 && scope != nullptr) {
    if (const ScopeColumn* c = ColumnAtSlot(*scope, e.column)) {
      out.table_oid = c->table_oid;
      out.attnum = c->attnum;
    }
  }
  return out;
}

}  // namespace

std::expected<const QueryCatalog*, Error> Binder::LoadCatalog() {
  if (catalog_ == nullptr && load_catalog_) {
    auto loaded = load_catalog_();
    if (!loaded) return loaded;
    catalog_ = *loaded;
  }
  return catalog_;
}

Scope Binder::TableScope(const storage::TableDesc& table, std::string_view qualifier) {
  Scope scope;
  for (const storage::ColumnDesc& c : table.columns) {
    if (c.attisdropped) continue;
    scope.columns.push_back(ScopeColumn{std::string(qualifier), c.attname, c.type, c.atttypmod, c.attnum - 1, table.oid, c.attnum});
  }
  return scope;
}

std::expected<const storage::TableDesc*, Error> Binder::ResolveTable(const QualifiedName& name) {
  Error missing = ErrorAt("42P01", fmt::format("relation \"{}\" does not exist", name.schema.empty() ? name.name
                                                   : name.schema + "." + name.name), name.location);
  auto catalog = LoadCatalog();
  if (!catalog) return std::unexpected(catalog.error());
  if (*catalog == nullptr) return std::unexpected(missing);
  const storage::CatalogSnapshot& snap = *(*catalog)->snapshot;
  std::optional<storage::RelationRef> ref;
  if (!name.schema.empty()) {
    // A missing schema reads as a missing relation (RangeVarGetRelid with missing_ok).
    const storage::NamespaceDesc* nsp = snap.FindNamespace(name.schema);
    if (nsp != nullptr) ref = snap.FindRelation(nsp->oid, name.name);
  } else {
    ref = snap.ResolveRelation((*catalog)->search_path, name.name);
  }
  if (!ref) return std::unexpected(missing);
  if (ref->kind != storage::RelationRef::Kind::kTable) {
    return std::unexpected(ErrorAt("42809", fmt::format("\"{}\" is not a table", name.name), name.location));
  }
  return snap.TableByOid(ref->oid);
}

Binder Binder::SubBinder() const {
  Binder sub(source_, param_types_, max_params_, text_options_);
  sub.load_catalog_ = load_catalog_;
  sub.catalog_ = catalog_;
  sub.ctes_ = ctes_;
  sub.row_locks_ = row_locks_;
  sub.depth_ = depth_ + 1;
  return sub;
}

std::expected<BoundExprPtr, Error> Binder::BindColumnRef(const Expr& expr) {
  const std::string& column = expr.names.back();
  std::string qualifier = expr.names.size() >= 2 ? expr.names[expr.names.size() - 2] : std::string();
  int levels = 0;
  for (const Scope* s = scope_; s != nullptr; s = s->parent, ++levels) {
    const ScopeColumn* found = nullptr;
    for (const ScopeColumn& c : s->columns) {
      if (c.name != column || (qualifier.empty() ? !c.unqualified : c.qualifier != qualifier)) continue;
      if (found != nullptr) {
        return std::unexpected(ErrorAt("42702", fmt::format("column reference \"{}\" is ambiguous", column), expr.location));
      }
      found = &c;
    }
    if (found != nullptr) {
      if (levels > 0) s->subquery_reads.push_back(OuterColumnRead{found->slot, expr.location});
      BoundExprPtr e = ColumnExpr(found->slot, found->type, found->typmod, levels);
      e->location = expr.location;
      e->record = found->record;
      return e;
    }
    if (!qualifier.empty() && s->HasQualifier(qualifier)) {
      return std::unexpected(ErrorAt("42703", fmt::format("column {}.{} does not exist", qualifier, column), expr.location));
    }
  }
  if (!qualifier.empty()) {
    return std::unexpected(ErrorAt("42P01", fmt::format("missing FROM-clause entry for table \"{}\"", qualifier), expr.location));
  }
  return std::unexpected(ErrorAt("42703", fmt::format("column \"{}\" does not exist", column), expr.location));
}

std::expected<BoundExprPtr, Error> Binder::BindAggregate(const Expr& expr) {
  if (aggregates_ == nullptr) {
    std::string message = no_aggregates_clause_ == "nested"
                              ? std::string("aggregate function calls cannot be nested")
                              : fmt::format("aggregate functions are not allowed in {}", no_aggregates_clause_);
    return std::unexpected(ErrorAt("42803", message, expr.location));
  }
  AggregateScope* scope = aggregates_;
  auto call = BindAggregateCall(expr, false);
  if (!call) return std::unexpected(call.error());
  BoundExprPtr e = MakeBound(BoundKind::kAggregate, call->type, expr.location);
  e->column = static_cast<int>(scope->calls.size());
  scope->calls.push_back(std::move(*call));
  return e;
}

std::expected<AggregateCall, Error> Binder::BindAggregateCall(const Expr& expr, bool window) {
  AggregateCall call;
  call.distinct = expr.distinct;
  const std::string& name = expr.text;
  // A plain aggregate's inputs (arguments, ORDER BY, FILTER) hold no aggregate or window call;
  // a window aggregate's may hold plain aggregates (sum(count(*)) OVER ()), but no window call.
  // `clause` names it in the error for an aggregate inside ("nested": the arguments).
  auto bind_input = [&](const Expr& input, std::string_view clause = "nested") {
    AggregateScope* scope = aggregates_;
    WindowScope* windows = windows_;
    std::string_view saved_clause = no_aggregates_clause_, saved_window_clause = clause_;
    if (!window) aggregates_ = nullptr, no_aggregates_clause_ = clause;
    windows_ = nullptr, clause_ = window ? "window function calls" : "aggregate function calls";
    auto bound = BindExpr(input);
    aggregates_ = scope, windows_ = windows, no_aggregates_clause_ = saved_clause, clause_ = saved_window_clause;
    return bound;
  };
  if (!expr.agg_order.empty() && window) {
    return std::unexpected(ErrorAt("0A000", "aggregate ORDER BY is not implemented for window functions", expr.location));
  }
  for (const OrderItem& item : expr.agg_order) {
    auto key = bind_input(*item.expr);
    if (!key) return std::unexpected(key.error());
    auto resolved = ResolveUnknown(std::move(*key));
    if (!resolved) return std::unexpected(resolved.error());
    bool nulls_first = item.nulls == OrderItem::Nulls::kFirst || (item.nulls == OrderItem::Nulls::kDefault && item.descending);
    call.order.push_back(SortKey{call.order_by.size(), item.descending, nulls_first});
    call.order_by.push_back(std::move(*resolved));
  }
  if (expr.agg_filter) {
    auto filter = bind_input(*expr.agg_filter, "FILTER");
    if (!filter) return std::unexpected(filter.error());
    auto b = RequireBool(std::move(*filter), "FILTER");
    if (!b) return std::unexpected(b.error());
    call.filter = std::move(*b);
  }
  if (expr.agg_star) {
    if (name != "count") {
      return std::unexpected(ErrorAt("42809", fmt::format("{}(*) specified, but {} is not an aggregate function", name, name),
                                     expr.location));
    }
    call.function = AggregateFunction::kCountStar;
    call.type = TypeId::kInt8;
  } else {
    for (const ExprPtr& a : expr.args) {
      auto bound = bind_input(*a);
      if (!bound) return std::unexpected(bound.error());
      call.args.push_back(std::move(*bound));
    }
    for (const BoundExprPtr& a : call.args) {
      if (auto refused = RefuseSetReturning(*a, window ? "window function" : "aggregate function"); !refused) {
        return std::unexpected(refused.error());
      }
    }
    size_t want = name == "string_agg" ? 2 : 1;
    auto no_function = [&]() {
      std::string types;
      for (const BoundExprPtr& a : call.args) types += (types.empty() ? "" : ", ") + std::string(Info(a->type).sql_name);
      Error e = ErrorAt("42883", fmt::format("function {}({}) does not exist", name, types), expr.location);
      e.hint = "No function matches the given name and argument types. You might need to add explicit type casts.";
      return std::unexpected(e);
    };
    if (call.args.size() != want) return no_function();
    if (window && call.distinct) return std::unexpected(ErrorAt("0A000", "DISTINCT is not implemented for window functions", expr.location));
    for (BoundExprPtr& a : call.args) {
      auto r = ResolveUnknown(std::move(a));
      if (!r) return std::unexpected(r.error());
      a = std::move(*r);
    }
    TypeId in = call.args[0]->type;
    if (name == "count") {
      call.function = AggregateFunction::kCount, call.type = TypeId::kInt8;
    } else if (name == "sum" || name == "avg") {
      if (!IsNumeric(in)) return no_function();
      bool is_float = in == TypeId::kFloat4 || in == TypeId::kFloat8;
      call.function = name == "sum" ? AggregateFunction::kSum : AggregateFunction::kAvg;
      if (name == "avg") call.type = is_float ? TypeId::kFloat8 : TypeId::kNumeric;
      else call.type = is_float ? in : (in == TypeId::kInt2 || in == TypeId::kInt4) ? TypeId::kInt8 : TypeId::kNumeric;
    } else if (name == "min" || name == "max") {
      if (in == TypeId::kBool || in == TypeId::kVoid) return no_function();
      call.function = name == "min" ? AggregateFunction::kMin : AggregateFunction::kMax, call.type = in;
    } else if (name == "array_agg") {
      if (IsArray(in)) return std::unexpected(ErrorAt("0A000", "multidimensional arrays is not supported yet", expr.location));
      auto array = ArrayOf(in);
      if (!array) return no_function();
      call.function = AggregateFunction::kArrayAgg, call.type = *array;
    } else if (name == "string_agg") {
      bool bytes = in == TypeId::kBytea;
      for (BoundExprPtr& a : call.args) {
        auto c = Coerce(std::move(a), bytes ? TypeId::kBytea : TypeId::kText);
        if (!c) return std::unexpected(c.error());
        if (!*c) return no_function();
        a = std::move(*c);
      }
      call.function = AggregateFunction::kStringAgg, call.type = bytes ? TypeId::kBytea : TypeId::kText;
    } else {  // bool_and, bool_or, every
      auto b = Coerce(std::move(call.args[0]), TypeId::kBool);
      if (!b) return std::unexpected(b.error());
      if (!*b) return no_function();
      call.args[0] = std::move(*b);
      call.function = name == "bool_or" ? AggregateFunction::kBoolOr : AggregateFunction::kBoolAnd;
      call.type = TypeId::kBool;
    }
  }
  return call;
}

std::expected<BoundExprPtr, Error> Binder::BindSubquery(const Expr& expr) {
  Binder sub = SubBinder();
  size_t reads_before = scope_ != nullptr ? scope_->subquery_reads.size() : 0;
  auto query = sub.BindQuery(*expr.subquery, scope_);
  if (!query) return std::unexpected(query.error());
  // What the subquery read of this block's columns, for the GROUP BY check.
  std::vector<OuterColumnRead> reads;
  if (scope_ != nullptr) {
    reads.assign(scope_->subquery_reads.begin() + static_cast<ptrdiff_t>(reads_before), scope_->subquery_reads.end());
    scope_->subquery_reads.resize(reads_before);
  }
  if (expr.kind == ExprKind::kArraySubquery && query->columns.size() == 1) {
    TypeId element = query->columns[0].type;
    if (IsArray(element)) return std::unexpected(ErrorAt("0A000", "multidimensional arrays is not supported yet", expr.location));
    auto array = ArrayOf(element);
    if (!array) {
      return std::unexpected(ErrorAt("42704", fmt::format("could not find array type for data type {}", Info(element).sql_name),
                                     expr.location));
    }
    BoundExprPtr e = MakeBound(BoundKind::kArraySubquery, *array, expr.location);
    e->subplan = query->plan;
    e->outer_reads = std::move(reads);
    return e;
  }
  if (expr.kind == ExprKind::kExists) {
    BoundExprPtr e = MakeBound(BoundKind::kExists, TypeId::kBool, expr.location);
    e->subplan = query->plan;
    e->outer_reads = std::move(reads);
    return e;
  }
  if (query->columns.size() != 1) {
    return std::unexpected(ErrorAt("42601", expr.kind == ExprKind::kInSubquery ? "subquery has too many columns"
                                                                              : "subquery must return only one column",
                                   expr.location));
  }
  const OutputColumn& col = query->columns[0];
  if (expr.kind == ExprKind::kSubquery) {
    BoundExprPtr e = MakeBound(BoundKind::kSubquery, col.type, expr.location);
    e->typmod = col.typmod;
    e->record = col.record;
    e->subplan = query->plan;
    e->outer_reads = std::move(reads);
    return e;
  }
  // x IN (subquery): the = operator between x and the subquery's column picks both types; a
  // cast on the column's side is applied over the subquery's rows.
  auto lhs = BindExpr(*expr.args[0]);
  if (!lhs) return lhs;
  auto cmp = BindCompare("=", std::move(*lhs), ColumnExpr(0, col.type, col.typmod), expr.location);
  if (!cmp) return cmp;
  BoundExprPtr e = MakeBound(BoundKind::kInSubquery, TypeId::kBool, expr.location);
  e->outer_reads = std::move(reads);
  e->args.push_back(std::move((*cmp)->args[0]));
  BoundExprPtr& column = (*cmp)->args[1];
  e->subplan = column->kind == BoundKind::kColumn ? query->plan
                                                  : std::make_shared<ProjectNode>(query->plan, [&] {
                                                      std::vector<BoundExprPtr> v;
                                                      v.push_back(std::move(column));
                                                      return v;
                                                    }());
  return e;
}

std::expected<BoundExprPtr, Error> Binder::BindExprIn(const Expr& expr, const Scope& scope, std::string_view clause) {
  const Scope* saved_scope = scope_;
  AggregateScope* saved_aggregates = aggregates_;
  WindowScope* saved_windows = windows_;
  bool saved_sets = set_returning_allowed_;
  std::string_view saved_clause = no_aggregates_clause_, saved_window_clause = clause_;
  scope_ = &scope, aggregates_ = nullptr, no_aggregates_clause_ = clause;
  windows_ = nullptr, set_returning_allowed_ = false, clause_ = clause;
  auto e = BindExpr(expr);
  scope_ = saved_scope, aggregates_ = saved_aggregates, no_aggregates_clause_ = saved_clause;
  windows_ = saved_windows, set_returning_allowed_ = saved_sets, clause_ = saved_window_clause;
  return e;
}

std::expected<std::pair<std::vector<BoundExprPtr>, std::vector<OutputColumn>>, Error> Binder::BindTargetList(
    const std::vector<SelectTarget>& targets, const Scope& scope, std::string_view clause) {
  std::vector<BoundExprPtr> exprs;
  std::vector<OutputColumn> columns;
  for (const SelectTarget& t : targets) {
    if (t.expr->kind == ExprKind::kStar) {
      const std::vector<std::string>& q = t.expr->names;
      bool any = false;
      for (const ScopeColumn& c : scope.columns) {
        if (!c.in_star || (!q.empty() && c.qualifier != q.back())) continue;
        any = true;
        exprs.push_back(ColumnExpr(c.slot, c.type, c.typmod));
        exprs.back()->record = c.record;
        columns.push_back(Describe(*exprs.back(), c.name, &scope));
      }
      if (!any && !q.empty() && !scope.HasQualifier(q.back())) {
        return std::unexpected(ErrorAt("42P01", fmt::format("missing FROM-clause entry for table \"{}\"", q.back()), t.expr->location));
      }
      continue;
    }
    const Scope* saved_scope = scope_;
    scope_ = &scope;
    auto e = aggregates_ != nullptr ? BindExpr(*t.expr) : BindExprIn(*t.expr, scope, clause);
    scope_ = saved_scope;
    if (!e) return std::unexpected(e.error());
    columns.push_back(Describe(**e, t.name, &scope));
    exprs.push_back(std::move(*e));
  }
  return std::pair{std::move(exprs), std::move(columns)};
}

std::expected<void, Error> Binder::BindFromItem(const TableRef& ref, Block& block) {
  auto add_columns = [&](FromItem item, std::vector<OutputColumn> columns, std::string qualifier,
                         const std::vector<std::string>& aliases) -> std::expected<void, Error> {
    if (aliases.size() > columns.size()) {
      return std::unexpected(ErrorAt("42P10", fmt::format("table \"{}\" has {} columns available but {} columns specified",
                                                          qualifier, columns.size(), aliases.size()), ref.location));
    }
    // A relation FOR UPDATE/SHARE reaches ends with its scan's row_addr column, unnamed.
    std::optional<LockingClause::Strength> lock;
    if (item.table != nullptr || item.view != nullptr) lock = block.locks.Reach(qualifier, BlockLocks::Kind::kItem);
    if (lock) {
      item.row_addr = true;
      columns.push_back(OutputColumn{"", TypeId::kInt8});
      bool exclusive = item.table != nullptr && BlockLocks::Exclusive(*lock);
      block.locks.items.push_back({block.items.size(), qualifier, *lock, true, exclusive, block.width + columns.size() - 1});
    }
    item.first_slot = block.width;
    item.width = columns.size();
    for (size_t i = 0; i < columns.size(); ++i) {
      const OutputColumn& c = columns[i];
      if (c.name.empty()) continue;  // a dropped table column: its slot stays, its name is gone
      ScopeColumn column{qualifier, i < aliases.size() ? aliases[i] : c.name, c.type, c.typmod,
                         static_cast<int>(block.width + i), c.table_oid, c.attnum};
      column.record = c.record;
      block.scope.columns.push_back(std::move(column));
    }
    block.width += columns.size();
    block.items.push_back(std::move(item));
    return {};
  };
  switch (ref.kind) {
    case TableRef::Kind::kRelation: {
      const QualifiedName& name = ref.relation;
      std::string qualifier = ref.alias.empty() ? name.name : ref.alias;
      if (name.schema.empty()) {
        for (auto it = ctes_.rbegin(); it != ctes_.rend(); ++it) {
          if ((*it)->name != name.name) continue;
          block.locks.Reach(qualifier, BlockLocks::Kind::kCte);  // never locked, refused if named
          Binder sub = SubBinder();
          sub.ctes_.assign(ctes_.begin(), it.base() - 1);  // a CTE sees the ones before it
          auto query = sub.BindQuery(*(*it)->query, block.scope.parent);
          if (!query) return std::unexpected(query.error());
          std::vector<std::string> aliases = ref.column_aliases.empty() ? (*it)->column_names : ref.column_aliases;
          for (OutputColumn& c : query->columns) c.table_oid = 0, c.attnum = 0;
          return add_columns(FromItem{.plan = query->plan, .alias = qualifier}, query->columns, qualifier, aliases);
        }
      }
      bool system_schema = name.schema == "pg_catalog" || name.schema == "information_schema";
      if (!system_schema) {
        auto table = ResolveTable(name);
        if (table) {
          std::vector<OutputColumn> columns;
          for (const storage::ColumnDesc& c : (*table)->columns) {
            columns.push_back(OutputColumn{c.attisdropped ? std::string() : c.attname, c.type, c.atttypmod, (*table)->oid, c.attnum});
          }
          return add_columns(FromItem{.table = *table, .alias = qualifier}, columns, qualifier, ref.column_aliases);
        }
        if (table.error().sqlstate != "42P01" || !name.schema.empty()) return std::unexpected(table.error());
      }
      const SystemView* view = FindSystemView(name.schema.empty() ? "pg_catalog" : name.schema, name.name);
      if (view != nullptr) {
        // A system view's rows are generated from the statement's catalog snapshot.
        if (auto loaded = LoadCatalog(); !loaded) return std::unexpected(loaded.error());
      }
      if (view == nullptr) {
        return std::unexpected(ErrorAt("42P01", fmt::format("relation \"{}\" does not exist",
                                                            name.schema.empty() ? name.name : name.schema + "." + name.name),
                                       name.location));
      }
      std::vector<OutputColumn> columns;
      for (const SystemColumn& c : view->columns()) columns.push_back(OutputColumn{c.name, c.type, c.typmod});
      return add_columns(FromItem{.view = view, .alias = qualifier}, columns, qualifier, ref.column_aliases);
    }
    case TableRef::Kind::kSubquery: {
      auto lock = block.locks.Reach(ref.alias, BlockLocks::Kind::kItem);
      if (lock) block.locks.items.push_back({block.items.size(), ref.alias, *lock, false, false});
      Binder sub = LockedSubBinder(lock, block);
      auto query = sub.BindQuery(*ref.subquery, block.scope.parent);
      if (!query) return std::unexpected(query.error());
      for (OutputColumn& c : query->columns) c.table_oid = 0, c.attnum = 0;
      return add_columns(FromItem{.plan = query->plan, .alias = ref.alias}, query->columns, ref.alias, ref.column_aliases);
    }
    case TableRef::Kind::kFunction: {
      auto scan = BindFunctionScan(ref, block.scope.parent);
      if (!scan) return std::unexpected(scan.error());
      // A function returning a scalar names its column after the alias (FROM f() AS s).
      std::string qualifier = ref.alias.empty() ? ref.function->text : ref.alias;
      return add_columns(FromItem{.plan = scan->first, .alias = qualifier}, scan->second, qualifier, ref.column_aliases);
    }
    case TableRef::Kind::kJoin:
      break;
  }
  if (!ref.alias.empty()) block.locks.Reach(ref.alias, BlockLocks::Kind::kJoin);  // refused if named
  if (ref.join_type == TableRef::JoinType::kLeft && ref.right->kind == TableRef::Kind::kJoin) {
    return std::unexpected(ErrorAt("0A000", "LEFT JOIN with a join on its right side is not supported yet", ref.location));
  }
  if (auto l = BindFromItem(*ref.left, block); !l) return l;
  size_t left_columns = block.scope.columns.size();
  if (auto r = BindFromItem(*ref.right, block); !r) return r;
  std::vector<BoundExprPtr> conditions;
  for (const std::string& name : ref.using_columns) {
    auto find = [&](size_t from, size_t to) -> ScopeColumn* {
      for (size_t i = from; i < to; ++i) {
        if (block.scope.columns[i].name == name && block.scope.columns[i].unqualified) return &block.scope.columns[i];
      }
      return nullptr;
    };
    ScopeColumn* l = find(0, left_columns);
    ScopeColumn* r = find(left_columns, block.scope.columns.size());
    if (l == nullptr || r == nullptr) {
      return std::unexpected(ErrorAt("42703", fmt::format("column \"{}\" specified in USING clause does not exist in {} table",
                                                          name, l == nullptr ? "left" : "right"), ref.location));
    }
    auto cmp = BindCompare("=", ColumnExpr(l->slot, l->type, l->typmod), ColumnExpr(r->slot, r->type, r->typmod), ref.location);
    if (!cmp) return std::unexpected(cmp.error());
    conditions.push_back(std::move(*cmp));
    r->unqualified = false;  // the merged column is the left one
    r->in_star = false;
  }
  if (ref.on) {
    auto on = BindExprIn(*ref.on, block.scope, "JOIN conditions");
    if (!on) return std::unexpected(on.error());
    auto b = RequireBool(std::move(*on), "JOIN/ON");
    if (!b) return std::unexpected(b.error());
    for (BoundExprPtr& c : SplitConjuncts(std::move(*b))) conditions.push_back(std::move(c));
  }
  if (ref.join_type == TableRef::JoinType::kLeft) {
    block.items.back().join = JoinType::kLeft;
    block.items.back().on = std::move(conditions);
  } else {
    for (BoundExprPtr& c : conditions) block.conjuncts.push_back(std::move(c));
  }
  return {};
}

}  // namespace farmdb::sql
