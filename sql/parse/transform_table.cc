// CREATE TABLE and ALTER TABLE: column definitions, type names as written, and column and
// table constraints. Foreign keys are kept (not dropped) so execution can refuse them.
#include <fmt/format.h>

#include "sql/parse/transform.h"

namespace farmdb::sql {
std::expected<ColumnDef, Error> Transformer::TransformColumnDef(const PgQuery__ColumnDef& def) {
  ColumnDef column;
  column.name = def.colname;
  column.location = def.location;
  const PgQuery__TypeName& type = *def.type_name;
  if (type.setof) return std::unexpected(NotSupported("SETOF", type.location));
  if (type.pct_type) return std::unexpected(NotSupported("%TYPE", type.location));
  if (type.n_array_bounds > 0) return std::unexpected(NotSupported("array types", type.location));
  column.type.names = StringList(type.names, type.n_names);
  column.type.location = type.location;
  for (size_t i = 0; i < type.n_typmods; ++i) {
    const PgQuery__Node* mod = type.typmods[i];
    if (mod->node_case != PG_QUERY__NODE__NODE_A_CONST || mod->a_const->val_case != PG_QUERY__A__CONST__VAL_IVAL) {
      return std::unexpected(NotSupported("type modifiers other than integers", type.location));
    }
    column.type.typmods.push_back(mod->a_const->ival->ival);
  }
  if (def.coll_clause != nullptr) return std::unexpected(NotSupported("COLLATE", def.coll_clause->location));
  if (Given(def.compression)) return std::unexpected(NotSupported("COMPRESSION", def.location));
  for (size_t i = 0; i < def.n_constraints; ++i) {
    const PgQuery__Constraint& c = *def.constraints[i]->constraint;
    // NOT DEFERRABLE and INITIALLY IMMEDIATE restate the default.
    if (c.contype == PG_QUERY__CONSTR_TYPE__CONSTR_ATTR_NOT_DEFERRABLE ||
        c.contype == PG_QUERY__CONSTR_TYPE__CONSTR_ATTR_IMMEDIATE) {
      continue;
    }
    auto constraint = TransformConstraint(c);
    if (!constraint) return std::unexpected(constraint.error());
    column.constraints.push_back(std::move(*constraint));
  }
  return column;
}

std::expected<Constraint, Error> Transformer::TransformConstraint(const PgQuery__Constraint& c) {
  Constraint out;
  out.name = Given(c.conname) ? c.conname : "";
  out.location = c.location;
  if (c.deferrable || c.initdeferred) return std::unexpected(NotSupported("DEFERRABLE constraints", c.location));
  if (c.skip_validation) return std::unexpected(NotSupported("NOT VALID", c.location));
  if (c.is_no_inherit) return std::unexpected(NotSupported("NO INHERIT", c.location));
  auto index_options = [&]() -> std::expected<void, Error> {
    if (c.n_including > 0) return std::unexpected(NotSupported("INCLUDE", c.location));
    if (c.n_options > 0) return std::unexpected(NotSupported("index storage parameters", c.location));
    if (Given(c.indexname)) return std::unexpected(NotSupported("USING INDEX", c.location));
    if (Given(c.indexspace)) return std::unexpected(NotSupported("USING INDEX TABLESPACE", c.location));
    if (c.nulls_not_distinct) return std::unexpected(NotSupported("NULLS NOT DISTINCT", c.location));
    out.columns = StringList(c.keys, c.n_keys);
    return {};
  };
  switch (c.contype) {
    case PG_QUERY__CONSTR_TYPE__CONSTR_NOTNULL:
      out.kind = Constraint::Kind::kNotNull;
      return out;
    case PG_QUERY__CONSTR_TYPE__CONSTR_NULL:
      out.kind = Constraint::Kind::kNull;
      return out;
    case PG_QUERY__CONSTR_TYPE__CONSTR_DEFAULT:
    case PG_QUERY__CONSTR_TYPE__CONSTR_CHECK: {
      out.kind = c.contype == PG_QUERY__CONSTR_TYPE__CONSTR_CHECK ? Constraint::Kind::kCheck : Constraint::Kind::kDefault;
      out.expr = ClauseExpr(*c.raw_expr);
      return out;
    }
    case PG_QUERY__CONSTR_TYPE__CONSTR_PRIMARY:
    case PG_QUERY__CONSTR_TYPE__CONSTR_UNIQUE: {
      out.kind = c.contype == PG_QUERY__CONSTR_TYPE__CONSTR_PRIMARY ? Constraint::Kind::kPrimaryKey
                                                                      : Constraint::Kind::kUnique;
      if (auto ok = index_options(); !ok) return std::unexpected(ok.error());
      return out;
    }
    case PG_QUERY__CONSTR_TYPE__CONSTR_FOREIGN: {
      out.kind = Constraint::Kind::kForeignKey;
      auto table = TransformRangeVar(*c.pktable);
      if (!table) return std::unexpected(table.error());
      out.ref_table = std::move(*table);
      out.columns = StringList(c.fk_attrs, c.n_fk_attrs);
      out.ref_columns = StringList(c.pk_attrs, c.n_pk_attrs);
      if (c.n_fk_del_set_cols > 0) return std::unexpected(NotSupported("ON DELETE SET NULL/DEFAULT (columns)", c.location));
      if (Given(c.fk_matchtype)) out.fk_match = *c.fk_matchtype;
      if (Given(c.fk_upd_action)) out.fk_on_update = *c.fk_upd_action;
      if (Given(c.fk_del_action)) out.fk_on_delete = *c.fk_del_action;
      return out;
    }
    case PG_QUERY__CONSTR_TYPE__CONSTR_IDENTITY:
      return std::unexpected(NotSupported("identity columns", c.location));
    case PG_QUERY__CONSTR_TYPE__CONSTR_GENERATED:
      return std::unexpected(NotSupported("generated columns", c.location));
    case PG_QUERY__CONSTR_TYPE__CONSTR_EXCLUSION:
      return std::unexpected(NotSupported("exclusion constraints", c.location));
    default:
      return std::unexpected(NotSupported("DEFERRABLE constraints", c.location));
  }
}

std::expected<CreateTableStmt, Error> Transformer::TransformCreateTable(const PgQuery__CreateStmt& stmt) {
  const PgQuery__RangeVar& rel = *stmt.relation;
  if (Given(rel.relpersistence) && *rel.relpersistence == 't') {
    return std::unexpected(NotSupported("CREATE TEMPORARY TABLE", rel.location));
  }
  if (Given(rel.relpersistence) && *rel.relpersistence == 'u') {
    return std::unexpected(NotSupported("CREATE UNLOGGED TABLE", rel.location));
  }
  if (stmt.n_inh_relations > 0) return std::unexpected(NotSupported("INHERITS"));
  if (stmt.partspec != nullptr) return std::unexpected(NotSupported("PARTITION BY"));
  if (stmt.partbound != nullptr) return std::unexpected(NotSupported("PARTITION OF"));
  if (stmt.of_typename != nullptr) return std::unexpected(NotSupported("CREATE TABLE OF"));
  // fillfactor tunes heap page packing, which farmdb's row objects have no counterpart for: it is
  // range-checked as PostgreSQL does and otherwise ignored. Other parameters are refused.
  for (size_t i = 0; i < stmt.n_options; ++i) {
    const PgQuery__DefElem& opt = *stmt.options[i]->def_elem;
    if (std::string_view(opt.defname) != "fillfactor" || opt.arg == nullptr ||
        opt.arg->node_case != PG_QUERY__NODE__NODE_INTEGER) {
      return std::unexpected(NotSupported(fmt::format("table storage parameter \"{}\"", opt.defname), opt.location));
    }
    int64_t fillfactor = opt.arg->integer->ival;
    if (fillfactor < 10 || fillfactor > 100) {
      Error e = ErrorAt("22023", fmt::format("value {} out of bounds for option \"fillfactor\"", fillfactor), -1);
      e.detail = "Valid values are between \"10\" and \"100\".";
      return std::unexpected(e);
    }
  }
  if (stmt.oncommit != PG_QUERY__ON_COMMIT_ACTION__ONCOMMIT_NOOP) return std::unexpected(NotSupported("ON COMMIT"));
  if (Given(stmt.tablespacename)) return std::unexpected(NotSupported("TABLESPACE"));
  if (Given(stmt.access_method)) return std::unexpected(NotSupported("table access methods"));
  CreateTableStmt create;
  auto name = TransformRangeVar(rel);
  if (!name) return std::unexpected(name.error());
  create.table = std::move(*name);
  create.if_not_exists = stmt.if_not_exists;
  for (size_t i = 0; i < stmt.n_table_elts; ++i) {
    const PgQuery__Node& elt = *stmt.table_elts[i];
    if (elt.node_case == PG_QUERY__NODE__NODE_COLUMN_DEF) {
      auto column = TransformColumnDef(*elt.column_def);
      if (!column) return std::unexpected(column.error());
      create.columns.push_back(std::move(*column));
    } else if (elt.node_case == PG_QUERY__NODE__NODE_CONSTRAINT) {
      auto constraint = TransformConstraint(*elt.constraint);
      if (!constraint) return std::unexpected(constraint.error());
      create.constraints.push_back(std::move(*constraint));
    } else {
      return std::unexpected(NotSupported("CREATE TABLE ... LIKE"));
    }
  }
  return create;
}

std::expected<AlterTableStmt, Error> Transformer::TransformAlterTable(const PgQuery__AlterTableStmt& stmt) {
  if (stmt.objtype == PG_QUERY__OBJECT_TYPE__OBJECT_INDEX) return std::unexpected(NotSupported("ALTER INDEX"));
  if (stmt.objtype == PG_QUERY__OBJECT_TYPE__OBJECT_VIEW) return std::unexpected(NotSupported("ALTER VIEW"));
  if (stmt.objtype != PG_QUERY__OBJECT_TYPE__OBJECT_TABLE) return std::unexpected(NotSupported("ALTER of this object"));
  AlterTableStmt alter;
  auto name = TransformRangeVar(*stmt.relation);
  if (!name) return std::unexpected(name.error());
  alter.table = std::move(*name);
  alter.if_exists = stmt.missing_ok;
  for (size_t i = 0; i < stmt.n_cmds; ++i) {
    const PgQuery__AlterTableCmd& cmd = *stmt.cmds[i]->alter_table_cmd;
    AlterTableCmd out;
    out.if_exists = cmd.missing_ok;
    switch (cmd.subtype) {
      case PG_QUERY__ALTER_TABLE_TYPE__AT_AddColumn: {
        out.kind = AlterTableCmd::Kind::kAddColumn;
        auto column = TransformColumnDef(*cmd.def->column_def);
        if (!column) return std::unexpected(column.error());
        out.column = std::move(*column);
        break;
      }
      case PG_QUERY__ALTER_TABLE_TYPE__AT_DropColumn:
        out.kind = AlterTableCmd::Kind::kDropColumn;
        out.column_name = cmd.name;
        out.cascade = cmd.behavior == PG_QUERY__DROP_BEHAVIOR__DROP_CASCADE;
        break;
      case PG_QUERY__ALTER_TABLE_TYPE__AT_AddConstraint: {
        out.kind = AlterTableCmd::Kind::kAddConstraint;
        auto constraint = TransformConstraint(*cmd.def->constraint);
        if (!constraint) return std::unexpected(constraint.error());
        out.constraint = std::move(*constraint);
        break;
      }
      case PG_QUERY__ALTER_TABLE_TYPE__AT_ColumnDefault:
        return std::unexpected(NotSupported("ALTER TABLE ... ALTER COLUMN ... SET/DROP DEFAULT"));
      case PG_QUERY__ALTER_TABLE_TYPE__AT_SetNotNull:
      case PG_QUERY__ALTER_TABLE_TYPE__AT_DropNotNull:
        return std::unexpected(NotSupported("ALTER TABLE ... ALTER COLUMN ... SET/DROP NOT NULL"));
      case PG_QUERY__ALTER_TABLE_TYPE__AT_AlterColumnType:
        return std::unexpected(NotSupported("ALTER TABLE ... ALTER COLUMN ... TYPE"));
      case PG_QUERY__ALTER_TABLE_TYPE__AT_DropConstraint:
        out.kind = AlterTableCmd::Kind::kDropConstraint;
        out.column_name = cmd.name;
        out.cascade = cmd.behavior == PG_QUERY__DROP_BEHAVIOR__DROP_CASCADE;
        break;
      default:
        return std::unexpected(NotSupported("this ALTER TABLE action"));
    }
    alter.cmds.push_back(std::move(out));
  }
  return alter;
}

}  // namespace farmdb::sql
