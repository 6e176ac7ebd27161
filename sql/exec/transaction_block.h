// TransactionBlock: the session's transaction-block state machine (xact.c's TBLOCK_* states,
// reduced to what farmdb distinguishes) and the Settings transaction hooks it drives.
//
//   kIdle --statement--> kImplicit --end of message / Sync--> kIdle
//   kIdle/kImplicit --BEGIN--> kBlock --COMMIT/ROLLBACK--> kIdle
//   kBlock --error--> kFailed --COMMIT (reported as ROLLBACK) / ROLLBACK--> kIdle
//   kImplicit --error--> kIdle (rolled back)
//
// Implicit transactions, as PostgreSQL's (postgres.c exec_simple_query, exec_execute_message,
// xact.c BeginImplicitTransactionBlock). ImplicitScope says how long one lasts:
//  - kMessage: a simple-query message of several statements is ONE implicit transaction
//    (TBLOCK_IMPLICIT_INPROGRESS): an error in any statement rolls back the ones before it, and
//    its Txn commits at the end of the message (EndImplicit). A BEGIN inside the message turns
//    the implicit transaction into an explicit block that includes the statements before it; a
//    COMMIT or ROLLBACK inside it ends it (with PostgreSQL's "there is no transaction in
//    progress" warning) and the next statement opens a new one.
//  - kSync: the extended protocol's Executes up to the next Sync are one implicit transaction
//    (TBLOCK_STARTED, not a block for SET LOCAL): an error in any message rolls back the Executes
//    before it (the server skips to Sync), and the Txn commits at Sync (EndImplicit), whose
//    failure (40001) the client gets before ReadyForQuery, after the rows of every Execute.
//  - kStatement: a one-statement simple-query message, and an Execute that is the first
//    statement of its implicit transaction and that the server already knows is followed by
//    Sync (Session::Execute's `sync_follows`: the Sync was in the same read from the client,
//    as in the common Parse/Bind/Describe/Execute/Sync flight of pgjdbc, libpq's PQexecParams
//    and pgbench -M prepared): the statement is the whole transaction, so its Txn commits at
//    the end of the statement (EndStatement), before its rows are sent. Same outcome as
//    committing at Sync, and it keeps the statement retryable.
//
// Server-side retry (DESIGN.md §2) is sound only while nothing of the transaction reached the
// client: a statement is re-run in a fresh Txn after a retryable abort (40001) iff it is the
// first statement of its implicit transaction and its failure came before any of its output
// (CanRetryStatement). Executors send a statement's rows and notices only after it succeeded,
// so this holds for a failure while it runs, and for its commit when the commit comes at its
// end (kStatement). Not retried:
//  - the commit at Sync of a kSync transaction: the Executes' rows went out before it (a Flush
//    may have sent them; re-running them would mean replaying the pipeline's messages), so the
//    client gets 40001 after those rows, as from PostgreSQL's serializable commit at Sync.
//    Buffering every Execute's output until Sync to hide that commit was rejected: it defeats
//    Flush (libpq pipeline mode reads results before its Sync) and holds whole result sets in
//    memory. Only pipelines of several Executes, and an Execute whose Sync had not arrived yet,
//    see such a 40001; single-statement clients stay retryable through kStatement;
//  - a later statement of a kSync or kMessage transaction: the earlier ones' results went out;
//  - any statement of a kMessage transaction (its commit comes after the first result) and of
//    an explicit block.
//
// The FaRMv2 transaction (txn::Txn) behind it, DESIGN.md §2. It is begun lazily, by the first
// statement that reads or writes the database (Txn()), with the characteristics in effect then
// (transaction_isolation, transaction_read_only, farmdb.strict), as PostgreSQL takes its snapshot
// at the first query, after any SET TRANSACTION. One Txn serves the whole transaction: COMMIT
// commits it (a failed commit is 40001 and ends the block), ROLLBACK and a failed statement
// abort it. READ COMMITTED (and READ UNCOMMITTED) run as snapshot isolation with a fresh read
// timestamp per statement: each statement after the first refreshes the Txn's R
// (txn::Txn::RefreshReadTimestamp) when it first uses the Txn, so it sees every transaction
// committed before it started, while the block's writes keep first-committer-wins (40001),
// except UPDATEs that can be re-applied: PostgreSQL's READ COMMITTED re-applies an UPDATE to the
// newest version of a row another transaction updated first (EvalPlanQual), and so does
// farmdb, at commit: such an UPDATE marks its row writes (txn::Txn::MarkReapplicable) and notes
// how to compute them (NoteReapplicable); when the commit finds one stale, the row is read at a
// fresh R, its WHERE checked again and its SET applied again, and the commit goes on. PostgreSQL
// waits on the row lock during the statement instead, so where it would find the row gone or no
// longer matching WHERE and update nothing, farmdb has already reported the row as updated and
// returns 40001.
// A TransactionBlock without a worker (engines without a Node) never has a Txn.
// Thread-safety: owned by one session.
#pragma once

