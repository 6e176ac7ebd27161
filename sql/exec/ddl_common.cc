// Helpers shared by the DDL executors (ddl_common.h).
#include "sql/exec/ddl_common.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "sql/exec/scan_cursor.h"
#include "sql/parse/deparse.h"
#include "sql/types/cast.h"

namespace farmdb::sql {

Error At(std::string sqlstate, std::string message, const DdlContext& ctx, int location) {
  Error e = MakeError(std::move(sqlstate), std::move(message));
  e.position = CharPosition(ctx.source, location);
  return e;
}

Error NotSupported(std::string_view what, const DdlContext& ctx, int location) {
  return At("0A000", fmt::format("{} is not supported yet", what), ctx, location);
}

std::string QuoteLiteral(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += '\'';
    out += c;
  }
  return out + "'";
}

Error FromCatalog(const storage::CatalogError& e) {
  if (e.code == storage::CatalogError::Code::kStorage) return StorageFailure(e.storage);
  return e.error;
}


// SplitIdentifierString: commas outside double quotes, unquoted names down-cased, "" inside
// quotes is one quote.
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

std::expected<std::string, Error> CreationNamespace(const storage::CatalogSnapshot& snapshot, const Settings& settings) {
  for (const std::string& name : SearchPath(settings)) {
    if (snapshot.FindNamespace(name) != nullptr) return name;
  }
  return std::unexpected(MakeError("3F000", "no schema has been selected to create in"));
}

std::expected<std::string, Error> TargetNamespace(const storage::CatalogSnapshot& snapshot, const QualifiedName& name,
                                                  const DdlContext& ctx) {
  if (!name.schema.empty()) return name.schema;
  auto nsp = CreationNamespace(snapshot, ctx.settings);
  if (!nsp) {
    Error e = nsp.error();
    e.position = CharPosition(ctx.source, name.location);
    return std::unexpected(std::move(e));
  }
  return nsp;
}

std::expected<std::optional<storage::RelationRef>, Error> LookupRelation(const storage::CatalogSnapshot& snapshot,
                                                                         const QualifiedName& name,
                                                                         const DdlContext& ctx) {
  if (name.schema.empty()) return snapshot.ResolveRelation(SearchPath(ctx.settings), name.name);
  const storage::NamespaceDesc* nsp = snapshot.FindNamespace(name.schema);
  if (nsp == nullptr) {
    return std::unexpected(At("3F000", fmt::format("schema \"{}\" does not exist", name.schema), ctx, name.location));
  }
  return snapshot.FindRelation(nsp->oid, name.name);
}

std::expected<const storage::TableDesc*, Error> LookupTable(const storage::CatalogSnapshot& snapshot,
                                                            const QualifiedName& name, bool missing_ok,
                                                            const DdlContext& ctx) {
  auto ref = LookupRelation(snapshot, name, ctx);
  if (!ref) return std::unexpected(ref.error());
  if (!*ref) {
    if (missing_ok) return nullptr;
    return std::unexpected(MakeError("42P01", fmt::format("relation \"{}\" does not exist", name.name)));
  }
  if ((*ref)->kind != storage::RelationRef::Kind::kTable) {
    return std::unexpected(MakeError("42809", fmt::format("\"{}\" is not a table", name.name)));
  }
  return snapshot.TableByOid((*ref)->oid);
}

namespace {

std::string_view KindName(storage::RelationRef::Kind kind) {
  switch (kind) {
    case storage::RelationRef::Kind::kTable:
      return "table";
    case storage::RelationRef::Kind::kIndex:
      return "index";
    case storage::RelationRef::Kind::kSequence:
      return "sequence";
  }
  return {};
}

std::string_view DropHint(storage::RelationRef::Kind kind) {
  switch (kind) {
    case storage::RelationRef::Kind::kTable:
      return "Use DROP TABLE to remove a table.";
    case storage::RelationRef::Kind::kIndex:
      return "Use DROP INDEX to remove an index.";
    case storage::RelationRef::Kind::kSequence:
      return "Use DROP SEQUENCE to remove a sequence.";
  }
  return {};
}

}  // namespace

