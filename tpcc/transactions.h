// transactions: the five TPC-C transactions (Clauses 2.4 to 2.8) as prepared statements run in
// a few batches each (a batch is one round trip when the connection pipelines).
//
// Written to be correct without SELECT ... FOR UPDATE, at READ COMMITTED on PostgreSQL and at
// any level on farmdb: every read-modify-write of a shared row is one UPDATE ... RETURNING
// (d_next_o_id, the YTD totals, balances, stock), which PostgreSQL re-evaluates on the newest
// row version after waiting for its lock and farmdb validates at commit; Delivery claims an
// order by deleting its new_order row and skips the district when the DELETE found nothing,
// because a concurrent Delivery claimed it first. Stock rows are updated in (warehouse, item)
// order so that two New-Orders on PostgreSQL cannot deadlock on them. Order-Status and
// Stock-Level run READ ONLY, which makes farmdb's commit a no-op (no validation, no abort).
#pragma once

#include "tpcc/inputs.h"
#include "tpcc/pg.h"

namespace farmdb::tpcc {

struct Outcome {
  bool rolled_back = false;  // a New-Order with an unused item, rolled back as the spec asks
  int skipped_districts = 0;  // Delivery: districts with no order to deliver
};

// Prepares every statement the transactions use on this connection.
PgResult<void> PrepareStatements(Connection& conn);

// Runs one transaction from BEGIN to COMMIT (or the intended ROLLBACK). On an error the caller
// must ROLLBACK: the block may still be open.
PgResult<Outcome> Execute(Connection& conn, const Input& input);

}  // namespace farmdb::tpcc
