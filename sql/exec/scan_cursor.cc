// Table and system view scans (plan.h): index access paths turned into storage::IndexScan
// bounds, rows materialised as Values, the scan's filter applied.
#include "sql/exec/scan_cursor.h"

#include <fmt/format.h>

#include <map>

#include "sql/exec/transaction_block.h"
#include "sql/system/system_view.h"

namespace farmdb::sql {

Error StorageFailure(const storage::StorageError& e) {
  using Code = storage::StorageError::Code;
  switch (e.code) {
    case Code::kTxn:
      return TxnFailure(e.txn);
    case Code::kTooLarge:
      return MakeError("54000", "row or index entry is too large for farmdb's object size");
    case Code::kSequenceLimit:
      return MakeError("2200H", "sequence reached its limit");
    case Code::kDuplicateKey:  // callers that know the constraint name it instead
      return MakeError("23505", "duplicate key value violates unique constraint");
    case Code::kCorrupt:
      return MakeError("XX001", "an index or row object is damaged: it did not decode or broke an invariant");
    case Code::kInvalidArgument:
      return MakeError("XX000", "internal error: an index was given options it does not take");
  }
  return MakeError("XX000", fmt::format("internal error: unknown storage error {}", static_cast<int>(e.code)));
}

namespace {

// Evaluates `e` over the outer row; nullopt for NULL.
std::expected<std::optional<Value>, Error> KeyValue(const BoundExpr& e, ExecContext& ctx) {
  auto v = Evaluate(e, ctx);
  if (!v) return std::unexpected(v.error());
  if (v->IsNull()) return std::nullopt;
  return std::move(*v);
}

}  // namespace

// The values of `exprs` over the outer row; nullopt if one is NULL (col = NULL matches nothing).
std::expected<std::optional<std::vector<Value>>, Error> KeyValues(const std::vector<BoundExprPtr>& exprs,
                                                                  ExecContext& ctx) {
  std::vector<Value> values;
  values.reserve(exprs.size() + 1);  // + a range bound's value
  for (const BoundExprPtr& e : exprs) {
    auto v = KeyValue(*e, ctx);
    if (!v) return std::unexpected(v.error());
    if (!*v) return std::nullopt;
    values.push_back(std::move(**v));
  }
  return values;
}

std::expected<std::unique_ptr<TableScanCursor>, Error> TableScanCursor::Open(const TableScanNode& node, ExecContext& ctx) {
  if (ctx.db == nullptr || ctx.db->txn == nullptr) return std::unexpected(MakeError("XX000", "table scan without a transaction"));
  std::unique_ptr<TableScanCursor> cursor(new TableScanCursor(node, ctx, ctx.db->TableFor(node.table->storage)));
  const IndexAccess& access = node.access;
  const storage::Table& t = *cursor->table_;
  if (!access.points.empty()) {
    // One lookup per distinct point, in key order.
    std::map<std::string, std::vector<Value>> points;
    for (const std::vector<BoundExprPtr>& point : access.points) {
      auto values = KeyValues(point, ctx);
      if (!values) return std::unexpected(values.error());
      if (*values) points.emplace(t.IndexKey(access.index, **values), std::move(**values));
    }
    for (auto& [key, values] : points) cursor->points_.push_back(std::move(values));
    if (auto started = cursor->StartNextPoint(); !started) return std::unexpected(started.error());
    return cursor;
  }
  auto equal = KeyValues(access.equal, ctx);
  if (!equal) return std::unexpected(equal.error());
  if (!*equal) return cursor;
  std::vector<Value> prefix = std::move(**equal);
  if (!access.lower && !access.upper && !prefix.empty()) {
    if (auto started = cursor->StartPrefix(std::move(prefix)); !started) return std::unexpected(started.error());
    return cursor;
  }
  storage::IndexScan scan;
  scan.index = access.index;
  scan.direction = access.backward ? storage::ScanDirection::kBackward : storage::ScanDirection::kForward;
  if (!prefix.empty()) {
    std::string key = t.IndexKey(access.index, prefix);
    scan.lower = storage::KeyBound{key, true};
    scan.upper = storage::KeyBound{key, true};
  }
  // A range on the key column after the equal prefix. In a DESC column the index order is
  // reversed, so the SQL lower bound limits the scan from above.
  bool descending = false;
  if (access.lower || access.upper) {
    const storage::IndexSpec& spec = access.index == 0 ? t.descriptor().primary.spec : t.descriptor().secondary[access.index - 1].spec;
    descending = spec.columns[prefix.size()].key.descending;
  }
  auto bound = [&](const BoundExprPtr& e, bool inclusive, std::optional<storage::KeyBound>& slot)
      -> std::expected<bool, Error> {
    if (!e) return true;
    auto v = KeyValue(*e, ctx);
    if (!v) return std::unexpected(v.error());
    if (!*v) return false;
    std::vector<Value> values = prefix;
    values.push_back(std::move(**v));
    slot = storage::KeyBound{t.IndexKey(access.index, values), inclusive};
    return true;
  };
  for (auto [e, inclusive, is_lower] : {std::tuple{access.lower.get(), access.lower_inclusive, true},
                                       std::tuple{access.upper.get(), access.upper_inclusive, false}}) {
    if (e == nullptr) continue;
    auto& slot = is_lower != descending ? scan.lower : scan.upper;
    auto ok = bound(is_lower ? access.lower : access.upper, inclusive, slot);
    if (!ok) return std::unexpected(ok.error());
    if (!*ok) return cursor;  // col > NULL matches nothing
  }
  auto it = t.Scan(*ctx.db->txn, scan);
  if (!it) return std::unexpected(StorageFailure(it.error()));
  cursor->iterator_.emplace(std::move(*it));
  return cursor;
}

std::expected<void, Error> TableScanCursor::StartPrefix(std::vector<Value> prefix) {
  const storage::Table& t = *table_;
  const IndexAccess& access = node_.access;
  point_lookup_ = false;
  iterator_.reset();
  if (access.index == 0 && prefix.size() == t.descriptor().primary.spec.columns.size()) {
    // The whole primary key: one row at most, looked up without a scan's copy of the leaf.
    auto row = t.Get(*ctx_.db->txn, prefix);
    if (!row) return std::unexpected(StorageFailure(row.error()));
    point_lookup_ = true;
    point_row_ = std::move(*row);
    point_returned_ = false;
    return {};
  }
  storage::IndexScan scan;
  scan.index = access.index;
  scan.direction = access.backward ? storage::ScanDirection::kBackward : storage::ScanDirection::kForward;
  std::string key = t.IndexKey(access.index, prefix);
  scan.lower = storage::KeyBound{key, true};
  scan.upper = storage::KeyBound{key, true};
  auto it = t.Scan(*ctx_.db->txn, scan);
  if (!it) return std::unexpected(StorageFailure(it.error()));
  iterator_.emplace(std::move(*it));
  return {};
}

std::expected<bool, Error> TableScanCursor::StartNextPoint() {
  if (next_point_ >= points_.size()) return false;
  if (auto started = StartPrefix(std::move(points_[next_point_++])); !started) return std::unexpected(started.error());
  return true;
}

std::expected<bool, Error> TableScanCursor::Next(Row& row) {
  while (true) {
    if (point_lookup_) {
      if (!point_row_ || point_returned_) {
        auto next = StartNextPoint();
        if (!next) return std::unexpected(next.error());
        if (*next) continue;
        return false;
      }
      point_returned_ = true;
    } else {
      if (!iterator_) return false;
      if (++rows_read_ % 1024 == 0) {
        if (auto interrupted = ctx_.CheckInterrupts(); !interrupted) return std::unexpected(interrupted.error());
      }
      auto more = iterator_->Next();
      if (!more) return std::unexpected(StorageFailure(more.error()));
      if (!*more) {
        auto next = StartNextPoint();
        if (!next) return std::unexpected(next.error());
        if (*next) continue;
        return false;
      }
    }
    const storage::StoredRow& stored = this->stored();
    table_->Columns(stored, node_.columns, row);
    if (node_.row_addr) row.push_back(Value::Int(TypeId::kInt8, static_cast<int64_t>(stored.addr().raw)));
    if (!node_.filter) return true;
    auto keep = Holds(*node_.filter, row, ctx_);
    if (!keep) return std::unexpected(keep.error());
    if (*keep) return true;
  }
}

std::expected<CursorPtr, Error> TableScanNode::Open(ExecContext& ctx) const {
  auto cursor = TableScanCursor::Open(*this, ctx);
  if (!cursor) return std::unexpected(cursor.error());
  return CursorPtr(std::move(*cursor));
}

std::expected<std::unique_ptr<TableScanCursor>, Error> TableScanNode::OpenScan(ExecContext& ctx) const {
  return TableScanCursor::Open(*this, ctx);
}

namespace {

// System views are small: their rows are generated whole when the scan opens.
class SystemViewCursor final : public Cursor {
 public:
  SystemViewCursor(const SystemViewScanNode& node, std::vector<Row> rows, ExecContext& ctx)
      : node_(node), rows_(std::move(rows)), ctx_(ctx) {}
  std::expected<bool, Error> Next(Row& row) override {
    while (next_ < rows_.size()) {
      row = std::move(rows_[next_++]);
      if (node_.row_addr) row.push_back(Value::Int(TypeId::kInt8, static_cast<int64_t>(ctx_.db->catalog_root.raw)));
      if (!node_.filter) return true;
      auto keep = Holds(*node_.filter, row, ctx_);
      if (!keep) return std::unexpected(keep.error());
      if (*keep) return true;
    }
    return false;
  }

 private:
  const SystemViewScanNode& node_;
  std::vector<Row> rows_;
  ExecContext& ctx_;
  size_t next_ = 0;
};

}  // namespace

std::expected<CursorPtr, Error> SystemViewScanNode::Open(ExecContext& ctx) const {
  if (ctx.db == nullptr || !ctx.db->catalog) return std::unexpected(MakeError("XX000", "system view without a catalog"));
  SystemViewContext context{*ctx.db->catalog, ctx.db->database, ctx.db->user, ctx.db->search_path, ctx.db->databases,
                            ctx.db->cluster};
  return std::make_unique<SystemViewCursor>(*this, view->Rows(context), ctx);
}

}  // namespace farmdb::sql