#include <expected>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "sql/exec/snapshot_registry.h"
#include "sql/session.h"
#include "sql/settings/settings.h"
#include "txn/txn.h"

namespace farmdb::sql {

// A transaction that failed (abort, conflict) as the client sees it: 40001 with the FaRMv2
// abort reason in the detail; kUser and non-abort failures (internal errors) are XX000.
Error TxnFailure(const txn::TxnError& e);

// 25006 "cannot execute <command> in a read-only transaction", PostgreSQL's
// PreventCommandIfReadOnly, when transaction_read_only is on; `command` is the statement's
// command tag ("CREATE TABLE", "INSERT"). TransactionBlock::RequireWritable; executors that only
// have the Settings (DdlContext) call this one.
std::expected<void, Error> RequireWritable(const Settings& settings, std::string_view command);

class TransactionBlock {
 public:
  enum class State { kIdle, kImplicit, kBlock, kFailed };
  // How long an implicit transaction lasts (see the header comment).
  enum class ImplicitScope { kStatement, kMessage, kSync };

  // `worker` (may be null) runs this session's transactions; `snapshots` (may be null) is the
  // Node's registry of exported snapshots. Both outlive the block.
  explicit TransactionBlock(Settings& settings, txn::Worker* worker = nullptr, SnapshotRegistry* snapshots = nullptr)
      : settings_(settings), worker_(worker), snapshots_(snapshots) {}
  ~TransactionBlock();

  State state() const { return state_; }
  TxnStatus Status() const;
  bool InExplicitBlock() const { return state_ == State::kBlock || state_ == State::kFailed; }
  // PostgreSQL's IsTransactionBlock(): an explicit block or a multi-statement message's implicit
  // one (SET LOCAL and SET TRANSACTION warn outside them).
  bool InTransactionBlock() const {
    return InExplicitBlock() || (state_ == State::kImplicit && scope_ == ImplicitScope::kMessage);
  }

  // At the start of each simple-query message (kMessage when it holds several statements) and
  // of each extended-protocol Execute (kStatement or kSync): how long an implicit transaction
  // opened, or continued, by the coming statements lasts.
  void StartMessage(ImplicitScope scope) { scope_ = scope; }
  // Whether a statement completed in the current implicit transaction (an Execute is then not
  // its first statement).
  bool StatementCompleted() const { return state_ == State::kImplicit && statement_completed_; }
  // Whether a retryable failure of the current statement may be retried by the server: it is
  // the first statement of a kStatement or kSync implicit transaction (see the header comment);
  // its commit is retried with it only in kStatement, where it comes at the statement's end.
  bool CanRetryStatement() const {
    return state_ == State::kImplicit && (scope_ == ImplicitScope::kStatement ||
                                          (scope_ == ImplicitScope::kSync && !statement_completed_));
  }

  // Before each statement: an idle session opens an implicit transaction.
  void StartStatement();
  // BEGIN / START TRANSACTION; returns PostgreSQL's warning when a block is already open.
  std::optional<Notice> Begin();
  struct EndResult {
    std::string tag;
    std::optional<Notice> warning = std::nullopt;
    std::optional<Error> error = std::nullopt;  // COMMIT: the Txn failed to commit (40001); the block ended
  };
  EndResult Commit();
  EndResult Rollback();
  // A statement failed: an explicit block becomes failed, an implicit transaction rolls back.
  void StatementFailed();
  // End of a simple-query message or Sync: commits an implicit transaction; the error is its
  // Txn's failure to commit (the transaction is over either way).
  std::expected<void, Error> EndImplicit();

