// Physical plans: the tree of operators a query runs as, built by the planner (planner.cc) from
// a bound query, and the cursors that run them (sql/exec/*_cursor.cc).
//
// Rows. Every node produces rows of `width` Values. A table scan's row is the table's columns by
// attnum (dropped columns included, as NULLs); a join's row is its left row followed by its right
// row; an aggregation's row is its group keys followed by its aggregate results; a projection's
// row is its expressions. Bound expressions (kColumn) refer to slots of the row of the node that
// evaluates them, so an expression over the left side of a join is valid over the joined row
// too: nested-loop index joins evaluate the inner scan's key expressions over the outer row.
//
// A plan is immutable once built and may be shared by the portals of a prepared statement; it
// is valid for the catalog version it was planned under (TableDesc pointers point into that
// snapshot, which the plan keeps alive). Running state lives in cursors, one per Open.
//
// Thread-safety: plans are immutable; a cursor belongs to the statement's thread.
#pragma once

#include <expected>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sql/bind/bound_expr.h"
#include "sql/session.h"
#include "storage/catalog_snapshot.h"

namespace farmdb::sql {

struct ExecContext;
class SystemView;
using Row = std::vector<Value>;

class Cursor {
 public:
  virtual ~Cursor() = default;
  // Fills `row` with the next row; false once past the last.
  virtual std::expected<bool, Error> Next(Row& row) = 0;
};
using CursorPtr = std::unique_ptr<Cursor>;

class PlanNode {
 public:
  explicit PlanNode(size_t width) : width(width) {}
  virtual ~PlanNode() = default;
  // Starts a run; `ctx` must outlive the cursor (its row and outer rows are read by it).
  virtual std::expected<CursorPtr, Error> Open(ExecContext& ctx) const = 0;
  // EXPLAIN's lines for this node and its children, indented by `depth`.
  virtual void Explain(std::vector<std::string>& lines, int depth) const = 0;
  size_t width;
};
using PlanPtr = std::shared_ptr<const PlanNode>;

// How a table is read: through index `index` (0 primary, i secondary i, as storage::IndexScan),
// with the key columns' bounds. `equal` holds expressions for the first equal.size() key
// columns; after them an optional range on the next column. Expressions are evaluated over the
// outer row (ctx.row when the scan opens): constants, parameters, or the outer side of a join.
struct IndexAccess {
  uint32_t index = 0;
  std::vector<BoundExprPtr> equal = {};
  // Instead of `equal` (and no range): an IN list on the index's leading columns, each point
  // the values of those columns in index order; the scan looks each point up once (duplicates
  // and points with a NULL skipped), in the order of their keys.
  std::vector<std::vector<BoundExprPtr>> points = {};
  BoundExprPtr lower = nullptr, upper = nullptr;  // on key column equal.size(); null when open
  bool lower_inclusive = true, upper_inclusive = true;
  bool backward = false;
};

// `row_addr`: the row ends with one more column, the row object's Addr as an int8, for a
// LockRowsNode above (FOR UPDATE / FOR SHARE). `columns`: the table columns (by attnum - 1) the
// plan reads, the only ones decoded; the others are NULL in the row. Empty: every column.
class TableScanNode final : public PlanNode {
 public:
  TableScanNode(storage::SnapshotPtr catalog, const storage::TableDesc* table, std::string alias, IndexAccess access,
                BoundExprPtr filter, bool row_addr = false, std::vector<bool> columns = {})
      : PlanNode(table->columns.size() + (row_addr ? 1 : 0)),
        catalog(std::move(catalog)),
        table(table),
        alias(std::move(alias)),
        access(std::move(access)),
        filter(std::move(filter)),
        row_addr(row_addr),
        columns(std::move(columns)) {}
  std::expected<CursorPtr, Error> Open(ExecContext& ctx) const override;
  void Explain(std::vector<std::string>& lines, int depth) const override;
  // The scan as UPDATE and DELETE run it: the cursor also exposes the stored row.
  std::expected<std::unique_ptr<class TableScanCursor>, Error> OpenScan(ExecContext& ctx) const;

