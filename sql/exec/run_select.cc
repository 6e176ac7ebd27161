// SELECT without relations: one row, kept when WHERE holds.
#include "sql/exec/run_statement.h"

namespace farmdb::sql {

std::expected<StatementOutput, Error> RunSelect(const BoundSelect& select, ExecContext& ctx) {
  StatementOutput out;
  out.tag = "SELECT";
  out.counts_rows = true;
  if (select.where) {
    auto keep = Evaluate(*select.where, ctx);
    if (!keep) return std::unexpected(keep.error());
    if (keep->IsNull() || !keep->AsBool()) return out;
  }
  std::vector<Value> row;
  for (const BoundExprPtr& target : select.targets) {
    auto v = Evaluate(*target, ctx);
    if (!v) return std::unexpected(v.error());
    row.push_back(std::move(*v));
  }
  out.rows.push_back(std::move(row));
  return out;
}

}  // namespace farmdb::sql
