#include "tpcc/random.h"

#include <gtest/gtest.h>

#include <set>

namespace farmdb::tpcc {
namespace {

TEST(RandomTest, LastNamesFromSyllables) {
  // Clause 4.3.2.3's own examples.
  EXPECT_EQ(Random::LastName(371), "PRICALLYOUGHT");
  EXPECT_EQ(Random::LastName(40), "BARPRESBAR");  // digits 0, 4, 0
  EXPECT_EQ(Random::LastName(999), "EINGEINGEING");
  std::set<std::string> names;
  for (int i = 0; i < 1000; ++i) names.insert(Random::LastName(i));
  EXPECT_EQ(names.size(), 1000u);
}

TEST(RandomTest, NURandStaysInRangeAndIsSkewed) {
  Random r(7);
  std::vector<int> hits(3001);
  for (int i = 0; i < 300000; ++i) {
    int64_t c = r.CustomerId(3000);
    ASSERT_GE(c, 1);
    ASSERT_LE(c, 3000);
    ++hits[static_cast<size_t>(c)];
  }
  // Non-uniform: the most drawn id comes up several times more often than the uniform 100.
  EXPECT_GT(*std::max_element(hits.begin(), hits.end()), 300);
  for (int i = 0; i < 100000; ++i) {
    int64_t item = r.ItemId(100000);
    ASSERT_GE(item, 1);
    ASSERT_LE(item, 100000);
    std::string name = r.CustomerLastName(1000);
    ASSERT_GE(name.size(), 9u);
  }
}

TEST(RandomTest, RunConstantsKeepALegalDistanceFromTheLoad) {
  for (uint64_t seed = 0; seed < 200; ++seed) {
    NURandConstants c = RunConstants(seed);
    EXPECT_TRUE(ValidLastNameDelta(kLoadConstants.c_last, c.c_last)) << seed << " " << c.c_last;
    EXPECT_GE(c.c_last, 0);
    EXPECT_LE(c.c_last, 255);
  }
  EXPECT_FALSE(ValidLastNameDelta(100, 196));  // delta 96 is excluded
  EXPECT_FALSE(ValidLastNameDelta(100, 212));  // delta 112 is excluded
  EXPECT_FALSE(ValidLastNameDelta(100, 164));  // below 65
  EXPECT_TRUE(ValidLastNameDelta(100, 165));
}

TEST(RandomTest, StringsHaveTheirLengthsAndAlphabets) {
  Random r(3);
  int original = 0;
  for (int i = 0; i < 10000; ++i) {
    std::string a = r.AString(8, 16);
    ASSERT_GE(a.size(), 8u);
    ASSERT_LE(a.size(), 16u);
    for (char c : a) ASSERT_TRUE(std::isalnum(static_cast<unsigned char>(c)));
    std::string n = r.NString(16, 16);
    ASSERT_EQ(n.size(), 16u);
    for (char c : n) ASSERT_TRUE(std::isdigit(static_cast<unsigned char>(c)));
    std::string d = r.Data();
    ASSERT_GE(d.size(), 26u);
    ASSERT_LE(d.size(), 50u);
    original += d.find("ORIGINAL") != std::string::npos;
  }
  EXPECT_GT(original, 800);  // 10% of 10,000
  EXPECT_LT(original, 1200);
  EXPECT_EQ(r.Zip().substr(4), "11111");
}

TEST(RandomTest, FormatDecimal) {
  EXPECT_EQ(Random::FormatDecimal(-1000, 2), "-10.00");
  EXPECT_EQ(Random::FormatDecimal(5, 2), "0.05");
  EXPECT_EQ(Random::FormatDecimal(2000, 4), "0.2000");
  EXPECT_EQ(Random::FormatDecimal(30000000, 2), "300000.00");
  EXPECT_EQ(Random::FormatDecimal(7, 0), "7");
}

TEST(RandomTest, SameSeedSameSequence) {
  Random a(42), b(42);
  for (int i = 0; i < 100; ++i) ASSERT_EQ(a.AString(5, 30), b.AString(5, 30));
}

}  // namespace
}  // namespace farmdb::tpcc