std::expected<std::vector<Oid>, Error> ResolveDropTargets(const storage::CatalogSnapshot& snapshot,
                                                          const DropStmt& stmt, storage::RelationRef::Kind kind,
                                                          StatementOutput& out, const DdlContext& ctx) {
  std::vector<Oid> oids;
  auto missing = [&](std::string sqlstate, std::string message) -> std::expected<void, Error> {
    if (!stmt.if_exists) return std::unexpected(MakeError(std::move(sqlstate), std::move(message)));
    Notice n;
    n.message = message + ", skipping";
    out.notices.push_back(std::move(n));
    return {};
  };
  for (const QualifiedName& name : stmt.names) {
    std::optional<storage::RelationRef> ref;
    if (!name.schema.empty()) {
      const storage::NamespaceDesc* nsp = snapshot.FindNamespace(name.schema);
      if (nsp == nullptr) {
        if (auto r = missing("3F000", fmt::format("schema \"{}\" does not exist", name.schema)); !r) {
          return std::unexpected(r.error());
        }
        continue;
      }
      ref = snapshot.FindRelation(nsp->oid, name.name);
    } else {
      ref = snapshot.ResolveRelation(SearchPath(ctx.settings), name.name);
    }
    if (!ref) {
      std::string sqlstate = kind == storage::RelationRef::Kind::kIndex ? "42704" : "42P01";
      if (auto r = missing(sqlstate, fmt::format("{} \"{}\" does not exist", KindName(kind), name.name)); !r) {
        return std::unexpected(r.error());
      }
      continue;
    }
    if (ref->kind != kind) {
      Error e = MakeError("42809", fmt::format("\"{}\" is not a{} {}", name.name,
                                               kind == storage::RelationRef::Kind::kIndex ? "n" : "", KindName(kind)));
      e.hint = DropHint(ref->kind);
      return std::unexpected(std::move(e));
    }
    if (std::ranges::find(oids, ref->oid) == oids.end()) oids.push_back(ref->oid);
  }
  return oids;
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

std::expected<storage::CheckDef, Error> CheckFor(const Constraint& c,
                                                 std::function<std::optional<TypeId>(std::string_view)> column_type,
                                                 const DdlContext& ctx) {
  DeparseOptions options;
  options.context = DeparseOptions::Context::kCheck;
  options.column_type = std::move(column_type);
  options.source = ctx.source;
  options.text = &ctx.text;
  auto d = Deparse(*c.expr, options);
  if (!d) return std::unexpected(d.error());
  return storage::CheckDef{c.name, std::move(d->text), std::move(d->columns)};
}

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
  if (!IsStorable(*id)) {
    // Arrays and int2vector/oidvector exist as values but not in rows; record and any* are
    // pseudo-types no column may have (42P16 in PostgreSQL, which names the column).
    return std::unexpected(NotSupported(fmt::format("columns of type {}", Info(*id).sql_name), ctx, t.location));
  }
  ResolvedType r{*id};
  if (!t.typmods.empty()) {
    auto typmod = Typmod(*id, t.typmods);
    if (!typmod) return std::unexpected(At(typmod.error().sqlstate, typmod.error().message, ctx, t.location));
    r.typmod = *typmod;
  }
  return r;
}

namespace {

// The Value of a literal that becomes a constant of the column's type at CREATE time (input
// errors surface now, as in PostgreSQL); nullopt when `e` is no literal this handles.
std::expected<std::optional<Value>, Error> ConstantDefault(const Expr& e, TypeId column, const DdlContext& ctx) {
  switch (e.kind) {
    case ExprKind::kInteger: {
      if (!IsNumeric(column) && !IsString(column)) return std::nullopt;
      bool int4 = e.int_value >= INT32_MIN && e.int_value <= INT32_MAX;
      return Value::Int(int4 ? TypeId::kInt4 : TypeId::kInt8, e.int_value);
    }
    case ExprKind::kNumeric: {
      if (!IsNumeric(column) && !IsString(column)) return std::nullopt;
      auto v = ParseText(TypeId::kNumeric, e.text, ctx.text);
      if (!v) return std::unexpected(v.error());
      return *v;
    }
    case ExprKind::kBool:
      if (column != TypeId::kBool) return std::nullopt;
      return Value::Bool(e.bool_value);
    case ExprKind::kString: {
      auto v = ParseText(column, e.text, ctx.text);
      if (!v) {
        Error err = v.error();
        if (err.position == 0) err.position = CharPosition(ctx.source, e.location);
        return std::unexpected(std::move(err));
      }
      return *v;
    }
    default:
      return std::nullopt;
  }
}

// Whether a value of `from` can be stored in a column of `to` (pg_cast contexts 'i' and 'a'
// among farmdb's types; any type goes to a string type through its output function).
bool AssignmentCastable(TypeId from, TypeId to) {
  if (from == to || IsString(to)) return true;
  if (IsNumeric(from) && IsNumeric(to)) return true;
  auto datetime = [](TypeId t) { return t == TypeId::kDate || t == TypeId::kTimestamp || t == TypeId::kTimestampTz; };
  return datetime(from) && datetime(to);
}

}  // namespace

