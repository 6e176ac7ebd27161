// The catalog functions psql's \d family and pgjdbc's DatabaseMetaData call (format_type,
// pg_get_userbyid, pg_table_is_visible, pg_get_indexdef, pg_get_constraintdef, pg_get_expr,
// regclass input and output, quote_ident, pg_encoding_to_char, current_schema), computed from a
// catalog snapshot and the session as PostgreSQL 15 computes them from its catalogs.
//
// Thread-safety: pure functions over an immutable snapshot.
#pragma once

#include <expected>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sql/system/system_view.h"
#include "sql/types/type_io.h"

namespace farmdb::sql {

// format_type(type, typmod): "character varying(10)", "numeric(10,2)", "???" for an unknown
// type, "-" for 0; a NULL typmod (nullopt) prints the bare name as SQL spells it.
std::string FormatType(Oid type, std::optional<int32_t> typmod);
// pg_get_userbyid: the role's name, or "unknown (OID=n)".
std::string PgGetUserById(const SystemViewContext& ctx, Oid role);
// pg_table_is_visible: the relation exists and resolving its bare name along the search path
// finds it (not a same-named relation earlier in the path).
bool PgTableIsVisible(const SystemViewContext& ctx, Oid relation);
// pg_get_indexdef(index, column, pretty): the CREATE INDEX statement (column 0) or the name of
// key column `column`; nullopt (NULL) for an unknown index, "" for a column out of range.
// The table is schema-qualified unless `pretty` and it is visible, as ruleutils does.
std::optional<std::string> PgGetIndexdef(const SystemViewContext& ctx, Oid index, int column, bool pretty);
// pg_get_constraintdef(constraint, pretty): "PRIMARY KEY (id)", "UNIQUE (a, b)", "CHECK (...)";
// nullopt for an unknown constraint.
std::optional<std::string> PgGetConstraintdef(const SystemViewContext& ctx, Oid constraint, bool pretty);
// pg_get_expr(expr, relation): farmdb keeps expressions as the SQL text pg_get_expr would print,
// so the text itself.
std::string PgGetExpr(std::string_view expr);
// regclassin: a (possibly schema-qualified, possibly quoted) relation name along the search
// path, or a number; 42P01 for an unknown relation, 3F000 for an unknown schema.
std::expected<Oid, Error> RegclassIn(const SystemViewContext& ctx, std::string_view text);
// regclassout: the name, schema-qualified when not visible; the number for an unknown oid.
std::string RegclassOut(const SystemViewContext& ctx, Oid relation);
// regnamespacein / regnamespaceout: a schema name (or number); 3F000 for an unknown schema.
std::expected<Oid, Error> RegnamespaceIn(const SystemViewContext& ctx, std::string_view text);
std::string RegnamespaceOut(const SystemViewContext& ctx, Oid nsp);
// current_schemas(include_implicit): the search path's existing schemas, pg_catalog first
// when the path does not name it and implicit ones are asked for.
std::vector<std::string> CurrentSchemas(const SystemViewContext& ctx, bool include_implicit);
// The comments every database has (pg_description): initdb's on the public schema.
struct BuiltinDescription {
  Oid objoid;
  Oid classoid;  // the catalog the object is in (pg_namespace, pg_class, ...)
  std::string_view description;
};
std::span<const BuiltinDescription> BuiltinDescriptions();
// obj_description(object, catalog name): its comment, or nullopt; an empty `catalog` matches
// any (the one-argument form).
std::optional<std::string> ObjDescription(Oid object, std::string_view catalog);
// quote_ident: double-quotes a name unless it is a lower-case identifier and not a keyword.
std::string QuoteIdent(std::string_view name);
// pg_encoding_to_char: "UTF8" for 6, "SQL_ASCII" for 0, "" for any other encoding number.
std::string PgEncodingToChar(int64_t encoding);
// current_schema(): the first schema of the search path that exists, or nullopt (NULL).
std::optional<std::string> CurrentSchema(const SystemViewContext& ctx);
// pg_relation_is_publishable: an ordinary user table.
bool PgRelationIsPublishable(const SystemViewContext& ctx, Oid relation);

// Text input with the catalog at hand: a regclass or regnamespace name resolves through it
// (regclassin, regnamespacein); any other type, or no catalog, is ParseText. For the binder's
// literal coercion ('t'::regclass, which PostgreSQL resolves at parse time).
std::expected<Value, Error> ParseTextWithCatalog(TypeId type, std::string_view text, const TextOptions& options,
                                                 const SystemViewContext* catalog);
// Cast with the catalog at hand: string -> regclass/regnamespace by name, and back as the name
// (c.oid::regclass::text); otherwise, or with no catalog, Cast. For the executor's kCast.
std::expected<Value, Error> CastWithCatalog(const Value& value, TypeId target, const TextOptions& options,
                                            const SystemViewContext* catalog);

}  // namespace farmdb::sql
