// OVER clauses of window function calls: PARTITION BY, ORDER BY and the frame.
#include "sql/parse/transform.h"

namespace farmdb::sql {
namespace {

// PostgreSQL 15's WindowDef.frameOptions bits (nodes/parsenodes.h).
constexpr int kFrameNonDefault = 0x00001;
constexpr int kFrameRows = 0x00004;
constexpr int kFrameGroups = 0x00008;
constexpr int kFrameStartCurrentRow = 0x00200;
constexpr int kFrameEndUnboundedFollowing = 0x00100;
constexpr int kFrameOffsets = 0x00800 | 0x01000 | 0x02000 | 0x04000;  // n PRECEDING / FOLLOWING
constexpr int kFrameExclusions = 0x08000 | 0x10000 | 0x20000;        // EXCLUDE ...

}  // namespace

std::expected<std::unique_ptr<WindowSpec>, Error> Transformer::TransformWindowSpec(const PgQuery__WindowDef& def) {
  if (Given(def.refname) || Given(def.name)) return std::unexpected(NotSupported("named windows", def.location));
  auto spec = std::make_unique<WindowSpec>();
  spec->location = def.location;
  int options = def.frame_options;
  if (options & kFrameNonDefault) {
    if (options & kFrameGroups) return std::unexpected(NotSupported("GROUPS frames", def.location));
    if (options & kFrameOffsets) return std::unexpected(NotSupported("window frame offsets", def.location));
    if (options & kFrameExclusions) return std::unexpected(NotSupported("window frame exclusion", def.location));
    spec->rows = (options & kFrameRows) != 0;
    if (options & kFrameStartCurrentRow) spec->start = WindowSpec::Bound::kCurrentRow;
    if (options & kFrameEndUnboundedFollowing) spec->end = WindowSpec::Bound::kUnboundedFollowing;
  }
  for (size_t i = 0; i < def.n_partition_clause; ++i) spec->partition_by.push_back(ClauseExpr(*def.partition_clause[i]));
  auto order_by = TransformSortItems(def.order_clause, def.n_order_clause);
  if (!order_by) return std::unexpected(order_by.error());
  spec->order_by = std::move(*order_by);
  return spec;
}

}  // namespace farmdb::sql
