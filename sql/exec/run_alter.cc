// ALTER TABLE [IF EXISTS] (ADD COLUMN, DROP COLUMN, ADD CONSTRAINT, DROP CONSTRAINT) and
// TRUNCATE through storage::Catalog. Each command of an ALTER TABLE runs against the catalog
// as the previous one left it, in the statement's Txn.
//
// Rows are not evaluated here yet: ADD COLUMN gives old rows its default evaluated once
// (PostgreSQL's attmissingval, for non-volatile defaults), and what would need an expression
// evaluated per existing row (a volatile DEFAULT such as nextval, ADD CONSTRAINT CHECK) is
// refused with 0A000 on a non-empty table.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "sql/exec/ddl_common.h"
#include "sql/exec/run_statement.h"
#include "sql/exec/scan_cursor.h"
#include "sql/types/cast.h"

namespace farmdb::sql {
namespace {

std::string_view ActionName(AlterTableCmd::Kind kind) {
  switch (kind) {
    case AlterTableCmd::Kind::kAddColumn:
      return "ADD COLUMN";
    case AlterTableCmd::Kind::kDropColumn:
      return "DROP COLUMN";
    case AlterTableCmd::Kind::kAddConstraint:
      return "ADD CONSTRAINT";
    case AlterTableCmd::Kind::kDropConstraint:
      return "DROP CONSTRAINT";
  }
  return {};
}

Notice Skipping(std::string sqlstate, std::string message) {
  Notice n;
  n.sqlstate = std::move(sqlstate);
  n.message = std::move(message) + ", skipping";
  return n;
}

// ALTER TABLE cooks defaults and CHECK expressions without the statement's text
// (AddRelationNewConstraints gets no queryString), so their errors carry no position.
Error WithoutPosition(Error e) {
  e.position = 0;
  return e;
}

// A non-volatile DEFAULT's value for the rows already there, as PostgreSQL computes
// attmissingval: the stored text parsed back, bound, evaluated once and cast to the column's
// type. nullopt when the binder cannot handle the expression yet.
std::expected<std::optional<Value>, Error> EvaluateOnce(const std::string& text, TypeId type, int32_t typmod,
                                                        DdlContext& ctx) {
  auto parsed = Parse("SELECT " + text);
  if (!parsed || parsed->size() != 1) return std::nullopt;
  const auto* select = std::get_if<SelectStmt>(&parsed->front().node);
  if (select == nullptr || select->targets.size() != 1) return std::nullopt;
  std::vector<TypeId> params;
  Binder binder(*parsed->front().source, params, 0, ctx.text);
  auto bound = binder.BindExpr(*select->targets[0].expr);
  if (!bound) return std::nullopt;
  ExecContext exec{.params = {}, .settings = ctx.settings, .cancel = nullptr,
                   .deadline = std::chrono::steady_clock::time_point::max(), .output = ctx.text, .db = nullptr,
                   .row = {}, .outer = {}};
  auto value = Evaluate(**bound, exec);
  if (!value) return std::unexpected(value.error());
  if (value->IsNull()) return std::optional<Value>(Value::Null(type));
  auto cast = value->type == type ? std::expected<Value, Error>(*value) : Cast(*value, type, ctx.text);
  if (!cast) return std::unexpected(cast.error());
  auto fitted = ApplyTypmod(std::move(*cast), typmod);
  if (!fitted) return std::unexpected(fitted.error());
  return std::optional<Value>(std::move(*fitted));
}

std::expected<bool, Error> IsEmpty(const storage::TableDesc& table, DdlContext& ctx) {
  storage::Table rows(table.storage, ctx.caches);
  auto it = rows.Scan(ctx.txn, storage::IndexScan{});
  if (!it) return std::unexpected(StorageFailure(it.error()));
  auto more = it->Next();
  if (!more) return std::unexpected(StorageFailure(more.error()));
  return !*more;
}

class Alter {
 public:
  Alter(const AlterTableStmt& stmt, DdlContext& ctx, StatementOutput& out) : stmt_(stmt), ctx_(ctx), out_(out) {}