// get_const_expr prints the literal in its own type (int4 5, int8 '3000000000'::bigint,
// numeric 1.5, the string as a constant of the column's type); the implicit cast to the
// column's type is not shown. Other expressions are deparsed.
std::expected<std::optional<DefaultExpr>, Error> ResolveDefault(const Expr& e, std::string_view column_name,
                                                                TypeId column, DdlContext& ctx) {
  if (e.kind == ExprKind::kNull) return std::nullopt;
  auto constant = ConstantDefault(e, column, ctx);
  if (!constant) return std::unexpected(constant.error());
  if (*constant) return DefaultExpr{ConstantText(**constant, ctx.text), false};
  DeparseOptions options;
  options.context = DeparseOptions::Context::kDefault;
  options.column_type = [](std::string_view) { return std::nullopt; };
  options.source = ctx.source;
  options.text = &ctx.text;
  auto d = Deparse(e, options);
  if (!d) return std::unexpected(d.error());
  if (d->type && !AssignmentCastable(*d->type, column)) {
    Error err = MakeError("42804", fmt::format("column \"{}\" is of type {} but default expression is of type {}",
                                               column_name, Info(column).sql_name, Info(*d->type).sql_name));
    err.hint = "You will need to rewrite or cast the expression.";
    return std::unexpected(std::move(err));
  }
  if (!d->sequences.empty()) {
    auto snapshot = ctx.catalog.Snapshot(ctx.txn);
    if (!snapshot) return std::unexpected(FromCatalog(snapshot.error()));
    for (const auto& [name, location] : d->sequences) {
      QualifiedName q;
      size_t dot = name.find('.');
      q.name = dot == std::string::npos ? name : name.substr(dot + 1);
      if (dot != std::string::npos) q.schema = name.substr(0, dot);
      auto ref = LookupRelation(**snapshot, q, ctx);
      if (!ref) return std::unexpected(ref.error());
      if (!*ref) return std::unexpected(At("42P01", fmt::format("relation \"{}\" does not exist", name), ctx, location));
    }
  }
  return DefaultExpr{std::move(d->text), d->is_volatile};
}

// The storage build reports only that a duplicate exists, so the key is found by reading the
// rows in key order.
std::string DuplicateKeyDetail(const storage::TableDesc& table, const std::vector<int16_t>& attnums, DdlContext& ctx) {
  storage::Table rows(table.storage, ctx.caches);
  auto it = rows.Scan(ctx.txn, storage::IndexScan{});
  if (!it) return std::string();
  std::vector<std::vector<Value>> keys;
  for (;;) {
    auto more = it->Next();
    if (!more || !*more) break;
    std::vector<Value> key;
    bool has_null = false;
    for (int16_t attnum : attnums) {
      key.push_back(rows.Column(it->row(), attnum - 1));
      has_null = has_null || key.back().IsNull();
    }
    if (!has_null) keys.push_back(std::move(key));  // NULLs never collide in a unique index
  }
  auto less = [](const std::vector<Value>& a, const std::vector<Value>& b) {
    for (size_t i = 0; i < a.size(); ++i) {
      int c = CompareValues(a[i], b[i]);
      if (c != 0) return c < 0;
    }
    return false;
  };
  std::ranges::sort(keys, less);
  for (size_t i = 1; i < keys.size(); ++i) {
    if (less(keys[i - 1], keys[i])) continue;
    std::string names, values;
    for (size_t k = 0; k < attnums.size(); ++k) {
      names += (k ? ", " : "") + table.columns[attnums[k] - 1].attname;
      values += (k ? ", " : "") + FormatText(keys[i][k], ctx.text);
    }
    return fmt::format("Key ({})=({}) is duplicated.", names, values);
  }
  return std::string();
}

}  // namespace farmdb::sql
