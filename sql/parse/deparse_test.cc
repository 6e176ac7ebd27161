// Deparse against PostgreSQL 15's own output: every expected string below is what
// pg_get_constraintdef (CHECK bodies) or pg_get_expr (column defaults) printed on PostgreSQL
// 15.18 for the same expression and column types.
#include "sql/parse/deparse.h"

#include <gtest/gtest.h>

#include <map>

namespace farmdb::sql {
namespace {

const std::map<std::string, TypeId, std::less<>> kColumns = {
    {"a", TypeId::kInt4},    {"b", TypeId::kText},  {"c", TypeId::kNumeric}, {"e", TypeId::kInt8},
    {"f", TypeId::kFloat8},  {"j", TypeId::kDate},  {"l", TypeId::kInt2},    {"n", TypeId::kVarchar},
    {"p", TypeId::kBool},    {"ch", TypeId::kBpchar}, {"Mixed", TypeId::kInt4},
};

std::optional<TypeId> ColumnType(std::string_view name) {
  auto it = kColumns.find(name);
  return it == kColumns.end() ? std::nullopt : std::optional<TypeId>(it->second);
}

std::expected<Deparsed, Error> DeparseText(std::string_view expr, DeparseOptions::Context context) {
  static const TextOptions text;
  std::string sql = "SELECT " + std::string(expr);
  auto parsed = Parse(sql);
  EXPECT_TRUE(parsed.has_value()) << expr;
  const auto& select = std::get<SelectStmt>(parsed->front().node);
  DeparseOptions options;
  options.context = context;
  options.column_type = ColumnType;
  options.source = sql;
  options.text = &text;
  return Deparse(*select.targets[0].expr, options);
}

std::string Check(std::string_view expr) {
  auto d = DeparseText(expr, DeparseOptions::Context::kCheck);
  return d ? d->text : "error: " + d.error().message;
}

std::string Default(std::string_view expr) {
  auto d = DeparseText(expr, DeparseOptions::Context::kDefault);
  return d ? d->text : "error: " + d.error().message;
}

TEST(DeparseTest, CheckConstraintsAsPostgresPrintsThem) {
  EXPECT_EQ(Check("a > 0"), "(a > 0)");
  EXPECT_EQ(Check("b <> ''"), "(b <> ''::text)");
  EXPECT_EQ(Check("c >= 1.5 and c < 100"), "((c >= 1.5) AND (c < (100)::numeric))");
  EXPECT_EQ(Check("a is not null or b is null"), "((a IS NOT NULL) OR (b IS NULL))");
  EXPECT_EQ(Check("b in ('a','b')"), "(b = ANY (ARRAY['a'::text, 'b'::text]))");
  EXPECT_EQ(Check("a in (1, 2)"), "(a = ANY (ARRAY[1, 2]))");
  EXPECT_EQ(Check("b not in ('a')"), "(b <> 'a'::text)");
  EXPECT_EQ(Check("length(n) > 2"), "(length((n)::text) > 2)");
  EXPECT_EQ(Check("a between 1 and 10"), "((a >= 1) AND (a <= 10))");
  EXPECT_EQ(Check("a not between 1 and 2"), "((a < 1) OR (a > 2))");
  EXPECT_EQ(Check("a between symmetric 1 and 2"), "(((a >= 1) AND (a <= 2)) OR ((a >= 2) AND (a <= 1)))");
  EXPECT_EQ(Check("b like 'a%'"), "(b ~~ 'a%'::text)");
  EXPECT_EQ(Check("b not like 'x%' and b ilike 'y'"), "((b !~~ 'x%'::text) AND (b ~~* 'y'::text))");
  EXPECT_EQ(Check("-a < 5 and a % 2 = 0"), "(((- a) < 5) AND ((a % 2) = 0))");
  EXPECT_EQ(Check("a::text <> '3'"), "((a)::text <> '3'::text)");
  EXPECT_EQ(Check("case when a > 0 then true else false end"), "\nCASE\n    WHEN (a > 0) THEN true\n    ELSE false\nEND");
  EXPECT_EQ(Check("case a when 1 then true else false end"), "\nCASE a\n    WHEN 1 THEN true\n    ELSE false\nEND");
  EXPECT_EQ(Check("coalesce(a, 0) >= 0"), "(COALESCE(a, 0) >= 0)");
  EXPECT_EQ(Check("a < 1000 or b is null"), "((a < 1000) OR (b IS NULL))");
  EXPECT_EQ(Check("n <> 'x'"), "((n)::text <> 'x'::text)");
  EXPECT_EQ(Check("ch = 'y'"), "(ch = 'y'::bpchar)");
  EXPECT_EQ(Check("e > 5 and e < a::int8"), "((e > 5) AND (e < (a)::bigint))");
  EXPECT_EQ(Check("f > 1 and f < 2.5"), "((f > (1)::double precision) AND (f < (2.5)::double precision))");
  EXPECT_EQ(Check("j > '2020-01-01'"), "(j > '2020-01-01'::date)");
  EXPECT_EQ(Check("l > 1"), "(l > 1)");
  EXPECT_EQ(Check("b || 'x' <> 'y'"), "((b || 'x'::text) <> 'y'::text)");
  EXPECT_EQ(Check("a::text <> '1' and a::numeric(4,1) > 2"), "(((a)::text <> '1'::text) AND ((a)::numeric(4,1) > (2)::numeric))");
  EXPECT_EQ(Check("p"), "p");
  EXPECT_EQ(Check("not p and a > -5"), "((NOT p) AND (a > '-5'::integer))");
  EXPECT_EQ(Check("\"Mixed\" > 0"), "(\"Mixed\" > 0)");
}

// pg_get_constraintdef(oid, true) of the same constraints: the stored text deparsed again in
// pretty mode (PostgreSQL 15.18's output).
std::string Pretty(std::string_view expr) {
  static const TextOptions text;
  auto stored = DeparseText(expr, DeparseOptions::Context::kCheck);
  if (!stored) return "error: " + stored.error().message;
  auto pretty = PrettyCheck(stored->text, ColumnType, text);
  return pretty ? *pretty : "no pretty form";
}

TEST(DeparseTest, PrettyChecksAsPostgresPrintsThem) {
  EXPECT_EQ(Pretty("a > 0"), "a > 0");
  EXPECT_EQ(Pretty("b <> ''"), "b <> ''::text");
  EXPECT_EQ(Pretty("c >= 1.5 and c < 100"), "c >= 1.5 AND c < 100::numeric");
  EXPECT_EQ(Pretty("a is not null or b is null"), "a IS NOT NULL OR b IS NULL");
  EXPECT_EQ(Pretty("b in ('a','b')"), "b = ANY (ARRAY['a'::text, 'b'::text])");
  EXPECT_EQ(Pretty("a in (1, 2)"), "a = ANY (ARRAY[1, 2])");
  EXPECT_EQ(Pretty("b not in ('a')"), "b <> 'a'::text");
  EXPECT_EQ(Pretty("length(n) > 2"), "length(n::text) > 2");
  EXPECT_EQ(Pretty("a between 1 and 10"), "a >= 1 AND a <= 10");
  EXPECT_EQ(Pretty("a not between 1 and 2"), "a < 1 OR a > 2");
  EXPECT_EQ(Pretty("a between symmetric 1 and 2"), "a >= 1 AND a <= 2 OR a >= 2 AND a <= 1");
  EXPECT_EQ(Pretty("b like 'a%'"), "b ~~ 'a%'::text");
  EXPECT_EQ(Pretty("b not like 'x%' and b ilike 'y'"), "b !~~ 'x%'::text AND b ~~* 'y'::text");
  EXPECT_EQ(Pretty("-a < 5 and a % 2 = 0"), "(- a) < 5 AND (a % 2) = 0");
  EXPECT_EQ(Pretty("a::text <> '3'"), "a::text <> '3'::text");
  EXPECT_EQ(Pretty("coalesce(a, 0) >= 0"), "COALESCE(a, 0) >= 0");
  EXPECT_EQ(Pretty("a < 1000 or b is null"), "a < 1000 OR b IS NULL");
  EXPECT_EQ(Pretty("n <> 'x'"), "n::text <> 'x'::text");
  EXPECT_EQ(Pretty("ch = 'y'"), "ch = 'y'::bpchar");
  EXPECT_EQ(Pretty("e > 5 and e < a::int8"), "e > 5 AND e < a::bigint");
  EXPECT_EQ(Pretty("f > 1 and f < 2.5"), "f > 1::double precision AND f < 2.5::double precision");
  EXPECT_EQ(Pretty("j > '2020-01-01'"), "j > '2020-01-01'::date");
  EXPECT_EQ(Pretty("l > 1"), "l > 1");
  EXPECT_EQ(Pretty("b || 'x' <> 'y'"), "(b || 'x'::text) <> 'y'::text");
  EXPECT_EQ(Pretty("a::text <> '1' and a::numeric(4,1) > 2"), "a::text <> '1'::text AND a::numeric(4,1) > 2::numeric");
  EXPECT_EQ(Pretty("p"), "p");
  EXPECT_EQ(Pretty("not p and a > -5"), "NOT p AND a > '-5'::integer");
  EXPECT_EQ(Pretty("\"Mixed\" > 0"), "\"Mixed\" > 0");
  EXPECT_EQ(Pretty("(a + 1) * 2 > a - (a - 1)"), "((a + 1) * 2) > (a - (a - 1))");
  EXPECT_EQ(Pretty("a * 2 + 1 > 0"), "(a * 2 + 1) > 0");
  EXPECT_EQ(Pretty("a - 1 - 1 > 0"), "(a - 1 - 1) > 0");
  EXPECT_EQ(Pretty("(a > 0) = p"), "(a > 0) = p");
  EXPECT_EQ(Pretty("not (a > 0 and p)"), "NOT (a > 0 AND p)");
  EXPECT_EQ(Pretty("(a > 0 or p) and (a < 5 or not p)"), "(a > 0 OR p) AND (a < 5 OR NOT p)");
  EXPECT_EQ(Pretty("(a + 1)::text <> ''"), "((a + 1)::text) <> ''::text");
  EXPECT_EQ(Pretty("(a > 0) is null"), "(a > 0) IS NULL");
}

TEST(DeparseTest, DefaultsAsPostgresPrintsThem) {
  EXPECT_EQ(Default("(1 + 2) * 3"), "((1 + 2) * 3)");
  EXPECT_EQ(Default("(not true)"), "(NOT true)");
  EXPECT_EQ(Default("lower('ABC')"), "lower('ABC'::text)");
  EXPECT_EQ(Default("nullif(1, 2)"), "NULLIF(1, 2)");
  EXPECT_EQ(Default("now()"), "now()");
  EXPECT_EQ(Default("-1 + 2"), "('-1'::integer + 2)");
  EXPECT_EQ(Default("upper('x')"), "upper('x'::text)");
  EXPECT_EQ(Default("random()"), "random()");
  EXPECT_EQ(Default("abs(-3)"), "abs('-3'::integer)");
  EXPECT_EQ(Default("1.5 * 2"), "(1.5 * (2)::numeric)");
  EXPECT_EQ(Default("'a' || 'b'"), "('a'::text || 'b'::text)");
  EXPECT_EQ(Default("coalesce(null, 3)"), "COALESCE(NULL::integer, 3)");
  EXPECT_EQ(Default("nextval('t_id_seq')"), "nextval('t_id_seq'::regclass)");
}

TEST(DeparseTest, VolatilityAndColumns) {
  auto d = DeparseText("random() + 1", DeparseOptions::Context::kDefault);
  ASSERT_TRUE(d.has_value());
  EXPECT_TRUE(d->is_volatile);
  d = DeparseText("nextval('s')", DeparseOptions::Context::kDefault);
  ASSERT_TRUE(d.has_value());
  EXPECT_TRUE(d->is_volatile);
  d = DeparseText("now()", DeparseOptions::Context::kDefault);
  ASSERT_TRUE(d.has_value());
  EXPECT_FALSE(d->is_volatile);
  d = DeparseText("a > 0 and b <> '' and a < 9", DeparseOptions::Context::kCheck);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->columns, (std::vector<std::string>{"a", "b"}));
}

TEST(DeparseTest, ErrorsAsPostgres) {
  struct Case {
    const char* expr;
    DeparseOptions::Context context;
    const char* sqlstate;
    const char* message;
    int position;  // in "SELECT <expr>"
  };
  const Case cases[] = {
      {"zz > 0", DeparseOptions::Context::kCheck, "42703", "column \"zz\" does not exist", 8},
      {"a + 1", DeparseOptions::Context::kDefault, "0A000", "cannot use column reference in DEFAULT expression", 8},
      {"a", DeparseOptions::Context::kCheck, "42804", "argument of CHECK must be type boolean, not type integer", 8},
      {"a > (select 1)", DeparseOptions::Context::kCheck, "0A000", "cannot use subquery in check constraint", 12},
      {"(select 1)", DeparseOptions::Context::kDefault, "0A000", "cannot use subquery in DEFAULT expression", 8},
      {"a > $1", DeparseOptions::Context::kCheck, "42P02", "there is no parameter $1", 12},
  };
  for (const Case& c : cases) {
    auto d = DeparseText(c.expr, c.context);
    ASSERT_FALSE(d.has_value()) << c.expr;
    EXPECT_EQ(d.error().sqlstate, c.sqlstate) << c.expr;
    EXPECT_EQ(d.error().message, c.message) << c.expr;
    EXPECT_EQ(d.error().position, c.position) << c.expr;
  }
}

}  // namespace
}  // namespace farmdb::sql
