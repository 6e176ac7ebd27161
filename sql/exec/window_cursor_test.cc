// The window cursor (plan.h WindowNode) on constant input: partitions, peers, frames, NULL
// placement and the output order, each checked against what PostgreSQL 15's WindowAgg returns.
#include "sql/exec/cursor_test_util.h"

namespace farmdb::sql {
namespace {

using enum TypeId;

class WindowCursorTest : public CursorTest {
 protected:
  // Rows (id int4, grp text, v int4).
  PlanPtr Input() {
    auto row = [](int64_t id, const char* grp, std::optional<int64_t> v) {
      return std::vector<Value>{Value::Int(kInt4, id), grp ? Value::Str(kText, grp) : Value::Null(kText),
                                v ? Value::Int(kInt4, *v) : Value::Null(kInt4)};
    };
    return ConstantRows({row(1, "a", 10), row(2, "a", 20), row(3, "a", 10), row(4, "b", 5), row(5, "b", std::nullopt),
                         row(6, nullptr, 7)},
                        3);
  }
  // A call with PARTITION BY grp (when `partitioned`) and ORDER BY v [DESC], then id.
  WindowCall Call(WindowFunction f, bool partitioned, bool by_v = true, bool descending = false) {
    WindowCall c;
    c.function = f;
    c.call.type = kInt8;
    if (partitioned) c.partition_by.push_back(ColumnRef(1, kText));
    if (by_v) {
      c.order.push_back(SortKey{c.order_by.size(), descending, descending});
      c.order_by.push_back(ColumnRef(2, kInt4));
    }
    return c;
  }
  // The window columns of each input row, by id.
  std::vector<std::vector<std::string>> ById(std::vector<WindowCall> calls) {
    size_t n = calls.size();
    auto rows = RunPlan(SortNode(std::make_shared<WindowNode>(Input(), std::move(calls)), {SortKey{0, false, false}}));
    for (auto& r : rows) r.erase(r.begin(), r.end() - static_cast<long>(n));
    return rows;
  }
};

TEST_F(WindowCursorTest, RanksCountPeersWithinPartitions) {
  std::vector<WindowCall> calls;
  calls.push_back(Call(WindowFunction::kRowNumber, true));
  calls.push_back(Call(WindowFunction::kRank, true));
  calls.push_back(Call(WindowFunction::kDenseRank, false));
  // ORDER BY v: 5, 7, 10, 10, 20, NULL (NULLS LAST ascending); ids 1 and 3 are peers.
  EXPECT_EQ(ById(std::move(calls)), (std::vector<std::vector<std::string>>{
                                        {"1", "1", "3"}, {"3", "3", "4"}, {"2", "1", "3"}, {"1", "1", "1"},
                                        {"2", "2", "5"}, {"1", "1", "2"}}));
}

TEST_F(WindowCursorTest, PercentRankCumeDistAndNtile) {
  std::vector<WindowCall> calls;
  calls.push_back(Call(WindowFunction::kPercentRank, false));
  calls.push_back(Call(WindowFunction::kCumeDist, false));
  WindowCall ntile = Call(WindowFunction::kNtile, false);
  ntile.call.args.push_back(ConstExpr(Value::Int(kInt4, 4)));
  calls.push_back(std::move(ntile));
  // Six rows in four buckets: 2, 2, 1, 1.
  EXPECT_EQ(ById(std::move(calls)), (std::vector<std::vector<std::string>>{
                                        {"0.4", "0.6666666666666666", "2"}, {"0.8", "0.8333333333333334", "3"},
                                        {"0.4", "0.6666666666666666", "2"}, {"0", "0.16666666666666666", "1"},
                                        {"1", "1", "4"}, {"0.2", "0.3333333333333333", "1"}}));
}

TEST_F(WindowCursorTest, LagLeadAndFrameValues) {
  auto with_arg = [&](WindowFunction f, bool partitioned) {
    WindowCall c = Call(f, partitioned, false);
    c.order.push_back(SortKey{0, false, false});
    c.order_by.push_back(ColumnRef(0, kInt4));  // ORDER BY id
    c.call.type = kInt4;
    c.call.args.push_back(ColumnRef(2, kInt4));
    return c;
  };
  std::vector<WindowCall> calls;
  calls.push_back(with_arg(WindowFunction::kLag, true));
  WindowCall lead = with_arg(WindowFunction::kLead, false);
  lead.call.args.push_back(ConstExpr(Value::Int(kInt4, 2)));
  lead.call.args.push_back(ConstExpr(Value::Int(kInt4, -1)));
  calls.push_back(std::move(lead));
  calls.push_back(with_arg(WindowFunction::kFirstValue, true));
  WindowCall last = with_arg(WindowFunction::kLastValue, true);
  last.to_end = true;  // RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING
  calls.push_back(std::move(last));
  EXPECT_EQ(ById(std::move(calls)), (std::vector<std::vector<std::string>>{
                                        {"NULL", "10", "10", "10"}, {"10", "5", "10", "10"}, {"20", "NULL", "10", "10"},
                                        {"NULL", "7", "5", "NULL"}, {"5", "-1", "5", "NULL"}, {"NULL", "-1", "7", "7"}}));
}

TEST_F(WindowCursorTest, AggregatesOverRangeAndRowsFrames) {
  auto sum = [&](bool rows, bool from_current, bool to_end) {
    WindowCall c = Call(WindowFunction::kAggregate, false);
    c.call.function = AggregateFunction::kSum;
    c.call.type = kInt8;
    c.call.args.push_back(ColumnRef(2, kInt4));
    c.rows = rows, c.from_current = from_current, c.to_end = to_end;
    return c;
  };
  std::vector<WindowCall> calls;
  calls.push_back(sum(false, false, false));  // the default frame: peers share the running sum
  calls.push_back(sum(true, false, false));   // ROWS: the peer order decides
  calls.push_back(sum(false, true, true));    // RANGE from the current row's peers to the end
  calls.push_back(sum(false, false, true));   // the whole partition
  // ORDER BY v: 5 (id 4), 7 (6), 10 (1), 10 (3), 20 (2), NULL (5).
  EXPECT_EQ(ById(std::move(calls)), (std::vector<std::vector<std::string>>{
                                        {"32", "22", "40", "52"}, {"52", "52", "20", "52"}, {"32", "32", "40", "52"},
                                        {"5", "5", "52", "52"}, {"52", "52", "NULL", "52"}, {"12", "12", "47", "52"}}));
}

TEST_F(WindowCursorTest, RowsLeaveInTheLastCallsOrder) {
  std::vector<WindowCall> calls;
  calls.push_back(Call(WindowFunction::kRowNumber, false));
  calls.push_back(Call(WindowFunction::kRowNumber, false, true, true));  // ORDER BY v DESC (NULLS FIRST)
  auto rows = RunPlan(WindowNode(Input(), std::move(calls)));
  std::vector<std::string> ids;
  for (const auto& r : rows) ids.push_back(r[0]);
  EXPECT_EQ(ids, (std::vector<std::string>{"5", "2", "1", "3", "6", "4"}));
}

TEST_F(WindowCursorTest, NtileArgumentMustBePositive) {
  WindowCall ntile = Call(WindowFunction::kNtile, false);
  ntile.call.args.push_back(ConstExpr(Value::Int(kInt4, 0)));
  std::vector<WindowCall> calls;
  calls.push_back(std::move(ntile));
  EXPECT_EQ(RunPlan(WindowNode(Input(), std::move(calls))),
            (std::vector<std::vector<std::string>>{{"ERROR argument of ntile must be greater than zero"}}));
}

TEST_F(WindowCursorTest, EmptyInputHasNoRows) {
  std::vector<WindowCall> calls;
  calls.push_back(Call(WindowFunction::kRowNumber, true));
  EXPECT_TRUE(RunPlan(WindowNode(ConstantRows({}, 3), std::move(calls))).empty());
}

}  // namespace
}  // namespace farmdb::sql
