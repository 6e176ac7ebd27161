#include "sql/exec/transaction_block.h"

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

void TransactionBlock::Close(bool commit) {
  settings_.EndTransaction(commit);
  state_ = State::kIdle;
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
      Close(true);
      return {"COMMIT", std::nullopt};
    case State::kFailed:
      // The block's work is already undone; PostgreSQL reports the COMMIT as ROLLBACK.
      state_ = State::kIdle;
      return {"ROLLBACK", std::nullopt};
    case State::kImplicit:
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
      // AbortTransaction runs at once (settings revert now); the block waits for ROLLBACK.
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
