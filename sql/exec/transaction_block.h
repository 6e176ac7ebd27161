// TransactionBlock: the session's transaction-block state machine (xact.c's TBLOCK_* states,
// reduced to what farmdb distinguishes) and the Settings transaction hooks it drives.
//
//   kIdle --statement--> kImplicit --end of message / Sync--> kIdle
//   kIdle/kImplicit --BEGIN--> kBlock --COMMIT/ROLLBACK--> kIdle
//   kBlock --error--> kFailed --COMMIT (reported as ROLLBACK) / ROLLBACK--> kIdle
//   kImplicit --error--> kIdle (rolled back)
//
// The FaRMv2 transaction (txn::Txn) behind it, DESIGN.md §2. It is begun lazily, by the first
// statement that reads or writes the database (Txn()), with the characteristics in effect then
// (transaction_isolation, transaction_read_only, farmdb.strict), as PostgreSQL takes its snapshot
// at the first query, after any SET TRANSACTION. In an explicit block one Txn serves the whole
// block: COMMIT commits it (a failed commit is 40001 and ends the block), ROLLBACK and a failed
// statement abort it. Outside a block each statement gets its own Txn, committed by
// EndStatement, so a conflict can be retried by the server before anything reached the client.
// A TransactionBlock without a worker (engines without a Node) never has a Txn.
// Thread-safety: owned by one session.
#pragma once

#include <expected>
#include <memory>
#include <optional>
#include <string>

#include "sql/session.h"
#include "sql/settings/settings.h"
#include "txn/txn.h"

namespace farmdb::sql {

// A transaction that failed (abort, conflict) as the client sees it: 40001 with the FaRMv2
// abort reason in the detail; kUser and non-abort failures (internal errors) are XX000.
Error TxnFailure(const txn::TxnError& e);

class TransactionBlock {
 public:
  enum class State { kIdle, kImplicit, kBlock, kFailed };

  // `worker` (may be null) runs this session's transactions; it outlives the block.
  explicit TransactionBlock(Settings& settings, txn::Worker* worker = nullptr)
      : settings_(settings), worker_(worker) {}
  ~TransactionBlock();

  State state() const { return state_; }
  TxnStatus Status() const;
  bool InExplicitBlock() const { return state_ == State::kBlock || state_ == State::kFailed; }

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
  // End of a simple-query message or Sync: commits an implicit transaction.
  void EndImplicit();

  // The current transaction's Txn, begun on first use (see the header comment). 0A000 when the
  // engine has no Node. REQUIRES: a transaction is open (after StartStatement or Begin).
  std::expected<txn::Txn*, Error> Txn();
  // After each statement that succeeded: outside an explicit block, commits the statement's
  // Txn (if it began one). The error is the commit's failure (retryable 40001 or other).
  std::expected<void, Error> EndStatement();
  // Aborts the statement's Txn so the statement can run again in a fresh one (server-side
  // retry outside a block). REQUIRES: state() == kImplicit.
  void AbortStatementTxn();

  // Whether a query (SELECT, COPY) ran in this transaction (SET TRANSACTION ISOLATION LEVEL
  // must come before any).
  bool ran_query() const { return ran_query_; }
  void NoteQuery() { ran_query_ = true; }

 private:
  void Open();
  // Ends the transaction: commits or aborts its Txn, then the settings follow the outcome.
  std::optional<Error> Close(bool commit);
  // Commits (or aborts) and forgets txn_; the commit's error if it failed.
  std::optional<Error> FinishTxn(bool commit);

  Settings& settings_;
  txn::Worker* worker_;
  std::unique_ptr<txn::Txn> txn_;
  State state_ = State::kIdle;
  bool ran_query_ = false;
};

}  // namespace farmdb::sql
