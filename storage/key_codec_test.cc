#include "storage/key_codec.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <compare>
#include <limits>
#include <random>

#include "storage/value_test_util.h"

namespace farmdb::storage {
namespace {

using testing::RandomValue;
using testing::SameValue;
using testing::StorableTypes;

// PostgreSQL's comparison of two non-null values of one type (btree opclass support functions):
// floats: NaN equals NaN and is above everything, -0 = 0 (float8_cmp_internal); numeric: by
// value, NaN above all (cmp_numerics); text under "C" and bytea: memcmp, then shorter first;
// bpchar likewise after dropping trailing blanks.
std::weak_ordering CompareNonNull(const Value& a, const Value& b, TypeId type) {
  switch (type) {
    case TypeId::kBool: return a.AsBool() <=> b.AsBool();
    case TypeId::kFloat4:
    case TypeId::kFloat8: {
      double x = a.AsFloat(), y = b.AsFloat();
      if (std::isnan(x) || std::isnan(y)) return std::isnan(x) <=> std::isnan(y);
      return x < y ? std::weak_ordering::less : (x > y ? std::weak_ordering::greater : std::weak_ordering::equivalent);
    }
    case TypeId::kNumeric: return a.AsNumeric().Compare(b.AsNumeric());
    case TypeId::kBpchar: {  // bpcharcmp: as text, without trailing blanks
      auto trim = [](const std::string& s) { return s.substr(0, s.find_last_not_of(' ') + 1); };
      return CompareNonNull(Value::Str(TypeId::kText, trim(a.AsString())), Value::Str(TypeId::kText, trim(b.AsString())), TypeId::kText);
    }
    case TypeId::kText:
    case TypeId::kVarchar:
    case TypeId::kName:
    case TypeId::kBytea: {
      std::basic_string_view<unsigned char> x(reinterpret_cast<const unsigned char*>(a.AsString().data()), a.AsString().size());
      std::basic_string_view<unsigned char> y(reinterpret_cast<const unsigned char*>(b.AsString().data()), b.AsString().size());
      return x.compare(y) <=> 0;
    }
    default: return a.AsInt() <=> b.AsInt();
  }
}

// ORDER BY c1 [ASC|DESC] [NULLS FIRST|LAST], c2 ...: NULL placement is absolute (NULLS FIRST
// puts them first whatever the direction); DESC reverses the value order only.
std::weak_ordering CompareTuples(std::span<const Value> a, std::span<const Value> b, std::span<const KeyColumn> cols) {
  for (size_t i = 0; i < cols.size(); ++i) {
    std::weak_ordering c = std::weak_ordering::equivalent;
    if (a[i].IsNull() || b[i].IsNull()) {
      if (a[i].IsNull() && b[i].IsNull()) continue;
      bool a_first = a[i].IsNull() == cols[i].nulls_first;
      c = a_first ? std::weak_ordering::less : std::weak_ordering::greater;
    } else {
      c = CompareNonNull(a[i], b[i], cols[i].type);
      if (cols[i].descending) c = 0 <=> c;
    }
    if (c != 0) return c;
  }
  return std::weak_ordering::equivalent;
}

// -1, 0, 1 (for gtest, which cannot print or compare orderings).
int Sign(std::weak_ordering c) { return c < 0 ? -1 : (c > 0 ? 1 : 0); }

int CompareBytes(std::string_view a, std::string_view b) {
  // std::string_view compares chars through char_traits<char>, which compares as unsigned char.
  return Sign(a.compare(b) <=> 0);
}

std::vector<KeyColumn> RandomColumns(std::mt19937_64& rng) {
  std::vector<KeyColumn> cols(1 + rng() % 4);
  for (KeyColumn& c : cols) {
    c.type = StorableTypes()[rng() % StorableTypes().size()];
    c.descending = rng() % 2;
    c.nulls_first = rng() % 2;
  }
  return cols;
}

std::vector<std::vector<Value>> RandomTuples(std::mt19937_64& rng, std::span<const KeyColumn> cols, size_t n) {
  std::vector<std::vector<Value>> tuples(n);
  for (auto& t : tuples) {
    for (const KeyColumn& c : cols) t.push_back(rng() % 5 == 0 ? Value::Null(c.type) : RandomValue(rng, c.type));
  }
  return tuples;
}

// The core property: for every pair of random tuples, memcmp of the keys agrees with
// PostgreSQL's ORDER BY comparison, including equality (equal values encode identically).
TEST(KeyCodecTest, KeyOrderMatchesPostgresOrder) {
  std::mt19937_64 rng(42);
  for (int iter = 0; iter < 600; ++iter) {
    std::vector<KeyColumn> cols = RandomColumns(rng);
    auto tuples = RandomTuples(rng, cols, 40);
    std::vector<std::string> keys;
    for (const auto& t : tuples) keys.push_back(EncodeKey(t, cols));
    for (size_t i = 0; i < tuples.size(); ++i) {
      for (size_t j = 0; j < tuples.size(); ++j) {
        ASSERT_EQ(CompareBytes(keys[i], keys[j]), Sign(CompareTuples(tuples[i], tuples[j], cols)))
            << "iter " << iter << " tuples " << i << " " << j;
      }
    }
  }
}

// Sorting by key and by the reference gives the same sequence (a check of the whole order
// rather than of pairs, over many more tuples).
TEST(KeyCodecTest, SortByKeyEqualsReferenceSort) {
  std::mt19937_64 rng(7);
  for (int iter = 0; iter < 60; ++iter) {
    std::vector<KeyColumn> cols = RandomColumns(rng);
    auto tuples = RandomTuples(rng, cols, 500);
    std::vector<std::pair<std::string, size_t>> by_key;
    for (size_t i = 0; i < tuples.size(); ++i) by_key.emplace_back(EncodeKey(tuples[i], cols), i);
    std::sort(by_key.begin(), by_key.end());
    for (size_t i = 1; i < by_key.size(); ++i) {
      ASSERT_LE(Sign(CompareTuples(tuples[by_key[i - 1].second], tuples[by_key[i].second], cols)), 0) << "iter " << iter;
    }
  }
}

// Decoding gives back the values (numerics normalised, -0 as 0, any NaN as NaN, bpchar without
// trailing blanks), which encode
// to the same key; every proper prefix of a key and any extra byte is kCorrupt.
TEST(KeyCodecTest, DecodeRoundTrips) {
  std::mt19937_64 rng(3);
  for (int iter = 0; iter < 3000; ++iter) {
    std::vector<KeyColumn> cols = RandomColumns(rng);
    std::vector<Value> t = RandomTuples(rng, cols, 1)[0];
    std::string key = EncodeKey(t, cols);
    auto decoded = DecodeKey(key, cols);
    ASSERT_TRUE(decoded.has_value()) << "iter " << iter;
    ASSERT_EQ(decoded->size(), t.size());
    for (size_t i = 0; i < t.size(); ++i) {
      const Value& v = (*decoded)[i];
      EXPECT_EQ(v.type, cols[i].type);
      EXPECT_EQ(v.IsNull(), t[i].IsNull());
      if (v.IsNull()) continue;
      EXPECT_EQ(Sign(CompareNonNull(v, t[i], cols[i].type)), 0) << "iter " << iter << " column " << i;
      if (cols[i].type == TypeId::kNumeric) {
        // Normalised: the same value at its minimal scale.
        std::string text = v.AsNumeric().ToString();
        if (text.find('.') != std::string::npos) {
          EXPECT_NE(text.back(), '0') << text;
        }
      } else if (cols[i].type == TypeId::kBpchar) {
        // The key drops bpchar's insignificant trailing blanks.
        const std::string& s = t[i].AsString();
        EXPECT_EQ(v.AsString(), s.substr(0, s.find_last_not_of(' ') + 1));
      } else if (!std::holds_alternative<double>(v.data)) {
        EXPECT_TRUE(SameValue(v, t[i]));
      }
    }
    EXPECT_EQ(EncodeKey(*decoded, cols), key);
    for (size_t len = 0; len < key.size(); ++len) {
      auto r = DecodeKey(key.substr(0, len), cols);
      ASSERT_FALSE(r.has_value()) << "iter " << iter << " prefix " << len;
      EXPECT_EQ(r.error().code, StorageError::Code::kCorrupt);
    }
    EXPECT_FALSE(DecodeKey(key + '\x01', cols).has_value());
  }
}

// The first k columns' encoding is a byte prefix of the full key, and PrefixSuccessor bounds
// exactly the keys with that prefix: [prefix, successor) holds a key iff it starts with prefix.
TEST(KeyCodecTest, PrefixScanBounds) {
  std::mt19937_64 rng(11);
  for (int iter = 0; iter < 300; ++iter) {
    std::vector<KeyColumn> cols = RandomColumns(rng);
    auto tuples = RandomTuples(rng, cols, 30);
    const size_t k = rng() % (cols.size() + 1);
    std::string prefix = EncodeKey(std::span(tuples[0]).first(k), cols);
    std::string successor = PrefixSuccessor(prefix);
    for (const auto& t : tuples) {
      std::string key = EncodeKey(t, cols);
      std::string own_prefix = EncodeKey(std::span(t).first(k), cols);
      EXPECT_TRUE(key.starts_with(own_prefix));
      bool in_range = key >= prefix && (successor.empty() || key < successor);
      bool same_prefix_values = CompareTuples(std::span(t).first(k), std::span(tuples[0]).first(k), std::span(cols).first(k)) == 0;
      EXPECT_EQ(in_range, key.starts_with(prefix));
      EXPECT_EQ(in_range, same_prefix_values) << "iter " << iter;
    }
  }
}

TEST(KeyCodecTest, PrefixSuccessor) {
  EXPECT_EQ(PrefixSuccessor(""), "");
  EXPECT_EQ(PrefixSuccessor("\xFF\xFF"), "");
  EXPECT_EQ(PrefixSuccessor("ab"), "ac");
  EXPECT_EQ(PrefixSuccessor(std::string("a\xFF\xFF", 3)), "b");
  EXPECT_EQ(PrefixSuccessor(std::string("\x00", 1)), std::string("\x01", 1));
}

TEST(KeyCodecTest, EqualValuesEncodeIdentically) {
  KeyColumn num{TypeId::kNumeric};
  auto n = [](const char* s) { return Value::Num(*Numeric::Parse(s)); };
  std::string one;
  AppendKeyColumn(one, n("1.0"), num);
  for (const char* s : {"1", "1.00", "0.1e1", "001.000"}) {
    std::string k;
    AppendKeyColumn(k, n(s), num);
    EXPECT_EQ(k, one) << s;
  }
  std::string zero, neg_zero;
  AppendKeyColumn(zero, n("0"), num);
  AppendKeyColumn(neg_zero, n("-0.000"), num);
  EXPECT_EQ(zero, neg_zero);

  KeyColumn f{TypeId::kFloat8};
  EXPECT_EQ(EncodeKey(std::vector{Value::Float(TypeId::kFloat8, -0.0)}, std::vector{f}),
            EncodeKey(std::vector{Value::Float(TypeId::kFloat8, 0.0)}, std::vector{f}));
  EXPECT_EQ(EncodeKey(std::vector{Value::Float(TypeId::kFloat8, -std::numeric_limits<double>::quiet_NaN())}, std::vector{f}),
            EncodeKey(std::vector{Value::Float(TypeId::kFloat8, std::numeric_limits<double>::quiet_NaN())}, std::vector{f}));
}

// One encoding for every integer width (an int8 probe finds an int4 column's key), and for
// float4 vs float8.
TEST(KeyCodecTest, WidthsShareEncoding) {
  for (int64_t v : {int64_t{-40000}, int64_t{0}, int64_t{123}, int64_t{std::numeric_limits<int32_t>::max()}}) {
    std::string k4 = EncodeKey(std::vector{Value::Int(TypeId::kInt4, v)}, std::vector{KeyColumn{TypeId::kInt4}});
    std::string k8 = EncodeKey(std::vector{Value::Int(TypeId::kInt8, v)}, std::vector{KeyColumn{TypeId::kInt8}});
    std::string k2 = EncodeKey(std::vector{Value::Int(TypeId::kInt2, v)}, std::vector{KeyColumn{TypeId::kInt2}});
    EXPECT_EQ(k4, k8);
    EXPECT_EQ(k2, k8);
  }
  std::string f4 = EncodeKey(std::vector{Value::Float(TypeId::kFloat4, 0.5)}, std::vector{KeyColumn{TypeId::kFloat4}});
  std::string f8 = EncodeKey(std::vector{Value::Float(TypeId::kFloat8, 0.5)}, std::vector{KeyColumn{TypeId::kFloat8}});
  EXPECT_EQ(f4, f8);
}

// Numerics at the ends of PostgreSQL's range (131072 digits before the point, 16383 after)
// decode to the same value at minimal scale, in both directions.
TEST(KeyCodecTest, NumericExtremesRoundTrip) {
  for (const char* text : {"1e131071", "-9.5e131000", "1e-16383", "-0.00012345678901234567890123",
                           "123456789012345678901234567890.5", "NaN"}) {
    for (bool descending : {false, true}) {
      std::vector<KeyColumn> cols = {KeyColumn{TypeId::kNumeric, descending, descending}};
      Numeric n = *Numeric::Parse(text);
      auto decoded = DecodeKey(EncodeKey(std::vector{Value::Num(n)}, cols), cols);
      ASSERT_TRUE(decoded.has_value()) << text;
      EXPECT_EQ((*decoded)[0].AsNumeric().Compare(n), std::strong_ordering::equal) << text;
    }
  }
  auto key = [](const char* text) {
    return EncodeKey(std::vector{Value::Num(*Numeric::Parse(text))}, std::vector{KeyColumn{TypeId::kNumeric}});
  };
  // Marker, sign class, exponent, 23 digits two to a byte, end.
  EXPECT_EQ(key("-0.00012345678901234567890123").size(), 1 + 1 + 4 + 12 + 1);
  EXPECT_EQ(DecodeKey(key("2.50"), std::vector{KeyColumn{TypeId::kNumeric}}).value()[0].AsNumeric().ToString(), "2.5");
  EXPECT_EQ(DecodeKey(key("2500"), std::vector{KeyColumn{TypeId::kNumeric}}).value()[0].AsNumeric().ToString(), "2500");
}

// Hand-checked points of PostgreSQL's order that random values might miss.
TEST(KeyCodecTest, KnownOrders) {
  auto key = [](const Value& v, KeyColumn c) { return EncodeKey(std::vector{v}, std::vector{c}); };
  KeyColumn num{TypeId::kNumeric};
  auto n = [&](const char* s) { return key(Value::Num(*Numeric::Parse(s)), num); };
  const char* ascending[] = {"-1e100", "-12", "-11.5", "-1.01", "-1", "-0.99", "-0.001", "0",
                             "1e-100", "0.001", "0.1", "0.11", "1", "1.01", "9.9", "10", "1e100", "NaN"};
  for (size_t i = 1; i < std::size(ascending); ++i) EXPECT_LT(n(ascending[i - 1]), n(ascending[i])) << ascending[i];

  KeyColumn text{TypeId::kText};
  auto s = [&](std::string v) { return key(Value::Str(TypeId::kText, std::move(v)), text); };
  EXPECT_LT(s(""), s(std::string("\0", 1)));
  EXPECT_LT(s(std::string("a", 1)), s(std::string("a\0", 2)));
  EXPECT_LT(s(std::string("a\0", 2)), s(std::string("a\x01", 2)));
  EXPECT_LT(s("a"), s("\xC3\xA9"));  // C collation: bytes, so non-ASCII after ASCII
  EXPECT_LT(s("Z"), s("a"));

  // ASC NULLS LAST (default), DESC NULLS FIRST (default), and the two overrides.
  Value null = Value::Null(TypeId::kInt4), one = Value::Int(TypeId::kInt4, 1), two = Value::Int(TypeId::kInt4, 2);
  KeyColumn asc{TypeId::kInt4, false, false}, desc{TypeId::kInt4, true, true};
  EXPECT_LT(key(one, asc), key(two, asc));
  EXPECT_LT(key(two, asc), key(null, asc));
  EXPECT_LT(key(null, desc), key(two, desc));
  EXPECT_LT(key(two, desc), key(one, desc));
  KeyColumn asc_nf{TypeId::kInt4, false, true}, desc_nl{TypeId::kInt4, true, false};
  EXPECT_LT(key(null, asc_nf), key(one, asc_nf));
  EXPECT_LT(key(one, desc_nl), key(null, desc_nl));
}

// oid keys order as unsigned 32-bit numbers (oidlt), "char" keys bytewise (charlt); both decode.
TEST(KeyCodecTest, CatalogTypesOrderAndRoundTrip) {
  std::vector<KeyColumn> oid_col = {KeyColumn{TypeId::kOid}};
  std::string small = EncodeKey(std::vector{Value::Int(TypeId::kOid, 26)}, oid_col);
  std::string large = EncodeKey(std::vector{Value::Int(TypeId::kOid, 4294967295)}, oid_col);
  EXPECT_LT(small, large);
  auto decoded = DecodeKey(large, oid_col);
  ASSERT_TRUE(decoded.has_value());
  EXPECT_EQ((*decoded)[0].AsInt(), 4294967295);
  EXPECT_EQ((*decoded)[0].type, TypeId::kOid);

  std::vector<KeyColumn> char_col = {KeyColumn{TypeId::kChar}};
  std::string a = EncodeKey(std::vector{Value::Str(TypeId::kChar, "a")}, char_col);
  std::string high = EncodeKey(std::vector{Value::Str(TypeId::kChar, "\xe9")}, char_col);
  std::string empty = EncodeKey(std::vector{Value::Str(TypeId::kChar, "")}, char_col);
  EXPECT_LT(empty, a);
  EXPECT_LT(a, high);
  auto c = DecodeKey(high, char_col);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ((*c)[0].AsString(), "\xe9");
}

}  // namespace
}  // namespace farmdb::storage
