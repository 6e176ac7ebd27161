// Evaluation of the catalog functions and regex match operators (bound by
// bind_catalog_function.cc).
//
// Functions that read the catalog (pg_get_indexdef, pg_table_is_visible, ...) take it from
// CatalogContext(ctx): the statement's catalog snapshot and session; in a statement without one
// they fail with 0A000. The others (format_type, quote_ident, the regex operators, ...) need
// nothing more than ExecContext.
//
// Thread-safety: as Evaluate.
#pragma once

#include <expected>
#include <optional>
#include <span>

#include "sql/exec/evaluate.h"
#include "sql/system/system_view.h"

namespace farmdb::sql {

bool IsCatalogFunction(Function function);
std::expected<Value, Error> EvalCatalogFunction(const BoundExpr& e, std::span<const Value> args, ExecContext& ctx);
// The same, given the catalog context explicitly (tests; what EvalCatalogFunction calls).
std::expected<Value, Error> EvalCatalogFunction(const BoundExpr& e, std::span<const Value> args,
                                                const SystemViewContext* catalog);
// The statement's catalog and session (ExecContext::db), or nullopt for a statement that
// touches no table and so has no catalog snapshot.
std::optional<SystemViewContext> CatalogContext(const ExecContext& ctx);
// A cast to or from regclass: by name through the statement's catalog (CastWithCatalog), by
// number without one.
std::expected<Value, Error> CastRegclass(const Value& value, TypeId target, const ExecContext& ctx);

}  // namespace farmdb::sql
