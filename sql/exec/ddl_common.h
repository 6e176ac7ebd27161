// What the DDL executors (run_ddl.cc, run_index.cc, run_sequence.cc, run_alter.cc) share:
// error wording with positions, catalog errors as client errors, the read-only check, name
// resolution along search_path, and column types and defaults as CREATE TABLE and ALTER TABLE
// ADD COLUMN resolve them.
//
// Thread-safety: plain functions over the caller's DdlContext (the session's thread).
#pragma once

#include <expected>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sql/exec/run_statement.h"

namespace farmdb::sql {

Error At(std::string sqlstate, std::string message, const DdlContext& ctx, int location);
Error NotSupported(std::string_view what, const DdlContext& ctx, int location);
// simple_quote_literal with standard_conforming_strings on: quotes doubled.
std::string QuoteLiteral(std::string_view s);
// FromCatalog and SearchPath are declared in run_statement.h (DML uses them); storage failures
// map through StorageFailure (scan_cursor.h); the read-only check is RequireWritable
// (transaction_block.h).

// The schema an unqualified CREATE puts its relation in (RangeVarGetCreationNamespace).
std::expected<std::string, Error> CreationNamespace(const storage::CatalogSnapshot& snapshot,
                                                    const Settings& settings);
// The schema a new relation named `name` goes to: the written one, else the creation namespace.
std::expected<std::string, Error> TargetNamespace(const storage::CatalogSnapshot& snapshot, const QualifiedName& name,
                                                  const DdlContext& ctx);

// A relation name resolved as RangeVarGetRelid does: a written schema must exist (3F000),
// else search_path. nullopt when no relation has the name.
std::expected<std::optional<storage::RelationRef>, Error> LookupRelation(const storage::CatalogSnapshot& snapshot,
                                                                         const QualifiedName& name,
                                                                         const DdlContext& ctx);
// A table by name (TRUNCATE): 42P01 when missing (no position, as PostgreSQL), 42809
// `"x" is not a table` for an index or sequence. nullptr (no error) when missing and
// `missing_ok`.
std::expected<const storage::TableDesc*, Error> LookupTable(const storage::CatalogSnapshot& snapshot,
                                                            const QualifiedName& name, bool missing_ok,
                                                            const DdlContext& ctx);

// DROP TABLE / INDEX / SEQUENCE: every name resolved before anything is dropped (as
// RemoveRelations does), duplicates once. A missing one is an error (42P01 table and sequence,
// 42704 index; 3F000 schema), or with IF EXISTS a NOTICE "..., skipping" added to `out`; one
// of another kind is 42809 with PostgreSQL's HINT naming the right DROP.
std::expected<std::vector<Oid>, Error> ResolveDropTargets(const storage::CatalogSnapshot& snapshot,
                                                          const DropStmt& stmt, storage::RelationRef::Kind kind,
                                                          StatementOutput& out, const DdlContext& ctx);

// A PRIMARY KEY or UNIQUE constraint's index over `columns` (its name: the constraint's).
storage::IndexDef KeyDef(const Constraint& c, std::vector<std::string> columns);
// A CHECK constraint deparsed against the table's columns (their types by name).
std::expected<storage::CheckDef, Error> CheckFor(const Constraint& c,
                                                 std::function<std::optional<TypeId>(std::string_view)> column_type,
                                                 const DdlContext& ctx);

// A unique index or key build that met a duplicate (23505 "could not create unique index"):
// PostgreSQL's DETAIL `Key (a, b)=(1, x) is duplicated.` for the smallest duplicated key of
// `attnums` among the table's rows as `ctx.txn` sees them ("" if none is found).
std::string DuplicateKeyDetail(const storage::TableDesc& table, const std::vector<int16_t>& attnums, DdlContext& ctx);

struct ResolvedType {
  TypeId type;
  int32_t typmod = -1;
  bool serial = false;
};
// A column's type as written: TypeFromName plus typmods; serial, bigserial and smallserial
// (unqualified only, as in PostgreSQL) become int4/int8/int2 with a sequence.
std::expected<ResolvedType, Error> ResolveType(const TypeName& t, const DdlContext& ctx);

// A column DEFAULT as pg_get_expr prints it (constants without the implicit cast to the
// column's type; other expressions through Deparse). nullopt for DEFAULT NULL (PostgreSQL
// stores no default for it).
struct DefaultExpr {
  std::string text;
  bool is_volatile = false;  // nextval(), random(): not evaluated once for old rows
};
// Errors as PostgreSQL's cookDefault: 42804 when the expression's type has no assignment cast
// to the column's, 42P01 for a nextval('name') of no relation.
std::expected<std::optional<DefaultExpr>, Error> ResolveDefault(const Expr& e, std::string_view column_name,
                                                                TypeId column, DdlContext& ctx);

}  // namespace farmdb::sql
