// SELECT: target list, WHERE, and (for now) the check that FROM names no relation.
#include <fmt/format.h>

#include "sql/parse/transform.h"

namespace farmdb::sql {

std::expected<SelectStmt, Error> Transformer::TransformSelect(const PgQuery__SelectStmt& stmt) {
  if (stmt.op != PG_QUERY__SET_OPERATION__SETOP_NONE) return std::unexpected(NotSupported("UNION/INTERSECT/EXCEPT"));
  if (stmt.n_values_lists > 0) return std::unexpected(NotSupported("VALUES"));
  if (stmt.with_clause != nullptr) return std::unexpected(NotSupported("WITH"));
  if (stmt.into_clause != nullptr) return std::unexpected(NotSupported("SELECT INTO"));
  if (stmt.n_distinct_clause > 0) return std::unexpected(NotSupported("SELECT DISTINCT"));
  if (stmt.n_group_clause > 0 || stmt.having_clause != nullptr) return std::unexpected(NotSupported("GROUP BY"));
  if (stmt.n_window_clause > 0) return std::unexpected(NotSupported("WINDOW"));
  if (stmt.n_sort_clause > 0) return std::unexpected(NotSupported("ORDER BY"));
  if (stmt.limit_count != nullptr || stmt.limit_offset != nullptr) return std::unexpected(NotSupported("LIMIT/OFFSET"));
  if (stmt.n_locking_clause > 0) return std::unexpected(NotSupported("FOR UPDATE/SHARE"));

  SelectStmt select;
  if (stmt.n_from_clause > 0) {
    // No relation exists until the catalog arrives with the storage layer; PostgreSQL checks
    // FROM before the target list, so this error wins over any in the targets.
    const PgQuery__Node* from = stmt.from_clause[0];
    if (from->node_case != PG_QUERY__NODE__NODE_RANGE_VAR) return std::unexpected(NotSupported("this FROM item"));
    return std::unexpected(ErrorAt("42P01", fmt::format("relation \"{}\" does not exist", from->range_var->relname),
                                   from->range_var->location));
  }
  for (size_t i = 0; i < stmt.n_target_list; ++i) {
    const PgQuery__ResTarget& target = *stmt.target_list[i]->res_target;
    auto expr = TransformExpr(*target.val);
    if (!expr) return std::unexpected(expr.error());
    std::string name = target.name != nullptr && *target.name != '\0' ? target.name : FigureColumnName(target.val);
    select.targets.push_back(SelectTarget{std::move(*expr), std::move(name)});
  }
  if (stmt.where_clause != nullptr) {
    auto where = TransformExpr(*stmt.where_clause);
    if (!where) return std::unexpected(where.error());
    select.where = std::move(*where);
  }
  return select;
}

}  // namespace farmdb::sql
