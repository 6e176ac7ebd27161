// INSERT, UPDATE and DELETE over storage::Table in the statement's Txn, with PostgreSQL's
// constraint errors (23502 NOT NULL, 23514 CHECK, 23505 unique, each with its DETAIL), ON
// CONFLICT and RETURNING.
//
// UPDATE and DELETE first collect the rows their scan selects, then change them: changing rows
// while an index scan walks them could meet a moved row twice (the Halloween problem). They keep
// each row as stored, with only the columns the statement reads decoded (the scan's column set),
// and UPDATE writes the columns SET assigns over the stored bytes of the others (Table::Update).
#include <fmt/format.h>

#include <algorithm>
#include <unordered_set>

#include "sql/exec/run_dml.h"

#include "sql/exec/run_statement.h"
#include "sql/exec/scan_cursor.h"
#include "sql/types/type_io.h"

namespace farmdb::sql {
namespace {

std::string ValueText(const Value& v, const TextOptions& options) { return v.IsNull() ? "null" : FormatText(v, options); }

// "Failing row contains (1, null)." over the live columns.
std::string FailingRow(const storage::TableDesc& table, const Row& row, const TextOptions& options) {
  std::string out;
  for (const storage::ColumnDesc& c : table.columns) {
    if (c.attisdropped) continue;
    out += (out.empty() ? "" : ", ") + ValueText(row[c.attnum - 1], options);
  }
  return fmt::format("Failing row contains ({}).", out);
}

// Checks `row`, the new row; `whole_row()` gives all of it for an error's DETAIL (UPDATE's row
// holds only the columns the statement reads).
template <typename WholeRow>
std::expected<void, Error> CheckRow(const RowChecks& checks, const storage::TableDesc& table, const Row& row,
                                    const WholeRow& whole_row, ExecContext& ctx) {
  for (int column : checks.not_null) {
    if (!row[column].IsNull()) continue;
    Error e = MakeError("23502", fmt::format("null value in column \"{}\" of relation \"{}\" violates not-null constraint",
                                             table.columns[column].attname, table.relname));
    e.detail = FailingRow(table, whole_row(), ctx.output);
    return std::unexpected(e);
  }
  for (const RowChecks::Check& check : checks.checks) {
    auto v = EvaluateOn(*check.predicate, row, ctx);
    if (!v) return std::unexpected(v.error());
    if (v->IsNull() || v->AsBool()) continue;  // a CHECK passes unless it is false
    Error e = MakeError("23514", fmt::format("new row for relation \"{}\" violates check constraint \"{}\"", table.relname, check.name));
    e.detail = FailingRow(table, whole_row(), ctx.output);
    return std::unexpected(e);
  }
  return {};
}

// 23505 for a duplicate in the index at storage position `position`.
Error UniqueViolation(const storage::TableDesc& table, uint32_t position, const Row& row, const TextOptions& options) {
  const storage::IndexDesc* index = table.IndexAt(position);
  if (index == nullptr) return MakeError("XX000", "duplicate hidden row id");
  const storage::ConstraintDesc* con = table.ConstraintOf(index->oid);
  Error e = MakeError("23505", fmt::format("duplicate key value violates unique constraint \"{}\"",
                                           con != nullptr ? con->conname : index->relname));
  std::string names, values;
  for (const storage::IndexKeyColumn& k : index->keys) {
    names += (names.empty() ? "" : ", ") + table.columns[k.attnum - 1].attname;
    values += (values.empty() ? "" : ", ") + ValueText(row[k.attnum - 1], options);
  }
  e.detail = fmt::format("Key ({})=({}) already exists.", names, values);
  return e;
}

std::expected<Row, Error> Returning(const std::vector<BoundExprPtr>& returning, const Row& row, ExecContext& ctx) {
  Row out;
  out.reserve(returning.size());
  for (const BoundExprPtr& e : returning) {
    auto v = EvaluateOn(*e, row, ctx);
    if (!v) return std::unexpected(v.error());
    out.push_back(std::move(*v));
  }
  return out;
}

// Evaluates SET over `input` (the old row, or old row + EXCLUDED), then stores the results in
// `row`, which starts as the old row and may be `input` itself: every expression sees the old
// values, as in PostgreSQL, and the row's other columns are not copied.
std::expected<void, Error> Assign(const std::vector<Assignment>& set, const Row& input, Row& row, ExecContext& ctx) {
  std::vector<Value> values;
  values.reserve(set.size());
  for (const Assignment& a : set) {
    auto v = EvaluateOn(*a.value, input, ctx);
    if (!v) return std::unexpected(v.error());
    values.push_back(std::move(*v));
  }
  for (size_t i = 0; i < set.size(); ++i) row[set[i].column] = std::move(values[i]);
  return {};
}

// The whole row UPDATE writes: `updated`'s columns that `changed` marks over the stored ones
// (empty `changed`: `updated` is whole).
Row WholeRow(const storage::Table& table, const storage::StoredRow& stored, const Row& updated,
             const std::vector<bool>& changed) {
  if (changed.empty()) return updated;
  Row row = table.Columns(stored);
  for (size_t i = 0; i < changed.size(); ++i) {
    if (changed[i]) row[i] = updated[i];
  }
  return row;
}

// UPDATE's write of one row: CHECKs `updated`, then writes it over `stored`, changing only the
// columns `changed` marks (empty: all; Table::Update); 23505 names the violated unique index.
// Returns the row's Addr (new if it outgrew its object).
std::expected<txn::Addr, Error> WriteUpdated(const storage::Table& table, const storage::TableDesc& desc, const RowChecks& checks,
                                             const storage::StoredRow& stored, const Row& updated,
                                             const std::vector<bool>& changed, ExecContext& ctx) {
  auto whole_row = [&] { return WholeRow(table, stored, updated, changed); };
  if (auto ok = CheckRow(checks, desc, updated, whole_row, ctx); !ok) return std::unexpected(ok.error());
  auto r = table.Update(*ctx.db->txn, stored, updated, changed);
  if (r) return *r;
  if (r.error().code == storage::StorageError::Code::kDuplicateKey) {
    return std::unexpected(UniqueViolation(desc, r.error().index, whole_row(), ctx.output));
  }
  return std::unexpected(StorageFailure(r.error()));
}

}  // namespace

RowInserter::RowInserter(const InsertPlan& plan, ExecContext& ctx)
    : plan_(plan), ctx_(ctx), table_(ctx.db->TableFor(plan.table->storage)) {}

RowInserter::~RowInserter() = default;

std::expected<bool, Error> RowInserter::Insert(Row& input) {
  Row row;
  row.reserve(plan_.table->columns.size());
  for (const storage::ColumnDesc& c : plan_.table->columns) row.push_back(Value::Null(c.type));
  for (size_t i = 0; i < plan_.targets.size(); ++i) row[plan_.targets[i]] = std::move(input[i]);
  for (size_t c = 0; c < plan_.defaults.size(); ++c) {
    if (!plan_.defaults[c]) continue;
    auto v = Evaluate(*plan_.defaults[c], ctx_);
    if (!v) return std::unexpected(v.error());
    row[c] = std::move(*v);
  }
  if (auto ok = CheckRow(plan_.checks, *plan_.table, row, [&] { return row; }, ctx_); !ok) {
    return std::unexpected(ok.error());
  }
  auto addr = table_->Insert(*ctx_.db->txn, row);
  if (addr) {
    if (plan_.on_conflict && plan_.on_conflict->update) touched_.insert(addr->raw);
    return Emit(row);
  }
  const storage::StorageError& err = addr.error();
  if (err.code != storage::StorageError::Code::kDuplicateKey) return std::unexpected(StorageFailure(err));
  const std::optional<OnConflictPlan>& oc = plan_.on_conflict;
  if (!oc || (!oc->arbiters.empty() && std::ranges::find(oc->arbiters, err.index) == oc->arbiters.end())) {
    return std::unexpected(UniqueViolation(*plan_.table, err.index, row, ctx_.output));
  }
  if (!oc->update) return false;
  return UpdateExisting(row);
}

std::expected<bool, Error> RowInserter::UpdateExisting(const Row& proposed) {
  const OnConflictPlan& oc = *plan_.on_conflict;
  std::span<const Value> saved = ctx_.row;
  ctx_.row = proposed;  // the arbiter lookup's key comes from the proposed row
  auto scan = oc.existing->OpenScan(ctx_);
  ctx_.row = saved;
  if (!scan) return std::unexpected(scan.error());
  Row existing;
  auto found = (*scan)->Next(existing);
  if (!found) return std::unexpected(found.error());
  if (!*found) return std::unexpected(MakeError("XX000", "ON CONFLICT: the conflicting row was not found"));
  txn::Addr addr = (*scan)->stored().addr();
  if (!touched_.insert(addr.raw).second) {
    Error e = MakeError("21000", "ON CONFLICT DO UPDATE command cannot affect row a second time");
    e.hint = "Ensure that no rows proposed for insertion within the same command have duplicate constrained values.";
    return std::unexpected(e);
  }
  Row both = existing;
  both.insert(both.end(), proposed.begin(), proposed.end());
  if (oc.where) {
    auto keep = Holds(*oc.where, both, ctx_);
    if (!keep) return std::unexpected(keep.error());
    if (!*keep) return false;
  }
  if (auto a = Assign(oc.set, both, existing, ctx_); !a) return std::unexpected(a.error());
  auto r = WriteUpdated(*table_, *plan_.table, plan_.checks, (*scan)->stored(), existing, {}, ctx_);
  if (!r) return std::unexpected(r.error());
  return Emit(existing);
}

std::expected<bool, Error> RowInserter::Emit(const Row& row) {
  if (plan_.returning.empty()) return true;
  auto r = Returning(plan_.returning, row, ctx_);
  if (!r) return std::unexpected(r.error());
  returned_.push_back(std::move(*r));
  return true;
}

namespace {

std::expected<StatementOutput, Error> RunInsert(const InsertPlan& plan, ExecContext& ctx) {
  RowInserter inserter(plan, ctx);
  auto source = plan.source->Open(ctx);
  if (!source) return std::unexpected(source.error());
  Row input;
  uint64_t inserted = 0;
  while (true) {
    auto more = (*source)->Next(input);
    if (!more) return std::unexpected(more.error());
    if (!*more) break;
    auto done = inserter.Insert(input);
    if (!done) return std::unexpected(done.error());
    inserted += *done ? 1 : 0;
  }
  StatementOutput out;
  out.rows = std::move(inserter.returned());
  out.tag = "INSERT 0 " + std::to_string(inserted);  // not fmt: this runs per statement
  return out;
}

// A row UPDATE or DELETE changes: as stored, and the columns the statement reads.
struct SelectedRow {
  storage::StoredRow stored;
  Row row;
};

// The rows a scan selects, before any is changed.
std::expected<std::vector<SelectedRow>, Error> SelectRows(const TableScanNode& scan, ExecContext& ctx) {
  auto cursor = scan.OpenScan(ctx);
  if (!cursor) return std::unexpected(cursor.error());
  std::vector<SelectedRow> rows;
  Row row;
  while (true) {
    auto more = (*cursor)->Next(row);
    if (!more) return std::unexpected(more.error());
    if (!*more) break;
    rows.push_back(SelectedRow{(*cursor)->TakeStored(), std::move(row)});
  }
  return rows;
}

// A re-applicable UPDATE's way to compute one of its rows again at commit, over the row's newest
// version (TransactionBlock::RowRecompute): what the statement ran with, kept for the commit.
class UpdateRecompute final : public TransactionBlock::RowRecompute {
 public:
  UpdateRecompute(std::shared_ptr<const DmlPlan> owner, const UpdatePlan& plan, const ExecContext& ctx)
      : owner_(std::move(owner)),
        plan_(plan),
        params_(ctx.params.begin(), ctx.params.end()),
        settings_(ctx.settings),
        output_(ctx.output),
        caches_(ctx.db->caches),
        transaction_start_(ctx.transaction_start),
        statement_start_(ctx.statement_start) {}

