#include "sql/types/type_io.h"

#include <gtest/gtest.h>

#include <cmath>

#include "sql/types/cast.h"

namespace farmdb::sql {
namespace {

std::string Hex(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 15]);
  }
  return out;
}

Value Parse(TypeId type, std::string_view text) {
  auto v = ParseText(type, text, TextOptions{});
  EXPECT_TRUE(v.has_value()) << text << ": " << (v ? "" : v.error().message);
  return v.value_or(Value::Null(type));
}

struct RoundTrip {
  TypeId type;
  const char* text_in;
  const char* text_out;  // as PostgreSQL 15 prints it
  const char* send_hex;  // typsend output from PostgreSQL 15
};

TEST(TypeIoTest, TextAndBinaryMatchPostgres) {
  const RoundTrip cases[] = {
      {TypeId::kBool, "yes", "t", "01"},
      {TypeId::kBool, " of ", "f", "00"},
      {TypeId::kInt2, "-2", "-2", "fffe"},
      {TypeId::kInt4, "  12  ", "12", "0000000c"},
      {TypeId::kInt4, "+3", "3", "00000003"},
      {TypeId::kInt8, "-1", "-1", "ffffffffffffffff"},
      {TypeId::kFloat8, "0.1", "0.1", "3fb999999999999a"},
      {TypeId::kFloat4, "0.1", "0.1", "3dcccccd"},
      {TypeId::kDate, "2020-01-01", "2020-01-01", "00001c89"},
      {TypeId::kDate, "1999-12-31", "1999-12-31", "ffffffff"},
      {TypeId::kDate, "infinity", "infinity", "7fffffff"},
      {TypeId::kTimestamp, "2020-01-01 12:34:56.789", "2020-01-01 12:34:56.789", "00023e1212a88608"},
      {TypeId::kTimestamp, "-infinity", "-infinity", "8000000000000000"},
      {TypeId::kBytea, "abc", "\\x616263", "616263"},
      {TypeId::kBytea, "\\x0102", "\\x0102", "0102"},
      {TypeId::kBytea, "a\\001b", "\\x610162", "610162"},
      {TypeId::kText, "héllo", "héllo", "68c3a96c6c6f"},
      {TypeId::kOid, " 26 ", "26", "0000001a"},
      {TypeId::kOid, "-1", "4294967295", "ffffffff"},
      {TypeId::kOid, "-2147483648", "2147483648", "80000000"},
      {TypeId::kChar, "A", "A", "41"},
      {TypeId::kChar, "", "", "00"},
      {TypeId::kChar, "\\101", "A", "41"},
      {TypeId::kRegclass, "1259", "1259", "000004eb"},
      {TypeId::kRegtype, "integer", "integer", "00000017"},
      {TypeId::kRegtype, "character varying", "character varying", "00000413"},
  };
  TextOptions options;
  for (const RoundTrip& c : cases) {
    Value v = Parse(c.type, c.text_in);
    EXPECT_EQ(FormatText(v, options), c.text_out) << c.text_in;
    std::string bytes = EncodeBinary(v);
    EXPECT_EQ(Hex(bytes), c.send_hex) << c.text_in;
    auto back = DecodeBinary(c.type, bytes);
    ASSERT_TRUE(back.has_value()) << c.text_in;
    EXPECT_EQ(FormatText(*back, options), c.text_out) << c.text_in;
  }
}

// A result row sends these types' values as stored (TextIsStored), so FormatText must print them
// unchanged; types that FormatText does change are not among them.
TEST(TypeIoTest, TextIsStoredOnlyWhereFormatTextCopiesTheString) {
  const std::string stored = "ab c\\ ";
  for (TypeId type : {TypeId::kUnknown, TypeId::kText, TypeId::kVarchar, TypeId::kBpchar, TypeId::kName,
                      TypeId::kPgNodeTree, TypeId::kAclitem}) {
    EXPECT_TRUE(TextIsStored(type)) << static_cast<int>(type);
    EXPECT_EQ(FormatText(Value::Str(type, stored), TextOptions{}), stored) << static_cast<int>(type);
  }
  for (TypeId type : {TypeId::kBytea, TypeId::kChar, TypeId::kInt4, TypeId::kNumeric, TypeId::kDate,
                      TypeId::kTextArray}) {
    EXPECT_FALSE(TextIsStored(type)) << static_cast<int>(type);
  }
  EXPECT_NE(FormatText(Value::Str(TypeId::kBytea, stored), TextOptions{}), stored);
}

