// The cursor of LockRowsNode (plan.h): SELECT ... FOR UPDATE / FOR SHARE in optimistic form.
// farmdb never waits for a row lock (FaRM has no locks before commit): each returned row's
// object is handed to the Txn, which makes commit check it (txn.h WriteUnchanged,
// ValidateAtCommit), so a conflicting commit fails one of the two transactions with 40001
// instead of one waiting for the other. NOWAIT therefore changes nothing.
#include "sql/exec/evaluate.h"
#include "sql/exec/transaction_block.h"
#include "sql/plan/plan.h"

namespace farmdb::sql {
namespace {

class LockRowsCursor final : public Cursor {
 public:
  LockRowsCursor(const LockRowsNode& node, CursorPtr child, txn::Txn& txn)
      : node_(node), child_(std::move(child)), txn_(txn) {}
  std::expected<bool, Error> Next(Row& row) override {
    auto more = child_->Next(row);
    if (!more || !*more) return more;
    for (const LockRowsNode::Target& target : node_.targets) {
      const Value& addr = row[target.column];
      if (addr.IsNull()) continue;
      txn::Addr a{static_cast<uint64_t>(addr.AsInt())};
      auto locked = target.exclusive ? txn_.WriteUnchanged(a) : txn_.ValidateAtCommit(a);
      if (!locked) return std::unexpected(TxnFailure(locked.error()));
    }
    return true;
  }

 private:
  const LockRowsNode& node_;
  CursorPtr child_;
  txn::Txn& txn_;
};

}  // namespace

std::expected<CursorPtr, Error> LockRowsNode::Open(ExecContext& ctx) const {
  if (ctx.db == nullptr || ctx.db->txn == nullptr) return std::unexpected(MakeError("XX000", "row locks without a transaction"));
  auto child_cursor = child->Open(ctx);
  if (!child_cursor) return child_cursor;
  return std::make_unique<LockRowsCursor>(*this, std::move(*child_cursor), *ctx.db->txn);
}

}  // namespace farmdb::sql
