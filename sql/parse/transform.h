// Internal to sql/parse: turns libpg_query's protobuf-c tree into farmdb's AST (ast.h).
// One file per statement kind (transform_select.cc, transform_set.cc, ...), as in DuckDB.
//
// Thread-safety: a Transformer is used by one thread for one Parse call.
#pragma once

#include <expected>
#include <string_view>
#include <utility>
#include <vector>

#include <pg_query/pg_query.pb-c.h>

#include "sql/parse/ast.h"

namespace farmdb::sql {

class Transformer {
 public:
  explicit Transformer(std::string_view source) : source_(source) {}

  std::expected<StatementNode, Error> TransformStatement(const PgQuery__Node& node);
  std::expected<SelectStmt, Error> TransformSelect(const PgQuery__SelectStmt& stmt);
  std::expected<StatementNode, Error> TransformSet(const PgQuery__VariableSetStmt& stmt);
  ShowStmt TransformShow(const PgQuery__VariableShowStmt& stmt);
  std::expected<StatementNode, Error> TransformTransaction(const PgQuery__TransactionStmt& stmt);
  std::expected<CopyStmt, Error> TransformCopy(const PgQuery__CopyStmt& stmt);
  std::expected<ExprPtr, Error> TransformExpr(const PgQuery__Node& node);

  // Transaction characteristics (ISOLATION LEVEL / READ ONLY) of BEGIN and SET TRANSACTION.
  std::expected<void, Error> TransformTransactionOptions(PgQuery__Node** options, size_t n,
                                                         std::optional<std::string>& isolation,
                                                         std::optional<bool>& read_only);

  Error ErrorAt(std::string sqlstate, std::string message, int location) const;
  Error NotSupported(std::string_view what, int location = -1) const;
  // Warnings of the statement transformed last (then cleared).
  std::vector<Notice> TakeWarnings() { return std::exchange(warnings_, {}); }

 private:
  std::expected<ExprPtr, Error> TransformConst(const PgQuery__AConst& node);
  std::expected<ExprPtr, Error> TransformAExpr(const PgQuery__AExpr& node);
  std::expected<ExprPtr, Error> TransformFuncCall(const PgQuery__FuncCall& node);
  std::expected<ExprPtr, Error> TransformCase(const PgQuery__CaseExpr& node);
  std::expected<ExprPtr, Error> TransformTypeCast(const PgQuery__TypeCast& node);
  std::expected<ExprPtr, Error> TransformList(ExprKind kind, PgQuery__Node** items, size_t n, int location);

  std::string_view source_;
  std::vector<Notice> warnings_;
};

// The last name of a dotted name list (String nodes), e.g. pg_catalog.int4 -> "int4".
std::string_view LastName(PgQuery__Node** names, size_t n);
// PostgreSQL's FigureColname for a target expression without alias.
std::string FigureColumnName(const PgQuery__Node* node);

}  // namespace farmdb::sql
