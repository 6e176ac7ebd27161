// Arrays and records: ARRAY[...] and ARRAY(subquery), subscripts and field selection
// (A_Indirection), and `x op ANY|ALL (array)`.
#include "sql/parse/transform.h"

namespace farmdb::sql {

std::expected<ExprPtr, Error> Transformer::TransformArrayExpr(const PgQuery__AArrayExpr& node) {
  ExprPtr e = MakeExpr(ExprKind::kArray, node.location);
  for (size_t i = 0; i < node.n_elements; ++i) {
    // ARRAY[[1, 2], [3, 4]]: the inner brackets are sub-arrays of a two-dimensional array.
    if (node.elements[i]->node_case == PG_QUERY__NODE__NODE_A_ARRAY_EXPR) {
      return std::unexpected(NotSupported("multidimensional arrays", node.elements[i]->a_array_expr->location));
    }
    auto element = TransformExpr(*node.elements[i]);
    if (!element) return element;
    e->args.push_back(std::move(*element));
  }
  return e;
}

std::expected<ExprPtr, Error> Transformer::TransformIndirection(const PgQuery__AIndirection& node) {
  auto current = TransformExpr(*node.arg);
  if (!current) return current;
  int location = (*current)->location;
  for (size_t i = 0; i < node.n_indirection; ++i) {
    const PgQuery__Node& step = *node.indirection[i];
    ExprPtr next;
    switch (step.node_case) {
      case PG_QUERY__NODE__NODE_A_INDICES: {
        const PgQuery__AIndices& indices = *step.a_indices;
        if (indices.is_slice) return std::unexpected(NotSupported("array slices", location));
        auto index = TransformExpr(*indices.uidx);
        if (!index) return index;
        next = MakeExpr(ExprKind::kSubscript, location);
        next->args.push_back(std::move(*current));
        next->args.push_back(std::move(*index));
        break;
      }
      case PG_QUERY__NODE__NODE_STRING:
        next = MakeExpr(ExprKind::kFieldSelect, location);
        next->text = step.string->sval;
        next->args.push_back(std::move(*current));
        break;
      default:  // A_Star: (x).*
        return std::unexpected(NotSupported("field expansion (.*)", location));
    }
    current = std::move(next);
  }
  return current;
}

std::expected<ExprPtr, Error> Transformer::TransformAnyAll(const PgQuery__AExpr& node) {
  ExprPtr e = MakeExpr(ExprKind::kAnyAll, node.location);
  e->text = LastName(node.name, node.n_name);
  e->all = node.kind == PG_QUERY__A__EXPR__KIND__AEXPR_OP_ALL;
  for (const PgQuery__Node* operand : {node.lexpr, node.rexpr}) {
    auto arg = TransformExpr(*operand);
    if (!arg) return arg;
    e->args.push_back(std::move(*arg));
  }
  return e;
}

}  // namespace farmdb::sql