TEST(TypeIoTest, DateTimeTextMatchesPostgres) {
  TextOptions o;
  EXPECT_EQ(FormatText(Parse(TypeId::kDate, "4713-11-24 BC"), o), "4713-11-24 BC");
  EXPECT_EQ(FormatText(Parse(TypeId::kDate, "5874897-12-31"), o), "5874897-12-31");
  EXPECT_EQ(FormatText(Parse(TypeId::kTimestamp, "294276-12-31 23:59:59.999999"), o), "294276-12-31 23:59:59.999999");
  EXPECT_EQ(FormatText(Parse(TypeId::kTimestamp, "2020-01-01T01:02:03"), o), "2020-01-01 01:02:03");
  EXPECT_EQ(FormatText(Parse(TypeId::kTimestamp, "2020-01-01 24:00"), o), "2020-01-02 00:00:00");
  EXPECT_EQ(FormatText(Parse(TypeId::kTimestamp, "1999-01-08 04:05:06.1234567"), o), "1999-01-08 04:05:06.123457");
  // Zones are read and ignored without time zone; a date ignores a time of day.
  EXPECT_EQ(FormatText(Parse(TypeId::kDate, "2020-01-01 12:34"), o), "2020-01-01");
  EXPECT_EQ(FormatText(Parse(TypeId::kDate, "2020-02-29 +00"), o), "2020-02-29");
  EXPECT_EQ(FormatText(Parse(TypeId::kTimestamp, "2020-01-01 10:00:00.5-08"), o), "2020-01-01 10:00:00.5");
  EXPECT_EQ(FormatText(Parse(TypeId::kTimestamp, "2020-01-01T10:00:00Z"), o), "2020-01-01 10:00:00");
  EXPECT_EQ(FormatText(Parse(TypeId::kTimestamp, "2020-01-01 10:00 UTC"), o), "2020-01-01 10:00:00");
  EXPECT_EQ(FormatText(Parse(TypeId::kDate, "0044-03-15 +00 BC"), o), "0044-03-15 BC");
  auto e = ParseText(TypeId::kDate, "2020-02-30", TextOptions{});
  EXPECT_EQ(e.error().sqlstate, "22008");
  EXPECT_EQ(e.error().message, "date/time field value out of range: \"2020-02-30\"");
  EXPECT_EQ(e.error().hint, "");
  e = ParseText(TypeId::kDate, "2020-13-01", TextOptions{});
  EXPECT_EQ(e.error().hint, "Perhaps you need a different \"datestyle\" setting.");
  e = ParseText(TypeId::kTimestamp, "2020-01-01 25:00", TextOptions{});
  EXPECT_EQ(e.error().sqlstate, "22008");
  e = ParseText(TypeId::kDate, "foo", TextOptions{});
  EXPECT_EQ(e.error().sqlstate, "22007");
  EXPECT_EQ(e.error().message, "invalid input syntax for type date: \"foo\"");
  EXPECT_EQ(ParseText(TypeId::kDate, "4714-11-23 BC", TextOptions{}).error().sqlstate, "22008");
}

