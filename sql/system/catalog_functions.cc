#include "sql/system/catalog_functions.h"

#include <algorithm>
#include <array>
#include <fmt/format.h>

#include "sql/parse/deparse.h"
#include "sql/system/generated_view.h"
#include "sql/types/cast.h"
#include "sql/types/catalog_types.h"

namespace farmdb::sql {
namespace {

// PostgreSQL 15's keywords that are not UNRESERVED (pg_get_keywords() catcode <> 'U'): these
// need quoting as identifiers (quote_identifier).
constexpr std::array<std::string_view, 167> kQuotedKeywords = {
    "all", "analyse", "analyze", "and", "any", "array", "as", "asc", "asymmetric", "authorization", "between",
    "bigint", "binary", "bit", "boolean", "both", "case", "cast", "char", "character", "check", "coalesce",
    "collate", "collation", "column", "concurrently", "constraint", "create", "cross", "current_catalog",
    "current_date", "current_role", "current_schema", "current_time", "current_timestamp", "current_user", "dec",
    "decimal", "default", "deferrable", "desc", "distinct", "do", "else", "end", "except", "exists", "extract",
    "false", "fetch", "float", "for", "foreign", "freeze", "from", "full", "grant", "greatest", "group",
    "grouping", "having", "ilike", "in", "initially", "inner", "inout", "int", "integer", "intersect",
    "interval", "into", "is", "isnull", "join", "lateral", "leading", "least", "left", "like", "limit",
    "localtime", "localtimestamp", "national", "natural", "nchar", "none", "normalize", "not", "notnull", "null",
    "nullif", "numeric", "offset", "on", "only", "or", "order", "out", "outer", "overlaps", "overlay", "placing",
    "position", "precision", "primary", "real", "references", "returning", "right", "row", "select",
    "session_user", "setof", "similar", "smallint", "some", "substring", "symmetric", "table", "tablesample",
    "then", "time", "timestamp", "to", "trailing", "treat", "trim", "true", "union", "unique", "user", "using",
    "values", "varchar", "variadic", "verbose", "when", "where", "window", "with", "xmlattributes", "xmlconcat",
    "xmlelement", "xmlexists", "xmlforest", "xmlnamespaces", "xmlparse", "xmlpi", "xmlroot", "xmlserialize",
    "xmltable",
};

struct RelationName {
  std::string_view nspname;
  std::string_view relname;
};

// The relation `relname` in schema `nspname`: a system view or a relation of the catalog.
std::optional<Oid> FindInSchema(const SystemViewContext& ctx, std::string_view nspname, std::string_view relname) {
  if (const SystemView* view = FindSystemView(nspname, relname)) return view->oid();
  const storage::NamespaceDesc* nsp = ctx.catalog.FindNamespace(nspname);
  if (nsp == nullptr) return std::nullopt;
  auto r = ctx.catalog.FindRelation(nsp->oid, relname);
  return r ? std::optional<Oid>(r->oid) : std::nullopt;
}

// What a bare relation name denotes: the search path in order, pg_catalog first unless the
// path lists it (namespace.c's recomputeNamespacePath).
std::optional<Oid> ResolveBareName(const SystemViewContext& ctx, std::string_view relname) {
  if (std::ranges::find(ctx.search_path, "pg_catalog") == ctx.search_path.end()) {
    if (auto oid = FindInSchema(ctx, "pg_catalog", relname)) return oid;
  }
  for (const std::string& schema : ctx.search_path) {
    if (auto oid = FindInSchema(ctx, schema, relname)) return oid;
  }
  return std::nullopt;
}

std::string_view NamespaceName(const SystemViewContext& ctx, Oid nsp) {
  const storage::NamespaceDesc* n = ctx.catalog.NamespaceByOid(nsp);
  return n != nullptr ? std::string_view(n->nspname) : std::string_view();
}

std::optional<RelationName> FindRelationName(const SystemViewContext& ctx, Oid oid) {
  if (const SystemView* view = SystemViewByOid(oid)) return RelationName{view->schema(), view->name()};
  if (const auto* t = ctx.catalog.TableByOid(oid)) return RelationName{NamespaceName(ctx, t->relnamespace), t->relname};
  if (const auto* s = ctx.catalog.SequenceByOid(oid)) return RelationName{NamespaceName(ctx, s->relnamespace), s->relname};
  if (const auto* i = ctx.catalog.IndexByOid(oid)) {
    if (const auto* t = ctx.catalog.TableByOid(i->indrelid)) return RelationName{NamespaceName(ctx, t->relnamespace), i->relname};
  }
  return std::nullopt;
}

// A name as ruleutils prints it: qualified unless visible (regclassout, pretty indexdef).
std::string RelationNameText(const SystemViewContext& ctx, Oid oid, const RelationName& name, bool qualify_always) {
  if (!qualify_always && PgTableIsVisible(ctx, oid)) return QuoteIdent(name.relname);
  return QuoteIdent(name.nspname) + "." + QuoteIdent(name.relname);
}

// Splits a possibly quoted, possibly qualified name into its parts, folding unquoted parts to
// lower case as the parser does (stringToQualifiedNameList); nullopt on bad syntax.
std::optional<std::vector<std::string>> SplitQualifiedName(std::string_view text) {
  std::vector<std::string> parts;
  size_t i = 0;
  while (true) {
    std::string part;
    if (i < text.size() && text[i] == '"') {
      ++i;
      while (true) {
        if (i >= text.size()) return std::nullopt;
        if (text[i] == '"') {
          if (i + 1 < text.size() && text[i + 1] == '"') part += '"', i += 2;
          else break;
        } else {
          part += text[i++];
        }
      }
      ++i;
      if (part.empty()) return std::nullopt;
    } else {
      while (i < text.size() && text[i] != '.') {
        char c = text[i++];
        part += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      }
      if (part.empty()) return std::nullopt;
    }
    parts.push_back(std::move(part));
    if (i == text.size()) return parts;
    if (text[i] != '.') return std::nullopt;
    ++i;
  }
}

}  // namespace

std::string FormatType(Oid type, std::optional<int32_t> typmod) {
  if (type == 0) return "-";
  auto id = TypeFromOid(type);
  if (!id) return "???";
  const TypeInfo& info = Info(*id);
  int32_t mod = typmod.value_or(-1);
  switch (*id) {
    case TypeId::kBpchar:
      // format_type_extended: bpchar without a typmod keeps its internal name.
      if (typmod && mod < 0) return "bpchar";
      return mod >= 4 ? fmt::format("character({})", mod - 4) : "character";
    case TypeId::kVarchar:
      return mod >= 4 ? fmt::format("character varying({})", mod - 4) : "character varying";
    case TypeId::kNumeric:
      return mod >= 4 ? fmt::format("numeric({},{})", (mod - 4) >> 16, (mod - 4) & 0xffff) : "numeric";
    case TypeId::kTimestamp:
      return mod >= 0 ? fmt::format("timestamp({}) without time zone", mod) : "timestamp without time zone";
    case TypeId::kTimestampTz:
      return mod >= 0 ? fmt::format("timestamp({}) with time zone", mod) : "timestamp with time zone";
    default:
      return std::string(info.sql_name);
  }
}

std::string PgGetUserById(const SystemViewContext& ctx, Oid role) {
  if (const storage::RoleDesc* r = ctx.catalog.RoleByOid(role)) return r->rolname;
  if (role == 6171) return "pg_database_owner";  // built-in, owns the public schema (PG 15)
  return fmt::format("unknown (OID={})", role);
}

bool PgTableIsVisible(const SystemViewContext& ctx, Oid relation) {
  auto name = FindRelationName(ctx, relation);
  if (!name) return false;
  return ResolveBareName(ctx, name->relname) == relation;
}

std::optional<std::string> PgGetIndexdef(const SystemViewContext& ctx, Oid index, int column, bool pretty) {
  const storage::IndexDesc* desc = ctx.catalog.IndexByOid(index);
  if (desc == nullptr) return std::nullopt;
  const storage::TableDesc* table = ctx.catalog.TableByOid(desc->indrelid);
  if (table == nullptr) return std::nullopt;
  auto key_text = [&](const storage::IndexKeyColumn& key, bool with_options) {
    std::string out = QuoteIdent(table->columns[key.attnum - 1].attname);
    if (!with_options) return out;
    // btree's defaults are ASC NULLS LAST and DESC NULLS FIRST; only departures are printed.
    if (key.descending) out += " DESC";
    if (key.descending && !key.nulls_first) out += " NULLS LAST";
    if (!key.descending && key.nulls_first) out += " NULLS FIRST";
    return out;
  };
  if (column > 0) {
    if (static_cast<size_t>(column) > desc->keys.size()) return std::string();
    return key_text(desc->keys[column - 1], false);
  }
  std::string keys;
  for (const storage::IndexKeyColumn& key : desc->keys) {
    keys += (keys.empty() ? "" : ", ") + key_text(key, desc->kind == storage::IndexKind::kBTree);
  }
  std::string table_name = RelationNameText(ctx, table->oid, {NamespaceName(ctx, table->relnamespace), table->relname}, !pretty);
  return fmt::format("CREATE {}INDEX {} ON {} USING {} ({})", desc->indisunique ? "UNIQUE " : "",
                     QuoteIdent(desc->relname), table_name,
                     desc->kind == storage::IndexKind::kHash ? "hash" : "btree", keys);
}

std::optional<std::string> PgGetConstraintdef(const SystemViewContext& ctx, Oid constraint, bool pretty) {
  for (const auto& [oid, t] : ctx.catalog.tables()) {
    for (const storage::ConstraintDesc& c : t.constraints) {
      if (c.oid != constraint) continue;
      if (c.contype == 'c') {
        // check_expr is the non-pretty text, parenthesized as a whole; pretty mode deparses it
        // again without the parentheses PostgreSQL's pretty printer leaves out.
        if (pretty) {
          static const TextOptions kText;
          auto column_type = [&t](std::string_view name) -> std::optional<TypeId> {
            for (const storage::ColumnDesc& column : t.columns) {
              if (!column.attisdropped && column.attname == name) return column.type;
            }
            return std::nullopt;
          };
          if (auto body = PrettyCheck(c.check_expr, column_type, kText)) return "CHECK (" + *body + ")";
          if (c.check_expr.starts_with('(')) return "CHECK " + c.check_expr;
        }
        return "CHECK (" + c.check_expr + ")";
      }
      std::string columns;
      for (int16_t attnum : c.conkey) columns += (columns.empty() ? "" : ", ") + QuoteIdent(t.columns[attnum - 1].attname);
      return fmt::format("{} ({})", c.contype == 'p' ? "PRIMARY KEY" : "UNIQUE", columns);
    }
  }
  return std::nullopt;
}

std::string PgGetExpr(std::string_view expr) { return std::string(expr); }

std::expected<Oid, Error> RegclassIn(const SystemViewContext& ctx, std::string_view text) {
  if (text == "-") return 0;
  if (!text.empty() && std::isdigit(static_cast<unsigned char>(text[0]))) {
    Oid oid = 0;
    for (char c : text) {
      if (!std::isdigit(static_cast<unsigned char>(c)) || oid > 429496729) {
        return std::unexpected(MakeError("22P02", fmt::format("invalid input syntax for type oid: \"{}\"", text)));
      }
      oid = oid * 10 + static_cast<Oid>(c - '0');
    }
    return oid;
  }
  auto parts = SplitQualifiedName(text);
  if (!parts || parts->size() > 3) return std::unexpected(MakeError("42602", "invalid name syntax"));
  const std::string& relname = parts->back();
  auto not_found = [&] { return MakeError("42P01", fmt::format("relation \"{}\" does not exist", text)); };
  if (parts->size() == 1) {
    auto oid = ResolveBareName(ctx, relname);
    if (!oid) return std::unexpected(not_found());
    return *oid;
  }
  if (parts->size() == 3 && (*parts)[0] != ctx.database) {
    return std::unexpected(MakeError("0A000", fmt::format("cross-database references are not implemented: {}", text)));
  }
  const std::string& schema = (*parts)[parts->size() - 2];
  if (ctx.catalog.FindNamespace(schema) == nullptr && schema != "information_schema") {
    return std::unexpected(MakeError("3F000", fmt::format("schema \"{}\" does not exist", schema)));
  }
  auto oid = FindInSchema(ctx, schema, relname);
  if (!oid) return std::unexpected(not_found());
  return *oid;
}

std::string RegclassOut(const SystemViewContext& ctx, Oid relation) {
  if (relation == 0) return "-";
  auto name = FindRelationName(ctx, relation);
  if (!name) return std::to_string(relation);
  return RelationNameText(ctx, relation, *name, false);
}

std::span<const BuiltinDescription> BuiltinDescriptions() {
  static constexpr BuiltinDescription kDescriptions[] = {
      {storage::kPublicNamespace, 2615, "standard public schema"},  // 2615: pg_namespace
  };
  return kDescriptions;
}

std::optional<std::string> ObjDescription(Oid object, std::string_view catalog) {
  const SystemView* view = catalog.empty() ? nullptr : FindSystemView("pg_catalog", catalog);
  for (const BuiltinDescription& d : BuiltinDescriptions()) {
    if (d.objoid == object && (catalog.empty() || (view != nullptr && view->oid() == d.classoid))) {
      return std::string(d.description);
    }
  }
  return std::nullopt;
}

std::string QuoteIdent(std::string_view name) {
  bool safe = !name.empty() && (std::islower(static_cast<unsigned char>(name[0])) || name[0] == '_');
  for (char c : name) {
    safe = safe && (std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_');
  }
  if (safe && std::ranges::find(kQuotedKeywords, name) == kQuotedKeywords.end()) return std::string(name);
  std::string out = "\"";
  for (char c : name) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string PgEncodingToChar(int64_t encoding) {
  if (encoding == 6) return "UTF8";
  if (encoding == 0) return "SQL_ASCII";
  return {};
}

std::optional<std::string> CurrentSchema(const SystemViewContext& ctx) {
  for (const std::string& schema : ctx.search_path) {
    if (ctx.catalog.FindNamespace(schema) != nullptr) return schema;
  }
  return std::nullopt;
}

bool PgRelationIsPublishable(const SystemViewContext& ctx, Oid relation) {
  const storage::TableDesc* t = ctx.catalog.TableByOid(relation);
  return t != nullptr && t->relnamespace != storage::kPgCatalogNamespace && relation >= storage::kFirstNormalOid;
}

std::expected<Oid, Error> RegnamespaceIn(const SystemViewContext& ctx, std::string_view text) {
  if (text == "-") return 0;
  if (!text.empty() && std::isdigit(static_cast<unsigned char>(text[0]))) {
    auto oid = ParseOidNumber(text, TypeId::kRegnamespace);
    if (!oid) return std::unexpected(oid.error());
    return static_cast<Oid>(*oid);
  }
  auto parts = SplitQualifiedName(text);
  if (!parts || parts->size() != 1) return std::unexpected(MakeError("42602", "invalid name syntax"));
  if ((*parts)[0] == "information_schema") return kInformationSchemaNamespace;
  const storage::NamespaceDesc* nsp = ctx.catalog.FindNamespace((*parts)[0]);
  if (nsp == nullptr) return std::unexpected(MakeError("3F000", fmt::format("schema \"{}\" does not exist", (*parts)[0])));
  return nsp->oid;
}

std::string RegnamespaceOut(const SystemViewContext& ctx, Oid nsp) {
  if (nsp == 0) return "-";
  if (nsp == kInformationSchemaNamespace) return "information_schema";
  std::string_view name = NamespaceName(ctx, nsp);
  return name.empty() ? std::to_string(nsp) : QuoteIdent(name);
}

std::vector<std::string> CurrentSchemas(const SystemViewContext& ctx, bool include_implicit) {
  std::vector<std::string> out;
  if (include_implicit && std::ranges::find(ctx.search_path, "pg_catalog") == ctx.search_path.end()) {
    out.emplace_back("pg_catalog");
  }
  for (const std::string& schema : ctx.search_path) {
    if (ctx.catalog.FindNamespace(schema) != nullptr) out.push_back(schema);
  }
  return out;
}

std::expected<Value, Error> ParseTextWithCatalog(TypeId type, std::string_view text, const TextOptions& options,
                                                 const SystemViewContext* catalog) {
  if (catalog == nullptr || (type != TypeId::kRegclass && type != TypeId::kRegnamespace)) return ParseText(type, text, options);
  auto oid = type == TypeId::kRegclass ? RegclassIn(*catalog, text) : RegnamespaceIn(*catalog, text);
  if (!oid) return std::unexpected(oid.error());
  return Value::Int(type, *oid);
}

std::expected<Value, Error> CastWithCatalog(const Value& value, TypeId target, const TextOptions& options,
                                            const SystemViewContext* catalog) {
  if (catalog == nullptr || value.IsNull()) return Cast(value, target, options);
  bool from_string = IsString(value.type) || value.type == TypeId::kUnknown;
  if ((target == TypeId::kRegclass || target == TypeId::kRegnamespace) && from_string) {
    std::string_view text = value.type == TypeId::kBpchar ? TrimTrailingBlanks(value.AsString()) : value.AsString();
    return ParseTextWithCatalog(target, text, options, catalog);
  }
  if ((value.type == TypeId::kRegclass || value.type == TypeId::kRegnamespace) && IsString(target)) {
    // reg*out, then the target's input (name truncates, varchar(n) is the typmod's business).
    Oid oid = static_cast<Oid>(value.AsInt());
    return ParseText(target, value.type == TypeId::kRegclass ? RegclassOut(*catalog, oid) : RegnamespaceOut(*catalog, oid),
                     options);
  }
  return Cast(value, target, options);
}

}  // namespace farmdb::sql