  std::expected<bool, Error> Redo(txn::Txn& t, txn::Addr addr) const override {
    DatabaseAccess db;
    db.txn = &t;
    db.catalog = plan_.catalog;
    db.caches = caches_;
    ExecContext ctx{params_, settings_, nullptr, std::chrono::steady_clock::time_point::max(), output_};
    ctx.db = &db;
    ctx.transaction_start = transaction_start_;
    ctx.statement_start = statement_start_;
    storage::Table table(plan_.table->storage, caches_);
    auto stored = table.Read(t, addr);
    if (!stored) {
      // Freed, or freed and taken by something that is not a row.
      const storage::StorageError& e = stored.error();
      if ((e.code == storage::StorageError::Code::kTxn && e.txn.code == txn::TxnErrorCode::kNotAllocated) ||
          e.code == storage::StorageError::Code::kCorrupt) {
        return false;
      }
      return std::unexpected(StorageFailure(e));
    }
    Row row = table.Columns(*stored);
    // Still this table's row: its primary key leads here (the object may have been freed and
    // reused since the statement read it).
    std::vector<Value> key;
    for (const storage::IndexKeyColumn& k : plan_.table->PrimaryKey()->keys) key.push_back(row[k.attnum - 1]);
    auto found = table.Get(t, key);
    if (!found) return std::unexpected(StorageFailure(found.error()));
    if (!*found || (*found)->addr() != addr) return false;
    // The whole WHERE: the newest version was not found through the scan's index.
    for (const BoundExprPtr* condition : {&plan_.scan->index_condition, &plan_.scan->filter}) {
      if (!*condition) continue;
      auto holds = Holds(**condition, row, ctx);
      if (!holds) return std::unexpected(holds.error());
      if (!*holds) return false;
    }
    if (auto a = Assign(plan_.set, row, row, ctx); !a) return std::unexpected(a.error());
    auto written = WriteUpdated(table, *plan_.table, plan_.checks, *stored, row, {}, ctx);
    if (!written) return std::unexpected(written.error());
    // A row that outgrew its object moved: its new object and index entries stay as written.
    if (*written == addr) (void)t.MarkReapplicable(addr);
    return true;
  }