// float8out/float4out of PostgreSQL 15 (extra_float_digits 1 and 0).
TEST(TypeIoTest, FloatOutputMatchesPostgres) {
  const std::pair<double, const char*> doubles[] = {
      {static_cast<float>(0.1), "0.10000000149011612"}, {1e-7, "1e-07"}, {1.5e300, "1.5e+300"}, {5e-324, "5e-324"},
      {-0.0, "-0"}, {1e22, "1e+22"}, {123456789012345678.0, "1.2345678901234568e+17"}, {1e15, "1e+15"},
      {1e-5, "1e-05"}, {1e-4, "0.0001"}, {0.30000000000000004, "0.30000000000000004"},
  };
  for (const auto& [v, text] : doubles) EXPECT_EQ(FormatFloat(v, false, 1), text);
  EXPECT_EQ(FormatFloat(100000.0f, true, 1), "100000");
  EXPECT_EQ(FormatFloat(1000000.0f, true, 1), "1e+06");
  EXPECT_EQ(FormatFloat(123456789.0f, true, 1), "1.2345679e+08");
  EXPECT_EQ(FormatFloat(0.1f, true, 3), "0.1");
  EXPECT_EQ(FormatFloat(123456789012345678.0, false, 0), "1.23456789012346e+17");
  EXPECT_EQ(FormatFloat(1e16, false, 0), "1e+16");
  EXPECT_EQ(FormatFloat(std::nan(""), false, 1), "NaN");
  EXPECT_EQ(FormatFloat(-HUGE_VAL, false, 1), "-Infinity");
  EXPECT_EQ(FormatText(Parse(TypeId::kFloat8, "-Infinity"), {}), "-Infinity");
  auto e = ParseText(TypeId::kFloat8, "abc", TextOptions{});
  EXPECT_EQ(e.error().message, "invalid input syntax for type double precision: \"abc\"");
  EXPECT_EQ(ParseText(TypeId::kFloat8, "1e400", TextOptions{}).error().sqlstate, "22003");
}

TEST(TypeIoTest, InvalidInputErrors) {
  auto e = ParseText(TypeId::kInt4, "x", TextOptions{});
  EXPECT_EQ(e.error().sqlstate, "22P02");
  EXPECT_EQ(e.error().message, "invalid input syntax for type integer: \"x\"");
  e = ParseText(TypeId::kInt2, "40000", TextOptions{});
  EXPECT_EQ(e.error().sqlstate, "22003");
  EXPECT_EQ(e.error().message, "value \"40000\" is out of range for type smallint");
  EXPECT_EQ(ParseText(TypeId::kInt8, "-9223372036854775808", TextOptions{})->AsInt(), INT64_MIN);
  EXPECT_EQ(ParseText(TypeId::kInt8, "9223372036854775808", TextOptions{}).error().sqlstate, "22003");
  EXPECT_EQ(ParseText(TypeId::kBool, "x", TextOptions{}).error().message, "invalid input syntax for type boolean: \"x\"");
  e = ParseText(TypeId::kBytea, "\\x1", TextOptions{});
  EXPECT_EQ(e.error().sqlstate, "22023");
  EXPECT_EQ(e.error().message, "invalid hexadecimal data: odd number of digits");
  EXPECT_EQ(ParseText(TypeId::kBytea, "a\\b", TextOptions{}).error().sqlstate, "22P02");
}