  // The table as the catalog holds it now (after the previous commands).
  std::expected<const storage::TableDesc*, Error> Table() {
    auto snapshot = ctx_.catalog.Snapshot(ctx_.txn);
    if (!snapshot) return std::unexpected(FromCatalog(snapshot.error()));
    snapshot_ = *snapshot;
    return snapshot_->TableByOid(oid_);
  }

  // Resolves the table; false when IF EXISTS found none.
  std::expected<bool, Error> Open() {
    auto snapshot = ctx_.catalog.Snapshot(ctx_.txn);
    if (!snapshot) return std::unexpected(FromCatalog(snapshot.error()));
    auto ref = LookupRelation(**snapshot, stmt_.table, ctx_);
    if (!ref) return std::unexpected(ref.error());
    if (!*ref) {
      std::string message = fmt::format("relation \"{}\" does not exist", stmt_.table.name);
      if (!stmt_.if_exists) return std::unexpected(MakeError("42P01", std::move(message)));
      out_.notices.push_back(Skipping("", std::move(message)));
      return false;
    }
    if ((*ref)->kind != storage::RelationRef::Kind::kTable) {
      Error e = MakeError("42809", fmt::format("ALTER action {} cannot be performed on relation \"{}\"",
                                               ActionName(stmt_.cmds.front().kind), stmt_.table.name));
      e.detail = (*ref)->kind == storage::RelationRef::Kind::kIndex ? "This operation is not supported for indexes."
                                                                    : "This operation is not supported for sequences.";
      return std::unexpected(std::move(e));
    }
    oid_ = (*ref)->oid;
    return true;
  }

  std::expected<void, Error> Run(const AlterTableCmd& cmd) {
    switch (cmd.kind) {
      case AlterTableCmd::Kind::kAddColumn:
        return AddColumn(cmd);
      case AlterTableCmd::Kind::kDropColumn:
        return DropColumn(cmd);
      case AlterTableCmd::Kind::kAddConstraint:
        return AddConstraint(cmd.constraint);
      case AlterTableCmd::Kind::kDropConstraint:
        return DropConstraint(cmd);
    }
    return {};
  }

 private:
  std::expected<void, Error> AddColumn(const AlterTableCmd& cmd) {
    auto table = Table();
    if (!table) return std::unexpected(table.error());
    const ColumnDef& column = cmd.column;
    if ((*table)->FindColumn(column.name)) {
      std::string message = fmt::format("column \"{}\" of relation \"{}\" already exists", column.name, (*table)->relname);
      if (!cmd.if_exists) return std::unexpected(MakeError("42701", std::move(message)));
      out_.notices.push_back(Skipping("42701", std::move(message)));
      return {};
    }
    auto type = ResolveType(column.type, ctx_);
    if (!type) return std::unexpected(type.error());
    storage::ColumnDef def{column.name, type->type, type->typmod, type->serial, std::nullopt};
    std::optional<DefaultExpr> default_expr;
    std::vector<const Constraint*> constraints;  // keys and checks, added after the column
    for (const Constraint& c : column.constraints) {
      switch (c.kind) {
        case Constraint::Kind::kNotNull:
          def.not_null = true;
          break;
        case Constraint::Kind::kNull:
          break;
        case Constraint::Kind::kDefault: {
          if (default_expr || type->serial) {
            return std::unexpected(At("42601",
                                      fmt::format("multiple default values specified for column \"{}\" of table \"{}\"",
                                                  column.name, (*table)->relname),
                                      ctx_, c.location));
          }
          auto d = ResolveDefault(*c.expr, column.name, type->type, ctx_);
          if (!d) return std::unexpected(WithoutPosition(d.error()));
          default_expr = std::move(*d);
          break;
        }
        case Constraint::Kind::kForeignKey:
          return std::unexpected(NotSupported("FOREIGN KEY constraints", ctx_, c.location));
        default:
          constraints.push_back(&c);
      }
    }
    std::string sequence = fmt::format("{}_{}_seq", (*table)->relname, column.name);
    if (type->serial) {
      default_expr = DefaultExpr{fmt::format("nextval({}::regclass)", QuoteLiteral(sequence)), true};
    }
    if (default_expr) def.default_expr = default_expr->text;
    // Old rows read the default evaluated once; a volatile one would need each row rewritten.
    auto empty = IsEmpty(**table, ctx_);
    if (!empty) return std::unexpected(empty.error());
    std::optional<Value> missing;
    if (default_expr && !*empty) {
      std::optional<Value> once;
      if (!default_expr->is_volatile) {
        auto v = EvaluateOnce(default_expr->text, type->type, type->typmod, ctx_);
        if (!v) return std::unexpected(v.error());
        once = std::move(*v);
      }
      if (!once) {
        std::string what = default_expr->is_volatile ? "a volatile DEFAULT" : "DEFAULT " + default_expr->text;
        return std::unexpected(NotSupported(
            fmt::format("ADD COLUMN with {} on non-empty table \"{}\"", what, (*table)->relname), ctx_,
            column.location));
      }
      missing = std::move(once);
    }
    if (def.not_null && !*empty && (!missing || missing->IsNull())) {
      return std::unexpected(MakeError(
          "23502", fmt::format("column \"{}\" of relation \"{}\" contains null values", column.name, (*table)->relname)));
    }
    auto attnum = ctx_.catalog.AddColumn(ctx_.txn, oid_, def, missing);
    if (!attnum) return std::unexpected(FromCatalog(attnum.error()));
    if (type->serial) {
      storage::CreateSequenceDef seq;
      const storage::NamespaceDesc* nsp = snapshot_->NamespaceByOid((*table)->relnamespace);
      seq.nspname = nsp->nspname;
      seq.relname = sequence;
      seq.options.max = type->type == TypeId::kInt2 ? INT16_MAX : type->type == TypeId::kInt4 ? INT32_MAX : INT64_MAX;
      seq.owned_by = std::pair{oid_, *attnum};
      if (auto s = ctx_.catalog.CreateSequence(ctx_.txn, seq); !s) return std::unexpected(FromCatalog(s.error()));
    }
    for (const Constraint* c : constraints) {
      Constraint keyed;
      const Constraint* add = c;
      if (c->kind == Constraint::Kind::kPrimaryKey || c->kind == Constraint::Kind::kUnique) {
        keyed.kind = c->kind;
        keyed.name = c->name;
        keyed.location = c->location;
        keyed.columns = {column.name};
        add = &keyed;
      }
      if (auto r = AddConstraint(*add); !r) return r;
    }
    return {};
  }

