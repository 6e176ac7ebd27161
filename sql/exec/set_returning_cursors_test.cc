// ProjectSet and function scan cursors (set_returning_cursors.cc) on constant input: the
// lockstep of several calls, NULL-padding of the shorter ones, input rows whose calls return
// nothing, strict calls with NULL arguments, and record results expanded into columns.
#include "sql/exec/builtins.h"
#include "sql/exec/cursor_test_util.h"

namespace farmdb::sql {
namespace {

using enum TypeId;

// A call of set-returning function `name` with the argument types `types`.
BoundExprPtr Call(std::string_view name, std::vector<TypeId> types, TypeId result, std::vector<BoundExprPtr> args) {
  for (const Builtin& b : SetReturningFunctions()) {
    if (b.name != name || b.args != types) continue;
    BoundExprPtr e = MakeBound(BoundKind::kBuiltin, result, -1);
    e->builtin = &b;
    e->args = std::move(args);
    if (result == kRecord) {
      e->record = std::make_shared<RecordType>(RecordType{{"x", kInt4}, {"n", kInt4}});
    }
    return e;
  }
  ADD_FAILURE() << "no " << name;
  return nullptr;
}

BoundExprPtr Series(BoundExprPtr from, BoundExprPtr to) {
  std::vector<BoundExprPtr> args;
  args.push_back(std::move(from));
  args.push_back(std::move(to));
  return Call("generate_series", {kInt4, kInt4}, kInt4, std::move(args));
}

BoundExprPtr Int(int64_t v) { return ConstExpr(Value::Int(kInt4, v)); }

using Rows = std::vector<std::vector<std::string>>;

class SetReturningCursorTest : public CursorTest {};

TEST_F(SetReturningCursorTest, CallsRunInLockstepPaddedWithNulls) {
  // SELECT id, generate_series(1, id), generate_series(1, 2) FROM (VALUES (0), (1), (3), (NULL)) t(id)
  PlanPtr input = ConstantRows({{Value::Int(kInt4, 0)}, {Value::Int(kInt4, 1)}, {Value::Int(kInt4, 3)}, {Value::Null(kInt4)}}, 1);
  std::vector<BoundExprPtr> calls;
  calls.push_back(Series(Int(1), ColumnRef(0, kInt4)));
  calls.push_back(Series(Int(1), Int(2)));
  EXPECT_EQ(RunPlan(ProjectSetNode(input, std::move(calls))),
            (Rows{{"0", "NULL", "1"}, {"0", "NULL", "2"}, {"1", "1", "1"}, {"1", "NULL", "2"}, {"3", "1", "1"},
                  {"3", "2", "2"}, {"3", "3", "NULL"}, {"NULL", "NULL", "1"}, {"NULL", "NULL", "2"}}));
}

TEST_F(SetReturningCursorTest, RowsWhoseCallsReturnNothingDisappear) {
  PlanPtr input = ConstantRows({{Value::Int(kInt4, 0)}, {Value::Null(kInt4)}, {Value::Int(kInt4, 2)}}, 1);
  std::vector<BoundExprPtr> calls;
  calls.push_back(Series(Int(1), ColumnRef(0, kInt4)));
  EXPECT_EQ(RunPlan(ProjectSetNode(input, std::move(calls))), (Rows{{"2", "1"}, {"2", "2"}}));
}

TEST_F(SetReturningCursorTest, FunctionScanExpandsRecords) {
  std::vector<BoundExprPtr> args;
  args.push_back(ConstExpr(*ParseText(kInt4Array, "{7,NULL,9}", TextOptions{})));
  FunctionScanNode scan(Call("_pg_expandarray", {kAnyArray}, kRecord, std::move(args)), 2);
  EXPECT_EQ(RunPlan(scan), (Rows{{"7", "1"}, {"NULL", "2"}, {"9", "3"}}));
}

TEST_F(SetReturningCursorTest, FunctionScanOfAStrictCallWithNullHasNoRows) {
  FunctionScanNode scan(Series(Int(1), ConstExpr(Value::Null(kInt4))), 1);
  EXPECT_TRUE(RunPlan(scan).empty());
}

TEST_F(SetReturningCursorTest, SeriesStopAtTheEndOfTheirType) {
  FunctionScanNode ints(Series(Int(2147483646), Int(2147483647)), 1);
  EXPECT_EQ(RunPlan(ints), (Rows{{"2147483646"}, {"2147483647"}}));
  std::vector<BoundExprPtr> args;
  args.push_back(Int(1));
  args.push_back(Int(5));
  args.push_back(Int(0));
  FunctionScanNode zero(Call("generate_series", {kInt4, kInt4, kInt4}, kInt4, std::move(args)), 1);
  EXPECT_EQ(RunPlan(zero), (Rows{{"ERROR step size cannot equal zero"}}));
}

TEST_F(SetReturningCursorTest, FunctionScanOfAPlainExpressionIsOneRow) {
  FunctionScanNode scan(Int(42), 1);
  EXPECT_EQ(RunPlan(scan), (Rows{{"42"}}));
}

}  // namespace
}  // namespace farmdb::sql
