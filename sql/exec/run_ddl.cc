// CREATE TABLE and DROP TABLE through storage::Catalog, in the statement's Txn: resolving the
// AST's type names, column constraints and table constraints into a CreateTableDef, and column
// defaults into the SQL text pg_get_expr prints for them.
#include <fmt/format.h>

#include <algorithm>

#include "sql/exec/run_statement.h"
#include "sql/types/cast.h"

namespace farmdb::sql {
namespace {

Error At(std::string sqlstate, std::string message, const DdlContext& ctx, int location) {
  Error e = MakeError(std::move(sqlstate), std::move(message));
  e.position = CharPosition(ctx.source, location);
  return e;
}

Error NotSupported(std::string_view what, const DdlContext& ctx, int location) {
  return At("0A000", fmt::format("{} is not supported yet", what), ctx, location);
}

// simple_quote_literal with standard_conforming_strings on: quotes doubled.
std::string QuoteLiteral(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += '\'';
    out += c;
  }
  return out + "'";
}

// format_type_with_typemod(type, -1): bpchar without a typmod keeps its internal name.
std::string_view ConstTypeName(TypeId type) {
  return type == TypeId::kBpchar ? std::string_view("bpchar") : Info(type).sql_name;
}

bool IsCanonicalDecimal(std::string_view s) {
  size_t dot = s.find('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 1 == s.size()) return false;
  if (s[0] == '0' && dot != 1) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    if (i != dot && (s[i] < '0' || s[i] > '9')) return false;
  }
  return true;
}

// A column default as PostgreSQL stores it and pg_get_expr prints it (ruleutils.c
// get_const_expr): implicit casts to the column's type are not shown, a non-negative int4 or a
// plain decimal numeric prints bare, anything else as 'output'::type. Only constants are
// accepted for now; nullopt for DEFAULT NULL (PostgreSQL stores no default for it).
std::expected<std::optional<std::string>, Error> DefaultText(const Expr& e, TypeId column, const DdlContext& ctx) {
  switch (e.kind) {
    case ExprKind::kNull:
      return std::nullopt;
    case ExprKind::kInteger:
    case ExprKind::kNumeric: {
      if (!IsNumeric(column) && !IsString(column)) break;
      if (e.kind == ExprKind::kInteger) {
        bool int4 = e.int_value >= INT32_MIN && e.int_value <= INT32_MAX;
        if (int4 && e.int_value >= 0) return std::to_string(e.int_value);
        return fmt::format("'{}'::{}", e.int_value, int4 ? "integer" : "bigint");
      }
      if (IsCanonicalDecimal(e.text)) return e.text;
      if (e.text.starts_with('-') && IsCanonicalDecimal(std::string_view(e.text).substr(1))) {
        return fmt::format("'{}'::numeric", e.text);
      }
      return std::unexpected(NotSupported("this numeric DEFAULT literal", ctx, e.location));
    }
    case ExprKind::kBool:
      if (column != TypeId::kBool) break;
      return std::string(e.bool_value ? "true" : "false");
    case ExprKind::kString: {
      // The unknown literal becomes a constant of the column's type at CREATE time (input errors
      // surface now, as in PostgreSQL), printed through the type's output function.
      auto value = ParseText(column, e.text, ctx.text);
      if (!value) {
        Error err = value.error();
        if (err.position == 0) err.position = CharPosition(ctx.source, e.location);
        return std::unexpected(std::move(err));
      }
      return fmt::format("{}::{}", QuoteLiteral(FormatText(*value, ctx.text)), ConstTypeName(column));
    }
    default:
      return std::unexpected(NotSupported("this DEFAULT expression", ctx, e.location));
  }
  return std::unexpected(NotSupported(fmt::format("this DEFAULT for a column of type {}", Info(column).sql_name), ctx,
                                      e.location));
}

struct ResolvedType {
  TypeId type;
  int32_t typmod = -1;
  bool serial = false;
};

// A column's type as written: TypeFromName plus typmods; serial, bigserial and smallserial
// (unqualified only, as in PostgreSQL) become int4/int8/int2 with a sequence.
std::expected<ResolvedType, Error> ResolveType(const TypeName& t, const DdlContext& ctx) {
  const std::string& name = t.names.back();
  if (t.names.size() == 1 && t.typmods.empty()) {
    if (name == "serial" || name == "serial4") return ResolvedType{TypeId::kInt4, -1, true};
    if (name == "bigserial" || name == "serial8") return ResolvedType{TypeId::kInt8, -1, true};
    if (name == "smallserial" || name == "serial2") return ResolvedType{TypeId::kInt2, -1, true};
  }
  if (t.names.size() > 2 || (t.names.size() == 2 && t.names[0] != "pg_catalog")) {
    return std::unexpected(NotSupported("qualified type names outside pg_catalog", ctx, t.location));
  }
  auto id = TypeFromName(name);
  if (!id || *id == TypeId::kUnknown) {
    return std::unexpected(At("42704", fmt::format("type \"{}\" does not exist", name), ctx, t.location));
  }
  ResolvedType r{*id};
  if (!t.typmods.empty()) {
    auto typmod = Typmod(*id, t.typmods);
    if (!typmod) return std::unexpected(At(typmod.error().sqlstate, typmod.error().message, ctx, t.location));
    r.typmod = *typmod;
  }
  return r;
}



// The schema an unqualified CREATE puts its relation in: the first one of the search path that
// exists (namespace.c's RangeVarGetCreationNamespace).
std::expected<std::string, Error> CreationNamespace(const storage::CatalogSnapshot& snapshot, const Settings& settings) {
  for (const std::string& name : SearchPath(settings)) {
    if (snapshot.FindNamespace(name) != nullptr) return name;
  }
  return std::unexpected(MakeError("3F000", "no schema has been selected to create in"));
}

storage::IndexDef KeyDef(const Constraint& c, std::vector<std::string> columns) {
  storage::IndexDef def;
  def.name = c.name;
  def.unique = true;
  for (std::string& col : columns) {
    storage::IndexColumnDef key;
    key.column = std::move(col);
    def.columns.push_back(std::move(key));
  }
  return def;
}

}  // namespace

