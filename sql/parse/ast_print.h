// A compact, deterministic, SQL-like rendering of farmdb's AST: every node written out
// explicitly (operators parenthesised, output names as AS, defaults left out), for tests,
// debugging and, later, EXPLAIN. Not meant to be re-parsed verbatim.
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "sql/parse/ast.h"

namespace farmdb::sql {

std::string ToString(const Expr& expr);
std::string ToString(const SelectStmt& select);
std::string ToString(const StatementNode& node);
// "FOR UPDATE", "FOR NO KEY UPDATE", "FOR SHARE", "FOR KEY SHARE" (PostgreSQL's LCS_asString).
std::string_view ToString(LockingClause::Strength strength);

}  // namespace farmdb::sql
