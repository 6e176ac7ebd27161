// SELECT: set operations, VALUES, WITH, target list, WHERE, GROUP BY/HAVING, ORDER BY,
// LIMIT/OFFSET and locking clauses. FROM items are in transform_from.cc.
#include <fmt/format.h>

#include "sql/parse/transform.h"

namespace farmdb::sql {

OrderItem::Nulls NullsOrder(PgQuery__SortByNulls nulls) {
  switch (nulls) {
    case PG_QUERY__SORT_BY_NULLS__SORTBY_NULLS_FIRST:
      return OrderItem::Nulls::kFirst;
    case PG_QUERY__SORT_BY_NULLS__SORTBY_NULLS_LAST:
      return OrderItem::Nulls::kLast;
    default:
      return OrderItem::Nulls::kDefault;
  }
}

std::expected<std::vector<OrderItem>, Error> Transformer::TransformSortItems(PgQuery__Node** items, size_t n) {
  std::vector<OrderItem> out;
  for (size_t i = 0; i < n; ++i) {
    const PgQuery__SortBy& sort = *items[i]->sort_by;
    if (sort.sortby_dir == PG_QUERY__SORT_BY_DIR__SORTBY_USING) {
      return std::unexpected(NotSupported("ORDER BY ... USING", sort.location));
    }
    out.push_back(OrderItem{ClauseExpr(*sort.node), sort.sortby_dir == PG_QUERY__SORT_BY_DIR__SORTBY_DESC,
                            NullsOrder(sort.sortby_nulls)});
  }
  return out;
}

std::expected<std::vector<SelectTarget>, Error> Transformer::TransformTargets(PgQuery__Node** targets, size_t n) {
  std::vector<SelectTarget> out;
  for (size_t i = 0; i < n; ++i) {
    const PgQuery__ResTarget& target = *targets[i]->res_target;
    bool has_alias = target.name != nullptr && *target.name != '\0';
    std::string name = has_alias ? target.name : FigureColumnName(target.val);
    out.push_back(SelectTarget{ClauseExpr(*target.val), std::move(name), has_alias});
  }
  return out;
}

std::expected<std::unique_ptr<SelectStmt>, Error> Transformer::TransformSubquery(const PgQuery__Node& node) {
  if (node.node_case != PG_QUERY__NODE__NODE_SELECT_STMT) return std::unexpected(NotSupported("this kind of subquery"));
  auto select = TransformSelect(*node.select_stmt);
  if (!select) return std::unexpected(select.error());
  return std::make_unique<SelectStmt>(std::move(*select));
}

std::expected<SelectStmt, Error> Transformer::TransformSelect(const PgQuery__SelectStmt& stmt) {
  SelectStmt select;
  if (stmt.with_clause != nullptr) {
    const PgQuery__WithClause& with = *stmt.with_clause;
    if (with.recursive) return std::unexpected(NotSupported("WITH RECURSIVE", with.location));
    for (size_t i = 0; i < with.n_ctes; ++i) {
      const PgQuery__CommonTableExpr& cte = *with.ctes[i]->common_table_expr;
      if (cte.search_clause != nullptr || cte.cycle_clause != nullptr) {
        return std::unexpected(NotSupported("SEARCH/CYCLE", cte.location));
      }
      if (cte.ctematerialized == PG_QUERY__CTEMATERIALIZE__CTEMaterializeAlways ||
          cte.ctematerialized == PG_QUERY__CTEMATERIALIZE__CTEMaterializeNever) {
        return std::unexpected(NotSupported("MATERIALIZED", cte.location));
      }
      if (cte.ctequery->node_case != PG_QUERY__NODE__NODE_SELECT_STMT) {
        return std::unexpected(NotSupported("data-modifying statements in WITH", cte.location));
      }
      auto query = TransformSubquery(*cte.ctequery);
      if (!query) return std::unexpected(query.error());
      select.with.push_back(
          CommonTableExpr{cte.ctename, StringList(cte.aliascolnames, cte.n_aliascolnames), std::move(*query), cte.location});
    }
  }
  if (stmt.into_clause != nullptr) return std::unexpected(NotSupported("SELECT INTO"));
  if (stmt.n_window_clause > 0) return std::unexpected(NotSupported("WINDOW"));
  if (stmt.group_distinct) return std::unexpected(NotSupported("GROUP BY DISTINCT"));
  if (stmt.limit_option == PG_QUERY__LIMIT_OPTION__LIMIT_OPTION_WITH_TIES) {
    return std::unexpected(NotSupported("FETCH FIRST ... WITH TIES"));
  }
  switch (stmt.op) {
    case PG_QUERY__SET_OPERATION__SETOP_UNION:
      select.op = SelectStmt::SetOp::kUnion;
      break;
    case PG_QUERY__SET_OPERATION__SETOP_INTERSECT:
      select.op = SelectStmt::SetOp::kIntersect;
      break;
    case PG_QUERY__SET_OPERATION__SETOP_EXCEPT:
      select.op = SelectStmt::SetOp::kExcept;
      break;
    default:
      break;
  }
  if (select.op != SelectStmt::SetOp::kNone) {
    select.all = stmt.all;
    auto left = TransformSelect(*stmt.larg);
    if (!left) return std::unexpected(left.error());
    auto right = TransformSelect(*stmt.rarg);
    if (!right) return std::unexpected(right.error());
    select.left = std::make_unique<SelectStmt>(std::move(*left));
    select.right = std::make_unique<SelectStmt>(std::move(*right));
  }
  for (size_t i = 0; i < stmt.n_values_lists; ++i) {
    const PgQuery__List& row = *stmt.values_lists[i]->list;
    std::vector<ExprPtr> values;
    for (size_t j = 0; j < row.n_items; ++j) values.push_back(ClauseExpr(*row.items[j]));
    select.values.push_back(std::move(values));
  }
  if (stmt.n_distinct_clause > 0) {
    // SELECT DISTINCT is a one-element list holding a null node; DISTINCT ON lists expressions.
    if (stmt.n_distinct_clause > 1 || stmt.distinct_clause[0]->node_case != PG_QUERY__NODE__NODE__NOT_SET) {
      return std::unexpected(NotSupported("SELECT DISTINCT ON"));
    }
    select.distinct = true;
  }
  for (size_t i = 0; i < stmt.n_from_clause; ++i) {
    auto item = TransformFromItem(*stmt.from_clause[i]);
    if (!item) return std::unexpected(item.error());
    select.from.push_back(std::move(*item));
  }
  auto targets = TransformTargets(stmt.target_list, stmt.n_target_list);
  if (!targets) return std::unexpected(targets.error());
  select.targets = std::move(*targets);
  select.where = OptionalClauseExpr(stmt.where_clause);
  for (size_t i = 0; i < stmt.n_group_clause; ++i) {
    const PgQuery__Node& item = *stmt.group_clause[i];
    if (item.node_case == PG_QUERY__NODE__NODE_GROUPING_SET) {
      return std::unexpected(NotSupported("GROUPING SETS, ROLLUP and CUBE", item.grouping_set->location));
    }
    select.group_by.push_back(ClauseExpr(item));
  }
  select.having = OptionalClauseExpr(stmt.having_clause);
  auto order_by = TransformSortItems(stmt.sort_clause, stmt.n_sort_clause);
  if (!order_by) return std::unexpected(order_by.error());
  select.order_by = std::move(*order_by);
  select.limit = OptionalClauseExpr(stmt.limit_count);
  select.offset = OptionalClauseExpr(stmt.limit_offset);
  for (size_t i = 0; i < stmt.n_locking_clause; ++i) {
    const PgQuery__LockingClause& lc = *stmt.locking_clause[i]->locking_clause;
    LockingClause lock;
    switch (lc.strength) {
      case PG_QUERY__LOCK_CLAUSE_STRENGTH__LCS_FORNOKEYUPDATE:
        lock.strength = LockingClause::Strength::kNoKeyUpdate;
        break;
      case PG_QUERY__LOCK_CLAUSE_STRENGTH__LCS_FORSHARE:
        lock.strength = LockingClause::Strength::kShare;
        break;
      case PG_QUERY__LOCK_CLAUSE_STRENGTH__LCS_FORKEYSHARE:
        lock.strength = LockingClause::Strength::kKeyShare;
        break;
      default:
        lock.strength = LockingClause::Strength::kUpdate;
        break;
    }
    lock.wait = lc.wait_policy == PG_QUERY__LOCK_WAIT_POLICY__LockWaitError  ? LockingClause::Wait::kNoWait
                : lc.wait_policy == PG_QUERY__LOCK_WAIT_POLICY__LockWaitSkip ? LockingClause::Wait::kSkipLocked
                                                                             : LockingClause::Wait::kBlock;
    for (size_t j = 0; j < lc.n_locked_rels; ++j) {
      auto name = TransformRangeVar(*lc.locked_rels[j]->range_var);
      if (!name) return std::unexpected(name.error());
      lock.tables.push_back(std::move(*name));
    }
    select.locking.push_back(std::move(lock));
  }
  return select;
}

}  // namespace farmdb::sql