std::expected<void, Error> CheckWritable(std::string_view command, const Settings& settings) {
  auto read_only = settings.Get("transaction_read_only", false);
  if (read_only && *read_only && **read_only == "on") {
    return std::unexpected(MakeError("25006", fmt::format("cannot execute {} in a read-only transaction", command)));
  }
  return {};
}

Error FromCatalog(const storage::CatalogError& e) {
  if (e.code == storage::CatalogError::Code::kStorage) {
    if (e.storage.code == storage::StorageError::Code::kTxn) return TxnFailure(e.storage.txn);
    return MakeError("XX000", fmt::format("storage error {} during DDL", static_cast<int>(e.storage.code)));
  }
  return e.error;
}

// The search_path setting as schema names (SplitIdentifierString: commas outside double
// quotes, unquoted names down-cased, "" inside quotes is one quote). "$user" names a schema
// called like the user, which cannot exist yet (no CREATE SCHEMA), so it is left out.
std::vector<std::string> SearchPath(const Settings& settings) {
  auto value = settings.Get("search_path", false);
  std::string text = value && *value ? **value : std::string();
  std::vector<std::string> path;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == ',')) ++i;
    if (i >= text.size()) break;
    std::string name;
    if (text[i] == '"') {
      for (++i; i < text.size(); ++i) {
        if (text[i] == '"') {
          if (i + 1 < text.size() && text[i + 1] == '"') {
            name += '"';
            ++i;
          } else {
            ++i;
            break;
          }
        } else {
          name += text[i];
        }
      }
    } else {
      for (; i < text.size() && text[i] != ',' && text[i] != ' '; ++i) {
        name += static_cast<char>(std::tolower(static_cast<unsigned char>(text[i])));
      }
    }
    if (name != "$user") path.push_back(std::move(name));
  }
  return path;
}

