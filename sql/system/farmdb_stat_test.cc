// farmdb_stat_machines, farmdb_stat_peers and farmdb_stat_regions on an in-process node of three
// machines: each machine's commits, the clock sync between them, and every region's three
// replicas, equal once the logs drained.
#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <thread>

#include "sql/node_session_fixture.h"

namespace farmdb::sql {
namespace {

class FarmdbStatTest : public NodeSessionTest {
 protected:
  void SetUp() override {
    Start(3);
    session_ = NewSession();
    ASSERT_NE(session_, nullptr);
  }
  std::vector<std::vector<std::string>> Rows(std::string_view sql) {
    EXPECT_EQ(Run(*session_, sql).sqlstate, "") << sql;
    return sink_.rows;
  }
  std::unique_ptr<Session> session_;
};

TEST_F(FarmdbStatTest, MachinesCountTheirCommitsAndOnlyTheCmIsMasterTime) {
  auto before = Rows("SELECT machine, commits FROM farmdb_stat_machines ORDER BY machine");
  ASSERT_EQ(Run(*session_, "CREATE TABLE t (id int PRIMARY KEY)").sqlstate, "");
  ASSERT_EQ(Run(*session_, "INSERT INTO t SELECT generate_series(1, 100)").sqlstate, "");
  auto rows = Rows(
      "SELECT machine, is_cm, configuration, machines, commits, clock_uncertainty_ns, fabric_frames_out IS NULL "
      "FROM farmdb_stat_machines ORDER BY machine");
  ASSERT_EQ(rows.size(), 3u);
  int64_t more = 0;
  for (size_t m = 0; m < 3; ++m) {
    EXPECT_EQ(rows[m][0], std::to_string(m));
    EXPECT_EQ(rows[m][1], m == 0 ? "t" : "f");
    EXPECT_EQ(rows[m][2], "1");
    EXPECT_EQ(rows[m][3], "3");
    more += std::stoll(rows[m][4]) - std::stoll(before.at(m).at(1));
    EXPECT_EQ(rows[m][5] == "0", m == 0) << "only the CM's clock is master time: " << rows[m][5];
    EXPECT_EQ(rows[m][6], "t") << "no tcp fabric in one process";
  }
  EXPECT_GE(more, 2) << "the CREATE TABLE and the INSERT committed on this session's machine";
}

// A transaction that loses a write-write conflict counts as a lock_conflict abort of the machine
// that coordinated it; every reason has a row per machine.
TEST_F(FarmdbStatTest, AbortsAreCountedByReason) {
  ASSERT_EQ(Run(*session_, "CREATE TABLE t (id int PRIMARY KEY, v int)").sqlstate, "");
  ASSERT_EQ(Run(*session_, "INSERT INTO t VALUES (1, 0)").sqlstate, "");
  auto count = [&] {
    auto rows = Rows("SELECT sum(count) FROM farmdb_stat_aborts WHERE reason = 'lock_conflict'");
    return std::stoll(rows.at(0).at(0));
  };
  const int64_t before = count();
  auto other = NewSession();
  ASSERT_EQ(Run(*session_, "BEGIN").sqlstate, "");
  ASSERT_EQ(Run(*session_, "UPDATE t SET v = 1 WHERE id = 1").sqlstate, "");
  ASSERT_EQ(Run(*other, "UPDATE t SET v = 2 WHERE id = 1").sqlstate, "");
  ASSERT_EQ(Run(*session_, "COMMIT").sqlstate, "40001");
  EXPECT_EQ(count(), before + 1);
  auto reasons = Rows("SELECT count(DISTINCT reason), count(DISTINCT machine) FROM farmdb_stat_aborts");
  EXPECT_EQ(reasons, (std::vector<std::vector<std::string>>{{"7", "3"}}));
}

TEST_F(FarmdbStatTest, TheCmHearsEveryMachineAndEachHearsTheCm) {
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // a few sync rounds
  auto rows = Rows(
      "SELECT machine, peer, heard_ms_ago, lease_left_ms, longest_renewal_gap_ms, suspected "
      "FROM farmdb_stat_peers ORDER BY machine, peer");
  ASSERT_EQ(rows.size(), 6u);
  for (const auto& r : rows) {
    const bool syncs = r[0] == "0" || r[1] == "0";  // members sync with the CM only
    EXPECT_EQ(r[2] != "<NULL>", syncs) << r[0] << " hearing " << r[1];
    if (syncs && r[2] != "<NULL>") {
      EXPECT_LT(std::stod(r[2]), 1000.0);
    }
    // Leases go the same ways: each member holds one at the CM and the CM one at each.
    ASSERT_EQ(r[3] != "<NULL>", syncs) << r[0] << "'s lease at " << r[1];
    if (syncs) {
      EXPECT_GT(std::stod(r[3]), 0.0) << r[0] << "'s lease at " << r[1] << " runs";
      EXPECT_GE(std::stod(r[4]), 0.0);
    }
    EXPECT_EQ(r[5], "f") << "nobody is suspected";
  }
  auto machines = Rows("SELECT machine, lease_held, suspicions, lease_ms > 0 FROM farmdb_stat_machines ORDER BY machine");
  ASSERT_EQ(machines.size(), 3u);
  for (const auto& m : machines) EXPECT_EQ(m, (std::vector<std::string>{m[0], "t", "0", "t"}));
}

TEST_F(FarmdbStatTest, EveryRegionHasThreeReplicasEqualOnceQuiet) {
  ASSERT_EQ(Run(*session_, "CREATE TABLE t (id int PRIMARY KEY, v text)").sqlstate, "");
  ASSERT_EQ(Run(*session_, "INSERT INTO t SELECT g, repeat('x', g % 50) FROM generate_series(1, 2000) g").sqlstate, "");
  ASSERT_EQ(Run(*session_, "UPDATE t SET v = 'y' WHERE id % 7 = 0").sqlstate, "");
  std::map<std::string, std::set<std::string>> digests;
  std::vector<std::vector<std::string>> rows;
  // Backups apply what they logged once truncated, which idle workers send within a second or so.
  for (auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);;) {
    rows = Rows("SELECT region, machine, role, primary_machine, backup_machines, digest FROM farmdb_stat_regions");
    digests.clear();
    for (const auto& r : rows) digests[r[0]].insert(r[5]);
    bool equal = std::ranges::all_of(digests, [](const auto& d) { return d.second.size() == 1; });
    if (equal || std::chrono::steady_clock::now() > deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  ASSERT_FALSE(digests.empty());
  for (const auto& [region, d] : digests) EXPECT_EQ(d.size(), 1u) << "region " << region << "'s replicas differ";
  std::map<std::string, int> replicas, primaries;
  for (const auto& r : rows) {
    ++replicas[r[0]];
    if (r[2] == "primary") {
      ++primaries[r[0]];
      EXPECT_EQ(r[1], r[3]) << "the primary replica is on the primary machine";
    }
    EXPECT_EQ(r[4].size(), 5u) << "two backups: " << r[4];  // {a,b}
  }
  for (const auto& [region, n] : replicas) {
    EXPECT_EQ(n, 3) << "region " << region;
    EXPECT_EQ(primaries[region], 1) << "region " << region;
  }
}

}  // namespace
}  // namespace farmdb::sql
