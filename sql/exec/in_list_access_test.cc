// IN lists as index point lookups (planner.cc PointSets, scan_cursor.cc): `col IN (...)` and
// `(a, b) IN ((..), ..)` on an index's leading columns look each point up instead of scanning
// the table. What shows it: a SERIALIZABLE transaction that read two rows through such a list
// commits while another transaction changes a row it did not read, where a whole-table scan
// would have read that row and failed validation (40001), the TPC-C driver's stock query.
#include <fmt/format.h>

#include "sql/node_session_fixture.h"

namespace farmdb::sql {
namespace {

class InListAccessTest : public NodeSessionTest {
 protected:
  void SetUp() override {
    Start(1);
    a_ = NewSession();
    b_ = NewSession();
    Ok(*a_, "CREATE TABLE stock (w int, i int, qty int, note int, PRIMARY KEY (w, i))");
    Ok(*a_, "CREATE INDEX stock_qty ON stock (qty)");
    Ok(*a_, "INSERT INTO stock SELECT w, i, w * 1000 + i, 0 FROM generate_series(1, 4) w, generate_series(1, 500) i");
  }
  void Ok(Session& s, std::string_view sql) { ASSERT_EQ(Run(s, sql).message, "") << sql; }
  // a reads with `query` in a SERIALIZABLE block and updates a row it read; b then updates
  // stock (4, 500), which `query` does not return; a's COMMIT outcome ("" if it committed).
  // The updates change `note`, which no index holds (two updates of indexed columns can meet
  // in one index leaf: issue 42).
  std::string ReadThenCommit(std::string_view query, std::string_view update) {
    EXPECT_EQ(Run(*a_, "BEGIN ISOLATION LEVEL SERIALIZABLE").message, "");
    EXPECT_EQ(Run(*a_, query).message, "") << query;
    rows_ = sink_.rows;
    EXPECT_EQ(Run(*a_, update).message, "") << update;
    EXPECT_EQ(Run(*b_, "UPDATE stock SET note = -1 WHERE w = 4 AND i = 500").message, "");
    return Run(*a_, "COMMIT").sqlstate;
  }
  std::unique_ptr<Session> a_, b_;
  std::vector<std::vector<std::string>> rows_;
};

TEST_F(InListAccessTest, ARowInListReadsOnlyItsRows) {
  EXPECT_EQ(ReadThenCommit("SELECT w, i, qty FROM stock WHERE (w, i) IN ((2, 7), (1, 3), (2, 7), (9, 9)) FOR UPDATE",
                           "UPDATE stock SET note = note + 1 WHERE (w, i) IN ((1, 3), (2, 7))"),
            "");
  EXPECT_EQ(rows_, (std::vector<std::vector<std::string>>{{"1", "3", "1003"}, {"2", "7", "2007"}}))
      << "each row once, in key order";
  ASSERT_EQ(Run(*a_, "SELECT w, i FROM stock WHERE note = 1 ORDER BY w").message, "");
  EXPECT_EQ(sink_.rows, (std::vector<std::vector<std::string>>{{"1", "3"}, {"2", "7"}}));
}

TEST_F(InListAccessTest, AColumnInListOnALeadingColumnOrASecondaryIndex) {
  EXPECT_EQ(ReadThenCommit("SELECT count(*) FROM stock WHERE w IN (1, 2, NULL) AND i = 10",
                           "UPDATE stock SET note = 2 WHERE w = 1 AND i = 10"),
            "");
  EXPECT_EQ(rows_, (std::vector<std::vector<std::string>>{{"2"}}));
  EXPECT_EQ(ReadThenCommit("SELECT w, i FROM stock WHERE qty IN (3007, 2500) ORDER BY w",
                           "UPDATE stock SET note = 3 WHERE w = 3 AND i = 7"),
            "");
  EXPECT_EQ(rows_, (std::vector<std::vector<std::string>>{{"2", "500"}, {"3", "7"}}));
}

// The control: the same shape of transaction over a condition no index answers reads every row,
// so the other transaction's update fails it.
TEST_F(InListAccessTest, AWholeScanConflictsWithTheOtherUpdate) {
  EXPECT_EQ(ReadThenCommit("SELECT w, i FROM stock WHERE qty + 0 IN (1003, 2007)",
                           "UPDATE stock SET note = 4 WHERE w = 1 AND i = 3"),
            "40001");
}

}  // namespace
}  // namespace farmdb::sql
