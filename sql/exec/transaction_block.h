// TransactionBlock: the session's transaction-block state machine (xact.c's TBLOCK_* states,
// reduced to what farmdb distinguishes) and the Settings transaction hooks it drives.
//
//   kIdle --statement--> kImplicit --end of message / Sync--> kIdle
//   kIdle/kImplicit --BEGIN--> kBlock --COMMIT/ROLLBACK--> kIdle
//   kBlock --error--> kFailed --COMMIT (reported as ROLLBACK) / ROLLBACK--> kIdle
//   kImplicit --error--> kIdle (rolled back)
// Until the storage layer exists there is no FaRMv2 transaction behind a block; this class is
// where Begin/Commit/Abort of txn::Txn will hook in.
// Thread-safety: owned by one session.
#pragma once

#include <optional>
#include <string>

#include "sql/session.h"
#include "sql/settings/settings.h"

namespace farmdb::sql {

class TransactionBlock {
 public:
  enum class State { kIdle, kImplicit, kBlock, kFailed };

  explicit TransactionBlock(Settings& settings) : settings_(settings) {}

  State state() const { return state_; }
  TxnStatus Status() const;
  bool InExplicitBlock() const { return state_ == State::kBlock || state_ == State::kFailed; }

  // Before each statement: an idle session opens an implicit transaction.
  void StartStatement();
  // BEGIN / START TRANSACTION; returns PostgreSQL's warning when a block is already open.
  std::optional<Notice> Begin();
  struct EndResult {
    std::string tag;
    std::optional<Notice> warning;
  };
  EndResult Commit();
  EndResult Rollback();
  // A statement failed: an explicit block becomes failed, an implicit transaction rolls back.
  void StatementFailed();
  // End of a simple-query message or Sync: commits an implicit transaction.
  void EndImplicit();

  // Whether a query (SELECT, COPY) ran in this transaction (SET TRANSACTION ISOLATION LEVEL
  // must come before any).
  bool ran_query() const { return ran_query_; }
  void NoteQuery() { ran_query_ = true; }

 private:
  void Open();
  void Close(bool commit);

  Settings& settings_;
  State state_ = State::kIdle;
  bool ran_query_ = false;
};

}  // namespace farmdb::sql
