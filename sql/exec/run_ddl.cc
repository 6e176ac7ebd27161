// CREATE TABLE and DROP TABLE through storage::Catalog, in the statement's Txn: resolving the
// AST's type names, column constraints and table constraints into a CreateTableDef, column
// defaults and CHECK expressions into the SQL text PostgreSQL prints for them (deparse.h).
#include <fmt/format.h>

#include <algorithm>

#include "sql/exec/ddl_common.h"
#include "sql/exec/run_statement.h"
#include "sql/parse/deparse.h"

namespace farmdb::sql {
std::expected<StatementOutput, Error> RunCreateTable(const CreateTableStmt& stmt, DdlContext& ctx) {
  if (auto w = RequireWritable(ctx.settings, "CREATE TABLE"); !w) return std::unexpected(w.error());
  auto snapshot = ctx.catalog.Snapshot(ctx.txn);
  if (!snapshot) return std::unexpected(FromCatalog(snapshot.error()));
  storage::CreateTableDef def;
  auto nsp = TargetNamespace(**snapshot, stmt.table, ctx);
  if (!nsp) return std::unexpected(nsp.error());
  def.nspname = std::move(*nsp);
  def.relname = stmt.table.name;
  if (def.nspname == "pg_catalog") {
    Error e = MakeError("42501", fmt::format("permission denied to create \"pg_catalog.{}\"", def.relname));
    e.detail = "System catalog modifications are currently disallowed.";
    return std::unexpected(std::move(e));
  }
  def.if_not_exists = stmt.if_not_exists;
  std::vector<size_t> serials;  // positions of serial columns
  std::vector<const Constraint*> checks;  // column CHECKs first, then the table's, as PostgreSQL
  auto set_primary = [&](storage::IndexDef key, int location) -> std::expected<void, Error> {
    if (def.primary_key) {
      return std::unexpected(At("42P16", fmt::format("multiple primary keys for table \"{}\" are not allowed", def.relname),
                                ctx, location));
    }
    def.primary_key = std::move(key);
    return {};
  };
  for (const ColumnDef& column : stmt.columns) {
    auto type = ResolveType(column.type, ctx);
    if (!type) return std::unexpected(type.error());
    storage::ColumnDef col{column.name, type->type, type->typmod, type->serial, std::nullopt};
    bool saw_null = false, saw_not_null = false, saw_default = false;
    for (const Constraint& c : column.constraints) {
      switch (c.kind) {
        case Constraint::Kind::kNotNull:
        case Constraint::Kind::kNull: {
          bool not_null = c.kind == Constraint::Kind::kNotNull;
          if ((not_null && saw_null) || (!not_null && saw_not_null)) {
            return std::unexpected(At("42601",
                                      fmt::format("conflicting NULL/NOT NULL declarations for column \"{}\" of table \"{}\"",
                                                  column.name, def.relname),
                                      ctx, c.location));
          }
          (not_null ? saw_not_null : saw_null) = true;
          col.not_null = col.not_null || not_null;
          break;
        }
        case Constraint::Kind::kDefault: {
          // serial brings its own default, so a DEFAULT on it is a second one.
          if (saw_default || type->serial) {
            return std::unexpected(At("42601",
                                      fmt::format("multiple default values specified for column \"{}\" of table \"{}\"",
                                                  column.name, def.relname),
                                      ctx, c.location));
          }
          saw_default = true;
          auto d = ResolveDefault(*c.expr, column.name, type->type, ctx);
          if (!d) return std::unexpected(d.error());
          if (*d) col.default_expr = std::move((*d)->text);
          break;
        }
        case Constraint::Kind::kPrimaryKey:
          if (auto r = set_primary(KeyDef(c, {column.name}), c.location); !r) return std::unexpected(r.error());
          break;
        case Constraint::Kind::kUnique:
          def.unique_constraints.push_back(KeyDef(c, {column.name}));
          break;
        case Constraint::Kind::kCheck:
          checks.push_back(&c);  // deparsed once every column's type is known
          break;
        case Constraint::Kind::kForeignKey:
          return std::unexpected(NotSupported("FOREIGN KEY constraints", ctx, c.location));
      }
    }
    if (type->serial) serials.push_back(def.columns.size());
    def.columns.push_back(std::move(col));
  }
  auto has_column = [&](const std::string& name) {
    return std::ranges::any_of(def.columns, [&](const storage::ColumnDef& c) { return c.name == name; });
  };
  for (const Constraint& c : stmt.constraints) {
    switch (c.kind) {
      case Constraint::Kind::kPrimaryKey:
      case Constraint::Kind::kUnique: {
        for (const std::string& name : c.columns) {
          if (!has_column(name)) {
            return std::unexpected(At("42703", fmt::format("column \"{}\" named in key does not exist", name), ctx, c.location));
          }
        }
        if (c.kind == Constraint::Kind::kUnique) {
          def.unique_constraints.push_back(KeyDef(c, c.columns));
        } else if (auto r = set_primary(KeyDef(c, c.columns), c.location); !r) {
          return std::unexpected(r.error());
        }
        break;
      }
      case Constraint::Kind::kCheck:
        checks.push_back(&c);
        break;
      case Constraint::Kind::kForeignKey:
        return std::unexpected(NotSupported("FOREIGN KEY constraints", ctx, c.location));
      default:
        return std::unexpected(NotSupported("this table constraint", ctx, c.location));
    }
  }
  for (const Constraint* c : checks) {
    auto check = CheckFor(
        *c,
        [&](std::string_view name) -> std::optional<TypeId> {
          for (const storage::ColumnDef& col : def.columns) {
            if (col.name == name) return col.type;
          }
          return std::nullopt;
        },
        ctx);
    if (!check) return std::unexpected(check.error());
    def.checks.push_back(std::move(*check));
  }
  // serial: int NOT NULL DEFAULT nextval('t_col_seq'::regclass), the sequence owned by the
  // column (dropped with the table). PostgreSQL would pick another name if t_col_seq were taken;
  // here CREATE SEQUENCE fails with 42P07 then.
  for (size_t i : serials) {
    def.columns[i].default_expr = fmt::format("nextval({}::regclass)", QuoteLiteral(fmt::format("{}_{}_seq", def.relname, def.columns[i].name)));
  }
  StatementOutput out;
  out.tag = "CREATE TABLE";
  // IF NOT EXISTS on an existing relation: PostgreSQL's notice, nothing changes.
  if (def.if_not_exists) {
    const storage::NamespaceDesc* nsp = (*snapshot)->FindNamespace(def.nspname);
    if (nsp != nullptr && (*snapshot)->FindRelation(nsp->oid, def.relname)) {
      Notice n;
      n.sqlstate = "42P07";
      n.message = fmt::format("relation \"{}\" already exists, skipping", def.relname);
      out.notices.push_back(std::move(n));
      return out;
    }
  }
  auto oid = ctx.catalog.CreateTable(ctx.txn, def);
  if (!oid) return std::unexpected(FromCatalog(oid.error()));
  for (size_t i : serials) {
    const storage::ColumnDef& col = def.columns[i];
    storage::CreateSequenceDef seq;
    seq.nspname = def.nspname;
    seq.relname = fmt::format("{}_{}_seq", def.relname, col.name);
    seq.options.max = col.type == TypeId::kInt2 ? INT16_MAX : col.type == TypeId::kInt4 ? INT32_MAX : INT64_MAX;
    seq.owned_by = std::pair{*oid, static_cast<int16_t>(i + 1)};
    if (auto s = ctx.catalog.CreateSequence(ctx.txn, seq); !s) return std::unexpected(FromCatalog(s.error()));
  }
  return out;
}

std::expected<StatementOutput, Error> RunDropTable(const DropStmt& stmt, DdlContext& ctx) {
  if (auto w = RequireWritable(ctx.settings, "DROP TABLE"); !w) return std::unexpected(w.error());
  auto snapshot = ctx.catalog.Snapshot(ctx.txn);
  if (!snapshot) return std::unexpected(FromCatalog(snapshot.error()));
  StatementOutput out;
  out.tag = "DROP TABLE";
  // Every name is resolved before anything is dropped, as RemoveRelations does.
  auto tables = ResolveDropTargets(**snapshot, stmt, storage::RelationRef::Kind::kTable, out, ctx);
  if (!tables) return std::unexpected(tables.error());
  for (Oid oid : *tables) {
    if (auto r = ctx.catalog.DropTable(ctx.txn, oid); !r) return std::unexpected(FromCatalog(r.error()));
  }
  return out;
}

std::expected<StatementOutput, Error> RunDdl(const StatementNode& node, DdlContext& ctx) {
  if (const auto* create = std::get_if<CreateTableStmt>(&node)) return RunCreateTable(*create, ctx);
  if (const auto* index = std::get_if<CreateIndexStmt>(&node)) return RunCreateIndex(*index, ctx);
  if (const auto* seq = std::get_if<CreateSequenceStmt>(&node)) return RunCreateSequence(*seq, ctx);
  if (const auto* alter = std::get_if<AlterTableStmt>(&node)) return RunAlterTable(*alter, ctx);
  if (const auto* truncate = std::get_if<TruncateStmt>(&node)) return RunTruncate(*truncate, ctx);
  const auto& drop = std::get<DropStmt>(node);
  switch (drop.object) {
    case DropStmt::Object::kIndex:
      return RunDropIndex(drop, ctx);
    case DropStmt::Object::kSequence:
      return RunDropSequence(drop, ctx);
    case DropStmt::Object::kTable:
      break;
  }
  return RunDropTable(drop, ctx);
}

}  // namespace farmdb::sql
