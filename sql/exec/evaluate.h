// Evaluation of bound expressions for one row (for now: the constant row of a SELECT).
//
// Thread-safety: an ExecContext belongs to one running statement on the session's thread; it
// reads the CancelFlag, which other threads may set.
#pragma once

#include <chrono>
#include <expected>
#include <span>
#include <unordered_map>
#include <vector>

#include "sql/bind/bound_expr.h"
#include "sql/session.h"
#include "sql/settings/settings.h"
#include "sql/system/cluster_stats.h"
#include "sql/types/type_io.h"
#include "storage/catalog_snapshot.h"
#include "txn/txn.h"

namespace farmdb::sql {

class TransactionBlock;

// What statements over tables run against: the statement's transaction, the catalog snapshot it
// was analysed under, and the session's machine's caches.
struct DatabaseAccess {
  txn::Txn* txn = nullptr;
  storage::SnapshotPtr catalog;
  txn::Addr catalog_root;  // the object `catalog` was read from (FOR SHARE of a system view)
  storage::TableCaches caches;
  std::string_view database;  // the session's database and user (system views)
  std::span<const std::string> databases;  // every database the engine serves (pg_database)
  std::string_view user;
  std::span<const std::string> search_path;  // schema names, as resolved for this statement
  const ClusterStatsSource* cluster = nullptr;  // the node, for farmdb_stat_* views
  // The session's last nextval per sequence (currval); null outside a session.
  std::unordered_map<Oid, int64_t>* sequence_values = nullptr;

  // The handle over `descriptor` with `caches`, made once and kept for later statements (the
  // session's DatabaseAccess outlives them). Making one per scan cost an allocation for its
  // index handles and two updates of the descriptor's reference count, which every connection
  // shares: 46 per New-Order, one per statement and per inner row of a nested loop. Past
  // kMaxTables (old catalog versions' descriptors pile up) the set starts afresh; holders keep
  // theirs alive.
  std::shared_ptr<const storage::Table> TableFor(const std::shared_ptr<const storage::TableDescriptor>& descriptor);

 private:
  static constexpr size_t kMaxTables = 32;
  std::vector<std::shared_ptr<const storage::Table>> tables_;
};

struct ExecContext {
  std::span<const Value> params;
  Settings& settings;
  CancelFlag* cancel = nullptr;
  // statement_timeout's deadline (time_point::max() when off).
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  TextOptions output;
  // The session's transaction, for functions that act on it (pg_export_snapshot); null when
  // there is none (e.g. evaluation outside a session).
  TransactionBlock* transaction = nullptr;
  DatabaseAccess* db = nullptr;  // null for statements that touch no table
  // The row kColumn expressions read (set by the plan node evaluating them), and the rows of
  // the enclosing queries of a correlated subquery, innermost last (kColumn with levels_up).
  std::span<const Value> row = {};
  std::vector<std::span<const Value>> outer = {};
  // now()/transaction_timestamp() and statement_timestamp(), fixed per transaction and per
  // statement as in PostgreSQL (timestamptz microseconds). The session sets them; 0 (a context
  // made elsewhere) reads the clock instead.
  int64_t transaction_start = 0;
  int64_t statement_start = 0;

  // 57014 when the client cancelled or the statement ran past statement_timeout. Long loops
  // call it now and then, so it is also where a statement on a fiber takes turns with the
  // sessions sharing its worker (cluster::FiberPool::TakeTurns).
  std::expected<void, Error> CheckInterrupts() const;
};

std::expected<Value, Error> Evaluate(const BoundExpr& e, ExecContext& ctx);

// Operators (operators.cc), on non-NULL operands of the bound types.
std::expected<Value, Error> EvalArith(ArithOp op, TypeId result, const Value& l, const Value& r);
std::expected<Value, Error> EvalNegate(const Value& v);
// Three-way comparison with PostgreSQL's ordering (NaN above all numbers).
int CompareValues(const Value& l, const Value& r);

// A subquery expression (subquery.cc): runs its plan with the current row as the outer row.
std::expected<Value, Error> EvalSubquery(const BoundExpr& e, ExecContext& ctx);

// Built-in functions (functions.cc); NULL handling is the caller's for strict functions.
std::expected<Value, Error> EvalFunction(const BoundExpr& e, std::span<const Value> args, ExecContext& ctx);

}  // namespace farmdb::sql
