#include "sql/exec/transaction_block.h"

#include <fmt/format.h>

#include <utility>

#include "txn/engine.h"

namespace farmdb::sql {
namespace {

Notice Warning(std::string sqlstate, std::string message) {
  Notice n;
  n.severity = "WARNING";
  n.sqlstate = std::move(sqlstate);
  n.message = std::move(message);
  return n;
}

}  // namespace

Error TxnFailure(const txn::TxnError& e) {
  if (e.IsRetryable()) {
    Error err = MakeError("40001", "could not serialize access due to concurrent update");
    err.detail = fmt::format("FaRMv2 transaction aborted: {}", txn::AbortReasonName(e.reason));
    return err;
  }
  if (e.code == txn::TxnErrorCode::kOutOfSpace) {
    // PostgreSQL's words when a relation file cannot grow (md.c, mdextend).
    Error err = MakeError("53100", "could not extend the database: No space left on device");
    err.hint = "Check free disk space.";
    return err;
  }
  if (e.code == txn::TxnErrorCode::kUnavailable) {
    // What Citus says, with its SQLSTATE, when a worker node cannot be reached.
    Error err = MakeError("08006", "could not reach a node that holds data this transaction needs");
    err.detail = "The transaction did not commit.";
    err.hint = "The node may be down or partitioned away; retry once it is back.";
    return err;
  }
  if (e.code == txn::TxnErrorCode::kFenced) {
    Error err = MakeError("08006", "this node is cut off from the cluster: its lease at the configuration manager expired");
    err.detail = "The transaction did not commit.";
    err.hint = "Connect to another node, or retry once this node is back in touch with the cluster.";
    return err;
  }
  if (e.code == txn::TxnErrorCode::kOutcomeUnknown) {
    Error err = MakeError("40003", "the outcome of the commit is unknown: a node that holds its data did not answer");
    err.detail = "The transaction may or may not have committed.";
    return err;
  }
  return MakeError("XX000", fmt::format("transaction failed (code {}, reason {})", static_cast<int>(e.code),
                                        txn::AbortReasonName(e.reason)));
}

std::expected<void, Error> RequireWritable(const Settings& settings, std::string_view command) {
  if (settings.TransactionReadOnly()) {
    return std::unexpected(MakeError("25006", fmt::format("cannot execute {} in a read-only transaction", command)));
  }
  return {};
}

TransactionBlock::~TransactionBlock() { FinishTxn(false); }

txn::TxnOptions TransactionBlock::Options() const {
  // DESIGN.md §2: SERIALIZABLE -> serializable strict; REPEATABLE READ -> SI strict; READ
  // COMMITTED / UNCOMMITTED -> SI with a fresh read timestamp per statement (refresh_due_).
  // farmdb.strict = off makes any of them non-strict.
  txn::TxnOptions options;
  options.isolation = settings_.TransactionIsolation() == "serializable" ? txn::Isolation::kSerializable
                                                                        : txn::Isolation::kSnapshot;
  options.strict = settings_.Strict();
  options.read_only = settings_.TransactionReadOnly();
  return options;
}

std::expected<txn::Txn*, Error> TransactionBlock::Txn() {
  if (txn_) {
    if (refresh_due_) {
      refresh_due_ = false;
      if (auto refreshed = txn_->RefreshReadTimestamp(); !refreshed) return std::unexpected(TxnFailure(refreshed.error()));
    }
    return txn_.get();
  }
  if (worker_ == nullptr) return std::unexpected(MakeError("0A000", "this engine has no storage node"));
  auto t = worker_->Begin(Options());
  if (!t) return std::unexpected(TxnFailure(t.error()));
  txn_ = std::move(*t);
  const std::string& level = settings_.TransactionIsolation();
  refresh_per_statement_ = level == "read committed" || level == "read uncommitted";
  refresh_due_ = false;
  return txn_.get();
}

std::expected<std::string, Error> TransactionBlock::ExportSnapshot() {
  auto t = Txn();
  if (!t) return std::unexpected(t.error());
  if (refresh_per_statement_) {
    return std::unexpected(MakeError("0A000", "cannot export a snapshot from a READ COMMITTED transaction in farmdb"));
  }
  if (snapshots_ == nullptr) return std::unexpected(MakeError("0A000", "this engine has no storage node"));
  // Importers read at this R, and this transaction holds back GC for them: R stays put.
  (*t)->PinReadTimestamp();
  std::string id = snapshots_->Export({(*t)->read_ts(), settings_.TransactionIsolation() == "serializable"});
  exported_.push_back(id);
  return id;
}

std::expected<void, Error> TransactionBlock::ImportSnapshot(std::string_view id) {
  // snapmgr.c ImportSnapshot's checks, in its order.
  if (ran_query_ || txn_) {
    return std::unexpected(MakeError("25001", "SET TRANSACTION SNAPSHOT must be called before any query"));
  }
  const std::string& level = settings_.TransactionIsolation();
  if (level != "serializable" && level != "repeatable read") {
    return std::unexpected(MakeError("0A000", "a snapshot-importing transaction must have isolation level SERIALIZABLE or REPEATABLE READ"));
  }
  std::optional<SnapshotRegistry::Snapshot> snapshot;
  if (id.find_first_not_of("0123456789ABCDEF-") == std::string_view::npos && snapshots_ != nullptr) {
    snapshot = snapshots_->Find(id);
  }
  if (!snapshot) return std::unexpected(MakeError("22023", fmt::format("invalid snapshot identifier: \"{}\"", id)));
  if (level == "serializable" && !snapshot->serializable) {
    return std::unexpected(MakeError("0A000", "a serializable transaction cannot import a snapshot from a non-serializable transaction"));
  }
  txn::TxnOptions options = Options();
  if (!options.read_only) {
    Error e = MakeError("0A000", "cannot import a snapshot into a read-write transaction");
    e.detail = "farmdb serves an imported snapshot as a FaRMv2 stale snapshot read, which is read-only.";
    e.hint = "Start the transaction with BEGIN ... READ ONLY.";
    return std::unexpected(std::move(e));
  }
  options.snapshot_ts = snapshot->read_ts;
  auto t = worker_->Begin(options);
  if (!t) return std::unexpected(TxnFailure(t.error()));
  txn_ = std::move(*t);
  refresh_per_statement_ = refresh_due_ = false;
  ran_query_ = true;  // the snapshot is taken: SET TRANSACTION ISOLATION LEVEL is too late now
  return {};
}

std::optional<Error> TransactionBlock::FinishTxn(bool commit) {
  refresh_per_statement_ = refresh_due_ = false;
  if (!exported_.empty()) {
    snapshots_->Remove(exported_);
    exported_.clear();
  }
  auto reapply = std::exchange(reapply_, {});
  if (!txn_) return std::nullopt;
  std::unique_ptr<txn::Txn> t = std::move(txn_);
  if (!commit) {
    t->Abort();
    return std::nullopt;
  }
  // The value in effect now (SET LOCAL included) decides, as in PostgreSQL.
  t->SetSyncCommit(settings_.SynchronousCommit());
  auto committed = t->Commit();
  while (!committed && committed.error().code == txn::TxnErrorCode::kStaleWrites) {
    for (txn::Addr row : t->stale_writes()) {
      auto redone = reapply.at(row.raw)->Redo(*t, row);
      if (redone && *redone) continue;
      t->Abort(redone ? txn::AbortReason::kLockConflict : txn::AbortReason::kUser);
      if (!redone) return std::move(redone.error());
      return TxnFailure(txn::TxnError{txn::TxnErrorCode::kAborted, txn::AbortReason::kLockConflict});
    }
    committed = t->Commit();
  }
  if (!committed) return TxnFailure(committed.error());
  return std::nullopt;
}

std::expected<void, Error> TransactionBlock::EndStatement() {
  statement_completed_ = true;
  if (state_ != State::kImplicit || scope_ != ImplicitScope::kStatement) return {};
  if (auto e = FinishTxn(true)) return std::unexpected(std::move(*e));
  return {};
}

void TransactionBlock::AbortStatementTxn() { FinishTxn(false); }

TxnStatus TransactionBlock::Status() const {
  switch (state_) {
    case State::kBlock:
      return TxnStatus::kInBlock;
    case State::kFailed:
      return TxnStatus::kFailed;
    default:
      return TxnStatus::kIdle;
  }
}

void TransactionBlock::Open() {
  settings_.BeginTransaction();
  ran_query_ = false;
  statement_completed_ = false;
}

std::optional<Error> TransactionBlock::Close(bool commit) {
  std::optional<Error> failed = FinishTxn(commit);
  settings_.EndTransaction(commit && !failed);
  state_ = State::kIdle;
  return failed;
}

void TransactionBlock::StartStatement() {
  if (state_ == State::kIdle) {
    Open();
    state_ = State::kImplicit;
  }
  refresh_due_ = refresh_per_statement_ && txn_ != nullptr;
}

std::optional<Notice> TransactionBlock::Begin() {
  if (state_ == State::kBlock) return Warning("25001", "there is already a transaction in progress");
  if (state_ == State::kIdle) Open();
  state_ = State::kBlock;
  return std::nullopt;
}

TransactionBlock::EndResult TransactionBlock::Commit() {
  switch (state_) {
    case State::kBlock:
      if (auto failed = Close(true)) return {"ROLLBACK", std::nullopt, std::move(failed)};
      return {"COMMIT", std::nullopt};
    case State::kFailed:
      // The block's work (and Txn) is already undone; PostgreSQL reports the COMMIT as ROLLBACK.
      state_ = State::kIdle;
      return {"ROLLBACK", std::nullopt};
    case State::kImplicit:
      // PostgreSQL commits the message's implicit transaction so far, with a warning.
      if (auto failed = Close(true)) return {"ROLLBACK", Warning("25P01", "there is no transaction in progress"), std::move(failed)};
      return {"COMMIT", Warning("25P01", "there is no transaction in progress")};
    case State::kIdle:
      break;
  }
  return {"COMMIT", Warning("25P01", "there is no transaction in progress")};
}

TransactionBlock::EndResult TransactionBlock::Rollback() {
  switch (state_) {
    case State::kBlock:
      Close(false);
      return {"ROLLBACK", std::nullopt};
    case State::kFailed:
      state_ = State::kIdle;
      return {"ROLLBACK", std::nullopt};
    case State::kImplicit:
      Close(false);
      return {"ROLLBACK", Warning("25P01", "there is no transaction in progress")};
    case State::kIdle:
      break;
  }
  return {"ROLLBACK", Warning("25P01", "there is no transaction in progress")};
}

void TransactionBlock::StatementFailed() {
  switch (state_) {
    case State::kBlock:
      // AbortTransaction runs at once (settings revert, the Txn aborts); the block waits for
      // ROLLBACK.
      FinishTxn(false);
      settings_.EndTransaction(false);
      state_ = State::kFailed;
      break;
    case State::kImplicit:
      Close(false);
      break;
    default:
      break;
  }
}

std::expected<void, Error> TransactionBlock::EndImplicit() {
  if (state_ != State::kImplicit) return {};
  if (auto failed = Close(true)) return std::unexpected(std::move(*failed));
  return {};
}

}  // namespace farmdb::sql
