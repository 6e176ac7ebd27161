// The statement's catalog as the catalog functions (functions_catalog.cc) and regclass casts see
// it. The functions themselves are data-described built-ins: CatalogFunctions() and
// RegexOperators() in builtins.h.
//
// Functions that read the catalog (pg_get_indexdef, pg_table_is_visible, ...) take it from
// CatalogContext(ctx): the statement's catalog snapshot and session. The binder loads the
// catalog for any statement calling one of CatalogFunctions(), so a statement without one only
// arises outside a session (0A000).
//
// Thread-safety: as Evaluate.
#pragma once

#include <expected>
#include <optional>

#include "sql/exec/evaluate.h"
#include "sql/system/system_view.h"

namespace farmdb::sql {

// The statement's catalog and session (ExecContext::db), or nullopt for a statement that has no
// catalog snapshot.
std::optional<SystemViewContext> CatalogContext(const ExecContext& ctx);
// A cast to or from regclass: by name through the statement's catalog (CastWithCatalog), by
// number without one.
std::expected<Value, Error> CastRegclass(const Value& value, TypeId target, const ExecContext& ctx);

}  // namespace farmdb::sql
