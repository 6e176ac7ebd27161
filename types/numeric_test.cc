#include "types/numeric.h"

#include <gtest/gtest.h>

namespace farmdb {
namespace {

Numeric N(std::string_view s) {
  auto n = Numeric::Parse(s);
  EXPECT_TRUE(n.has_value()) << s;
  return n.value_or(Numeric());
}

std::string Hex(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 15]);
  }
  return out;
}

// Text forms as numeric_in/numeric_out of PostgreSQL 15 print them.
TEST(NumericTest, TextRoundTrip) {
  const std::pair<const char*, const char*> cases[] = {
      {"1.5", "1.5"},   {" 1.50 ", "1.50"}, {"1e3", "1000"},       {"-0", "0"},      {"0.000", "0.000"},
      {"NaN", "NaN"},   {"nan", "NaN"},     {"1.23e-2", "0.0123"}, {"1.5e3", "1500"}, {"+.5", "0.5"},
      {"-12345678.9", "-12345678.9"},
  };
  for (const auto& [in, out] : cases) EXPECT_EQ(N(in).ToString(), out) << in;
  for (const char* bad : {"", "x", "1.2.3", "1e", "--1", "."}) {
    auto n = Numeric::Parse(bad);
    ASSERT_FALSE(n.has_value()) << bad;
    EXPECT_EQ(n.error().sqlstate, "22P02");
    EXPECT_EQ(n.error().message, std::string("invalid input syntax for type numeric: \"") + bad + "\"");
  }
}

// numeric_send output captured from PostgreSQL 15.
TEST(NumericTest, BinaryMatchesPostgres) {
  const std::pair<const char*, const char*> cases[] = {
      {"1.5", "000200000000000100011388"},
      {"0", "0000000000000000"},
      {"0.000", "0000000000000003"},
      {"-12345678.9", "000300014000000104d2162e2328"},
      {"NaN", "00000000c0000000"},
      {"0.0001", "0001ffff000000040001"},
      {"100000000", "00010002000000000001"},
      {"1e-20", "0001fffb000000140001"},
  };
  for (const auto& [text, hex] : cases) {
    Numeric n = N(text);
    std::string bytes = n.EncodeBinary();
    EXPECT_EQ(Hex(bytes), hex) << text;
    BinaryReader reader(bytes);
    auto back = Numeric::DecodeBinary(reader);
    ASSERT_TRUE(back.has_value()) << text;
    EXPECT_TRUE(reader.AtEnd()) << text;
    EXPECT_EQ(back->ToString(), n.ToString()) << text;
  }
}

// numeric_recv's errors, field by field (checked on PostgreSQL 15 through Bind).
TEST(NumericTest, BinaryReceiveErrors) {
  auto decode = [](std::string_view bytes) {
    BinaryReader reader(bytes);
    return Numeric::DecodeBinary(reader);
  };
  // A truncated header, or fewer digits than ndigits announces: 08P01 from pq_getmsgint.
  for (std::string_view bytes : {std::string_view("\0\1\0\0", 4), std::string_view("\0\1\0\0\0\0\0\0", 8)}) {
    auto r = decode(bytes);
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error().sqlstate, "08P01");
    EXPECT_EQ(r.error().message, "insufficient data left in message");
  }
  // The sign is checked before the (missing) digits are read.
  auto sign = decode(std::string_view("\0\1\0\0\x12\x34\0\0", 8));
  ASSERT_FALSE(sign.has_value());
  EXPECT_EQ(sign.error().sqlstate, "22P03");
  EXPECT_EQ(sign.error().message, "invalid sign in external \"numeric\" value");
  auto scale = decode(std::string_view("\0\0\0\0\0\0\x40\0", 8));
  ASSERT_FALSE(scale.has_value());
  EXPECT_EQ(scale.error().message, "invalid scale in external \"numeric\" value");
  auto digit = decode(std::string_view("\0\1\0\0\0\0\0\0\x27\x10", 10));  // 10000
  ASSERT_FALSE(digit.has_value());
  EXPECT_EQ(digit.error().message, "invalid digit in external \"numeric\" value");
  // ndigits is unsigned: 0xffff digits announced, none present.
  auto many = decode(std::string_view("\xff\xff\0\0\0\0\0\0", 8));
  ASSERT_FALSE(many.has_value());
  EXPECT_EQ(many.error().sqlstate, "08P01");
}

// Results and display scales as PostgreSQL 15 computes them.
TEST(NumericTest, ArithmeticMatchesPostgres) {
  EXPECT_EQ(N("0.0001234").Mul(N("1000")).ToString(), "0.1234000");
  EXPECT_EQ(N("123.456").Mul(N("0.01")).ToString(), "1.23456");
  EXPECT_EQ(N("-0.5").Add(N("0.5")).ToString(), "0.0");
  EXPECT_EQ(N("7").Div(N("2.0"))->ToString(), "3.5000000000000000");
  EXPECT_EQ(N("2").Div(N("3"))->ToString(), "0.66666666666666666667");
  EXPECT_EQ(N("1000000").Div(N("7.0"))->ToString(), "142857.142857142857");
  EXPECT_EQ(N("0.001").Div(N("7"))->ToString(), "0.00014285714285714286");
  EXPECT_EQ(N("12345678901234567890").Div(N("3"))->ToString(), "4115226300411522630");
  EXPECT_EQ(N("1").Div(N("3.0"))->ToString(), "0.33333333333333333333");
  EXPECT_EQ(N("5.5").Mod(N("2"))->ToString(), "1.5");
  EXPECT_EQ(N("-5.5").Mod(N("2"))->ToString(), "-1.5");
  EXPECT_EQ(N("1").Div(N("0")).error().sqlstate, "22012");
  EXPECT_EQ(N("1").Mod(N("0.0")).error().sqlstate, "22012");
  EXPECT_TRUE(N("NaN").Add(N("1")).IsNaN());
  EXPECT_EQ(N("2.567").Round(2).ToString(), "2.57");
  EXPECT_EQ(N("-2.5").Round(0).ToString(), "-3");
  EXPECT_EQ(N("1234.5").Round(-2).ToString(), "1200");
  EXPECT_EQ(N("2.5").Round(3).ToString(), "2.500");
  EXPECT_EQ(N("99999999999999999999").Add(N("1")).ToString(), "100000000000000000000");
}

TEST(NumericTest, CompareAndConvert) {
  EXPECT_EQ(N("1.50").Compare(N("1.5")), std::strong_ordering::equal);
  EXPECT_EQ(N("-2").Compare(N("1")), std::strong_ordering::less);
  EXPECT_EQ(N("NaN").Compare(N("1e100")), std::strong_ordering::greater);
  EXPECT_EQ(N("NaN").Compare(N("NaN")), std::strong_ordering::equal);
  EXPECT_EQ(N("2.5").ToInt64(), 3);
  EXPECT_EQ(N("-2.5").ToInt64(), -3);
  EXPECT_EQ(N("9223372036854775807").ToInt64(), INT64_MAX);
  EXPECT_EQ(N("-9223372036854775808").ToInt64(), INT64_MIN);
  EXPECT_FALSE(N("9223372036854775808").ToInt64().has_value());
  EXPECT_EQ(Numeric::FromInt(INT64_MIN).ToString(), "-9223372036854775808");
}

}  // namespace
}  // namespace farmdb
