// SET / RESET / SHOW, with PostgreSQL's warnings for transaction-scoped forms used outside a
// transaction block.
#include "sql/exec/run_statement.h"

namespace farmdb::sql {
namespace {

void Warn(ResultSink& sink, std::string message) {
  Notice n;
  n.severity = "WARNING";
  n.sqlstate = "25P01";
  n.message = std::move(message);
  sink.Notice(n);
}

std::expected<void, Error> SetTransaction(const SetStmt& stmt, Settings& settings, TransactionBlock& txn) {
  if (stmt.isolation) {
    if (txn.ran_query()) {
      return std::unexpected(MakeError("25001", "SET TRANSACTION ISOLATION LEVEL must be called before any query"));
    }
    if (auto ok = settings.Set("transaction_isolation", *stmt.isolation, true); !ok) return ok;
  }
  if (stmt.read_only) {
    if (auto ok = settings.Set("transaction_read_only", *stmt.read_only ? "on" : "off", true); !ok) return ok;
  }
  return {};
}

}  // namespace

std::expected<StatementOutput, Error> RunSet(const SetStmt& stmt, Settings& settings, TransactionBlock& txn,
                                             ResultSink& sink) {
  StatementOutput out;
  out.tag = "SET";
  std::expected<void, Error> ok;
  switch (stmt.kind) {
    case SetStmt::Kind::kValue: {
      if (stmt.is_local && !txn.InTransactionBlock()) Warn(sink, "SET LOCAL can only be used in transaction blocks");
      auto value = settings.FlattenArgs(stmt.name, stmt.args);
      if (!value) return std::unexpected(value.error());
      if (stmt.name == "transaction_isolation" && txn.ran_query()) {
        return std::unexpected(MakeError("25001", "SET TRANSACTION ISOLATION LEVEL must be called before any query"));
      }
      ok = settings.Set(stmt.name, std::move(*value), stmt.is_local);
      break;
    }
    case SetStmt::Kind::kDefault:
      if (stmt.is_local && !txn.InTransactionBlock()) Warn(sink, "SET LOCAL can only be used in transaction blocks");
      ok = settings.Set(stmt.name, std::nullopt, stmt.is_local);
      break;
    case SetStmt::Kind::kReset:
      out.tag = "RESET";
      ok = settings.Set(stmt.name, std::nullopt, false);
      break;
    case SetStmt::Kind::kResetAll:
      out.tag = "RESET";
      settings.ResetAll();
      break;
    case SetStmt::Kind::kTransaction:
      if (!txn.InTransactionBlock()) Warn(sink, "SET TRANSACTION can only be used in transaction blocks");
      ok = SetTransaction(stmt, settings, txn);
      break;
    case SetStmt::Kind::kTransactionSnapshot:
      if (!txn.InTransactionBlock()) Warn(sink, "SET TRANSACTION can only be used in transaction blocks");
      ok = txn.ImportSnapshot(stmt.args[0].text);
      break;
    case SetStmt::Kind::kSessionCharacteristics:
      if (stmt.isolation) ok = settings.Set("default_transaction_isolation", *stmt.isolation, false);
      if (ok && stmt.read_only) ok = settings.Set("default_transaction_read_only", *stmt.read_only ? "on" : "off", false);
      break;
  }
  if (!ok) return std::unexpected(ok.error());
  return out;
}

std::vector<std::string> ShowColumnNames(const ShowStmt& stmt, const Settings& settings) {
  if (stmt.name == "all") return {"name", "setting", "description"};
  return {settings.DisplayName(stmt.name)};
}

std::expected<StatementOutput, Error> RunShow(const ShowStmt& stmt, Settings& settings) {
  StatementOutput out;
  out.tag = "SHOW";
  if (stmt.name == "all") {
    for (const Settings::Row& row : settings.All()) {
      out.rows.push_back({Value::Str(TypeId::kText, row.name), Value::Str(TypeId::kText, row.setting),
                          Value::Str(TypeId::kText, row.description)});
    }
    return out;
  }
  auto value = settings.Get(stmt.name, false);
  if (!value) return std::unexpected(value.error());
  out.rows.push_back({Value::Str(TypeId::kText, std::move(**value))});
  return out;
}

std::expected<StatementOutput, Error> RunTransaction(const TransactionStmt& stmt, Settings& settings,
                                                     TransactionBlock& txn, ResultSink& sink) {
  StatementOutput out;
  switch (stmt.kind) {
    case TransactionStmt::Kind::kBegin:
    case TransactionStmt::Kind::kStart: {
      out.tag = stmt.kind == TransactionStmt::Kind::kBegin ? "BEGIN" : "START TRANSACTION";
      if (auto warning = txn.Begin()) {
        sink.Notice(*warning);
        return out;  // the open block keeps its characteristics
      }
      SetStmt characteristics;
      characteristics.isolation = stmt.isolation;
      characteristics.read_only = stmt.read_only;
      if (auto ok = SetTransaction(characteristics, settings, txn); !ok) return std::unexpected(ok.error());
      return out;
    }
    case TransactionStmt::Kind::kCommit:
    case TransactionStmt::Kind::kRollback: {
      auto end = stmt.kind == TransactionStmt::Kind::kCommit ? txn.Commit() : txn.Rollback();
      if (end.warning) sink.Notice(*end.warning);
      if (end.error) return std::unexpected(std::move(*end.error));
      out.tag = end.tag;
      return out;
    }
    case TransactionStmt::Kind::kSavepoint:
    case TransactionStmt::Kind::kRelease:
    case TransactionStmt::Kind::kRollbackTo:
      // Refused at analysis (not_runnable.cc) until savepoints exist.
      return std::unexpected(MakeError("0A000", "savepoints are not supported yet"));
  }
  return out;
}

}  // namespace farmdb::sql
