// Binding and evaluation of predicates and built-in functions below the session: the result
// types PostgreSQL's parse analysis gives (which psql output cannot show), overload choices,
// the errors of the types farmdb lacks, and LIKE matching on its own.
#include <gtest/gtest.h>

#include "sql/bind/binder.h"
#include "sql/bind/overload.h"
#include "sql/exec/builtins.h"
#include "sql/parse/ast.h"

namespace farmdb::sql {
namespace {

class ExpressionTest : public ::testing::Test {
 protected:
  // Binds `SELECT <expr>`; the bound target or the error.
  std::expected<BoundExprPtr, Error> Bind(const std::string& expr) {
    source_ = "SELECT " + expr;
    auto parsed = Parse(source_);
    if (!parsed) return std::unexpected(parsed.error());
    const auto& select = std::get<SelectStmt>((*parsed)[0].node);
    std::vector<TypeId> params;
    Binder binder(source_, params, 0, options_);
    Scope none;
    auto bound = binder.BindExprIn(*select.targets[0].expr, none, "SELECT");
    if (!bound) return bound;
    return binder.ResolveUnknown(std::move(*bound));  // as an output column
  }
  // The parameter types binding `SELECT <expr>` infers for $1, $2 sent without types.
  std::expected<std::vector<TypeId>, Error> ParamTypes(const std::string& expr) {
    source_ = "SELECT " + expr;
    auto parsed = Parse(source_);
    if (!parsed) return std::unexpected(parsed.error());
    std::vector<TypeId> params;
    Binder binder(source_, params, 2, options_);
    auto bound = binder.BindQuery(std::get<SelectStmt>((*parsed)[0].node));
    if (!bound) return std::unexpected(bound.error());
    return params;
  }
  TypeId TypeOf(const std::string& expr) {
    auto e = Bind(expr);
    EXPECT_TRUE(e.has_value()) << expr << ": " << (e ? "" : e.error().message);
    return e ? (*e)->type : TypeId::kUnknown;
  }
  std::string Eval(const std::string& expr) {
    auto e = Bind(expr);
    if (!e) return "ERROR " + e.error().sqlstate + ": " + e.error().message;
    ExecContext ctx{{}, settings_, nullptr, std::chrono::steady_clock::time_point::max(), options_};
    ctx.transaction_start = kTransactionStart;
    ctx.statement_start = kTransactionStart + 5;
    auto v = Evaluate(**e, ctx);
    if (!v) return "ERROR " + v.error().sqlstate + ": " + v.error().message;
    return v->IsNull() ? "NULL" : FormatText(*v, options_);
  }

