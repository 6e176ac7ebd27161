// The table scan's cursor, exposed so UPDATE and DELETE can reach the stored row (its Addr and
// index keys) of each row they change.
//
// Thread-safety: the statement's thread; must not outlive the statement's Txn.
#pragma once

#include <memory>
#include <optional>

#include "sql/exec/evaluate.h"
#include "sql/plan/plan.h"
#include "storage/table.h"

namespace farmdb::sql {

// A storage failure as the client sees it: a transaction abort is 40001 (TxnFailure), a value
// too large for an object or an index item 54000, a damaged object XX001 (data_corrupted),
// misuse of an index an internal error (XX000).
Error StorageFailure(const storage::StorageError& e);

class TableScanCursor final : public Cursor {
 public:
  // Evaluates the access path's key expressions over ctx.row; `empty` when one is NULL (no row
  // can match).
  static std::expected<std::unique_ptr<TableScanCursor>, Error> Open(const TableScanNode& node, ExecContext& ctx);

  std::expected<bool, Error> Next(Row& row) override;
  // The stored row the last Next returned.
  const storage::StoredRow& stored() const { return point_lookup_ ? *point_row_ : iterator_->row(); }
  // The stored row the last Next returned, moved out (UPDATE and DELETE keep the rows they
  // change); stored() is not called again before the next Next.
  storage::StoredRow TakeStored() { return point_lookup_ ? std::move(*point_row_) : iterator_->TakeRow(); }
  const storage::Table& table() const { return *table_; }

 private:
  TableScanCursor(const TableScanNode& node, ExecContext& ctx, std::shared_ptr<const storage::Table> table)
      : node_(node), ctx_(ctx), table_(std::move(table)) {}
  // Looks up, or scans, the rows whose index key starts with `prefix` (no range after it).
  std::expected<void, Error> StartPrefix(std::vector<Value> prefix);
  // StartPrefix of the next of points_; false when none is left.
  std::expected<bool, Error> StartNextPoint();

  const TableScanNode& node_;
  ExecContext& ctx_;
  std::shared_ptr<const storage::Table> table_;  // the iterator points to it
  std::optional<storage::RowIterator> iterator_;  // nullopt: no row can match (or a point lookup)
  // A lookup of the whole primary key instead of iterator_: the row, if there is one, until
  // Next returns it.
  bool point_lookup_ = false;
  std::optional<storage::StoredRow> point_row_;
  bool point_returned_ = false;
  // IndexAccess::points, evaluated: the prefixes still to look up after the current one.
  std::vector<std::vector<Value>> points_;
  size_t next_point_ = 0;
  uint64_t rows_read_ = 0;
};

}  // namespace farmdb::sql
