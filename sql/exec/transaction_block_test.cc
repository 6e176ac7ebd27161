#include "sql/exec/transaction_block.h"

#include <gtest/gtest.h>

namespace farmdb::sql {
namespace {

class TransactionBlockTest : public ::testing::Test {
 protected:
  Settings settings_ = *Settings::Create(SessionOptions{});
  TransactionBlock txn_{settings_};
  using State = TransactionBlock::State;
};

TEST_F(TransactionBlockTest, ImplicitTransactionCommitsAtEnd) {
  txn_.StartStatement();
  EXPECT_EQ(txn_.state(), State::kImplicit);
  EXPECT_EQ(txn_.Status(), TxnStatus::kIdle);
  ASSERT_TRUE(settings_.Set("extra_float_digits", "2", false));
  EXPECT_TRUE(txn_.EndImplicit());
  EXPECT_EQ(txn_.state(), State::kIdle);
  EXPECT_EQ(**settings_.Get("extra_float_digits", false), "2");
}

TEST_F(TransactionBlockTest, ImplicitFailureRollsBack) {
  txn_.StartStatement();
  ASSERT_TRUE(settings_.Set("extra_float_digits", "2", false));
  txn_.StatementFailed();
  EXPECT_EQ(txn_.state(), State::kIdle);
  EXPECT_EQ(**settings_.Get("extra_float_digits", false), "1");
}

TEST_F(TransactionBlockTest, ExplicitBlockTransitions) {
  txn_.StartStatement();
  EXPECT_FALSE(txn_.Begin().has_value());
  EXPECT_EQ(txn_.Status(), TxnStatus::kInBlock);
  auto warning = txn_.Begin();
  ASSERT_TRUE(warning.has_value());
  EXPECT_EQ(warning->sqlstate, "25001");
  txn_.StartStatement();  // no-op inside a block
  EXPECT_EQ(txn_.state(), State::kBlock);
  EXPECT_TRUE(txn_.EndImplicit());  // end of message does not end an explicit block
  EXPECT_EQ(txn_.state(), State::kBlock);
  txn_.NoteQuery();
  EXPECT_TRUE(txn_.ran_query());
  ASSERT_TRUE(settings_.Set("extra_float_digits", "2", false));
  txn_.StatementFailed();
  EXPECT_EQ(txn_.Status(), TxnStatus::kFailed);
  EXPECT_EQ(**settings_.Get("extra_float_digits", false), "1");  // aborted at once
  txn_.StatementFailed();
  EXPECT_EQ(txn_.state(), State::kFailed);
  auto end = txn_.Commit();
  EXPECT_EQ(end.tag, "ROLLBACK");
  EXPECT_FALSE(end.warning.has_value());
  EXPECT_EQ(txn_.state(), State::kIdle);
}

TEST_F(TransactionBlockTest, CommitAndRollbackOutsideBlockWarn) {
  txn_.StartStatement();
  auto end = txn_.Commit();
  EXPECT_EQ(end.tag, "COMMIT");
  ASSERT_TRUE(end.warning.has_value());
  EXPECT_EQ(end.warning->sqlstate, "25P01");
  EXPECT_EQ(end.warning->message, "there is no transaction in progress");
  txn_.StartStatement();
  end = txn_.Rollback();
  EXPECT_EQ(end.tag, "ROLLBACK");
  EXPECT_TRUE(end.warning.has_value());
  EXPECT_EQ(txn_.state(), State::kIdle);
}

TEST_F(TransactionBlockTest, BlockCommitKeepsSettingsRollbackDrops) {
  txn_.StartStatement();
  txn_.Begin();
  ASSERT_TRUE(settings_.Set("extra_float_digits", "2", false));
  EXPECT_EQ(txn_.Commit().tag, "COMMIT");
  EXPECT_EQ(**settings_.Get("extra_float_digits", false), "2");
  txn_.StartStatement();
  txn_.Begin();
  ASSERT_TRUE(settings_.Set("extra_float_digits", "3", false));
  EXPECT_EQ(txn_.Rollback().tag, "ROLLBACK");
  EXPECT_EQ(**settings_.Get("extra_float_digits", false), "2");
  EXPECT_FALSE(txn_.ran_query());
}

TEST_F(TransactionBlockTest, ImplicitScopeDecidesBlockWarningsAndRetry) {
  // A one-statement message (or an Execute): TBLOCK_STARTED, retryable, not a block.
  txn_.StartMessage(TransactionBlock::ImplicitScope::kStatement);
  txn_.StartStatement();
  EXPECT_TRUE(txn_.CanRetryStatement());
  EXPECT_FALSE(txn_.InTransactionBlock());
  EXPECT_TRUE(txn_.EndStatement());
  EXPECT_EQ(txn_.state(), State::kImplicit);  // still open until the end of the message
  EXPECT_TRUE(txn_.EndImplicit());
  // Several statements: TBLOCK_IMPLICIT_INPROGRESS, a block for SET LOCAL, never retried.
  txn_.StartMessage(TransactionBlock::ImplicitScope::kMessage);
  txn_.StartStatement();
  EXPECT_FALSE(txn_.CanRetryStatement());
  EXPECT_TRUE(txn_.InTransactionBlock());
  EXPECT_FALSE(txn_.InExplicitBlock());
  ASSERT_TRUE(settings_.Set("extra_float_digits", "2", false));
  EXPECT_TRUE(txn_.EndStatement());
  txn_.StartStatement();
  txn_.StatementFailed();  // the second statement fails: the first one's work is undone too
  EXPECT_EQ(txn_.state(), State::kIdle);
  EXPECT_EQ(**settings_.Get("extra_float_digits", false), "1");
  // BEGIN inside the message: an explicit block, not retryable.
  txn_.StartStatement();
  EXPECT_FALSE(txn_.Begin().has_value());
  EXPECT_FALSE(txn_.CanRetryStatement());
  EXPECT_TRUE(txn_.EndImplicit());
  EXPECT_EQ(txn_.Status(), TxnStatus::kInBlock);
  EXPECT_EQ(txn_.Rollback().tag, "ROLLBACK");
}

TEST_F(TransactionBlockTest, RequireWritableFollowsTransactionReadOnly) {
  txn_.StartStatement();
  EXPECT_TRUE(txn_.RequireWritable("CREATE TABLE"));
  txn_.Rollback();
  ASSERT_TRUE(settings_.Set("default_transaction_read_only", "on", false));
  txn_.StartStatement();
  txn_.Begin();
  auto refused = txn_.RequireWritable("INSERT");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().sqlstate, "25006");
  EXPECT_EQ(refused.error().message, "cannot execute INSERT in a read-only transaction");
  ASSERT_TRUE(settings_.Set("transaction_read_only", "off", true));  // SET TRANSACTION READ WRITE
  EXPECT_TRUE(txn_.RequireWritable("INSERT"));
  txn_.Rollback();
}

}  // namespace
}  // namespace farmdb::sql
