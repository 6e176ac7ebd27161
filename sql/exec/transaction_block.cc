#include "sql/exec/transaction_block.h"

#include <fmt/format.h>

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
  return MakeError("XX000", fmt::format("transaction failed (code {}, reason {})", static_cast<int>(e.code),
                                        txn::AbortReasonName(e.reason)));
}

TransactionBlock::~TransactionBlock() { FinishTxn(false); }

std::expected<txn::Txn*, Error> TransactionBlock::Txn() {
  if (txn_) return txn_.get();
  if (worker_ == nullptr) return std::unexpected(MakeError("0A000", "this engine has no storage node"));
  // DESIGN.md §2: SERIALIZABLE -> serializable strict; REPEATABLE READ -> SI strict; READ
  // COMMITTED / UNCOMMITTED -> SI (one read timestamp for the whole block for now: the txn API
  // has no fresh-R-per-statement yet). farmdb.strict = off makes any of them non-strict.
  txn::TxnOptions options;
  auto isolation = settings_.Get("transaction_isolation", false);
  options.isolation = isolation && *isolation && **isolation == "serializable" ? txn::Isolation::kSerializable
                                                                                : txn::Isolation::kSnapshot;
  auto strict = settings_.Get("farmdb.strict", false);
  options.strict = !(strict && *strict && **strict == "off");
  auto read_only = settings_.Get("transaction_read_only", false);
  options.read_only = read_only && *read_only && **read_only == "on";
  auto t = worker_->Begin(options);
  if (!t) return std::unexpected(TxnFailure(t.error()));
  txn_ = std::move(*t);
  return txn_.get();
}

std::optional<Error> TransactionBlock::FinishTxn(bool commit) {
  if (!txn_) return std::nullopt;
  std::unique_ptr<txn::Txn> t = std::move(txn_);
  if (!commit) {
    t->Abort();
    return std::nullopt;
  }
  auto committed = t->Commit();
  if (!committed) return TxnFailure(committed.error());
  return std::nullopt;
}

std::expected<void, Error> TransactionBlock::EndStatement() {
  if (state_ != State::kImplicit) return {};
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
  auto isolation = settings_.Get("default_transaction_isolation", false);
  auto read_only = settings_.Get("default_transaction_read_only", false);
  settings_.BeginTransaction(**isolation, **read_only == "on");
  ran_query_ = false;
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
      // Statements before it in the message committed their own Txns (EndStatement).
      Close(true);
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

void TransactionBlock::EndImplicit() {
  if (state_ == State::kImplicit) Close(true);
}

}  // namespace farmdb::sql
