// Running one analysed statement: each kind's executor (run_select.cc, run_set.cc, ...)
// produces its rows (materialized; results are small until tables exist) and command tag.
//
// Thread-safety: on the session's thread.
#pragma once

#include <expected>
#include <memory>
#include <string>
#include <vector>

#include "sql/bind/binder.h"
#include "sql/exec/evaluate.h"
#include "sql/exec/transaction_block.h"
#include "storage/catalog.h"

namespace farmdb::sql {

struct StatementOutput {
  std::vector<std::vector<Value>> rows;
  std::string tag;  // complete tag, or the prefix when counts_rows ("SELECT" -> "SELECT n")
  bool counts_rows = false;
  // NOTICEs of the statement, sent once it succeeded (after its Txn committed outside a block,
  // so a retried statement does not repeat them).
  std::vector<Notice> notices;
};

// What DDL runs against: the catalog through the session's machine, in the statement's Txn.
struct DdlContext {
  storage::Catalog catalog;
  storage::TableCaches caches;  // the machine's, for DDL that reads rows (DETAILs, emptiness)
  txn::Txn& txn;
  Settings& settings;
  std::string_view source;  // the statement text (error positions)
  const TextOptions& text;
};

// Runs the query's plan to completion (rows are sent after the statement succeeded).
std::expected<StatementOutput, Error> RunSelect(const BoundQuery& query, ExecContext& ctx);
std::expected<StatementOutput, Error> RunSet(const SetStmt& stmt, Settings& settings, TransactionBlock& txn,
                                             ResultSink& sink);
std::expected<StatementOutput, Error> RunShow(const ShowStmt& stmt, Settings& settings);
std::expected<StatementOutput, Error> RunTransaction(const TransactionStmt& stmt, Settings& settings,
                                                     TransactionBlock& txn, ResultSink& sink);
// COPY (query) / COPY table TO STDOUT through the sink's COPY-out messages.
std::expected<StatementOutput, Error> RunCopy(const CopyStmt& stmt, const BoundQuery& query, ExecContext& ctx,
                                              ResultSink& sink);
// COPY table FROM STDIN through the sink's COPY-in messages (run_copy_from.cc).
std::expected<StatementOutput, Error> RunCopyFrom(const CopyStmt& stmt, const InsertPlan& plan, ExecContext& ctx,
                                                  ResultSink& sink);

// INSERT, UPDATE, DELETE (run_dml.cc); ctx.db must be attached. An UPDATE that READ COMMITTED
// may re-apply at commit keeps `plan` alive until then (TransactionBlock::RowRecompute).
std::expected<StatementOutput, Error> RunDml(const std::shared_ptr<const DmlPlan>& plan, ExecContext& ctx);

// Any DDL statement (CREATE/DROP TABLE, INDEX, SEQUENCE, ALTER TABLE, TRUNCATE) to its
// executor below (run_ddl.cc).
std::expected<StatementOutput, Error> RunDdl(const StatementNode& node, DdlContext& ctx);
// CREATE TABLE [IF NOT EXISTS] and DROP TABLE [IF EXISTS] (run_ddl.cc).
std::expected<StatementOutput, Error> RunCreateTable(const CreateTableStmt& stmt, DdlContext& ctx);
std::expected<StatementOutput, Error> RunDropTable(const DropStmt& stmt, DdlContext& ctx);
// CREATE [UNIQUE] INDEX [IF NOT EXISTS] and DROP INDEX [IF EXISTS] (run_index.cc).
std::expected<StatementOutput, Error> RunCreateIndex(const CreateIndexStmt& stmt, DdlContext& ctx);
std::expected<StatementOutput, Error> RunDropIndex(const DropStmt& stmt, DdlContext& ctx);
// CREATE SEQUENCE [IF NOT EXISTS] and DROP SEQUENCE [IF EXISTS] (run_sequence.cc).
std::expected<StatementOutput, Error> RunCreateSequence(const CreateSequenceStmt& stmt, DdlContext& ctx);
std::expected<StatementOutput, Error> RunDropSequence(const DropStmt& stmt, DdlContext& ctx);
// ALTER TABLE [IF EXISTS] and TRUNCATE (run_alter.cc).
std::expected<StatementOutput, Error> RunAlterTable(const AlterTableStmt& stmt, DdlContext& ctx);
std::expected<StatementOutput, Error> RunTruncate(const TruncateStmt& stmt, DdlContext& ctx);

// A catalog failure as the client sees it (ddl_common.cc): its own error, or a storage failure.
Error FromCatalog(const storage::CatalogError& e);
// The search_path setting as schema names, in order (ddl_common.cc).
std::vector<std::string> SearchPath(const Settings& settings);

// SHOW's result columns (SHOW ALL: name, setting, description).
std::vector<std::string> ShowColumnNames(const ShowStmt& stmt, const Settings& settings);

}  // namespace farmdb::sql