  // The current transaction's Txn, begun on first use (see the header comment). 0A000 when the
  // engine has no Node. REQUIRES: a transaction is open (after StartStatement or Begin).
  std::expected<txn::Txn*, Error> Txn();
  // After each statement that succeeded: in a kStatement implicit transaction, commits the
  // statement's Txn (if it began one). The error is the commit's failure (retryable 40001 or
  // other).
  std::expected<void, Error> EndStatement();
  // Aborts the statement's Txn so the statement can run again in a fresh one (server-side
  // retry). REQUIRES: CanRetryStatement().
  void AbortStatementTxn();

  // Every statement that writes calls it before touching anything (PostgreSQL checks before
  // name lookups: DROP TABLE of a missing table in a READ ONLY transaction is 25006, not 42P01).
  std::expected<void, Error> RequireWritable(std::string_view command) const {
    return sql::RequireWritable(settings_, command);
  }

  // pg_export_snapshot(): registers the Txn's read timestamp (beginning the Txn if needed) under
  // a new identifier, valid until this transaction ends (SnapshotRegistry). 0A000 in a READ
  // COMMITTED transaction: its R moves at every statement, so nothing would keep the exported R
  // from the GC (PostgreSQL allows it there).
  std::expected<std::string, Error> ExportSnapshot();
  // SET TRANSACTION SNAPSHOT 'id', with PostgreSQL's checks and errors in its order, then begins
  // the Txn as a FaRMv2 stale snapshot read at the exporter's R (DESIGN.md §2, §4.6). The txn
  // layer serves stale snapshots to read-only transactions only, so a READ WRITE importer gets
  // 0A000 where PostgreSQL would import.
  std::expected<void, Error> ImportSnapshot(std::string_view id);

  // Whether a query (SELECT, COPY) ran in this transaction (SET TRANSACTION ISOLATION LEVEL
  // must come before any).
  bool ran_query() const { return ran_query_; }
  void NoteQuery() { ran_query_ = true; }

  // READ COMMITTED's UPDATE re-applied at commit (see the header comment; UpdatePlan::reapplicable).
  class RowRecompute {
   public:
    virtual ~RowRecompute() = default;
    // Computes the write of `row` again in `t` from the version t now reads (Commit has moved R
    // past the commit that made the write stale), and marks it again. False when the row no
    // longer qualifies: gone, no longer the row its key finds, or WHERE no longer holds.
    virtual std::expected<bool, Error> Redo(txn::Txn& t, txn::Addr row) const = 0;
  };
  // Whether UPDATEs may be re-applied at commit: READ COMMITTED and UNCOMMITTED.
  bool ReappliesUpdates() const { return refresh_per_statement_; }
  // A statement marked its write of `row` re-applicable; `how` computes it again.
  void NoteReapplicable(txn::Addr row, std::shared_ptr<const RowRecompute> how) {
    reapply_[row.raw] = std::move(how);
  }

 private:
  void Open();
  // Ends the transaction: commits or aborts its Txn, then the settings follow the outcome.
  std::optional<Error> Close(bool commit);
  // Commits (or aborts) and forgets txn_; the commit's error if it failed.
  std::optional<Error> FinishTxn(bool commit);
  // The options Txn() begins with, from the transaction's settings (DESIGN.md §2 table).
  txn::TxnOptions Options() const;

  Settings& settings_;
  txn::Worker* worker_;
  SnapshotRegistry* snapshots_;
  std::unique_ptr<txn::Txn> txn_;
  std::vector<std::string> exported_;  // snapshot ids of txn_, removed when it ends
  State state_ = State::kIdle;
  ImplicitScope scope_ = ImplicitScope::kStatement;
  bool ran_query_ = false;
  bool statement_completed_ = false;  // in this implicit transaction (StatementCompleted)
  // READ COMMITTED / UNCOMMITTED: the Txn takes a fresh read timestamp per statement.
  bool refresh_per_statement_ = false;
  // Set at each statement start when refresh_per_statement_: the next Txn() refreshes R.
  bool refresh_due_ = false;
  std::unordered_map<uint64_t, std::shared_ptr<const RowRecompute>> reapply_;  // by row Addr
};

}  // namespace farmdb::sql
