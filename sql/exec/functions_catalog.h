// Evaluation of the catalog functions and regex match operators (bound by
// bind_catalog_function.cc), and the catalog-aware casts text -> regclass -> text.
//
// Functions that read the catalog (pg_get_indexdef, pg_table_is_visible, regclass by name, ...)
// take it from CatalogContext(ctx): the statement's catalog snapshot and session. Until the
// ExecContext carries one, those fail with 0A000 naming the function; the others (format_type,
// quote_ident, the regex operators, current_user, ...) need nothing more than ExecContext.
//
// Thread-safety: as Evaluate.
#pragma once

#include <expected>
#include <span>

#include "sql/exec/evaluate.h"
#include "sql/system/system_view.h"

namespace farmdb::sql {

bool IsCatalogFunction(Function function);
std::expected<Value, Error> EvalCatalogFunction(const BoundExpr& e, std::span<const Value> args, ExecContext& ctx);
// The same, given the catalog context explicitly (tests; what EvalCatalogFunction calls).
std::expected<Value, Error> EvalCatalogFunction(const BoundExpr& e, std::span<const Value> args,
                                                const SystemViewContext* catalog);
// The statement's catalog and session for the functions above, or nullptr when the ExecContext
// has none (the integrator's database context on ExecContext supplies it).
const SystemViewContext* CatalogContext(const ExecContext& ctx);

}  // namespace farmdb::sql
