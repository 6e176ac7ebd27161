// Row insertion shared by INSERT and COPY FROM (run_dml.cc): defaults, NOT NULL and CHECK,
// unique violations as 23505, ON CONFLICT, RETURNING.
//
// Thread-safety: the statement's thread; must not outlive the statement's Txn.
#pragma once

#include <memory>
#include <unordered_set>
#include <vector>

#include "sql/exec/evaluate.h"
#include "sql/plan/dml_plan.h"
#include "storage/table.h"

namespace farmdb::sql {

class RowInserter {
 public:
  // REQUIRES: ctx.db is attached; `plan` and `ctx` outlive the inserter.
  RowInserter(const InsertPlan& plan, ExecContext& ctx);
  ~RowInserter();

  // Inserts one row from the values of plan.targets' columns (already of their types), moving
  // them out of `input`. False when ON CONFLICT skipped it (DO NOTHING, or DO UPDATE's WHERE did
  // not hold).
  std::expected<bool, Error> Insert(Row& input);
  // RETURNING's rows so far.
  std::vector<Row>& returned() { return returned_; }

 private:
  std::expected<bool, Error> UpdateExisting(const Row& proposed);
  std::expected<bool, Error> Emit(const Row& row);

  const InsertPlan& plan_;
  ExecContext& ctx_;
  std::shared_ptr<const storage::Table> table_;
  // Rows this command inserted or updated (by Addr) under ON CONFLICT DO UPDATE, which may not
  // change one of them again.
  std::unordered_set<uint64_t> touched_;
  std::vector<Row> returned_;
};

}  // namespace farmdb::sql
