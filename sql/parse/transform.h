// Internal to sql/parse: turns libpg_query's protobuf-c tree into farmdb's AST (ast.h).
// One file per statement family (transform_select.cc, transform_ddl.cc, transform_dml.cc, ...), as in
// DuckDB. What farmdb does not model fails with 0A000 naming the construct, never silently dropped.
//
// Thread-safety: a Transformer is used by one thread for one Parse call.
#pragma once

#include <expected>
#include <memory>
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
  // Queries (transform_select.cc, transform_from.cc).
  std::expected<SelectStmt, Error> TransformSelect(const PgQuery__SelectStmt& stmt);
  std::expected<std::unique_ptr<SelectStmt>, Error> TransformSubquery(const PgQuery__Node& node);
  std::expected<std::vector<SelectTarget>, Error> TransformTargets(PgQuery__Node** targets, size_t n);
  std::expected<TableRefPtr, Error> TransformFromItem(const PgQuery__Node& node);
  // Statements (one file per family).
  std::expected<StatementNode, Error> TransformSet(const PgQuery__VariableSetStmt& stmt);
  ShowStmt TransformShow(const PgQuery__VariableShowStmt& stmt);
  std::expected<StatementNode, Error> TransformTransaction(const PgQuery__TransactionStmt& stmt);
  std::expected<CopyStmt, Error> TransformCopy(const PgQuery__CopyStmt& stmt);
  std::expected<CreateTableStmt, Error> TransformCreateTable(const PgQuery__CreateStmt& stmt);
  std::expected<AlterTableStmt, Error> TransformAlterTable(const PgQuery__AlterTableStmt& stmt);
  std::expected<DropStmt, Error> TransformDrop(const PgQuery__DropStmt& stmt);
  std::expected<CreateIndexStmt, Error> TransformCreateIndex(const PgQuery__IndexStmt& stmt);
  std::expected<TruncateStmt, Error> TransformTruncate(const PgQuery__TruncateStmt& stmt);
  std::expected<CreateSequenceStmt, Error> TransformCreateSequence(const PgQuery__CreateSeqStmt& stmt);
  std::expected<InsertStmt, Error> TransformInsert(const PgQuery__InsertStmt& stmt);
  std::expected<UpdateStmt, Error> TransformUpdate(const PgQuery__UpdateStmt& stmt);
  std::expected<DeleteStmt, Error> TransformDelete(const PgQuery__DeleteStmt& stmt);
  std::expected<ExplainStmt, Error> TransformExplain(const PgQuery__ExplainStmt& stmt);
  std::expected<ExprPtr, Error> TransformExpr(const PgQuery__Node& node);
  // An expression of a clause (a target, WHERE, a VALUES item, SET value, DEFAULT, CHECK ...):
  // a failed transform becomes a kError node, raised when the statement is analysed, so errors
  // PostgreSQL's analysis raises first (42P01 for a missing FROM relation) still come first.
  ExprPtr ClauseExpr(const PgQuery__Node& node);
  ExprPtr OptionalClauseExpr(const PgQuery__Node* node);  // null stays null
  std::expected<QualifiedName, Error> TransformRangeVar(const PgQuery__RangeVar& var);
  std::expected<Constraint, Error> TransformConstraint(const PgQuery__Constraint& c);
  std::expected<ColumnDef, Error> TransformColumnDef(const PgQuery__ColumnDef& def);

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
  std::expected<ExprPtr, Error> TransformCollate(const PgQuery__CollateClause& node);
  std::expected<ExprPtr, Error> TransformTypeCast(const PgQuery__TypeCast& node);
  std::expected<ExprPtr, Error> TransformSqlValueFunction(const PgQuery__SQLValueFunction& node);
  std::expected<ExprPtr, Error> TransformList(ExprKind kind, PgQuery__Node** items, size_t n, int location);
  std::expected<ExprPtr, Error> TransformSubLink(const PgQuery__SubLink& node);
  // ORDER BY items (SortBy nodes) of a query, a window or an aggregate call.
  std::expected<std::vector<OrderItem>, Error> TransformSortItems(PgQuery__Node** items, size_t n);
  // transform_row.cc: row comparisons and row IN lists, over the rows' elements.
  std::expected<ExprPtr, Error> TransformRowCompare(std::string_view op, const PgQuery__RowExpr& left,
                                                    const PgQuery__RowExpr& right, int location);
  std::expected<ExprPtr, Error> TransformRowIn(const PgQuery__RowExpr& left, PgQuery__Node** items, size_t n,
                                               bool negated, int location);
  // transform_array.cc and transform_window.cc.
  std::expected<ExprPtr, Error> TransformArrayExpr(const PgQuery__AArrayExpr& node);
  std::expected<ExprPtr, Error> TransformIndirection(const PgQuery__AIndirection& node);
  std::expected<ExprPtr, Error> TransformAnyAll(const PgQuery__AExpr& node);
  std::expected<std::unique_ptr<WindowSpec>, Error> TransformWindowSpec(const PgQuery__WindowDef& def);
  std::expected<ExprPtr, Error> TransformColumnRef(const PgQuery__ColumnRef& ref);
  std::expected<std::vector<UpdateSet>, Error> TransformUpdateSet(PgQuery__Node** targets, size_t n);

  std::string_view source_;
  std::vector<Notice> warnings_;
};

// A node of `kind` at `location`; the caller fills in the rest.
inline ExprPtr MakeExpr(ExprKind kind, int location) {
  auto e = std::make_unique<Expr>();
  e->kind = kind;
  e->location = location;
  return e;
}

// Whether `node` is a row constructor, (a, b) or ROW(a, b) (transform_row.cc).
bool IsRow(const PgQuery__Node* node);
// Whether an optional string field of the parse tree was given.
inline bool Given(const char* s) { return s != nullptr && *s != '\0'; }
// The names of a list of String nodes (column lists, dotted names).
std::vector<std::string> StringList(PgQuery__Node** names, size_t n);
// The last name of a dotted name list (String nodes), e.g. pg_catalog.int4 -> "int4".
std::string_view LastName(PgQuery__Node** names, size_t n);
// NULLS FIRST/LAST of ORDER BY and index columns.
OrderItem::Nulls NullsOrder(PgQuery__SortByNulls nulls);
// PostgreSQL's FigureColname for a target expression without alias.
std::string FigureColumnName(const PgQuery__Node* node);

}  // namespace farmdb::sql
