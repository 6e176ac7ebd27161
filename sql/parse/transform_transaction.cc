// BEGIN / START TRANSACTION / COMMIT / ROLLBACK / SAVEPOINT / RELEASE / ROLLBACK TO, and
// EXPLAIN (two-phase commit: not yet).
#include <fmt/format.h>

#include "sql/parse/transform.h"
#include "sql/types/ascii.h"

namespace farmdb::sql {

std::expected<StatementNode, Error> Transformer::TransformTransaction(const PgQuery__TransactionStmt& stmt) {
  TransactionStmt txn;
  switch (stmt.kind) {
    case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_BEGIN:
      txn.kind = TransactionStmt::Kind::kBegin;
      break;
    case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_START:
      txn.kind = TransactionStmt::Kind::kStart;
      break;
    case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_COMMIT:
      txn.kind = TransactionStmt::Kind::kCommit;
      break;
    case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_ROLLBACK:
      txn.kind = TransactionStmt::Kind::kRollback;
      break;
    case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_SAVEPOINT:
      txn.kind = TransactionStmt::Kind::kSavepoint;
      break;
    case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_RELEASE:
      txn.kind = TransactionStmt::Kind::kRelease;
      break;
    case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_ROLLBACK_TO:
      txn.kind = TransactionStmt::Kind::kRollbackTo;
      break;
    default:
      return std::unexpected(NotSupported("two-phase commit"));
  }
  if (stmt.chain) return std::unexpected(NotSupported("AND CHAIN"));
  if (Given(stmt.savepoint_name)) txn.savepoint = stmt.savepoint_name;
  auto ok = TransformTransactionOptions(stmt.options, stmt.n_options, txn.isolation, txn.read_only);
  if (!ok) return std::unexpected(ok.error());
  return txn;
}

std::expected<ExplainStmt, Error> Transformer::TransformExplain(const PgQuery__ExplainStmt& stmt) {
  ExplainStmt explain;
  for (size_t i = 0; i < stmt.n_options; ++i) {
    const PgQuery__DefElem& opt = *stmt.options[i]->def_elem;
    if (std::string_view(opt.defname) != "analyze") {
      return std::unexpected(NotSupported(fmt::format("EXPLAIN option \"{}\"", opt.defname), opt.location));
    }
    // defGetBoolean: no argument is true; else a Boolean-like string or 0/1 (its error has no position).
    explain.analyze = true;
    if (opt.arg != nullptr && opt.arg->node_case == PG_QUERY__NODE__NODE_STRING) {
      std::string value = AsciiLower(opt.arg->string->sval);
      if (value == "false" || value == "off" || value == "no" || value == "0") {
        explain.analyze = false;
      } else if (value != "true" && value != "on" && value != "yes" && value != "1") {
        return std::unexpected(MakeError("42601", "analyze requires a Boolean value"));
      }
    } else if (opt.arg != nullptr && opt.arg->node_case == PG_QUERY__NODE__NODE_INTEGER) {
      if (opt.arg->integer->ival != 0 && opt.arg->integer->ival != 1) {
        return std::unexpected(MakeError("42601", "analyze requires a Boolean value"));
      }
      explain.analyze = opt.arg->integer->ival == 1;
    }
  }
  auto node = TransformStatement(*stmt.query);
  if (!node) return std::unexpected(node.error());
  explain.statement = std::make_unique<Statement>(Statement{std::move(*node), nullptr, {}});
  return explain;
}

}  // namespace farmdb::sql