  storage::SnapshotPtr catalog;  // keeps `table` alive
  const storage::TableDesc* table;
  std::string alias;
  IndexAccess access;
  BoundExprPtr filter;  // over the table's row; null: every row
  bool row_addr;
  std::vector<bool> columns;
  // The WHERE conjuncts over the table's row that `access` answers exactly, left out of `filter`
  // (planner.cc ExactKeyCondition); null: none. A row reached other than through the access
  // (a re-applied UPDATE's newest version) must meet them as well as `filter`.
  BoundExprPtr index_condition = nullptr;
};

// `row_addr`: the view's row ends with one more column, the catalog root's Addr as an int8
// (DatabaseAccess::catalog_root): a system view's rows are that object's contents, for a
// LockRowsNode above.
class SystemViewScanNode final : public PlanNode {
 public:
  SystemViewScanNode(const SystemView* view, size_t width, BoundExprPtr filter, bool row_addr = false)
      : PlanNode(width), view(view), filter(std::move(filter)), row_addr(row_addr) {}
  std::expected<CursorPtr, Error> Open(ExecContext& ctx) const override;
  void Explain(std::vector<std::string>& lines, int depth) const override;
  const SystemView* view;
  BoundExprPtr filter;
  bool row_addr;
};

// VALUES lists, or the one empty row of a SELECT without FROM (rows = {{}}).
class ValuesNode final : public PlanNode {
 public:
  ValuesNode(size_t width, std::vector<std::vector<BoundExprPtr>> rows) : PlanNode(width), rows(std::move(rows)) {}
  std::expected<CursorPtr, Error> Open(ExecContext& ctx) const override;
  void Explain(std::vector<std::string>& lines, int depth) const override;
  std::vector<std::vector<BoundExprPtr>> rows;
};

class FilterNode final : public PlanNode {
 public:
  FilterNode(PlanPtr child, BoundExprPtr predicate)
      : PlanNode(child->width), child(std::move(child)), predicate(std::move(predicate)) {}
  std::expected<CursorPtr, Error> Open(ExecContext& ctx) const override;
  void Explain(std::vector<std::string>& lines, int depth) const override;
  PlanPtr child;
  BoundExprPtr predicate;
};

class ProjectNode final : public PlanNode {
 public:
  ProjectNode(PlanPtr child, std::vector<BoundExprPtr> exprs)
      : PlanNode(exprs.size()), child(std::move(child)), exprs(std::move(exprs)) {}
  std::expected<CursorPtr, Error> Open(ExecContext& ctx) const override;
  void Explain(std::vector<std::string>& lines, int depth) const override;
  PlanPtr child;
  std::vector<BoundExprPtr> exprs;
};

enum class JoinType { kInner, kLeft };

// For each left row, opens `right` with ctx.row = the left row (an index scan keyed by it, or
// any plan when nothing keys it), keeping pairs where `condition` (over the joined row) holds.
class NestedLoopJoinNode final : public PlanNode {
 public:
  NestedLoopJoinNode(PlanPtr left, PlanPtr right, JoinType type, BoundExprPtr condition)
      : PlanNode(left->width + right->width),
        left(std::move(left)),
        right(std::move(right)),
        type(type),
        condition(std::move(condition)) {}
  std::expected<CursorPtr, Error> Open(ExecContext& ctx) const override;
  void Explain(std::vector<std::string>& lines, int depth) const override;
  PlanPtr left, right;
  JoinType type;
  BoundExprPtr condition;  // null: every pair
};

// Builds a hash table on `right` keyed by right_keys (over the right row), probes it with
// left_keys (over the left row); NULL keys never match. `condition` filters the joined pairs.
class HashJoinNode final : public PlanNode {
 public:
  HashJoinNode(PlanPtr left, PlanPtr right, JoinType type, std::vector<BoundExprPtr> left_keys,
               std::vector<BoundExprPtr> right_keys, BoundExprPtr condition)
      : PlanNode(left->width + right->width),
        left(std::move(left)),
        right(std::move(right)),
        type(type),
        left_keys(std::move(left_keys)),
        right_keys(std::move(right_keys)),
        condition(std::move(condition)) {}
  std::expected<CursorPtr, Error> Open(ExecContext& ctx) const override;
  void Explain(std::vector<std::string>& lines, int depth) const override;
  PlanPtr left, right;
  JoinType type;
  std::vector<BoundExprPtr> left_keys, right_keys;
  BoundExprPtr condition;
};

enum class AggregateFunction { kCount, kCountStar, kSum, kAvg, kMin, kMax, kBoolAnd, kBoolOr, kStringAgg, kArrayAgg };

struct SortKey {
  size_t column = 0;
  bool descending = false;
  bool nulls_first = false;
};

struct AggregateCall {
  AggregateFunction function = AggregateFunction::kCount;
  bool distinct = false;
  TypeId type = TypeId::kUnknown;  // the result type
  std::vector<BoundExprPtr> args;  // over the aggregated input row
  // f(x ORDER BY y): the inputs are taken in the order of `order_by` (over the input row),
  // with `order`'s directions (column = position in order_by).
  std::vector<BoundExprPtr> order_by;
  std::vector<SortKey> order;
  BoundExprPtr filter;  // FILTER (WHERE ...): only input rows where it is true; null: all
};

// Groups its input by `groups` and computes `aggregates` per group; the row is the group key
// values followed by the aggregate results. Without groups there is exactly one row.
class AggregateNode final : public PlanNode {
 public:
  AggregateNode(PlanPtr child, std::vector<BoundExprPtr> groups, std::vector<AggregateCall> aggregates)
      : PlanNode(groups.size() + aggregates.size()),
        child(std::move(child)),
        groups(std::move(groups)),
        aggregates(std::move(aggregates)) {}
  std::expected<CursorPtr, Error> Open(ExecContext& ctx) const override;
  void Explain(std::vector<std::string>& lines, int depth) const override;
  PlanPtr child;
  std::vector<BoundExprPtr> groups;
  std::vector<AggregateCall> aggregates;
};

class SortNode final : public PlanNode {
 public:
  SortNode(PlanPtr child, std::vector<SortKey> keys) : PlanNode(child->width), child(std::move(child)), keys(std::move(keys)) {}
  std::expected<CursorPtr, Error> Open(ExecContext& ctx) const override;
  void Explain(std::vector<std::string>& lines, int depth) const override;
  PlanPtr child;
  std::vector<SortKey> keys;
};

// Drops rows whose first `columns` values equal an earlier row's (NULLs equal), keeping order.
class DistinctNode final : public PlanNode {
 public:
  DistinctNode(PlanPtr child, size_t columns) : PlanNode(child->width), child(std::move(child)), columns(columns) {}
  std::expected<CursorPtr, Error> Open(ExecContext& ctx) const override;
  void Explain(std::vector<std::string>& lines, int depth) const override;
  PlanPtr child;
  size_t columns;
};

class LimitNode final : public PlanNode {
 public:
  LimitNode(PlanPtr child, BoundExprPtr limit, BoundExprPtr offset)
      : PlanNode(child->width), child(std::move(child)), limit(std::move(limit)), offset(std::move(offset)) {}
  std::expected<CursorPtr, Error> Open(ExecContext& ctx) const override;
  void Explain(std::vector<std::string>& lines, int depth) const override;
  PlanPtr child;
  BoundExprPtr limit, offset;  // null: none
};

// SELECT ... FOR UPDATE / FOR SHARE (PostgreSQL's LockRows): passes its input's rows through,
// locking in the statement's Txn the object whose Addr each target column holds (a row object,
// or the catalog root for a system view; NULL: none): exclusive ones with
// txn::Txn::WriteUnchanged, shared ones with ValidateAtCommit (txn.h: the optimistic forms of
// row locks). Placed as PostgreSQL places it: above ORDER BY's sort, below LIMIT, so the rows
// locked are those returned.
class LockRowsNode final : public PlanNode {
 public:
  struct Target {
    size_t column;  // an int8 Addr in the input row
    bool exclusive;
  };
  LockRowsNode(PlanPtr child, std::vector<Target> targets)
      : PlanNode(child->width), child(std::move(child)), targets(std::move(targets)) {}
  std::expected<CursorPtr, Error> Open(ExecContext& ctx) const override;
  void Explain(std::vector<std::string>& lines, int depth) const override;
  PlanPtr child;
  std::vector<Target> targets;
};

// The window functions farmdb computes, besides the aggregates (kAggregate).
enum class WindowFunction { kRowNumber, kRank, kDenseRank, kPercentRank, kCumeDist, kNtile, kLag, kLead,
                            kFirstValue, kLastValue, kAggregate };

// One window function call: `call` holds its arguments and result type (and, for kAggregate,
// the aggregate), all expressions over the window node's input row.
struct WindowCall {
  WindowFunction function = WindowFunction::kRowNumber;
  AggregateCall call;
  std::vector<BoundExprPtr> partition_by;
  std::vector<BoundExprPtr> order_by;
  std::vector<SortKey> order;  // directions of order_by (column = position in order_by)
  // The frame: ROWS or RANGE (peers count as one), starting at the partition's first row or
  // the current row, ending at the current row (with its peers for RANGE) or the last row.
  bool rows = false;
  bool from_current = false;
  bool to_end = false;
};

// Appends each window call's value to its input row (PostgreSQL's WindowAgg): rows come out
// in the order of the last call's PARTITION BY / ORDER BY.
class WindowNode final : public PlanNode {
 public:
  WindowNode(PlanPtr child, std::vector<WindowCall> calls)
      : PlanNode(child->width + calls.size()), child(std::move(child)), calls(std::move(calls)) {}
  std::expected<CursorPtr, Error> Open(ExecContext& ctx) const override;
  void Explain(std::vector<std::string>& lines, int depth) const override;
  PlanPtr child;
  std::vector<WindowCall> calls;
};

// Set-returning functions of a target list (PostgreSQL 10's ProjectSet): per input row, the
// calls run in lockstep until all are done, the shorter ones giving NULLs; each output row is
// the input row followed by one value per call. An input row whose calls all return nothing
// produces no row.
class ProjectSetNode final : public PlanNode {
 public:
  ProjectSetNode(PlanPtr child, std::vector<BoundExprPtr> calls)
      : PlanNode(child->width + calls.size()), child(std::move(child)), calls(std::move(calls)) {}
  std::expected<CursorPtr, Error> Open(ExecContext& ctx) const override;
  void Explain(std::vector<std::string>& lines, int depth) const override;
  PlanPtr child;
  std::vector<BoundExprPtr> calls;  // set-returning calls over the child's row
};

// A function call in FROM: the rows of a set-returning call (or the one row of any other
// expression), a record's fields expanded into columns. Its arguments read only enclosing
// queries' rows (no LATERAL), so it is evaluated afresh at each Open.
class FunctionScanNode final : public PlanNode {
 public:
  FunctionScanNode(BoundExprPtr call, size_t width) : PlanNode(width), call(std::move(call)) {}
  std::expected<CursorPtr, Error> Open(ExecContext& ctx) const override;
  void Explain(std::vector<std::string>& lines, int depth) const override;
  BoundExprPtr call;
};

// UNION ALL of its inputs (UNION is a DistinctNode over it).
class AppendNode final : public PlanNode {
 public:
  explicit AppendNode(std::vector<PlanPtr> inputs) : PlanNode(inputs.front()->width), inputs(std::move(inputs)) {}
  std::expected<CursorPtr, Error> Open(ExecContext& ctx) const override;
  void Explain(std::vector<std::string>& lines, int depth) const override;
  std::vector<PlanPtr> inputs;
};

// Evaluates `e` over `row` (ctx.row is set for the call and restored after).
std::expected<Value, Error> EvaluateOn(const BoundExpr& e, std::span<const Value> row, ExecContext& ctx);
// A predicate's outcome: true only for a non-NULL true.
std::expected<bool, Error> Holds(const BoundExpr& e, std::span<const Value> row, ExecContext& ctx);
// Compares rows by sort keys with PostgreSQL's NULL placement (sort and window cursors).
int CompareByKeys(const Row& a, const Row& b, const std::vector<SortKey>& keys);

}  // namespace farmdb::sql