std::expected<StatementOutput, Error> RunCreateTable(const CreateTableStmt& stmt, DdlContext& ctx) {
  if (auto w = CheckWritable("CREATE TABLE", ctx.settings); !w) return std::unexpected(w.error());
  auto snapshot = ctx.catalog.Snapshot(ctx.txn);
  if (!snapshot) return std::unexpected(FromCatalog(snapshot.error()));
  storage::CreateTableDef def;
  if (!stmt.table.schema.empty()) {
    def.nspname = stmt.table.schema;
  } else {
    auto nsp = CreationNamespace(**snapshot, ctx.settings);
    if (!nsp) {
      Error e = nsp.error();
      e.position = CharPosition(ctx.source, stmt.table.location);
      return std::unexpected(std::move(e));
    }
    def.nspname = std::move(*nsp);
  }
  def.relname = stmt.table.name;
  if (def.nspname == "pg_catalog") {
    Error e = MakeError("42501", fmt::format("permission denied to create \"pg_catalog.{}\"", def.relname));
    e.detail = "System catalog modifications are currently disallowed.";
    return std::unexpected(std::move(e));
  }
  def.if_not_exists = stmt.if_not_exists;
  std::vector<size_t> serials;  // positions of serial columns
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
          auto text = DefaultText(*c.expr, type->type, ctx);
          if (!text) return std::unexpected(text.error());
          col.default_expr = std::move(*text);
          break;
        }
        case Constraint::Kind::kPrimaryKey:
          if (auto r = set_primary(KeyDef(c, {column.name}), c.location); !r) return std::unexpected(r.error());
          break;
        case Constraint::Kind::kUnique:
          def.unique_constraints.push_back(KeyDef(c, {column.name}));
          break;
        case Constraint::Kind::kCheck:
          // pg_get_constraintdef's deparsed text needs an expression printer (not yet).
          return std::unexpected(NotSupported("CHECK constraints", ctx, c.location));
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
        return std::unexpected(NotSupported("CHECK constraints", ctx, c.location));
      case Constraint::Kind::kForeignKey:
        return std::unexpected(NotSupported("FOREIGN KEY constraints", ctx, c.location));
      default:
        return std::unexpected(NotSupported("this table constraint", ctx, c.location));
    }
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
  if (auto w = CheckWritable("DROP TABLE", ctx.settings); !w) return std::unexpected(w.error());
  auto snapshot = ctx.catalog.Snapshot(ctx.txn);
  if (!snapshot) return std::unexpected(FromCatalog(snapshot.error()));
  StatementOutput out;
  out.tag = "DROP TABLE";
  // Every name is resolved before anything is dropped, as RemoveRelations does.
  std::vector<Oid> tables;
  auto missing = [&](std::string message) -> std::expected<void, Error> {
    if (!stmt.if_exists) return std::unexpected(MakeError(message.starts_with("schema") ? "3F000" : "42P01", message));
    Notice n;
    n.message = message + ", skipping";
    out.notices.push_back(std::move(n));
    return {};
  };
  const std::vector<std::string> search_path = SearchPath(ctx.settings);
  for (const QualifiedName& name : stmt.names) {
    std::optional<storage::RelationRef> ref;
    if (!name.schema.empty()) {
      const storage::NamespaceDesc* nsp = (*snapshot)->FindNamespace(name.schema);
      if (nsp == nullptr) {
        if (auto r = missing(fmt::format("schema \"{}\" does not exist", name.schema)); !r) return std::unexpected(r.error());
        continue;
      }
      ref = (*snapshot)->FindRelation(nsp->oid, name.name);
    } else {
      ref = (*snapshot)->ResolveRelation(search_path, name.name);
    }
    if (!ref) {
      if (auto r = missing(fmt::format("table \"{}\" does not exist", name.name)); !r) return std::unexpected(r.error());
      continue;
    }
    if (ref->kind != storage::RelationRef::Kind::kTable) {
      Error e = MakeError("42809", fmt::format("\"{}\" is not a table", name.name));
      e.hint = ref->kind == storage::RelationRef::Kind::kIndex ? "Use DROP INDEX to remove an index."
                                                               : "Use DROP SEQUENCE to remove a sequence.";
      return std::unexpected(std::move(e));
    }
    if (std::ranges::find(tables, ref->oid) == tables.end()) tables.push_back(ref->oid);
  }
  for (Oid oid : tables) {
    if (auto r = ctx.catalog.DropTable(ctx.txn, oid); !r) return std::unexpected(FromCatalog(r.error()));
  }
  return out;
}

}  // namespace farmdb::sql