  std::expected<void, Error> DropColumn(const AlterTableCmd& cmd) {
    auto table = Table();
    if (!table) return std::unexpected(table.error());
    if (!(*table)->FindColumn(cmd.column_name)) {
      std::string message =
          fmt::format("column \"{}\" of relation \"{}\" does not exist", cmd.column_name, (*table)->relname);
      if (!cmd.if_exists) return std::unexpected(MakeError("42703", std::move(message)));
      out_.notices.push_back(Skipping("", std::move(message)));
      return {};
    }
    if (auto r = ctx_.catalog.DropColumn(ctx_.txn, oid_, cmd.column_name); !r) {
      return std::unexpected(FromCatalog(r.error()));
    }
    return {};
  }

  std::expected<void, Error> AddConstraint(const Constraint& c) {
    auto table = Table();
    if (!table) return std::unexpected(table.error());
    for (const std::string& name : c.columns) {
      if (!(*table)->FindColumn(name)) {
        return std::unexpected(MakeError(
            "42703", fmt::format("column \"{}\" of relation \"{}\" does not exist", name, (*table)->relname)));
      }
    }
    // A key build over duplicates fails as CREATE UNIQUE INDEX does, with the key in DETAIL.
    auto key_error = [&](const storage::CatalogError& error) {
      Error e = FromCatalog(error);
      if (e.sqlstate != "23505") return e;
      std::vector<int16_t> attnums;
      for (const std::string& name : c.columns) attnums.push_back((*table)->FindColumn(name)->attnum);
      e.detail = DuplicateKeyDetail(**table, attnums, ctx_);
      return e;
    };
    switch (c.kind) {
      case Constraint::Kind::kPrimaryKey: {
        auto r = ctx_.catalog.AddPrimaryKey(ctx_.txn, oid_, KeyDef(c, c.columns));
        if (!r) return std::unexpected(key_error(r.error()));
        return {};
      }
      case Constraint::Kind::kUnique: {
        storage::IndexDef def = KeyDef(c, c.columns);
        def.constraint = true;
        auto r = ctx_.catalog.CreateIndex(ctx_.txn, oid_, def);
        if (!r) return std::unexpected(key_error(r.error()));
        return {};
      }
      case Constraint::Kind::kCheck: {
        const storage::TableDesc* t = *table;
        auto check = CheckFor(
            c,
            [t](std::string_view name) -> std::optional<TypeId> {
              const storage::ColumnDesc* col = t->FindColumn(name);
              return col ? std::optional<TypeId>(col->type) : std::nullopt;
            },
            ctx_);
        if (!check) return std::unexpected(WithoutPosition(check.error()));
        auto empty = IsEmpty(*t, ctx_);
        if (!empty) return std::unexpected(empty.error());
        // PostgreSQL checks every existing row (23514); that needs expressions over rows.
        if (!*empty) {
          return std::unexpected(
              NotSupported(fmt::format("ADD CONSTRAINT CHECK on non-empty table \"{}\"", t->relname), ctx_, c.location));
        }
        auto r = ctx_.catalog.AddCheck(ctx_.txn, oid_, *check);
        if (!r) return std::unexpected(FromCatalog(r.error()));
        return {};
      }
      case Constraint::Kind::kForeignKey:
        return std::unexpected(NotSupported("FOREIGN KEY constraints", ctx_, c.location));
      default:
        return std::unexpected(NotSupported("this constraint in ALTER TABLE", ctx_, c.location));
    }
  }

