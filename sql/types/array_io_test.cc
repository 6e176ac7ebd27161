// Text and binary formats of arrays, int2vector/oidvector and records (array_io.cc), against
// what PostgreSQL 15's array_in/array_out/array_send/record_out produce.
#include "sql/types/array_io.h"

#include <gtest/gtest.h>

#include "sql/types/cast.h"

namespace farmdb::sql {
namespace {

std::string RoundTrip(TypeId type, std::string_view text) {
  auto v = ParseText(type, text, TextOptions{});
  if (!v) return "ERROR " + v.error().sqlstate + ": " + v.error().message + (v.error().detail.empty() ? "" : " / " + v.error().detail);
  return FormatText(*v, TextOptions{});
}

TEST(ArrayIoTest, TextInputAndOutput) {
  EXPECT_EQ(RoundTrip(TypeId::kInt4Array, "{1,2,3}"), "{1,2,3}");
  EXPECT_EQ(RoundTrip(TypeId::kInt4Array, " { 1 , 2 } "), "{1,2}");
  EXPECT_EQ(RoundTrip(TypeId::kInt4Array, "{}"), "{}");
  EXPECT_EQ(RoundTrip(TypeId::kInt4Array, "{NULL,null}"), "{NULL,NULL}");
  EXPECT_EQ(RoundTrip(TypeId::kInt4Array, "[0:1]={5,6}"), "[0:1]={5,6}");
  EXPECT_EQ(RoundTrip(TypeId::kInt4Array, "[1:2]={5,6}"), "{5,6}");
  // Quoting: blanks, specials, the empty string and the word NULL; backslash escapes.
  EXPECT_EQ(RoundTrip(TypeId::kTextArray, R"({a,"b c","","NULL",x\\y,"q\"",\N})"), R"({a,"b c","","NULL","x\\y","q\"",N})");
  EXPECT_EQ(RoundTrip(TypeId::kTextArray, "{ a b , c}"), R"({"a b",c})");
  EXPECT_EQ(RoundTrip(TypeId::kTextArray, R"({"{x}",","})"), R"({"{x}",","})");
  EXPECT_EQ(RoundTrip(TypeId::kBoolArray, "{t,false}"), "{t,f}");
  EXPECT_EQ(RoundTrip(TypeId::kCharArray, "{d,f}"), "{d,f}");
}

TEST(ArrayIoTest, MalformedLiteralsAreRefusedAsPostgresDoes) {
  EXPECT_EQ(RoundTrip(TypeId::kInt4Array, "{1,2"), "ERROR 22P02: malformed array literal: \"{1,2\" / Unexpected end of input.");
  EXPECT_EQ(RoundTrip(TypeId::kInt4Array, "1"),
            "ERROR 22P02: malformed array literal: \"1\" / Array value must start with \"{\" or dimension information.");
  EXPECT_EQ(RoundTrip(TypeId::kInt4Array, "{1,}"), "ERROR 22P02: malformed array literal: \"{1,}\" / Unexpected \"}\" character.");
  EXPECT_EQ(RoundTrip(TypeId::kTextArray, "{\"a\"b}"), "ERROR 22P02: malformed array literal: \"{\"a\"b}\" / Unexpected array element.");
  EXPECT_EQ(RoundTrip(TypeId::kInt4Array, "{1} x"), "ERROR 22P02: malformed array literal: \"{1} x\" / Junk after closing right brace.");
  EXPECT_EQ(RoundTrip(TypeId::kInt4Array, "[0:2]={1,2}"),
            "ERROR 22P02: malformed array literal: \"[0:2]={1,2}\" / Specified array dimensions do not match array contents.");
  EXPECT_EQ(RoundTrip(TypeId::kInt4Array, "{1,a}"), "ERROR 22P02: invalid input syntax for type integer: \"a\"");
  // One dimension only: what PostgreSQL reads as a second dimension is refused, not misread.
  EXPECT_EQ(RoundTrip(TypeId::kInt4Array, "{{1},{2}}"), "ERROR 0A000: multidimensional arrays is not supported yet");
  EXPECT_EQ(RoundTrip(TypeId::kInt4Array, "[1:1][1:1]={{1}}"), "ERROR 0A000: multidimensional arrays is not supported yet");
}

TEST(ArrayIoTest, VectorsAreSpaceSeparatedFromSubscriptZero) {
  auto v = ParseText(TypeId::kInt2Vector, " 1  3 ", TextOptions{});
  ASSERT_TRUE(v);
  EXPECT_EQ(v->AsArray().lower_bound, 0);
  EXPECT_EQ(FormatText(*v, TextOptions{}), "1 3");
  EXPECT_EQ(RoundTrip(TypeId::kInt2Vector, ""), "");
  EXPECT_EQ(RoundTrip(TypeId::kOidVector, "26 23"), "26 23");
  EXPECT_EQ(RoundTrip(TypeId::kInt2Vector, "1 x"), "ERROR 22P02: invalid input syntax for type smallint: \"x\"");
  // int2vector -> int2[] keeps subscript 0, as PostgreSQL's binary coercion does.
  auto array = Cast(*v, TypeId::kInt2Array, TextOptions{});
  ASSERT_TRUE(array);
  EXPECT_EQ(FormatText(*array, TextOptions{}), "[0:1]={1,3}");
}

TEST(ArrayIoTest, RecordsAreOutputOnly) {
  Value record = Value::Record(RecordValue{{Value::Int(TypeId::kInt4, 5), Value::Null(TypeId::kText),
                                            Value::Str(TypeId::kText, "a b"), Value::Str(TypeId::kText, "q\"")}});
  EXPECT_EQ(FormatText(record, TextOptions{}), R"((5,,"a b","q"""))");
  auto in = ParseText(TypeId::kRecord, "(1,2)", TextOptions{});
  ASSERT_FALSE(in);
  EXPECT_EQ(in.error().sqlstate, "0A000");
}

TEST(ArrayIoTest, BinaryFormatMatchesArraySend) {
  auto v = ParseText(TypeId::kInt2Array, "{1,NULL}", TextOptions{});
  ASSERT_TRUE(v);
  std::string bytes = EncodeBinary(*v);
  // ndim 1, has nulls, element oid 21, length 2, lower bound 1, then 1 as int2 and a NULL.
  const std::string expected("\0\0\0\1\0\0\0\1\0\0\0\x15\0\0\0\2\0\0\0\1\0\0\0\2\0\1\xff\xff\xff\xff", 30);
  EXPECT_EQ(bytes, expected);
  auto back = DecodeBinary(TypeId::kInt2Array, bytes);
  ASSERT_TRUE(back);
  EXPECT_EQ(FormatText(*back, TextOptions{}), "{1,NULL}");
  // An empty array has no dimensions.
  auto empty = ParseText(TypeId::kTextArray, "{}", TextOptions{});
  EXPECT_EQ(EncodeBinary(*empty), std::string("\0\0\0\0\0\0\0\0\0\0\0\x19", 12));
  // The element type must be the one expected.
  auto wrong = DecodeBinary(TypeId::kInt4Array, bytes);
  ASSERT_FALSE(wrong);
  EXPECT_EQ(wrong.error().sqlstate, "42804");
}

TEST(ArrayIoTest, ArraysCastElementByElement) {
  auto cast = [](TypeId from, TypeId to) { return Cast(*ParseText(from, "{1,2}", TextOptions{}), to, TextOptions{}); };
  auto text = cast(TypeId::kInt4Array, TypeId::kTextArray);
  ASSERT_TRUE(text);
  EXPECT_EQ(text->type, TypeId::kTextArray);
  EXPECT_EQ(FormatText(*text, TextOptions{}), "{1,2}");
  auto bad = Cast(*ParseText(TypeId::kTextArray, "{x}", TextOptions{}), TypeId::kInt4Array, TextOptions{});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().sqlstate, "22P02");
}

}  // namespace
}  // namespace farmdb::sql
