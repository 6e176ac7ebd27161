// INSERT (VALUES with DEFAULT, INSERT ... SELECT, ON CONFLICT, RETURNING), UPDATE and DELETE.
#include <fmt/format.h>

#include "sql/parse/transform.h"

namespace farmdb::sql {
namespace {

std::string AliasOf(const PgQuery__RangeVar& var) {
  return var.alias != nullptr ? std::string(var.alias->aliasname) : std::string();
}

}  // namespace

std::expected<std::vector<UpdateSet>, Error> Transformer::TransformUpdateSet(PgQuery__Node** targets, size_t n) {
  std::vector<UpdateSet> set;
  for (size_t i = 0; i < n; ++i) {
    const PgQuery__ResTarget& target = *targets[i]->res_target;
    if (target.n_indirection > 0) return std::unexpected(NotSupported("assignment to subscripts or fields", target.location));
    if (target.val->node_case == PG_QUERY__NODE__NODE_MULTI_ASSIGN_REF) {
      return std::unexpected(NotSupported("SET (column, ...) = ...", target.location));
    }
    set.push_back(UpdateSet{target.name, ClauseExpr(*target.val), target.location});
  }
  return set;
}

std::expected<InsertStmt, Error> Transformer::TransformInsert(const PgQuery__InsertStmt& stmt) {
  if (stmt.with_clause != nullptr) return std::unexpected(NotSupported("WITH ... INSERT", stmt.with_clause->location));
  if (stmt.override != PG_QUERY__OVERRIDING_KIND__OVERRIDING_NOT_SET) return std::unexpected(NotSupported("OVERRIDING"));
  InsertStmt insert;
  auto table = TransformRangeVar(*stmt.relation);
  if (!table) return std::unexpected(table.error());
  insert.table = std::move(*table);
  insert.alias = AliasOf(*stmt.relation);
  for (size_t i = 0; i < stmt.n_cols; ++i) {
    const PgQuery__ResTarget& col = *stmt.cols[i]->res_target;
    if (col.n_indirection > 0) return std::unexpected(NotSupported("assignment to subscripts or fields", col.location));
    insert.columns.push_back(col.name);
    insert.column_locations.push_back(col.location);
  }
  if (stmt.select_stmt != nullptr) {
    auto source = TransformSubquery(*stmt.select_stmt);
    if (!source) return std::unexpected(source.error());
    insert.source = std::move(*source);
  }
  if (stmt.on_conflict_clause != nullptr) {
    const PgQuery__OnConflictClause& oc = *stmt.on_conflict_clause;
    OnConflict on_conflict;
    on_conflict.location = oc.location;
    on_conflict.action = oc.action == PG_QUERY__ON_CONFLICT_ACTION__ONCONFLICT_UPDATE ? OnConflict::Action::kUpdate
                                                                                      : OnConflict::Action::kNothing;
    if (oc.infer != nullptr) {
      const PgQuery__InferClause& infer = *oc.infer;
      if (infer.where_clause != nullptr) return std::unexpected(NotSupported("ON CONFLICT (...) WHERE", infer.location));
      on_conflict.constraint = Given(infer.conname) ? infer.conname : "";
      for (size_t i = 0; i < infer.n_index_elems; ++i) {
        const PgQuery__IndexElem& elem = *infer.index_elems[i]->index_elem;
        if (!Given(elem.name)) return std::unexpected(NotSupported("ON CONFLICT on expressions", infer.location));
        if (elem.n_collation > 0 || elem.n_opclass > 0) {
          return std::unexpected(NotSupported("ON CONFLICT with COLLATE or operator classes", infer.location));
        }
        on_conflict.columns.push_back(elem.name);
      }
    }
    auto set = TransformUpdateSet(oc.target_list, oc.n_target_list);
    if (!set) return std::unexpected(set.error());
    on_conflict.set = std::move(*set);
    on_conflict.where = OptionalClauseExpr(oc.where_clause);
    insert.on_conflict = std::move(on_conflict);
  }
  auto returning = TransformTargets(stmt.returning_list, stmt.n_returning_list);
  if (!returning) return std::unexpected(returning.error());
  insert.returning = std::move(*returning);
  return insert;
}

std::expected<UpdateStmt, Error> Transformer::TransformUpdate(const PgQuery__UpdateStmt& stmt) {
  if (stmt.with_clause != nullptr) return std::unexpected(NotSupported("WITH ... UPDATE", stmt.with_clause->location));
  if (stmt.n_from_clause > 0) return std::unexpected(NotSupported("UPDATE ... FROM"));
  if (stmt.where_clause != nullptr && stmt.where_clause->node_case == PG_QUERY__NODE__NODE_CURRENT_OF_EXPR) {
    return std::unexpected(NotSupported("WHERE CURRENT OF"));
  }
  UpdateStmt update;
  auto table = TransformRangeVar(*stmt.relation);
  if (!table) return std::unexpected(table.error());
  update.table = std::move(*table);
  update.alias = AliasOf(*stmt.relation);
  auto set = TransformUpdateSet(stmt.target_list, stmt.n_target_list);
  if (!set) return std::unexpected(set.error());
  update.set = std::move(*set);
  update.where = OptionalClauseExpr(stmt.where_clause);
  auto returning = TransformTargets(stmt.returning_list, stmt.n_returning_list);
  if (!returning) return std::unexpected(returning.error());
  update.returning = std::move(*returning);
  return update;
}

std::expected<DeleteStmt, Error> Transformer::TransformDelete(const PgQuery__DeleteStmt& stmt) {
  if (stmt.with_clause != nullptr) return std::unexpected(NotSupported("WITH ... DELETE", stmt.with_clause->location));
  if (stmt.n_using_clause > 0) return std::unexpected(NotSupported("DELETE ... USING"));
  if (stmt.where_clause != nullptr && stmt.where_clause->node_case == PG_QUERY__NODE__NODE_CURRENT_OF_EXPR) {
    return std::unexpected(NotSupported("WHERE CURRENT OF"));
  }
  DeleteStmt del;
  auto table = TransformRangeVar(*stmt.relation);
  if (!table) return std::unexpected(table.error());
  del.table = std::move(*table);
  del.alias = AliasOf(*stmt.relation);
  del.where = OptionalClauseExpr(stmt.where_clause);
  auto returning = TransformTargets(stmt.returning_list, stmt.n_returning_list);
  if (!returning) return std::unexpected(returning.error());
  del.returning = std::move(*returning);
  return del;
}

}  // namespace farmdb::sql
