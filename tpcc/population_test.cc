#include "tpcc/population.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

namespace farmdb::tpcc {
namespace {

const std::string kNow = "2026-01-31 12:00:00";

std::vector<std::string> Fields(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream in(line);
  std::string field;
  while (std::getline(in, field, '\t')) out.push_back(field);
  if (!line.empty() && line.back() == '\t') out.emplace_back();
  return out;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string line;
  while (std::getline(in, line)) out.push_back(line);
  return out;
}

// The whole population of one warehouse, per table.
std::map<std::string, std::vector<std::string>> OneWarehouse(const Scale& scale, uint64_t seed) {
  std::map<std::string, std::vector<std::string>> tables;
  for (const LoadUnit& u : LoadUnits(1, scale)) {
    for (TableRows& t : Populate(u, scale, seed, kNow)) {
      auto lines = Lines(t.text);
      EXPECT_EQ(static_cast<int64_t>(lines.size()), t.rows) << t.table;
      auto& all = tables[std::string(t.table)];
      all.insert(all.end(), lines.begin(), lines.end());
    }
  }
  return tables;
}

TEST(PopulationTest, OneWarehouseHasTheSpecifiedCardinalities) {
  auto tables = OneWarehouse(kStandardScale, 1);
  EXPECT_EQ(tables["item"].size(), 100000u);
  EXPECT_EQ(tables["warehouse"].size(), 1u);
  EXPECT_EQ(tables["district"].size(), 10u);
  EXPECT_EQ(tables["stock"].size(), 100000u);
  EXPECT_EQ(tables["customer"].size(), 30000u);
  EXPECT_EQ(tables["history"].size(), 30000u);
  EXPECT_EQ(tables["orders"].size(), 30000u);
  EXPECT_EQ(tables["new_order"].size(), 9000u);

  // Columns per table, as schema.cc declares them.
  const std::map<std::string, size_t> kColumns = {{"item", 5},      {"warehouse", 9}, {"district", 11},
                                                  {"stock", 17},    {"customer", 21}, {"history", 8},
                                                  {"orders", 8},    {"new_order", 3}, {"order_line", 10}};
  for (const auto& [table, lines] : tables) {
    for (const std::string& line : lines) ASSERT_EQ(Fields(line).size(), kColumns.at(table)) << table << ": " << line;
  }

  // sum(o_ol_cnt) = count(order_line), o_c_id a permutation per district, carriers only on
  // delivered orders (consistency conditions 4 and 5 hold from the start).
  int64_t lines = 0;
  std::map<std::string, std::set<std::string>> customers_by_district;
  for (const std::string& o : tables["orders"]) {
    auto f = Fields(o);
    lines += std::stoll(f[6]);
    customers_by_district[f[1]].insert(f[3]);
    EXPECT_EQ(f[5] == "\\N", std::stoll(f[0]) >= 2101) << o;
  }
  EXPECT_EQ(static_cast<int64_t>(tables["order_line"].size()), lines);
  for (const auto& [district, customers] : customers_by_district) EXPECT_EQ(customers.size(), 3000u) << district;

  // The first 1,000 customers of a district carry every last name once.
  std::set<std::string> names;
  for (const std::string& c : tables["customer"]) {
    auto f = Fields(c);
    if (f[1] == "1" && std::stoll(f[0]) <= 1000) names.insert(f[5]);
  }
  EXPECT_EQ(names.size(), 1000u);
}

TEST(PopulationTest, ASmallerScaleKeepsTheRules) {
  Scale small{10000, 300};
  auto tables = OneWarehouse(small, 1);
  EXPECT_EQ(tables["item"].size(), 10000u);
  EXPECT_EQ(tables["stock"].size(), 10000u);
  EXPECT_EQ(tables["customer"].size(), 3000u);
  EXPECT_EQ(tables["orders"].size(), 3000u);
  EXPECT_EQ(tables["new_order"].size(), 900u);  // the last 30%: 211..300 in each district
  EXPECT_EQ(small.FirstUndelivered(), 211);
  int64_t expected = 0;
  for (const LoadUnit& u : LoadUnits(1, small)) expected += ExpectedRows(u, small);
  int64_t actual = 0;
  for (const auto& [table, lines] : tables) actual += static_cast<int64_t>(lines.size());
  EXPECT_NEAR(static_cast<double>(actual), static_cast<double>(expected), 0.1 * static_cast<double>(expected));
}

TEST(PopulationTest, UnitsAreDeterministic) {
  for (const LoadUnit& u : LoadUnits(2, kStandardScale)) {
    if (u.kind != LoadUnit::Kind::kOrders || u.warehouse != 2 || u.district != 3) continue;
    auto a = Populate(u, kStandardScale, 9, kNow), b = Populate(u, kStandardScale, 9, kNow);
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].text, b[i].text);
  }
}

}  // namespace
}  // namespace farmdb::tpcc
