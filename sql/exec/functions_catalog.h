// Evaluation of the catalog functions and regex match operators (bound by
// bind_catalog_function.cc), and the catalog-aware regclass input and casts.
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

// Text input with the catalog at hand: a regclass name resolves through it (regclassin); any
// other type, or no catalog, is ParseText. For the binder's literal coercion ('t'::regclass,
// which PostgreSQL resolves at parse time).
std::expected<Value, Error> ParseTextWithCatalog(TypeId type, std::string_view text, const TextOptions& options,
                                                 const SystemViewContext* catalog);
// Cast with the catalog at hand: string -> regclass by name, regclass -> string as the name
// (c.oid::regclass::text); otherwise, or with no catalog, Cast. For the executor's kCast.
std::expected<Value, Error> CastWithCatalog(const Value& value, TypeId target, const TextOptions& options,
                                            const SystemViewContext* catalog);

}  // namespace farmdb::sql
