#include "sql/exec/not_runnable.h"

#include <fmt/format.h>

namespace farmdb::sql {
namespace {

class Checker {
 public:
  explicit Checker(std::string_view source) : source_(source) {}

  Error At(std::string sqlstate, std::string message, int location) const {
    Error e = MakeError(std::move(sqlstate), std::move(message));
    e.position = CharPosition(source_, location);
    return e;
  }
  Error NotSupported(std::string_view what, int location = -1) const {
    return At("0A000", fmt::format("{} is not supported yet", what), location);
  }

  // Clause refusals first, then FROM, then the expressions, each in the order of the text.
  std::optional<Error> Select(const SelectStmt& s) const {
    if (s.op != SelectStmt::SetOp::kNone) return NotSupported("UNION/INTERSECT/EXCEPT");
    if (!s.values.empty()) return NotSupported("VALUES");
    if (!s.with.empty()) return NotSupported("WITH");
    if (s.distinct) return NotSupported("SELECT DISTINCT");
    if (!s.group_by.empty() || s.having) return NotSupported("GROUP BY");
    if (!s.order_by.empty()) return NotSupported("ORDER BY");
    if (s.limit || s.offset) return NotSupported("LIMIT/OFFSET");
    if (!s.locking.empty()) return NotSupported("FOR UPDATE/SHARE");
    for (const TableRefPtr& item : s.from) {
      if (auto e = From(*item)) return e;
    }
    for (const SelectTarget& target : s.targets) {
      if (auto e = Expression(*target.expr)) return e;
    }
    if (s.where) return Expression(*s.where);
    return std::nullopt;
  }

 private:
  std::optional<Error> From(const TableRef& item) const {
    switch (item.kind) {
      case TableRef::Kind::kRelation:
        return At("42P01", fmt::format("relation \"{}\" does not exist", item.relation.name), item.relation.location);
      case TableRef::Kind::kJoin:
        if (auto e = From(*item.left)) return e;
        return From(*item.right);
      case TableRef::Kind::kSubquery:
        if (auto e = Select(*item.subquery)) return e;
        return NotSupported("this FROM item");
    }
    return std::nullopt;
  }

  std::optional<Error> Expression(const Expr& e) const {
    switch (e.kind) {
      case ExprKind::kStar:
        return At("42601", "SELECT * with no tables specified is not valid", e.location);
      case ExprKind::kInList:
        return NotSupported("IN (...)", e.location);
      case ExprKind::kLike:
        return NotSupported("pattern matching", e.location);
      case ExprKind::kBetween:
        return NotSupported("this operator form", e.location);
      case ExprKind::kExists:
      case ExprKind::kSubquery:
      case ExprKind::kInSubquery:
        return NotSupported("subqueries", e.location);
      case ExprKind::kDefault:
        return NotSupported("this kind of expression");
      case ExprKind::kError:
        return *e.error;
      case ExprKind::kFunction:
        if (e.agg_star || e.distinct) return NotSupported("aggregate and window function syntax", e.location);
        break;
      default:
        break;
    }
    for (const ExprPtr& arg : e.args) {
      if (auto err = Expression(*arg)) return err;
    }
    return std::nullopt;
  }

  std::string_view source_;
};

std::string_view TransactionName(TransactionStmt::Kind kind) {
  switch (kind) {
    case TransactionStmt::Kind::kSavepoint:
      return "SAVEPOINT";
    case TransactionStmt::Kind::kRelease:
      return "RELEASE SAVEPOINT";
    case TransactionStmt::Kind::kRollbackTo:
      return "ROLLBACK TO SAVEPOINT";
    default:
      return {};
  }
}

}  // namespace

std::optional<Error> NotRunnable(const Statement& statement) {
  Checker check(statement.source != nullptr ? std::string_view(*statement.source) : std::string_view());
  const StatementNode& node = statement.node;
  if (const auto* unsupported = std::get_if<UnsupportedStmt>(&node)) return unsupported->error;
  if (const auto* select = std::get_if<SelectStmt>(&node)) return check.Select(*select);
  if (const auto* copy = std::get_if<CopyStmt>(&node)) {
    // COPY table fails when it runs (42P01 from RunCopy), after the statements before it.
    return copy->query ? check.Select(*copy->query) : std::nullopt;
  }
  if (const auto* txn = std::get_if<TransactionStmt>(&node)) {
    std::string_view name = TransactionName(txn->kind);
    return name.empty() ? std::nullopt : std::optional<Error>(check.NotSupported(name));
  }
  // Statement kinds without an executor, named as PostgreSQL's command tag names them. DDL
  // runs (run_ddl.cc, run_index.cc, run_sequence.cc, run_alter.cc).
  std::string_view name = std::visit(
      [](const auto& stmt) -> std::string_view {
        using T = std::decay_t<decltype(stmt)>;
        if constexpr (std::is_same_v<T, InsertStmt>) return "INSERT";
        else if constexpr (std::is_same_v<T, UpdateStmt>) return "UPDATE";
        else if constexpr (std::is_same_v<T, DeleteStmt>) return "DELETE";
        else if constexpr (std::is_same_v<T, ExplainStmt>) return "EXPLAIN";
        else return {};
      },
      node);
  if (name.empty()) return std::nullopt;
  return check.NotSupported(name);
}

}  // namespace farmdb::sql