 private:
  std::shared_ptr<const DmlPlan> owner_;  // keeps plan_ (and its catalog snapshot) alive
  const UpdatePlan& plan_;
  std::vector<Value> params_;
  Settings& settings_;
  TextOptions output_;
  storage::TableCaches caches_;
  int64_t transaction_start_, statement_start_;
};

std::expected<StatementOutput, Error> RunUpdate(const std::shared_ptr<const DmlPlan>& owner, const UpdatePlan& plan,
                                                ExecContext& ctx) {
  const auto handle = ctx.db->TableFor(plan.table->storage);
  const storage::Table& table = *handle;
  auto rows = SelectRows(*plan.scan, ctx);
  if (!rows) return std::unexpected(rows.error());
  TransactionBlock* block = ctx.transaction;
  bool reapply = plan.reapplicable && block != nullptr && block->ReappliesUpdates();
  std::shared_ptr<const UpdateRecompute> recompute;  // one per statement, made on first use
  StatementOutput out;
  for (auto& [stored, row] : *rows) {
    // In place: nothing reads the old values after SET.
    if (auto a = Assign(plan.set, row, row, ctx); !a) return std::unexpected(a.error());
    auto written = WriteUpdated(table, *plan.table, plan.checks, stored, row, plan.changed, ctx);
    if (!written) return std::unexpected(written.error());
    txn::Addr addr = stored.addr();
    // Refused (nothing to undo) when this transaction had read the row after writing it.
    if (reapply && *written == addr && ctx.db->txn->MarkReapplicable(addr)) {
      if (!recompute) recompute = std::make_shared<UpdateRecompute>(owner, plan, ctx);
      block->NoteReapplicable(addr, recompute);
    }
    if (!plan.returning.empty()) {
      auto ret = Returning(plan.returning, row, ctx);
      if (!ret) return std::unexpected(ret.error());
      out.rows.push_back(std::move(*ret));
    }
  }
  out.tag = "UPDATE " + std::to_string(rows->size());
  return out;
}

std::expected<StatementOutput, Error> RunDelete(const DeletePlan& plan, ExecContext& ctx) {
  const auto handle = ctx.db->TableFor(plan.table->storage);
  const storage::Table& table = *handle;
  auto rows = SelectRows(*plan.scan, ctx);
  if (!rows) return std::unexpected(rows.error());
  StatementOutput out;
  for (auto& [stored, old] : *rows) {
    if (auto r = table.Delete(*ctx.db->txn, stored); !r) return std::unexpected(StorageFailure(r.error()));
    if (!plan.returning.empty()) {
      auto ret = Returning(plan.returning, old, ctx);
      if (!ret) return std::unexpected(ret.error());
      out.rows.push_back(std::move(*ret));
    }
  }
  out.tag = "DELETE " + std::to_string(rows->size());
  return out;
}

}  // namespace

std::expected<StatementOutput, Error> RunDml(const std::shared_ptr<const DmlPlan>& plan, ExecContext& ctx) {
  if (const auto* insert = std::get_if<InsertPlan>(plan.get())) return RunInsert(*insert, ctx);
  if (const auto* update = std::get_if<UpdatePlan>(plan.get())) return RunUpdate(plan, *update, ctx);
  return RunDelete(std::get<DeletePlan>(*plan), ctx);
}

}  // namespace farmdb::sql
