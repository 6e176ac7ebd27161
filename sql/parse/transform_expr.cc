// Expressions: PostgreSQL raw expression nodes -> farmdb Expr.
#include <charconv>
#include <fmt/format.h>

#include "sql/parse/transform.h"
#include "sql/types/ascii.h"
#include "sql/types/cast.h"
#include "sql/types/datetime.h"

namespace farmdb::sql {
namespace {

int FigureSubLinkName(const PgQuery__SubLink& link, std::string& name);

// The SQL-standard value functions (CURRENT_DATE, ...) by the name FigureColname gives them,
// which is also the built-in function they become; empty for those farmdb lacks.
std::string_view SqlValueFunctionName(PgQuery__SQLValueFunctionOp op) {
  switch (op) {
    case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_DATE: return "current_date";
    case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_TIMESTAMP:
    case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_TIMESTAMP_N: return "current_timestamp";
    case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_LOCALTIMESTAMP:
    case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_LOCALTIMESTAMP_N: return "localtimestamp";
    case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_ROLE: return "current_role";
    case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_USER: return "current_user";
    case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_USER: return "user";
    case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_SESSION_USER: return "session_user";
    case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_CATALOG: return "current_catalog";
    case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_SCHEMA: return "current_schema";
    default: return {};
  }
}

// The built-in function a SQL value function calls, where it differs from its column name
// (PostgreSQL's ExecEvalSQLValueFunction: CURRENT_ROLE and USER are current_user,
// CURRENT_CATALOG is current_database).
std::string_view SqlValueFunctionCall(PgQuery__SQLValueFunctionOp op) {
  switch (op) {
    case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_ROLE:
    case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_USER: return "current_user";
    case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_CATALOG: return "current_database";
    default: return SqlValueFunctionName(op);
  }
}

// FigureColnameInternal: returns the strength of the name found (0 none, 1 weak, 2 strong).
int FigureName(const PgQuery__Node* node, std::string& name) {
  if (node == nullptr) return 0;
  switch (node->node_case) {
    case PG_QUERY__NODE__NODE_COLUMN_REF: {
      std::string_view last = LastName(node->column_ref->fields, node->column_ref->n_fields);
      if (last.empty()) return 0;
      name = last;
      return 2;
    }
    case PG_QUERY__NODE__NODE_FUNC_CALL:
      name = LastName(node->func_call->funcname, node->func_call->n_funcname);
      return 2;
    case PG_QUERY__NODE__NODE_A_EXPR:
      if (node->a_expr->kind == PG_QUERY__A__EXPR__KIND__AEXPR_NULLIF) {
        name = "nullif";
        return 2;
      }
      return 0;
    case PG_QUERY__NODE__NODE_TYPE_CAST: {
      int strength = FigureName(node->type_cast->arg, name);
      if (strength <= 1 && node->type_cast->type_name != nullptr) {
        const PgQuery__TypeName* t = node->type_cast->type_name;
        name = LastName(t->names, t->n_names);
        return 1;
      }
      return strength;
    }
    case PG_QUERY__NODE__NODE_CASE_EXPR: {
      int strength = FigureName(node->case_expr->defresult, name);
      if (strength <= 1) {
        name = "case";
        return 1;
      }
      return strength;
    }
    case PG_QUERY__NODE__NODE_COALESCE_EXPR:
      name = "coalesce";
      return 2;
    case PG_QUERY__NODE__NODE_SUB_LINK:
      return FigureSubLinkName(*node->sub_link, name);
    case PG_QUERY__NODE__NODE_MIN_MAX_EXPR:
      name = node->min_max_expr->op == PG_QUERY__MIN_MAX_OP__IS_GREATEST ? "greatest" : "least";
      return 2;
    case PG_QUERY__NODE__NODE_A_ARRAY_EXPR:
      name = "array";
      return 2;
    case PG_QUERY__NODE__NODE_A_INDIRECTION: {
      // The last field name selected, if any; subscripts keep the base expression's name.
      const PgQuery__AIndirection& ind = *node->a_indirection;
      for (size_t i = ind.n_indirection; i-- > 0;) {
        if (ind.indirection[i]->node_case == PG_QUERY__NODE__NODE_STRING) {
          name = ind.indirection[i]->string->sval;
          return 2;
        }
      }
      return FigureName(ind.arg, name);
    }
    case PG_QUERY__NODE__NODE_SQLVALUE_FUNCTION:
      name = SqlValueFunctionName(node->sqlvalue_function->op);
      return name.empty() ? 0 : 2;
    default:
      return 0;
  }
}

// A scalar subquery takes its single output column's name (transformSubLink has replaced the
// raw subquery by its Query by the time PostgreSQL's FigureColname looks).
int FigureSubLinkName(const PgQuery__SubLink& link, std::string& name) {
  switch (link.sub_link_type) {
    case PG_QUERY__SUB_LINK_TYPE__EXISTS_SUBLINK:
      name = "exists";
      return 2;
    case PG_QUERY__SUB_LINK_TYPE__ARRAY_SUBLINK:
      name = "array";
      return 2;
    case PG_QUERY__SUB_LINK_TYPE__EXPR_SUBLINK: {
      if (link.subselect == nullptr || link.subselect->node_case != PG_QUERY__NODE__NODE_SELECT_STMT) return 0;
      const PgQuery__SelectStmt* s = link.subselect->select_stmt;
      while (s->larg != nullptr && s->op != PG_QUERY__SET_OPERATION__SETOP_NONE) s = s->larg;
      if (s->n_values_lists > 0) {
        name = "column1";
        return 2;
      }
      if (s->n_target_list == 0) return 0;
      const PgQuery__ResTarget& target = *s->target_list[0]->res_target;
      name = target.name != nullptr && *target.name != '\0' ? target.name : FigureColumnName(target.val);
      return 2;
    }
    default:
      return 0;
  }
}

}  // namespace

std::string FigureColumnName(const PgQuery__Node* node) {
  std::string name;
  if (FigureName(node, name) == 0) return "?column?";
  return name;
}

std::expected<ExprPtr, Error> Transformer::TransformConst(const PgQuery__AConst& node) {
  if (node.isnull) return MakeExpr(ExprKind::kNull, node.location);
  switch (node.val_case) {
    case PG_QUERY__A__CONST__VAL_IVAL: {
      ExprPtr e = MakeExpr(ExprKind::kInteger, node.location);
      e->int_value = node.ival->ival;
      return e;
    }
    case PG_QUERY__A__CONST__VAL_FVAL: {
      // make_const: an integer literal too big for int4 arrives as a "float"; it is int4/int8
      // when it fits in int64, else numeric.
      std::string_view text = node.fval->fval;
      int64_t v = 0;
      auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
      if (ec == std::errc() && ptr == text.data() + text.size()) {
        ExprPtr e = MakeExpr(ExprKind::kInteger, node.location);
        e->int_value = v;
        return e;
      }
      ExprPtr e = MakeExpr(ExprKind::kNumeric, node.location);
      e->text = text;
      return e;
    }
    case PG_QUERY__A__CONST__VAL_BOOLVAL: {
      ExprPtr e = MakeExpr(ExprKind::kBool, node.location);
      e->bool_value = node.boolval->boolval;
      return e;
    }
    case PG_QUERY__A__CONST__VAL_SVAL: {
      ExprPtr e = MakeExpr(ExprKind::kString, node.location);
      e->text = node.sval->sval;
      return e;
    }
    default:
      return std::unexpected(NotSupported("bit string literals", node.location));
  }
}

std::expected<ExprPtr, Error> Transformer::TransformList(ExprKind kind, PgQuery__Node** items, size_t n, int location) {
  ExprPtr e = MakeExpr(kind, location);
  for (size_t i = 0; i < n; ++i) {
    auto arg = TransformExpr(*items[i]);
    if (!arg) return std::unexpected(arg.error());
    e->args.push_back(std::move(*arg));
  }
  return e;
}

std::expected<ExprPtr, Error> Transformer::TransformAExpr(const PgQuery__AExpr& node) {
  PgQuery__Node* operands[2] = {node.lexpr, node.rexpr};
  switch (node.kind) {
    case PG_QUERY__A__EXPR__KIND__AEXPR_OP: {
      if (IsRow(node.lexpr) && IsRow(node.rexpr)) {
        return TransformRowCompare(LastName(node.name, node.n_name), *node.lexpr->row_expr, *node.rexpr->row_expr,
                                   node.location);
      }
      ExprPtr e = MakeExpr(ExprKind::kOperator, node.location);
      e->text = LastName(node.name, node.n_name);
      for (PgQuery__Node* operand : operands) {
        if (operand == nullptr) continue;
        auto arg = TransformExpr(*operand);
        if (!arg) return std::unexpected(arg.error());
        e->args.push_back(std::move(*arg));
      }
      return e;
    }
    case PG_QUERY__A__EXPR__KIND__AEXPR_NULLIF:
      return TransformList(ExprKind::kNullIf, operands, 2, node.location);
    case PG_QUERY__A__EXPR__KIND__AEXPR_IN:
    case PG_QUERY__A__EXPR__KIND__AEXPR_BETWEEN:
    case PG_QUERY__A__EXPR__KIND__AEXPR_NOT_BETWEEN:
    case PG_QUERY__A__EXPR__KIND__AEXPR_BETWEEN_SYM:
    case PG_QUERY__A__EXPR__KIND__AEXPR_NOT_BETWEEN_SYM: {
      // rexpr is the list: IN's items, BETWEEN's two bounds.
      bool in = node.kind == PG_QUERY__A__EXPR__KIND__AEXPR_IN;
      if (in && IsRow(node.lexpr)) {
        return TransformRowIn(*node.lexpr->row_expr, node.rexpr->list->items, node.rexpr->list->n_items,
                              LastName(node.name, node.n_name) == "<>", node.location);
      }
      ExprPtr e = MakeExpr(in ? ExprKind::kInList : ExprKind::kBetween, node.location);
      e->negated = in ? LastName(node.name, node.n_name) == "<>"
                      : node.kind == PG_QUERY__A__EXPR__KIND__AEXPR_NOT_BETWEEN ||
                            node.kind == PG_QUERY__A__EXPR__KIND__AEXPR_NOT_BETWEEN_SYM;
      e->symmetric = node.kind == PG_QUERY__A__EXPR__KIND__AEXPR_BETWEEN_SYM ||
                     node.kind == PG_QUERY__A__EXPR__KIND__AEXPR_NOT_BETWEEN_SYM;
      auto lhs = TransformExpr(*node.lexpr);
      if (!lhs) return lhs;
      auto list = TransformList(e->kind, node.rexpr->list->items, node.rexpr->list->n_items, node.location);
      if (!list) return list;
      e->args.push_back(std::move(*lhs));
      for (ExprPtr& item : (*list)->args) e->args.push_back(std::move(item));
      return e;
    }
    case PG_QUERY__A__EXPR__KIND__AEXPR_LIKE:
    case PG_QUERY__A__EXPR__KIND__AEXPR_ILIKE: {
      auto e = TransformList(ExprKind::kLike, operands, 2, node.location);
      if (!e) return e;
      std::string_view op = LastName(node.name, node.n_name);  // ~~, !~~, ~~*, !~~*
      (*e)->negated = op.starts_with('!');
      (*e)->case_insensitive = node.kind == PG_QUERY__A__EXPR__KIND__AEXPR_ILIKE;
      return e;
    }
    case PG_QUERY__A__EXPR__KIND__AEXPR_SIMILAR:
      return std::unexpected(NotSupported("SIMILAR TO", node.location));
    case PG_QUERY__A__EXPR__KIND__AEXPR_DISTINCT:
    case PG_QUERY__A__EXPR__KIND__AEXPR_NOT_DISTINCT: {
      auto e = TransformList(ExprKind::kDistinct, operands, 2, node.location);
      if (!e) return e;
      (*e)->negated = node.kind == PG_QUERY__A__EXPR__KIND__AEXPR_NOT_DISTINCT;
      return e;
    }
    case PG_QUERY__A__EXPR__KIND__AEXPR_OP_ANY:
    case PG_QUERY__A__EXPR__KIND__AEXPR_OP_ALL:
      return TransformAnyAll(node);
    default:
      return std::unexpected(NotSupported("this operator form", node.location));
  }
}

std::expected<ExprPtr, Error> Transformer::TransformFuncCall(const PgQuery__FuncCall& node) {
  if (node.agg_within_group) return std::unexpected(NotSupported("WITHIN GROUP", node.location));
  if (node.func_variadic) return std::unexpected(NotSupported("VARIADIC", node.location));
  auto e = TransformList(ExprKind::kFunction, node.args, node.n_args, node.location);
  if (!e) return e;
  auto order = TransformSortItems(node.agg_order, node.n_agg_order);
  if (!order) return std::unexpected(order.error());
  (*e)->agg_order = std::move(*order);
  if (node.agg_filter != nullptr) {
    auto filter = TransformExpr(*node.agg_filter);
    if (!filter) return filter;
    (*e)->agg_filter = std::move(*filter);
  }
  (*e)->agg_star = node.agg_star;
  (*e)->distinct = node.agg_distinct;
  (*e)->text = AsciiLower(LastName(node.funcname, node.n_funcname));
  if (node.n_funcname == 2) {
    // Built-in functions live in pg_catalog, a few in information_schema (_pg_expandarray).
    std::string schema = AsciiLower(node.funcname[0]->string->sval);
    if (schema != "pg_catalog" && schema != "information_schema") {
      return std::unexpected(ErrorAt("3F000", fmt::format("schema \"{}\" does not exist", node.funcname[0]->string->sval),
                                     node.location));
    }
    if (schema != "pg_catalog") (*e)->names.push_back(std::move(schema));
  }
  if (node.over != nullptr) {
    auto over = TransformWindowSpec(*node.over);
    if (!over) return std::unexpected(over.error());
    (*e)->over = std::move(*over);
  }
  return e;
}

// farmdb compares strings bytewise, which is what the default (in a C-locale database), C and
// POSIX collations do; psql writes `... COLLATE pg_catalog.default` after its name patterns.
std::expected<ExprPtr, Error> Transformer::TransformCollate(const PgQuery__CollateClause& node) {
  std::string_view name = LastName(node.collname, node.n_collname);
  bool qualified_ok = node.n_collname == 1 || AsciiLower(node.collname[0]->string->sval) == "pg_catalog";
  if (!qualified_ok || (name != "default" && name != "C" && name != "POSIX")) {
    return std::unexpected(NotSupported("COLLATE", node.location));
  }
  return TransformExpr(*node.arg);
}

std::expected<ExprPtr, Error> Transformer::TransformCase(const PgQuery__CaseExpr& node) {
  ExprPtr e = MakeExpr(ExprKind::kCase, node.location);
  auto add = [&](const PgQuery__Node* n) -> std::expected<void, Error> {
    auto arg = TransformExpr(*n);
    if (!arg) return std::unexpected(arg.error());
    e->args.push_back(std::move(*arg));
    return {};
  };
  if (node.arg != nullptr) {
    e->has_operand = true;
    if (auto r = add(node.arg); !r) return std::unexpected(r.error());
  }
  for (size_t i = 0; i < node.n_args; ++i) {
    const PgQuery__CaseWhen* when = node.args[i]->case_when;
    if (auto r = add(when->expr); !r) return std::unexpected(r.error());
    if (auto r = add(when->result); !r) return std::unexpected(r.error());
  }
  if (node.defresult != nullptr) {
    e->has_else = true;
    if (auto r = add(node.defresult); !r) return std::unexpected(r.error());
  }
  return e;
}

std::expected<ExprPtr, Error> Transformer::TransformTypeCast(const PgQuery__TypeCast& node) {
  const PgQuery__TypeName* type = node.type_name;
  std::string_view name = LastName(type->names, type->n_names);
  auto id = TypeFromName(name);
  if (!id || *id == TypeId::kUnknown) {
    return std::unexpected(ErrorAt("42704", fmt::format("type \"{}\" does not exist", name), type->location));
  }
  if (type->n_array_bounds > 0) {
    // int4[], int4[3] and int4[][] are all the one array type int4[] (bounds are not enforced).
    auto array = ArrayOf(*id);
    if (!array) return std::unexpected(ErrorAt("42704", fmt::format("type \"{}[]\" does not exist", name), type->location));
    id = array;
  }
  auto arg = TransformExpr(*node.arg);
  if (!arg) return arg;
  ExprPtr e = MakeExpr(ExprKind::kCast, node.location);
  e->cast_type = *id;
  if (type->n_typmods > 0) {
    std::vector<int64_t> mods;
    for (size_t i = 0; i < type->n_typmods; ++i) {
      const PgQuery__Node* mod = type->typmods[i];
      if (mod->node_case != PG_QUERY__NODE__NODE_A_CONST || mod->a_const->val_case != PG_QUERY__A__CONST__VAL_IVAL) {
        return std::unexpected(ErrorAt("42601", "type modifiers must be simple constants or identifiers", type->location));
      }
      mods.push_back(mod->a_const->ival->ival);
    }
    auto typmod = Typmod(*id, mods);
    if (!typmod) return std::unexpected(ErrorAt(typmod.error().sqlstate, typmod.error().message, type->location));
    if (*id == TypeId::kTimestamp && mods[0] > kMaxTimestampPrecision) {
      // anytimestamp_typmod_check's WARNING (its statement position has no Notice field).
      Notice warning;
      warning.severity = "WARNING";
      warning.sqlstate = "22023";
      warning.message = fmt::format("TIMESTAMP({}) precision reduced to maximum allowed, {}", mods[0], kMaxTimestampPrecision);
      warnings_.push_back(std::move(warning));
    }
    e->typmod = *typmod;
  }
  e->args.push_back(std::move(*arg));
  return e;
}

std::expected<ExprPtr, Error> Transformer::TransformExpr(const PgQuery__Node& node) {
  switch (node.node_case) {
    case PG_QUERY__NODE__NODE_A_CONST:
      return TransformConst(*node.a_const);
    case PG_QUERY__NODE__NODE_PARAM_REF: {
      ExprPtr e = MakeExpr(ExprKind::kParam, node.param_ref->location);
      e->param_number = node.param_ref->number;
      return e;
    }
    case PG_QUERY__NODE__NODE_COLUMN_REF:
      return TransformColumnRef(*node.column_ref);
    case PG_QUERY__NODE__NODE_SET_TO_DEFAULT:
      return MakeExpr(ExprKind::kDefault, node.set_to_default->location);
    case PG_QUERY__NODE__NODE_TYPE_CAST:
      return TransformTypeCast(*node.type_cast);
    case PG_QUERY__NODE__NODE_A_EXPR:
      return TransformAExpr(*node.a_expr);
    case PG_QUERY__NODE__NODE_BOOL_EXPR: {
      const PgQuery__BoolExpr& b = *node.bool_expr;
      ExprKind kind = b.boolop == PG_QUERY__BOOL_EXPR_TYPE__AND_EXPR  ? ExprKind::kAnd
                      : b.boolop == PG_QUERY__BOOL_EXPR_TYPE__OR_EXPR ? ExprKind::kOr
                                                                      : ExprKind::kNot;
      return TransformList(kind, b.args, b.n_args, b.location);
    }
    case PG_QUERY__NODE__NODE_NULL_TEST: {
      const PgQuery__NullTest& t = *node.null_test;
      ExprKind kind = t.nulltesttype == PG_QUERY__NULL_TEST_TYPE__IS_NULL ? ExprKind::kIsNull : ExprKind::kIsNotNull;
      PgQuery__Node* arg[1] = {t.arg};
      return TransformList(kind, arg, 1, t.location);
    }
    case PG_QUERY__NODE__NODE_CASE_EXPR:
      return TransformCase(*node.case_expr);
    case PG_QUERY__NODE__NODE_COALESCE_EXPR:
      return TransformList(ExprKind::kCoalesce, node.coalesce_expr->args, node.coalesce_expr->n_args,
                           node.coalesce_expr->location);
    case PG_QUERY__NODE__NODE_FUNC_CALL:
      return TransformFuncCall(*node.func_call);
    case PG_QUERY__NODE__NODE_SUB_LINK:
      return TransformSubLink(*node.sub_link);
    case PG_QUERY__NODE__NODE_BOOLEAN_TEST: {
      const PgQuery__BooleanTest& t = *node.boolean_test;
      PgQuery__Node* arg[1] = {t.arg};
      auto e = TransformList(ExprKind::kBooleanTest, arg, 1, t.location);
      if (!e) return e;
      switch (t.booltesttype) {
        case PG_QUERY__BOOL_TEST_TYPE__IS_NOT_TRUE: (*e)->negated = true; [[fallthrough]];
        case PG_QUERY__BOOL_TEST_TYPE__IS_TRUE: (*e)->text = "true"; break;
        case PG_QUERY__BOOL_TEST_TYPE__IS_NOT_FALSE: (*e)->negated = true; [[fallthrough]];
        case PG_QUERY__BOOL_TEST_TYPE__IS_FALSE: (*e)->text = "false"; break;
        case PG_QUERY__BOOL_TEST_TYPE__IS_NOT_UNKNOWN: (*e)->negated = true; [[fallthrough]];
        default: (*e)->text = "unknown"; break;
      }
      return e;
    }
    case PG_QUERY__NODE__NODE_MIN_MAX_EXPR: {
      // GREATEST/LEAST are grammar, not functions; the binder treats them as variadic calls.
      const PgQuery__MinMaxExpr& m = *node.min_max_expr;
      auto e = TransformList(ExprKind::kFunction, m.args, m.n_args, m.location);
      if (!e) return e;
      (*e)->text = m.op == PG_QUERY__MIN_MAX_OP__IS_GREATEST ? "greatest" : "least";
      return e;
    }
    case PG_QUERY__NODE__NODE_SQLVALUE_FUNCTION:
      return TransformSqlValueFunction(*node.sqlvalue_function);
    case PG_QUERY__NODE__NODE_A_ARRAY_EXPR:
      return TransformArrayExpr(*node.a_array_expr);
    case PG_QUERY__NODE__NODE_ROW_EXPR:
      return std::unexpected(NotSupported("row constructors outside comparisons and IN lists", node.row_expr->location));
    case PG_QUERY__NODE__NODE_COLLATE_CLAUSE:
      return TransformCollate(*node.collate_clause);
    case PG_QUERY__NODE__NODE_GROUPING_FUNC:
      return std::unexpected(NotSupported("GROUPING", node.grouping_func->location));
    case PG_QUERY__NODE__NODE_A_INDIRECTION:
      return TransformIndirection(*node.a_indirection);
    default:
      return std::unexpected(NotSupported("this kind of expression"));
  }
}

std::expected<ExprPtr, Error> Transformer::TransformSqlValueFunction(const PgQuery__SQLValueFunction& node) {
  std::string_view name = SqlValueFunctionName(node.op);
  if (name.empty()) return std::unexpected(NotSupported("this SQL value function", node.location));
  ExprPtr call = MakeExpr(ExprKind::kFunction, node.location);
  call->text = SqlValueFunctionCall(node.op);
  bool with_precision = node.op == PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_TIMESTAMP_N ||
                        node.op == PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_LOCALTIMESTAMP_N;
  if (!with_precision) return call;
  // CURRENT_TIMESTAMP(p) is the value rounded as a cast to timestamptz(p) rounds it.
  TypeId type = name == "localtimestamp" ? TypeId::kTimestamp : TypeId::kTimestampTz;
  int64_t precision = node.typmod;
  auto typmod = Typmod(type, std::span<const int64_t>(&precision, 1));
  if (!typmod) return std::unexpected(ErrorAt(typmod.error().sqlstate, typmod.error().message, node.location));
  if (precision > kMaxTimestampPrecision) {
    // anytimestamp_typmod_check's WARNING, as for a cast to timestamp(p).
    Notice warning;
    warning.severity = "WARNING";
    warning.sqlstate = "22023";
    warning.message = fmt::format("TIMESTAMP({}){} precision reduced to maximum allowed, {}", precision,
                                  type == TypeId::kTimestampTz ? " WITH TIME ZONE" : "", kMaxTimestampPrecision);
    warnings_.push_back(std::move(warning));
  }
  ExprPtr e = MakeExpr(ExprKind::kCast, node.location);
  e->cast_type = type;
  e->typmod = *typmod;
  e->args.push_back(std::move(call));
  return e;
}

ExprPtr Transformer::ClauseExpr(const PgQuery__Node& node) {
  auto e = TransformExpr(node);
  if (e) return std::move(*e);
  ExprPtr deferred = MakeExpr(ExprKind::kError, -1);  // the error carries its position
  deferred->error = std::move(e.error());
  return deferred;
}

ExprPtr Transformer::OptionalClauseExpr(const PgQuery__Node* node) {
  return node == nullptr ? ExprPtr() : ClauseExpr(*node);
}

std::expected<ExprPtr, Error> Transformer::TransformColumnRef(const PgQuery__ColumnRef& ref) {
  bool star = ref.n_fields > 0 && ref.fields[ref.n_fields - 1]->node_case == PG_QUERY__NODE__NODE_A_STAR;
  ExprPtr e = MakeExpr(star ? ExprKind::kStar : ExprKind::kColumnRef, ref.location);
  e->names = StringList(ref.fields, star ? ref.n_fields - 1 : ref.n_fields);
  if (!star) e->text = e->names.back();
  return e;
}

std::expected<ExprPtr, Error> Transformer::TransformSubLink(const PgQuery__SubLink& node) {
  ExprKind kind;
  switch (node.sub_link_type) {
    case PG_QUERY__SUB_LINK_TYPE__EXISTS_SUBLINK:
      kind = ExprKind::kExists;
      break;
    case PG_QUERY__SUB_LINK_TYPE__EXPR_SUBLINK:
      kind = ExprKind::kSubquery;
      break;
    case PG_QUERY__SUB_LINK_TYPE__ANY_SUBLINK:
      // x IN (subquery) has no operator name; x op ANY (subquery) names one.
      if (node.n_oper_name == 0) {
        kind = ExprKind::kInSubquery;
        break;
      }
      return std::unexpected(NotSupported("ANY (subquery)", node.location));
    case PG_QUERY__SUB_LINK_TYPE__ALL_SUBLINK:
      return std::unexpected(NotSupported("ALL (subquery)", node.location));
    case PG_QUERY__SUB_LINK_TYPE__ARRAY_SUBLINK:
      kind = ExprKind::kArraySubquery;
      break;
    default:
      return std::unexpected(NotSupported("this kind of subquery", node.location));
  }
  ExprPtr e = MakeExpr(kind, node.location);
  if (node.testexpr != nullptr) {
    if (node.testexpr->node_case == PG_QUERY__NODE__NODE_ROW_EXPR) {
      return std::unexpected(NotSupported("a row compared with a subquery", node.testexpr->row_expr->location));
    }
    auto test = TransformExpr(*node.testexpr);
    if (!test) return test;
    e->args.push_back(std::move(*test));
  }
  auto query = TransformSubquery(*node.subselect);
  if (!query) return std::unexpected(query.error());
  e->subquery = std::move(*query);
  return e;
}

}  // namespace farmdb::sql
