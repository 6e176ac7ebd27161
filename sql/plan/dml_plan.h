// Plans of INSERT, UPDATE and DELETE: what the binder (bind_dml.cc) resolved and the executor
// (exec/run_dml.cc) runs. Rows are table rows: one Value per column by attnum - 1, dropped
// columns included as NULL (the layout storage::Table takes).
//
// Thread-safety: immutable once built, like plan.h's nodes.
#pragma once

#include <memory>
#include <optional>
#include <utility>
#include <variant>
#include <vector>

#include "sql/plan/plan.h"

namespace farmdb::sql {

// A SET item: table column `column` (attnum - 1) gets `value`.
struct Assignment {
  int column = 0;
  BoundExprPtr value;
};

// The checks every written row passes, in PostgreSQL's order: NOT NULL, then CHECK constraints.
struct RowChecks {
  std::vector<int> not_null;  // columns (attnum - 1)
  struct Check {
    std::string name;
    BoundExprPtr predicate;  // over the table row
  };
  std::vector<Check> checks;
};

struct OnConflictPlan {
  bool update = false;  // DO UPDATE (else DO NOTHING)
  // The unique indexes that decide a conflict (positions, as storage::IndexScan), or none for
  // any unique index (DO NOTHING without a target): the inferred or named index and every other
  // unique index over the same columns (a unique index beside the primary key), since an insert
  // reports its conflict at whichever of them it reaches first.
  std::vector<uint32_t> arbiters;
  // Finds the existing row: the arbiter's key taken from the proposed row (the outer row).
  std::shared_ptr<const TableScanNode> existing;
  // DO UPDATE's SET and WHERE, over the existing row followed by the proposed (EXCLUDED) row.
  std::vector<Assignment> set;
  BoundExprPtr where;
};

struct InsertPlan {
  storage::SnapshotPtr catalog;  // keeps `table` alive
  const storage::TableDesc* table = nullptr;
  PlanPtr source;            // the inserted rows' listed columns, already of the columns' types
  std::vector<int> targets;  // the table column each source column fills
  // Per table column not listed: its default (null: NULL), evaluated per row.
  std::vector<BoundExprPtr> defaults;
  RowChecks checks;
  std::optional<OnConflictPlan> on_conflict;
  std::vector<BoundExprPtr> returning;  // over the table row
};

struct UpdatePlan {
  storage::SnapshotPtr catalog;
  const storage::TableDesc* table = nullptr;
  // The rows WHERE selects, decoding the columns WHERE, SET, RETURNING and the checks read.
  std::shared_ptr<const TableScanNode> scan;
  std::vector<Assignment> set;                // over the old row
  std::vector<bool> changed;                  // per table column: does SET assign it?
  RowChecks checks;
  std::vector<BoundExprPtr> returning;        // over the new row
  // READ COMMITTED may re-apply this UPDATE to a row's newest version at commit, as PostgreSQL
  // re-applies it to a row updated concurrently (run_dml.cc RowRecompute): the table has a
  // primary key (which proves a row is still the row), no SET column is an index key (the row's
  // index entries stay as they are), WHERE, SET and the CHECKs read only the row and parameters
  // (ReadsOnlyRowAndParameters), and there is no RETURNING (its values went to the client).
  bool reapplicable = false;
};

struct DeletePlan {
  storage::SnapshotPtr catalog;
  const storage::TableDesc* table = nullptr;
  std::shared_ptr<const TableScanNode> scan;
  std::vector<BoundExprPtr> returning;  // over the deleted row
};

using DmlPlan = std::variant<InsertPlan, UpdatePlan, DeletePlan>;

}  // namespace farmdb::sql