// Fixed-width typreceive functions: short input runs out of message (08P01, as pq_getmsgint
// reports it; boolrecv's pq_getmsgbyte words it differently), long input leaves bytes over
// (22P03). Checked on PostgreSQL 15 by binding each length.
TEST(TypeIoTest, BinaryReceiveLengths) {
  struct Case {
    TypeId type;
    size_t width;
  };
  for (Case c : {Case{TypeId::kBool, 1}, Case{TypeId::kInt2, 2}, Case{TypeId::kInt4, 4}, Case{TypeId::kInt8, 8},
                 Case{TypeId::kFloat4, 4}, Case{TypeId::kFloat8, 8}, Case{TypeId::kDate, 4},
                 Case{TypeId::kTimestamp, 8}}) {
    std::string name(Info(c.type).name);
    EXPECT_TRUE(DecodeBinary(c.type, std::string(c.width, '\0')).has_value()) << name;
    for (size_t shorter = 0; shorter < c.width; ++shorter) {
      auto r = DecodeBinary(c.type, std::string(shorter, '\0'));
      ASSERT_FALSE(r.has_value()) << name << " " << shorter;
      EXPECT_EQ(r.error().sqlstate, "08P01") << name << " " << shorter;
      EXPECT_EQ(r.error().message, c.width == 1 ? "no data left in message" : "insufficient data left in message");
    }
    auto longer = DecodeBinary(c.type, std::string(c.width + 1, '\0'));
    ASSERT_FALSE(longer.has_value()) << name;
    EXPECT_EQ(longer.error().sqlstate, "22P03") << name;
    EXPECT_EQ(longer.error().message, kIncorrectBinaryFormat) << name;
  }
  // numeric: a 1-digit value missing its digit is short; a zero header plus a byte is long.
  EXPECT_EQ(DecodeBinary(TypeId::kNumeric, std::string("\0\1\0\0\0\0\0\0", 8)).error().sqlstate, "08P01");
  EXPECT_EQ(DecodeBinary(TypeId::kNumeric, std::string(9, '\0')).error().message, kIncorrectBinaryFormat);
  EXPECT_EQ(DecodeBinary(TypeId::kNumeric, std::string(8, '\0'))->AsNumeric().ToString(), "0");
  // Text arriving in binary is verified as UTF-8 (textrecv's pq_getmsgtext), bytea is not.
  auto nul = DecodeBinary(TypeId::kText, std::string("a\0b", 3));
  ASSERT_FALSE(nul.has_value());
  EXPECT_EQ(nul.error().sqlstate, "22021");
  EXPECT_EQ(nul.error().message, "invalid byte sequence for encoding \"UTF8\": 0x00");
  EXPECT_EQ(DecodeBinary(TypeId::kVarchar, "ok\xc3\x28").error().message,
            "invalid byte sequence for encoding \"UTF8\": 0xc3 0x28");
  EXPECT_EQ(DecodeBinary(TypeId::kText, "\xe2\x82").error().message, "invalid byte sequence for encoding \"UTF8\": 0xe2 0x82");
  EXPECT_EQ(DecodeBinary(TypeId::kText, "\xed\xa0\x80").error().sqlstate, "22021");  // a surrogate
  EXPECT_EQ(DecodeBinary(TypeId::kText, "h\xc3\xa9 \xf0\x9f\x98\x80")->AsString(), "h\xc3\xa9 \xf0\x9f\x98\x80");
  EXPECT_EQ(DecodeBinary(TypeId::kName, std::string(64, 'n')).error().sqlstate, "42622");
  EXPECT_EQ(DecodeBinary(TypeId::kName, std::string(63, 'n'))->AsString(), std::string(63, 'n'));
  // Variable-length string types take every byte.
  EXPECT_EQ(DecodeBinary(TypeId::kBytea, std::string("\0\1\2", 3))->AsString(), std::string("\0\1\2", 3));
  EXPECT_EQ(DecodeBinary(TypeId::kText, "")->AsString(), "");
}

TEST(TypeIoTest, Casts) {
  TextOptions o;
  auto cast = [&](Value v, TypeId to) { return Cast(v, to, o); };
  EXPECT_EQ(cast(Value::Int(TypeId::kInt4, 70000), TypeId::kInt2).error().message, "smallint out of range");
  EXPECT_EQ(cast(Value::Float(TypeId::kFloat8, 2.5), TypeId::kInt4)->AsInt(), 2);  // rint
  EXPECT_EQ(cast(Value::Float(TypeId::kFloat8, 3.5), TypeId::kInt4)->AsInt(), 4);
  EXPECT_EQ(cast(Value::Float(TypeId::kFloat8, 1e10), TypeId::kInt4).error().sqlstate, "22003");
  EXPECT_EQ(FormatText(*cast(Value::Float(TypeId::kFloat8, 0.1), TypeId::kNumeric), o), "0.1");
  EXPECT_EQ(cast(Value::Num(Numeric::NaN()), TypeId::kInt4).error().sqlstate, "0A000");
  EXPECT_EQ(FormatText(*cast(Value::Float(TypeId::kFloat4, 0.1f), TypeId::kFloat8), o), "0.10000000149011612");
  EXPECT_EQ(FormatText(*cast(Value::Int(TypeId::kDate, 0), TypeId::kTimestamp), o), "2000-01-01 00:00:00");
  EXPECT_EQ(cast(Value::Int(TypeId::kInt4, 1), TypeId::kDate).error().sqlstate, "42846");
  EXPECT_EQ(cast(Value::Str(TypeId::kText, std::string(70, 'a')), TypeId::kName)->AsString().size(), 63u);
}

}  // namespace
}  // namespace farmdb::sql