  // 2024-03-15 13:45:12.5 UTC in microseconds since 2000-01-01.
  static constexpr int64_t kTransactionStart = 763'825'512'500'000;
  std::string source_;
  TextOptions options_;
  Settings settings_ = *Settings::Create(SessionOptions{});
};

TEST_F(ExpressionTest, ResultTypesFollowPostgresResolution) {
  struct Case {
    const char* expr;
    TypeId type;
  };
  const Case cases[] = {
      {"2 ^ 3", TypeId::kFloat8},             // float8 is the preferred numeric type
      {"2.0 ^ 3", TypeId::kNumeric},          // one exact match wins
      {"abs('-3')", TypeId::kFloat8},         // unknown: numeric category, preferred type
      {"abs(-3::int2)", TypeId::kInt2},
      {"round(2.5)", TypeId::kNumeric},       // int4 -> numeric, not float8: numeric ranks first
      {"sqrt(2)", TypeId::kFloat8},
      {"length('x')", TypeId::kInt4},         // unknown prefers the string category over bytea
      {"substr('abc'::bytea, 2)", TypeId::kBytea},
      {"date_part('year', DATE '2024-01-01')", TypeId::kFloat8},
      {"extract(year FROM DATE '2024-01-01')", TypeId::kNumeric},
      {"date_trunc('day', TIMESTAMP '2024-01-01')", TypeId::kTimestamp},
      {"date_trunc('day', now())", TypeId::kTimestampTz},
      {"CURRENT_DATE", TypeId::kDate},
      {"LOCALTIMESTAMP", TypeId::kTimestamp},
      {"CURRENT_TIMESTAMP(2)", TypeId::kTimestampTz},
      {"greatest(1, 2.5)", TypeId::kNumeric},
      {"least(1::int2, 2)", TypeId::kInt4},
      {"1::int2 << 2", TypeId::kInt2},
      {"5::int8 & 3", TypeId::kInt8},
      {"concat(1, 2)", TypeId::kText},
      {"1 IN (1, 2.5)", TypeId::kBool},
      {"mod(10, 3::int8)", TypeId::kInt8},
  };
  for (const Case& c : cases) EXPECT_EQ(TypeOf(c.expr), c.type) << c.expr;
}

TEST_F(ExpressionTest, ParameterTypesAsPostgresInfersThem) {
  // PostgreSQL 15: PREPARE p AS SELECT <expr>; SELECT parameter_types FROM pg_prepared_statements.
  using enum TypeId;
  struct Case {
    const char* expr;
    std::vector<TypeId> types;
  };
  const Case cases[] = {
      {"$1 LIKE 'a%'", {kText}},          {"'a' LIKE $1", {kText}},
      {"length($1)", {kText}},            {"$1 IN (1, 2)", {kInt4}},
      {"1 IN ($1, 2.5)", {kNumeric}},     {"$1 BETWEEN 1 AND 10", {kInt4}},
      {"$1 IS DISTINCT FROM 1.5", {kNumeric}}, {"$1 IS TRUE", {kBool}},
      {"greatest($1, 1)", {kInt4}},       {"abs($1)", {kFloat8}},
      {"substr($1, 2)", {kText}},         {"$1 ^ 2", {kFloat8}},
      {"2 ^ $1", {kFloat8}},              {"$1 & 1", {kInt4}},
      {"$1 IN ('a', 'b')", {kText}},      {"round($1, 2)", {kNumeric}},
      {"left($1, $2)", {kText, kInt4}},   {"$1 ~~ $2", {kText, kText}},
      {"mod($1, 3)", {kInt4}},            {"width_bucket($1, 0, 10, 5)", {kFloat8}},
      {"position($1 in 'abc')", {kText}}, {"@ $1", {kFloat8}},
      {"$1 IN ($2, 3)", {kInt4, kInt4}},  {"lpad($1, 5)", {kText}},
  };
  for (const Case& c : cases) {
    auto types = ParamTypes(c.expr);
    ASSERT_TRUE(types.has_value()) << c.expr << ": " << types.error().message;
    EXPECT_EQ(*types, c.types) << c.expr;
  }
  // A parameter only ever passed as VARIADIC "any" has no type to infer.
  auto unknown = ParamTypes("concat($1, 1)");
  ASSERT_FALSE(unknown.has_value());
  EXPECT_EQ(unknown.error().sqlstate, "42P18");
  EXPECT_EQ(unknown.error().message, "could not determine data type of parameter $1");
}

TEST_F(ExpressionTest, NowIsTheTransactionStart) {
  EXPECT_EQ(Eval("now()"), "2024-03-15 13:45:12.5+00");
  EXPECT_EQ(Eval("CURRENT_TIMESTAMP"), "2024-03-15 13:45:12.5+00");
  EXPECT_EQ(Eval("CURRENT_TIMESTAMP(0)"), "2024-03-15 13:45:13+00");
  EXPECT_EQ(Eval("transaction_timestamp()"), "2024-03-15 13:45:12.5+00");
  EXPECT_EQ(Eval("statement_timestamp()"), "2024-03-15 13:45:12.500005+00");
  EXPECT_EQ(Eval("CURRENT_DATE"), "2024-03-15");
  EXPECT_EQ(Eval("LOCALTIMESTAMP(1)"), "2024-03-15 13:45:12.5");
  EXPECT_EQ(Eval("clock_timestamp() > now()"), "t");
}

TEST_F(ExpressionTest, TypesFarmdbLacksAreNamed) {
  EXPECT_EQ(Eval("TIMESTAMP '2024-01-02' - TIMESTAMP '2024-01-01'"), "ERROR 0A000: type interval is not supported yet");
  EXPECT_EQ(Eval("now() - now()"), "ERROR 0A000: type interval is not supported yet");
  EXPECT_EQ(Eval("DATE '2024-01-02' - TIMESTAMP '2024-01-01'"), "ERROR 0A000: type interval is not supported yet");
  EXPECT_EQ(Eval("CURRENT_TIME"), "ERROR 0A000: this SQL value function is not supported yet");
  EXPECT_EQ(Eval("to_char(1.5, '9.9')"), "ERROR 0A000: to_char for numbers is not supported yet");
  EXPECT_EQ(TypeOf("to_char(1.5, '9.9')"), TypeId::kText);
}

TEST_F(ExpressionTest, ArraysBindAndEvaluateAsPostgres) {
  EXPECT_EQ(TypeOf("ARRAY[1, 2]"), TypeId::kInt4Array);
  EXPECT_EQ(TypeOf("ARRAY[1, 2.5]"), TypeId::kNumericArray);
  EXPECT_EQ(TypeOf("ARRAY['a', NULL]"), TypeId::kTextArray);
  EXPECT_EQ(TypeOf("(ARRAY['a'::varchar])[1]"), TypeId::kVarchar);
  EXPECT_EQ(TypeOf("('1 2'::int2vector)[0]"), TypeId::kInt2);
  EXPECT_EQ(TypeOf("ARRAY[1] || 2"), TypeId::kInt4Array);
  EXPECT_EQ(TypeOf("'{a}' || ARRAY['b']"), TypeId::kTextArray);
  EXPECT_EQ(TypeOf("array_upper('1 2'::int2vector, 1)"), TypeId::kInt4);
  // ANY/ALL: three-valued over the elements; an empty array decides alone.
  EXPECT_EQ(Eval("1 = ANY(ARRAY[1, NULL])"), "t");
  EXPECT_EQ(Eval("2 = ANY(ARRAY[1, NULL])"), "NULL");
  EXPECT_EQ(Eval("2 <> ALL(ARRAY[1, NULL])"), "NULL");
  EXPECT_EQ(Eval("2 <> ALL(ARRAY[1, 3])"), "t");
  EXPECT_EQ(Eval("NULL::int = ANY('{}'::int[])"), "f");
  EXPECT_EQ(Eval("'b' = ANY('{a,b}')"), "t");
  EXPECT_EQ(Eval("2.0 = ANY(ARRAY[1, 2])"), "t");  // int4 elements meet numeric
  EXPECT_EQ(Eval("array_to_string(ARRAY[1, NULL, 3], '-', '?')"), "1-?-3");
  EXPECT_EQ(Eval("(ARRAY[1, 2])[3]"), "NULL");
  EXPECT_EQ(Eval("ARRAY[1, 2] || NULL::int[]"), "{1,2}");
  EXPECT_EQ(Eval("0 || '[5:5]={1}'::int[]"), "[5:6]={0,1}");  // prepend keeps the lower bound
}

TEST_F(ExpressionTest, ArrayErrorsAsPostgresOrRefused) {
  auto error = [&](const std::string& expr) {
    auto e = Bind(expr);
    return e ? std::string("bound") : e.error().sqlstate + ": " + e.error().message;
  };
  EXPECT_EQ(error("ARRAY[]"), "42P18: cannot determine type of empty array");
  EXPECT_EQ(error("ARRAY[ARRAY[1]]"), "0A000: multidimensional arrays is not supported yet");
  EXPECT_EQ(error("array_upper('{1}', 1)"), "42804: could not determine polymorphic type because input has type unknown");
  EXPECT_EQ(error("array_append(ARRAY[1], 'x'::text)"), "42883: function array_append(integer[], text) does not exist");
  EXPECT_EQ(error("1 = ANY(1)"), "42809: op ANY/ALL (array) requires array on right side");
  EXPECT_EQ(error("(1)[1]"), "42804: cannot subscript type integer because it does not support subscripting");
  EXPECT_EQ(error("(ARRAY[1])['a'::text]"), "42804: array subscript must have type integer");
  EXPECT_EQ(error("(1).x"), "42809: column notation .x applied to type integer, which is not a composite type");
  EXPECT_EQ(error("ARRAY[1] = ARRAY[1::int8]"), "42883: operator does not exist: integer[] = bigint[]");
}

TEST_F(ExpressionTest, InListWithoutCommonTypeComparesItemByItem) {
  // No common type of int4 and text: PostgreSQL falls back to x = a OR x = b, each operator
  // resolved alone, and fails on the first that has none.
  EXPECT_EQ(Eval("1 IN ('1', 2::int8)"), "t");
  EXPECT_EQ(Eval("1 IN (1, 'a'::text)"), "ERROR 42883: operator does not exist: integer = text");
  EXPECT_EQ(Eval("3 NOT IN (1, NULL)"), "NULL");
  EXPECT_EQ(Eval("1 NOT IN (1, NULL)"), "f");
}

TEST(OverloadTest, SelectsLikeFuncSelectCandidate) {
  const std::vector<TypeId> f8{TypeId::kFloat8}, num{TypeId::kNumeric}, text{TypeId::kText}, bytea{TypeId::kBytea};
  const std::vector<OverloadCandidate> numeric_pair{{f8}, {num}};
  EXPECT_EQ(SelectOverload(numeric_pair, std::vector{TypeId::kInt4}).index, 0);
  EXPECT_EQ(SelectOverload(numeric_pair, std::vector{TypeId::kNumeric}).index, 1);
  EXPECT_EQ(SelectOverload(numeric_pair, std::vector{TypeId::kUnknown}).index, 0);
  OverloadChoice none = SelectOverload(numeric_pair, std::vector{TypeId::kText});
  EXPECT_EQ(none.index, -1);
  EXPECT_FALSE(none.ambiguous);
  const std::vector<OverloadCandidate> string_pair{{bytea}, {text}};
  EXPECT_EQ(SelectOverload(string_pair, std::vector{TypeId::kUnknown}).index, 1);
  // Categories that conflict with no string candidate: ambiguous.
  const std::vector<OverloadCandidate> mixed{{bytea}, {num}};
  OverloadChoice ambiguous = SelectOverload(mixed, std::vector{TypeId::kUnknown});
  EXPECT_EQ(ambiguous.index, -1);
  EXPECT_TRUE(ambiguous.ambiguous);
  // VARIADIC "any" needs at least one argument.
  const std::vector<OverloadCandidate> variadic{{std::span<const TypeId>(), true}};
  EXPECT_EQ(SelectOverload(variadic, std::vector<TypeId>{}).index, -1);
  EXPECT_EQ(SelectOverload(variadic, std::vector{TypeId::kBool, TypeId::kDate}).index, 0);
}

TEST(LikeTest, MatchesLikeMatchC) {
  struct Case {
    const char* text;
    const char* pattern;
    bool ci;
    bool expected;
  };
  const Case cases[] = {
      {"abc", "abc", false, true},         {"abc", "a%", false, true},        {"abc", "%c", false, true},
      {"abc", "%b%", false, true},         {"abc", "a_c", false, true},       {"abc", "a__c", false, false},
      {"", "%", false, true},              {"", "_", false, false},           {"aXb", "a\\Xb", false, true},
      {"a%b", "a\\%b", false, true},       {"axb", "a\\%b", false, false},    {"ABC", "abc", true, true},
      {"ABC", "abc", false, false},        {"héllo", "h_llo", false, true},   {"héllo", "h__llo", false, false},
      {"aaab", "%a%ab", false, true},      {"abc", "abc\\", false, false},    {"a", "%%%", false, true},
  };
  for (const Case& c : cases) {
    auto m = LikeMatch(c.text, c.pattern, c.ci, false);
    ASSERT_TRUE(m.has_value()) << c.text << " LIKE " << c.pattern;
    EXPECT_EQ(*m, c.expected) << c.text << " LIKE " << c.pattern;
  }
  // In bytea a multibyte character is several bytes, each matched by _.
  EXPECT_TRUE(*LikeMatch("h\xc3\xa9", "h__", false, true));
  auto bad = LikeMatch("abc", "ab\\", false, false);
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().sqlstate, "22025");
}

}  // namespace
}  // namespace farmdb::sql
