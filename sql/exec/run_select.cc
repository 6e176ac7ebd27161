// SELECT: the plan's rows, materialised (the portal sends them after the statement succeeded,
// so a conflict can still be retried).
#include "sql/exec/run_statement.h"

namespace farmdb::sql {

std::expected<StatementOutput, Error> RunSelect(const BoundQuery& query, ExecContext& ctx) {
  StatementOutput out;
  out.tag = "SELECT";
  out.counts_rows = true;
  auto cursor = query.plan->Open(ctx);
  if (!cursor) return std::unexpected(cursor.error());
  Row row;
  while (true) {
    auto more = (*cursor)->Next(row);
    if (!more) return std::unexpected(more.error());
    if (!*more) break;
    out.rows.push_back(std::move(row));
  }
  return out;
}

}  // namespace farmdb::sql
