// One aggregate's running state and its transitions, shared by the aggregation cursor and the
// window cursor (window aggregates): PostgreSQL's result types (sum(int4) is int8, sum(int8)
// and avg of integers are numeric) and NULL rules (aggregates skip NULL inputs; sum/avg/min/max
// of no rows are NULL, count 0).
//
// Thread-safety: a state belongs to one cursor.
#pragma once

#include <expected>
#include <span>
#include <string>
#include <unordered_set>

#include "sql/exec/evaluate.h"
#include "sql/plan/plan.h"

namespace farmdb::sql {

struct AggregateState {
  int64_t count = 0;    // inputs seen (non-NULL, or rows for count(*))
  Value value;          // running sum / min / max / bool / string; NULL before the first input
  std::unordered_set<std::string> seen;  // DISTINCT inputs
  std::vector<Value> elements;           // array_agg's inputs, NULLs included
  // With ORDER BY: each input's sort keys then its arguments, taken in order at the finish.
  std::vector<Row> ordered_inputs;
};

// The state before any input.
AggregateState StartAggregate(const AggregateCall& call);
// Adds one input row: the call's arguments evaluated over `input`.
std::expected<void, Error> Accumulate(const AggregateCall& call, AggregateState& s, std::span<const Value> input,
                                      ExecContext& ctx);
// The aggregate's value for the rows accumulated so far (with ORDER BY, they are taken in that
// order first).
std::expected<Value, Error> FinishAggregate(const AggregateCall& call, const AggregateState& s, ExecContext& ctx);

}  // namespace farmdb::sql
