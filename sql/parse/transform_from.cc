// FROM items: relations (schema-qualified, aliased), subqueries, function calls, inner/left/cross
// joins.
#include <fmt/format.h>

#include "sql/parse/transform.h"

namespace farmdb::sql {
namespace {

void SetAlias(const PgQuery__Alias* alias, TableRef& ref) {
  if (alias == nullptr) return;
  ref.alias = alias->aliasname;
  ref.column_aliases = StringList(alias->colnames, alias->n_colnames);
}

}  // namespace

std::expected<QualifiedName, Error> Transformer::TransformRangeVar(const PgQuery__RangeVar& var) {
  if (var.catalogname != nullptr && *var.catalogname != '\0') {
    // PostgreSQL's RangeVar check for a three-part name naming another database.
    return std::unexpected(ErrorAt("0A000",
                                   fmt::format("cross-database references are not implemented: \"{}.{}.{}\"",
                                               var.catalogname, var.schemaname, var.relname),
                                   var.location));
  }
  return QualifiedName{var.schemaname != nullptr ? var.schemaname : "", var.relname, var.location};
}

std::expected<TableRefPtr, Error> Transformer::TransformFromItem(const PgQuery__Node& node) {
  auto ref = std::make_unique<TableRef>();
  switch (node.node_case) {
    case PG_QUERY__NODE__NODE_RANGE_VAR: {
      // ONLY (inh = false) changes nothing while tables have no inheritance children.
      auto name = TransformRangeVar(*node.range_var);
      if (!name) return std::unexpected(name.error());
      ref->kind = TableRef::Kind::kRelation;
      ref->location = name->location;
      ref->relation = std::move(*name);
      SetAlias(node.range_var->alias, *ref);
      return ref;
    }
    case PG_QUERY__NODE__NODE_RANGE_SUBSELECT: {
      const PgQuery__RangeSubselect& sub = *node.range_subselect;
      if (sub.lateral) return std::unexpected(NotSupported("LATERAL"));
      auto query = TransformSubquery(*sub.subquery);
      if (!query) return std::unexpected(query.error());
      ref->kind = TableRef::Kind::kSubquery;
      ref->subquery = std::move(*query);
      SetAlias(sub.alias, *ref);
      return ref;
    }
    case PG_QUERY__NODE__NODE_JOIN_EXPR: {
      const PgQuery__JoinExpr& join = *node.join_expr;
      if (join.is_natural) return std::unexpected(NotSupported("NATURAL JOIN"));
      if (join.join_using_alias != nullptr) return std::unexpected(NotSupported("JOIN USING ... AS"));
      switch (join.jointype) {
        case PG_QUERY__JOIN_TYPE__JOIN_INNER:
          ref->join_type = join.quals == nullptr && join.n_using_clause == 0 ? TableRef::JoinType::kCross
                                                                             : TableRef::JoinType::kInner;
          break;
        case PG_QUERY__JOIN_TYPE__JOIN_LEFT:
          ref->join_type = TableRef::JoinType::kLeft;
          break;
        case PG_QUERY__JOIN_TYPE__JOIN_FULL:
          return std::unexpected(NotSupported("FULL JOIN"));
        case PG_QUERY__JOIN_TYPE__JOIN_RIGHT:
          return std::unexpected(NotSupported("RIGHT JOIN"));
        default:
          return std::unexpected(NotSupported("this kind of join"));
      }
      ref->kind = TableRef::Kind::kJoin;
      auto left = TransformFromItem(*join.larg);
      if (!left) return left;
      auto right = TransformFromItem(*join.rarg);
      if (!right) return right;
      ref->left = std::move(*left);
      ref->right = std::move(*right);
      ref->on = OptionalClauseExpr(join.quals);
      ref->using_columns = StringList(join.using_clause, join.n_using_clause);
      SetAlias(join.alias, *ref);
      return ref;
    }
    case PG_QUERY__NODE__NODE_RANGE_FUNCTION: {
      const PgQuery__RangeFunction& rf = *node.range_function;
      if (rf.lateral) return std::unexpected(NotSupported("LATERAL"));
      if (rf.ordinality) return std::unexpected(NotSupported("WITH ORDINALITY"));
      if (rf.is_rowsfrom) return std::unexpected(NotSupported("ROWS FROM"));
      if (rf.n_coldeflist > 0) return std::unexpected(NotSupported("column definition lists"));
      // functions: one List of (call, column definitions).
      const PgQuery__List& pair = *rf.functions[0]->list;
      const PgQuery__Node& call = *pair.items[0];
      if (call.node_case != PG_QUERY__NODE__NODE_FUNC_CALL) {
        return std::unexpected(NotSupported("this kind of function in FROM"));
      }
      auto function = TransformExpr(call);
      if (!function) return std::unexpected(function.error());
      ref->kind = TableRef::Kind::kFunction;
      ref->location = call.func_call->location;
      ref->function = std::move(*function);
      SetAlias(rf.alias, *ref);
      return ref;
    }
    case PG_QUERY__NODE__NODE_RANGE_TABLE_SAMPLE:
      return std::unexpected(NotSupported("TABLESAMPLE", node.range_table_sample->location));
    default:
      return std::unexpected(NotSupported("this FROM item"));
  }
}

}  // namespace farmdb::sql