  std::expected<void, Error> DropConstraint(const AlterTableCmd& cmd) {
    auto table = Table();
    if (!table) return std::unexpected(table.error());
    if (!snapshot_->FindConstraint(oid_, cmd.column_name)) {
      std::string message =
          fmt::format("constraint \"{}\" of relation \"{}\" does not exist", cmd.column_name, (*table)->relname);
      if (!cmd.if_exists) return std::unexpected(MakeError("42704", std::move(message)));
      out_.notices.push_back(Skipping("", std::move(message)));
      return {};
    }
    if (auto r = ctx_.catalog.DropConstraint(ctx_.txn, oid_, cmd.column_name); !r) {
      return std::unexpected(FromCatalog(r.error()));
    }
    return {};
  }

  const AlterTableStmt& stmt_;
  DdlContext& ctx_;
  StatementOutput& out_;
  Oid oid_ = 0;
  storage::SnapshotPtr snapshot_;
};

}  // namespace

std::expected<StatementOutput, Error> RunAlterTable(const AlterTableStmt& stmt, DdlContext& ctx) {
  if (auto w = RequireWritable(ctx.settings, "ALTER TABLE"); !w) return std::unexpected(w.error());
  StatementOutput out;
  out.tag = "ALTER TABLE";
  Alter alter(stmt, ctx, out);
  auto open = alter.Open();
  if (!open) return std::unexpected(open.error());
  if (!*open) return out;
  for (const AlterTableCmd& cmd : stmt.cmds) {
    if (auto r = alter.Run(cmd); !r) return std::unexpected(r.error());
  }
  return out;
}

std::expected<StatementOutput, Error> RunTruncate(const TruncateStmt& stmt, DdlContext& ctx) {
  if (auto w = RequireWritable(ctx.settings, "TRUNCATE TABLE"); !w) return std::unexpected(w.error());
  auto snapshot = ctx.catalog.Snapshot(ctx.txn);
  if (!snapshot) return std::unexpected(FromCatalog(snapshot.error()));
  // Every name is resolved before any table is emptied, as ExecuteTruncate does.
  std::vector<Oid> tables;
  for (const QualifiedName& name : stmt.tables) {
    auto table = LookupTable(**snapshot, name, false, ctx);
    if (!table) return std::unexpected(table.error());
    if (std::ranges::find(tables, (*table)->oid) == tables.end()) tables.push_back((*table)->oid);
  }
  for (Oid oid : tables) {
    if (auto r = ctx.catalog.Truncate(ctx.txn, oid, stmt.restart_identity); !r) {
      return std::unexpected(FromCatalog(r.error()));
    }
  }
  StatementOutput out;
  out.tag = "TRUNCATE TABLE";
  return out;
}

}  // namespace farmdb::sql
