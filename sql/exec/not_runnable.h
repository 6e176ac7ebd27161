// Which parsed statements farmdb cannot run yet, and the error each gives. The parser models
// more than the executor runs (tables, DML, EXPLAIN, savepoints arrive with the storage/SQL
// engine work); until a kind has an executor, running it fails here, at analysis, with the
// error farmdb gave before the parser modelled it: 0A000 naming the statement or clause, and
// 42P01 for the first relation of FROM (no relation exists yet), in that order, as the
// transform stage used to check them. Remove cases here as executors arrive.
//
// Thread-safety: pure function of the statement.
#pragma once

#include <optional>

#include "sql/parse/ast.h"

namespace farmdb::sql {

// The error running `statement` gives, or nullopt when an executor exists for it.
std::optional<Error> NotRunnable(const Statement& statement);

}  // namespace farmdb::sql
