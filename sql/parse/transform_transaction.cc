// BEGIN / START TRANSACTION / COMMIT / ROLLBACK (savepoints and two-phase commit: not yet).
#include "sql/parse/transform.h"

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
      return std::unexpected(NotSupported("SAVEPOINT"));
    case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_RELEASE:
      return std::unexpected(NotSupported("RELEASE SAVEPOINT"));
    case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_ROLLBACK_TO:
      return std::unexpected(NotSupported("ROLLBACK TO SAVEPOINT"));
    default:
      return std::unexpected(NotSupported("two-phase commit"));
  }
  if (stmt.chain) return std::unexpected(NotSupported("AND CHAIN"));
  auto ok = TransformTransactionOptions(stmt.options, stmt.n_options, txn.isolation, txn.read_only);
  if (!ok) return std::unexpected(ok.error());
  return txn;
}

}  // namespace farmdb::sql
