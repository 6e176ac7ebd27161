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

  // Clause refusals first, then the expressions, each in the order of the text; subqueries in
  // FROM, WITH and set operations are checked the same way.
  std::optional<Error> Select(const SelectStmt& s) const {
    for (const LockingClause& lock : s.locking) {
      if (lock.wait != LockingClause::Wait::kSkipLocked) continue;
      // Nothing to skip: farmdb's optimistic row locks are taken at commit (bind_locking.cc).
      Error e = MakeError("0A000", "SKIP LOCKED is not supported");
      e.detail = "farmdb's transactions are optimistic: a row lock is checked when its transaction commits, so no "
                 "row is locked while a query runs and none could be skipped.";
      e.hint = "Without SKIP LOCKED, of two transactions that lock one row the second to commit fails with 40001.";
      return e;
    }
    for (const CommonTableExpr& cte : s.with) {
      if (auto e = Select(*cte.query)) return e;
    }
    if (s.left) {
      if (auto e = Select(*s.left)) return e;
    }
    if (s.right) {
      if (auto e = Select(*s.right)) return e;
    }
    for (const TableRefPtr& item : s.from) {
      if (auto e = From(*item)) return e;
    }
    for (const SelectTarget& target : s.targets) {
      if (target.expr->kind == ExprKind::kStar) continue;  // the binder expands it
      if (auto e = Expression(*target.expr)) return e;
    }
    for (const auto& row : s.values) {
      for (const ExprPtr& v : row) {
        if (v->kind == ExprKind::kDefault) continue;  // INSERT's VALUES; the binder refuses it elsewhere
        if (auto e = Expression(*v)) return e;
      }
    }
    for (const Expr* clause : {s.where.get(), s.having.get(), s.limit.get(), s.offset.get()}) {
      if (clause != nullptr) {
        if (auto e = Expression(*clause)) return e;
      }
    }
    for (const ExprPtr& g : s.group_by) {
      if (auto e = Expression(*g)) return e;
    }
    for (const OrderItem& o : s.order_by) {
      if (auto e = Expression(*o.expr)) return e;
    }
    return std::nullopt;
  }

  // The expressions of INSERT, UPDATE and DELETE (and an INSERT's query).
  std::optional<Error> Dml(const StatementNode& node) const {
    std::vector<const Expr*> exprs;
    auto targets = [&](const std::vector<SelectTarget>& list) {
      for (const SelectTarget& t : list) {
        if (t.expr->kind != ExprKind::kStar) exprs.push_back(t.expr.get());
      }
    };
    if (const auto* insert = std::get_if<InsertStmt>(&node)) {
      if (insert->source) {
        if (auto e = Select(*insert->source)) return e;
      }
      if (insert->on_conflict) {
        for (const UpdateSet& set : insert->on_conflict->set) exprs.push_back(set.value.get());
        exprs.push_back(insert->on_conflict->where.get());
      }
      targets(insert->returning);
    } else if (const auto* update = std::get_if<UpdateStmt>(&node)) {
      for (const UpdateSet& set : update->set) exprs.push_back(set.value.get());
      exprs.push_back(update->where.get());
      targets(update->returning);
    } else if (const auto* del = std::get_if<DeleteStmt>(&node)) {
      exprs.push_back(del->where.get());
      targets(del->returning);
    }
    for (const Expr* e : exprs) {
      if (e == nullptr || e->kind == ExprKind::kDefault) continue;
      if (auto err = Expression(*e)) return err;
    }
    return std::nullopt;
  }

 private:
  std::optional<Error> From(const TableRef& item) const {
    switch (item.kind) {
      case TableRef::Kind::kRelation:
        return std::nullopt;
      case TableRef::Kind::kJoin:
        if (auto e = From(*item.left)) return e;
        if (auto e = From(*item.right)) return e;
        return item.on ? Expression(*item.on) : std::nullopt;
      case TableRef::Kind::kSubquery:
        return Select(*item.subquery);
      case TableRef::Kind::kFunction:
        return Expression(*item.function);
    }
    return std::nullopt;
  }

  std::optional<Error> Expression(const Expr& e) const {
    switch (e.kind) {
      case ExprKind::kStar:
        return NotSupported("* in this position", e.location);
      case ExprKind::kExists:
      case ExprKind::kSubquery:
      case ExprKind::kArraySubquery:
        return Select(*e.subquery);
      case ExprKind::kInSubquery:
        if (auto err = Expression(*e.args[0])) return err;
        return Select(*e.subquery);
      case ExprKind::kDefault:
        return NotSupported("this kind of expression");
      case ExprKind::kError:
        return std::nullopt;  // raised by the binder when it reaches it, after FROM's errors
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
  if (std::holds_alternative<InsertStmt>(node) || std::holds_alternative<UpdateStmt>(node) ||
      std::holds_alternative<DeleteStmt>(node)) {
    return check.Dml(node);
  }
  if (const auto* explain = std::get_if<ExplainStmt>(&node)) {
    if (explain->analyze) return check.NotSupported("EXPLAIN ANALYZE");
    const StatementNode& inner = explain->statement->node;
    if (!std::holds_alternative<SelectStmt>(inner) && !std::holds_alternative<InsertStmt>(inner) &&
        !std::holds_alternative<UpdateStmt>(inner) && !std::holds_alternative<DeleteStmt>(inner)) {
      return check.NotSupported("EXPLAIN of this statement");
    }
    return NotRunnable(*explain->statement);
  }
  if (const auto* copy = std::get_if<CopyStmt>(&node)) {
    // COPY of a table fails when it runs (RunCopy), after the statements before it.
    return copy->query ? check.Select(*copy->query) : std::nullopt;
  }
  if (const auto* txn = std::get_if<TransactionStmt>(&node)) {
    std::string_view name = TransactionName(txn->kind);
    return name.empty() ? std::nullopt : std::optional<Error>(check.NotSupported(name));
  }
  // Every other statement kind has an executor (DDL: run_ddl.cc, run_index.cc, run_sequence.cc,
  // run_alter.cc; DML: run_dml.cc).
  return std::nullopt;
}

}  // namespace farmdb::sql
