#include "sql/session.h"

#include <gtest/gtest.h>

#include <thread>

#include "sql/test_sink.h"

namespace farmdb::sql {
namespace {

class SessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    engine_ = NewEngine({});
    SessionOptions options;
    options.user = "postgres";
    options.database = "postgres";
    options.is_superuser = true;
    options.cancel = &cancel_;
    auto s = engine_->NewSession(std::move(options));
    ASSERT_TRUE(s.has_value()) << s.error().message;
    session_ = std::move(*s);
  }

  // Runs `sql` on a fresh sink; returns the error (sqlstate empty on success).
  Error Run(std::string_view sql) {
    sink_ = RecordingSink();
    auto r = session_->SimpleQuery(sql, sink_);
    return r ? Error{} : r.error();
  }
  // The single value of a one-row, one-column query.
  std::string Value1(std::string_view sql) {
    Error e = Run(sql);
    EXPECT_EQ(e.sqlstate, "") << sql << ": " << e.message;
    if (sink_.rows.size() != 1 || sink_.rows[0].size() != 1) return "<no single value>";
    return sink_.rows[0][0];
  }

  CancelFlag cancel_;
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<Session> session_;
  RecordingSink sink_;
};

TEST_F(SessionTest, ConstantSelectsAndColumnNames) {
  ASSERT_EQ(Run("SELECT 1, 1::int, 'a'::varchar, case when true then 1 end, coalesce(1,2), nullif(1,2), -1, "
                "upper('a'), 'x', 1.5, date '2020-01-01', cast(1 as bigint), true, 2147483648, 1 AS one")
                .sqlstate,
            "");
  std::vector<std::string> names, oids;
  for (const Column& c : sink_.columns) {
    names.push_back(c.name);
    oids.push_back(std::to_string(c.type_oid));
  }
  EXPECT_EQ(names, (std::vector<std::string>{"?column?", "int4", "varchar", "case", "coalesce", "nullif", "?column?",
                                             "upper", "?column?", "?column?", "date", "int8", "?column?", "?column?", "one"}));
  EXPECT_EQ(oids, (std::vector<std::string>{"23", "23", "1043", "23", "23", "23", "23", "25", "25", "1700", "1082", "20",
                                            "16", "20", "23"}));
  EXPECT_EQ(sink_.rows[0], (std::vector<std::string>{"1", "1", "a", "1", "1", "1", "-1", "A", "x", "1.5", "2020-01-01",
                                                     "1", "t", "2147483648", "1"}));
  EXPECT_EQ(sink_.tags, std::vector<std::string>{"SELECT 1"});
  EXPECT_EQ(sink_.columns[1].type_size, 4);
  EXPECT_EQ(sink_.columns[9].type_size, -1);
}

TEST_F(SessionTest, ArithmeticMatchesPostgres) {
  EXPECT_EQ(Value1("SELECT 1/3.0"), "0.33333333333333333333");
  EXPECT_EQ(Value1("SELECT 10.0/4"), "2.5000000000000000");
  EXPECT_EQ(Value1("SELECT 5 % -3"), "2");
  EXPECT_EQ(Value1("SELECT -5 % 3"), "-2");
  EXPECT_EQ(Value1("SELECT 5.5 % 2"), "1.5");
  EXPECT_EQ(Value1("SELECT (-2147483648)::int4 % -1"), "0");
  EXPECT_EQ(Value1("SELECT 0.1::float8 + 0.2"), "0.30000000000000004");
  EXPECT_EQ(Value1("SELECT 1e15::float8"), "1e+15");
  EXPECT_EQ(Value1("SELECT 123456789.0::float4"), "1.2345679e+08");
  EXPECT_EQ(Value1("SELECT round(2.5)"), "3");
  EXPECT_EQ(Value1("SELECT round(-2.5)"), "-3");
  EXPECT_EQ(Value1("SELECT round(2.567, 2)"), "2.57");
  EXPECT_EQ(Value1("SELECT round(2.5::float8)"), "2");
  EXPECT_EQ(Value1("SELECT 2.5::int"), "3");
  EXPECT_EQ(Value1("SELECT 2.5::float8::int"), "2");
  EXPECT_EQ(Value1("SELECT '1' + 1"), "2");
  EXPECT_EQ(Value1("SELECT 1 || 'a'"), "1a");
  EXPECT_EQ(Value1("SELECT date '2020-01-01' + 1"), "2020-01-02");
  EXPECT_EQ(Value1("SELECT date '2020-03-01' - date '2020-02-01'"), "29");
  EXPECT_EQ(Value1("SELECT length('héllo')"), "5");
  EXPECT_EQ(Value1("SELECT abs(-3.5)"), "3.5");
  EXPECT_EQ(Value1("SELECT 'abc'::bytea"), "\\x616263");
  EXPECT_EQ(Value1("SELECT true::text || false"), "truefalse");
  EXPECT_EQ(Value1("SELECT -2147483648"), "-2147483648");
  EXPECT_EQ(sink_.columns[0].type_oid, 23u);
}

TEST_F(SessionTest, TypeModifiers) {
  ASSERT_EQ(Run("SELECT 0.1::numeric(10,2), 123.456::numeric(5,1), 'héllo'::varchar(2)").sqlstate, "");
  EXPECT_EQ(sink_.rows[0], (std::vector<std::string>{"0.10", "123.5", "hé"}));
  EXPECT_EQ(sink_.columns[0].type_modifier, (10 << 16 | 2) + 4);
  EXPECT_EQ(sink_.columns[2].type_modifier, 2 + 4);
  Error e = Run("SELECT 99.5::numeric(2,0)");
  EXPECT_EQ(e.sqlstate, "22003");
  EXPECT_EQ(e.message, "numeric field overflow");
  EXPECT_EQ(e.detail, "A field with precision 2, scale 0 must round to an absolute value less than 10^2.");
  e = Run("SELECT 1::numeric(0)");
  EXPECT_EQ(e.message, "NUMERIC precision 0 must be between 1 and 1000");
  EXPECT_EQ(e.position, 11);
  e = Run("SELECT 1::int4(3)");
  EXPECT_EQ(e.sqlstate, "42601");
  EXPECT_EQ(e.message, "type modifier is not allowed for type \"int4\"");
  // timestamp(p) rounds to p digits (typmod p itself), also through further casts.
  ASSERT_EQ(Run("SELECT '2024-02-29 13:14:15.123456'::timestamp(2), '2024-02-29 13:14:15.125'::timestamp(2), "
                "'2024-02-29 23:59:59.9999'::timestamp(0), '2024-02-29 13:14:15.123456'::timestamp(2)::timestamp(1), "
                "'2024-02-29 13:14:15.123456'::timestamp(2)::text, '2024-02-29'::date::timestamp(3), "
                "'infinity'::timestamp(0), '2024-02-29 13:14:15.123456'::timestamp(7)")
                .sqlstate,
            "");
  EXPECT_EQ(sink_.rows[0], (std::vector<std::string>{"2024-02-29 13:14:15.12", "2024-02-29 13:14:15.13",
                                                     "2024-03-01 00:00:00", "2024-02-29 13:14:15.1",
                                                     "2024-02-29 13:14:15.12", "2024-02-29 00:00:00", "infinity",
                                                     "2024-02-29 13:14:15.123456"}));
  EXPECT_EQ(sink_.columns[0].type_modifier, 2);
  EXPECT_EQ(sink_.columns[2].type_modifier, 0);
  EXPECT_EQ(sink_.columns[4].type_modifier, -1);
  EXPECT_EQ(sink_.columns[7].type_modifier, 6);
  ASSERT_EQ(sink_.notices.size(), 1u);
  EXPECT_EQ(sink_.notices[0].severity, "WARNING");
  EXPECT_EQ(sink_.notices[0].message, "TIMESTAMP(7) precision reduced to maximum allowed, 6");
}

// DateStyle: SET/SHOW spellings, output in each style, input under the field order, and the
// ParameterStatus a reported setting sends (expected outputs from PostgreSQL 15).
TEST_F(SessionTest, DateStyleOutputAndInput) {
  ASSERT_EQ(Run("SET DateStyle = 'German'").sqlstate, "");
  ASSERT_EQ(sink_.parameter_status.size(), 1u);
  EXPECT_EQ(sink_.parameter_status[0], (std::pair<std::string, std::string>{"DateStyle", "German, DMY"}));
  EXPECT_EQ(Value1("SHOW DateStyle"), "German, DMY");
  ASSERT_EQ(Run("SELECT '2024-02-29'::date, '2024-02-29 13:14:15'::timestamp").sqlstate, "");
  EXPECT_EQ(sink_.rows[0], (std::vector<std::string>{"29.02.2024", "29.02.2024 13:14:15"}));
  ASSERT_EQ(Run("SET DateStyle TO 'SQL, DMY'").sqlstate, "");
  EXPECT_EQ(Value1("SELECT '2024-02-29'::date"), "29/02/2024");
  ASSERT_EQ(Run("SET DateStyle = Postgres, MDY").sqlstate, "");
  EXPECT_EQ(Value1("SELECT '2024-02-29 13:14:15.5'::timestamp"), "Thu Feb 29 13:14:15.5 2024");
  EXPECT_EQ(Value1("SELECT '2024-02-29'::date::text"), "02-29-2024");
  ASSERT_EQ(Run("SET DateStyle = DEFAULT").sqlstate, "");
  EXPECT_EQ(Value1("SHOW DateStyle"), "ISO, MDY");
  EXPECT_EQ(Value1("SELECT '01/02/2024'::date"), "2024-01-02");
  // Literals are read with the DateStyle in force when the statement is analysed, even in
  // the same message as the SET.
  ASSERT_EQ(Run("SET DateStyle = 'ISO, DMY'; SELECT '01/02/2024'::date").sqlstate, "");
  EXPECT_EQ(sink_.rows[0][0], "2024-02-01");
  Error e = Run("SET DateStyle = 'ISO, SQL'");
  EXPECT_EQ(e.sqlstate, "22023");
  EXPECT_EQ(e.message, "invalid value for parameter \"DateStyle\": \"ISO, SQL\"");
  EXPECT_EQ(e.detail, "Conflicting \"datestyle\" specifications.");
  // Text parameters follow the order too; binary ones are unaffected.
  auto p = session_->Prepare("SELECT $1::date", {});
  ASSERT_TRUE(p.has_value());
  std::vector<WireValue> values = {std::string_view("03/04/2024")};
  auto portal = session_->Bind(*p, {values, {}, {}}, nullptr);
  ASSERT_TRUE(portal.has_value());
  RecordingSink sink;
  ASSERT_TRUE(session_->Execute(**portal, 0, false, sink));
  EXPECT_EQ(sink.rows[0][0], "2024-04-03");
  ASSERT_TRUE(session_->Sync(sink_));
  e = Run("SELECT '13/13/2024'::date");
  EXPECT_EQ(e.sqlstate, "22008");
  EXPECT_EQ(e.hint, "Perhaps you need a different \"datestyle\" setting.");
  ASSERT_EQ(Run("RESET DateStyle").sqlstate, "");
  EXPECT_EQ(sink_.parameter_status.back().second, "ISO, MDY");
}

TEST_F(SessionTest, ThreeValuedLogicAndNulls) {
  EXPECT_EQ(Value1("SELECT NULL AND false"), "f");
  EXPECT_EQ(Value1("SELECT NULL AND true"), "<NULL>");
  EXPECT_EQ(Value1("SELECT NULL OR true"), "t");
  EXPECT_EQ(Value1("SELECT NOT (NULL::bool)"), "<NULL>");
  EXPECT_EQ(Value1("SELECT NULL::int IS NULL"), "t");
  EXPECT_EQ(Value1("SELECT 1 + NULL"), "<NULL>");
  EXPECT_EQ(Value1("SELECT 'a' || NULL"), "<NULL>");
  EXPECT_EQ(Value1("SELECT CASE 2 WHEN 1 THEN 'one' WHEN 2 THEN 'two' END"), "two");
  EXPECT_EQ(Value1("SELECT COALESCE(NULL, NULL, 3)"), "3");
  ASSERT_EQ(Run("SELECT 1 WHERE false").sqlstate, "");
  EXPECT_TRUE(sink_.rows.empty());
  EXPECT_EQ(sink_.tags, std::vector<std::string>{"SELECT 0"});
}

TEST_F(SessionTest, ErrorsCarrySqlstateAndPosition) {
  const ErrorCase cases[] = {
      {"SELECT 'x'::int", "22P02", "invalid input syntax for type integer: \"x\"", 8},
      {"SELECT 2147483647 + 1", "22003", "integer out of range", 0},
      {"SELECT 32767::int2 + 1::int2", "22003", "smallint out of range", 0},
      {"SELECT 9223372036854775807::int8 + 1", "22003", "bigint out of range", 0},
      {"SELECT 1/0", "22012", "division by zero", 0},
      {"SELECT 1.0 % 0", "22012", "division by zero", 0},
      {"SELECT date '2020-13-01'", "22008", "date/time field value out of range: \"2020-13-01\"", 13},
      {"SELECT date 'foo'", "22007", "invalid input syntax for type date: \"foo\"", 13},
      {"SELECT '99999999999'::int", "22003", "value \"99999999999\" is out of range for type integer", 8},
      {"SELECT 1 = 'a'::text", "42883", "operator does not exist: integer = text", 10},
      {"SELECT '1' + '2'", "42725", "operator is not unique: unknown + unknown", 12},
      {"SELECT foo()", "42883", "function foo() does not exist", 8},
      {"SELECT upper(1)", "42883", "function upper(integer) does not exist", 8},
      {"SELECT 1 +", "42601", "syntax error at end of input", 11},
      {"SELECT x", "42703", "column \"x\" does not exist", 8},
      {"SELECT * FROM t", "42P01", "relation \"t\" does not exist", 15},
      {"SELECT *", "42601", "SELECT * with no tables specified is not valid", 8},
      {"SELECT coalesce(1, 'a'::text)", "42804", "COALESCE types integer and text cannot be matched", 20},
      {"CREATE SEQUENCE s", "0A000", "this engine has no storage node", 0},  // DDL needs a Node
      {"INSERT INTO t VALUES (1)", "42P01", "relation \"t\" does not exist", 13},
      {"EXPLAIN ANALYZE SELECT 1", "0A000", "EXPLAIN ANALYZE is not supported yet", 0},
      {"COPY t FROM STDIN", "42P01", "relation \"t\" does not exist", 0},
      {"SELECT 'é' || 1/0", "22012", "division by zero", 0},
      {"SELECT 'é', x", "42703", "column \"x\" does not exist", 13},
      {"SELECT 1; SELECT $1", "42P02", "there is no parameter $1", 18},
      {"SELECT 1 AND true", "42804", "argument of AND must be type boolean, not type integer", 8},
  };
  for (const ErrorCase& c : cases) {
    Error e = Run(c.sql);
    EXPECT_EQ(e.sqlstate, c.sqlstate) << c.sql;
    EXPECT_EQ(e.message, c.message) << c.sql;
    EXPECT_EQ(e.position, c.position) << c.sql;
  }
}

TEST_F(SessionTest, EmptyQueries) {
  ASSERT_EQ(Run("").sqlstate, "");
  EXPECT_EQ(sink_.empty_queries, 1);
  ASSERT_EQ(Run(" ; ;").sqlstate, "");
  EXPECT_EQ(sink_.empty_queries, 1);
  auto p = session_->Prepare("", {});
  ASSERT_TRUE(p.has_value());
  auto portal = session_->Bind(*p, {}, nullptr);
  ASSERT_TRUE(portal.has_value());
  RecordingSink sink;
  auto r = session_->Execute(**portal, 0, false, sink);
  ASSERT_TRUE(r.has_value());
  EXPECT_TRUE(r->empty_query);
}

TEST_F(SessionTest, MultiStatementMessageIsOneImplicitTransaction) {
  Error e = Run("SELECT 1; SELECT 1/0; SELECT 2");
  EXPECT_EQ(e.sqlstate, "22012");
  EXPECT_EQ(sink_.tags, std::vector<std::string>{"SELECT 1"});
  EXPECT_EQ(session_->Status(), TxnStatus::kIdle);
  // A SET earlier in the failed message is rolled back with it.
  EXPECT_EQ(Run("SET extra_float_digits = 2; SELECT 1/0").sqlstate, "22012");
  EXPECT_EQ(Value1("SHOW extra_float_digits"), "1");
  // A message may open a block that outlives it.
  EXPECT_EQ(Run("SELECT 1; BEGIN; SELECT 2").sqlstate, "");
  EXPECT_EQ(session_->Status(), TxnStatus::kInBlock);
  EXPECT_EQ(Run("ROLLBACK").sqlstate, "");
}

TEST_F(SessionTest, TransactionBlockStates) {
  EXPECT_EQ(Run("BEGIN").sqlstate, "");
  EXPECT_EQ(sink_.tags, std::vector<std::string>{"BEGIN"});
  EXPECT_EQ(session_->Status(), TxnStatus::kInBlock);
  EXPECT_EQ(Run("BEGIN").sqlstate, "");
  ASSERT_EQ(sink_.notices.size(), 1u);
  EXPECT_EQ(sink_.notices[0].severity, "WARNING");
  EXPECT_EQ(sink_.notices[0].sqlstate, "25001");
  EXPECT_EQ(sink_.notices[0].message, "there is already a transaction in progress");
  EXPECT_EQ(Run("SELECT 1/0").sqlstate, "22012");
  EXPECT_EQ(session_->Status(), TxnStatus::kFailed);
  Error e = Run("SELECT 1");
  EXPECT_EQ(e.sqlstate, "25P02");
  EXPECT_EQ(e.message, "current transaction is aborted, commands ignored until end of transaction block");
  EXPECT_EQ(Run("COMMIT").sqlstate, "");
  EXPECT_EQ(sink_.tags, std::vector<std::string>{"ROLLBACK"});
  EXPECT_EQ(session_->Status(), TxnStatus::kIdle);
  EXPECT_EQ(Run("COMMIT").sqlstate, "");
  ASSERT_EQ(sink_.notices.size(), 1u);
  EXPECT_EQ(sink_.notices[0].sqlstate, "25P01");
  EXPECT_EQ(sink_.notices[0].message, "there is no transaction in progress");
  EXPECT_EQ(Run("START TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY").sqlstate, "");
  EXPECT_EQ(sink_.tags, std::vector<std::string>{"START TRANSACTION"});
  EXPECT_EQ(Value1("SHOW transaction_isolation"), "repeatable read");
  EXPECT_EQ(Value1("SHOW transaction_read_only"), "on");
  EXPECT_EQ(Run("SET TRANSACTION ISOLATION LEVEL SERIALIZABLE").sqlstate, "");  // SHOW is no query
  EXPECT_EQ(Value1("SHOW transaction_isolation"), "serializable");
  EXPECT_EQ(Value1("SELECT 1"), "1");
  EXPECT_EQ(Run("SET TRANSACTION ISOLATION LEVEL SERIALIZABLE").sqlstate, "25001");
  EXPECT_EQ(Run("END").sqlstate, "");
  EXPECT_EQ(sink_.tags, std::vector<std::string>{"ROLLBACK"});
  EXPECT_EQ(Value1("SHOW transaction_isolation"), "serializable");
  EXPECT_EQ(Run("SAVEPOINT a").sqlstate, "0A000");
  EXPECT_EQ(sink_.tags.size(), 0u);
}

TEST_F(SessionTest, SettingsAreTransactional) {
  EXPECT_EQ(Run("BEGIN; SET extra_float_digits = 3; ROLLBACK").sqlstate, "");
  EXPECT_EQ(Value1("SHOW extra_float_digits"), "1");
  EXPECT_EQ(Run("BEGIN; SET extra_float_digits = 3; COMMIT").sqlstate, "");
  EXPECT_EQ(Value1("SHOW extra_float_digits"), "3");
  EXPECT_EQ(Run("BEGIN; SET LOCAL extra_float_digits = 0").sqlstate, "");
  EXPECT_EQ(Value1("SELECT current_setting('extra_float_digits')"), "0");
  EXPECT_EQ(Run("COMMIT").sqlstate, "");
  EXPECT_EQ(Value1("SHOW extra_float_digits"), "3");
  EXPECT_EQ(Run("SET LOCAL extra_float_digits = 0").sqlstate, "");
  ASSERT_EQ(sink_.notices.size(), 1u);
  EXPECT_EQ(sink_.notices[0].message, "SET LOCAL can only be used in transaction blocks");
  EXPECT_EQ(Value1("SHOW extra_float_digits"), "3");
  EXPECT_EQ(Run("RESET extra_float_digits").sqlstate, "");
  EXPECT_EQ(sink_.tags, std::vector<std::string>{"RESET"});
  EXPECT_EQ(Value1("SHOW extra_float_digits"), "1");
}

TEST_F(SessionTest, SettingErrorsAndNames) {
  Error e = Run("SET foo = 1");
  EXPECT_EQ(e.sqlstate, "42704");
  EXPECT_EQ(e.message, "unrecognized configuration parameter \"foo\"");
  e = Run("SET server_version = '1'");
  EXPECT_EQ(e.sqlstate, "55P02");
  EXPECT_EQ(e.message, "parameter \"server_version\" cannot be changed");
  e = Run("SET extra_float_digits = 10");
  EXPECT_EQ(e.sqlstate, "22023");
  EXPECT_EQ(e.message, "10 is outside the valid range for parameter \"extra_float_digits\" (-15 .. 3)");
  e = Run("SET bytea_output = foo");
  EXPECT_EQ(e.message, "invalid value for parameter \"bytea_output\": \"foo\"");
  EXPECT_EQ(e.hint, "Available values: escape, hex.");
  e = Run("SET client_encoding = 'latin1'");
  EXPECT_EQ(e.sqlstate, "22023");
  EXPECT_EQ(Run("SET client_encoding = 'utf-8'").sqlstate, "");
  EXPECT_EQ(Value1("SHOW client_encoding"), "UTF8");
  EXPECT_EQ(Run("SET a.b = 1").sqlstate, "");
  EXPECT_EQ(Value1("SHOW a.b"), "1");
  EXPECT_EQ(sink_.columns[0].name, "a.b");
  EXPECT_EQ(Value1("SELECT current_setting('x.y', true)"), "<NULL>");
  EXPECT_EQ(Run("SHOW x.y").sqlstate, "42704");
  EXPECT_EQ(Value1("SELECT set_config('x.y', '3', false)"), "3");
  EXPECT_EQ(Value1("SHOW x.y"), "3");
  EXPECT_EQ(Value1("SHOW datestyle"), "ISO, MDY");
  EXPECT_EQ(sink_.columns[0].name, "DateStyle");
  EXPECT_EQ(Run("SET statement_timeout = '1s'").sqlstate, "");
  EXPECT_EQ(Value1("SHOW statement_timeout"), "1s");
  EXPECT_EQ(Run("SET search_path = a, 'b c'").sqlstate, "");
  EXPECT_EQ(Value1("SHOW search_path"), "a, \"b c\"");
  EXPECT_EQ(Value1("SHOW default_transaction_isolation"), "serializable");
  EXPECT_EQ(Value1("SHOW server_version_num"), "150000");
  ASSERT_EQ(Run("SHOW ALL").sqlstate, "");
  EXPECT_EQ(sink_.columns.size(), 3u);
  EXPECT_GT(sink_.rows.size(), 20u);
}

TEST_F(SessionTest, ReportedSettingsChangeSendsParameterStatus) {
  auto reported = session_->ReportedSettings();
  ASSERT_FALSE(reported.empty());
  EXPECT_EQ(reported[0].first, "application_name");
  EXPECT_EQ(Run("SET application_name = 'x'").sqlstate, "");
  EXPECT_EQ(sink_.parameter_status, (std::vector<std::pair<std::string, std::string>>{{"application_name", "x"}}));
  // Reported once per message, like PostgreSQL 15 before ReadyForQuery: a change undone
  // within the same message is not reported at all.
  EXPECT_EQ(Run("BEGIN; SET application_name = 'y'; ROLLBACK").sqlstate, "");
  EXPECT_TRUE(sink_.parameter_status.empty());
  EXPECT_EQ(Run("BEGIN; SET application_name = 'y'").sqlstate, "");
  EXPECT_EQ(sink_.parameter_status, (std::vector<std::pair<std::string, std::string>>{{"application_name", "y"}}));
  EXPECT_EQ(Run("ROLLBACK").sqlstate, "");
  EXPECT_EQ(sink_.parameter_status, (std::vector<std::pair<std::string, std::string>>{{"application_name", "x"}}));
  // A failing message reports what the rollback restored.
  EXPECT_EQ(Run("SET application_name = 'z'; SELECT 1/0").sqlstate, "22012");
  EXPECT_TRUE(sink_.parameter_status.empty());
}

TEST_F(SessionTest, StartupSettings) {
  SessionOptions options;
  options.user = "u";
  options.database = "postgres";
  options.startup_settings = {{"DateStyle", "ISO"}, {"extra_float_digits", "3"}, {"application_name", "app"}};
  auto s = engine_->NewSession(options);
  ASSERT_TRUE(s.has_value());
  RecordingSink sink;
  ASSERT_TRUE((*s)->SimpleQuery("SHOW extra_float_digits; RESET extra_float_digits; SHOW extra_float_digits", sink));
  EXPECT_EQ(sink.rows, (std::vector<std::vector<std::string>>{{"3"}, {"3"}}));
  options.startup_settings = {{"nope", "1"}};
  auto bad = engine_->NewSession(options);
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().severity, Error::Severity::kFatal);
  EXPECT_EQ(bad.error().sqlstate, "42704");
  options.startup_settings = {};
  options.database = "nope";
  bad = engine_->NewSession(options);
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().sqlstate, "3D000");
}

TEST_F(SessionTest, ParameterTypeInference) {
  struct Case {
    const char* sql;
    std::vector<Oid> given;
    std::vector<Oid> inferred;
  };
  const Case cases[] = {
      {"SELECT $1::int4", {}, {23}},
      {"SELECT $1 + 1", {}, {23}},
      {"SELECT $1 = 1.5", {}, {1700}},
      {"SELECT $1", {}, {25}},
      {"SELECT $1, $2", {20}, {20, 25}},
      {"SELECT $2 || 'a'", {}, {25, 25}},
      {"SELECT upper($1)", {}, {25}},
  };
  for (const Case& c : cases) {
    auto p = session_->Prepare(c.sql, c.given);
    ASSERT_TRUE(p.has_value()) << c.sql << ": " << p.error().message;
    auto types = (*p)->ParameterTypes();
    EXPECT_EQ(std::vector<Oid>(types.begin(), types.end()), c.inferred) << c.sql;
  }
  Error e = session_->Prepare("SELECT 1; SELECT 2", {}).error();
  EXPECT_EQ(e.sqlstate, "42601");
  EXPECT_EQ(e.message, "cannot insert multiple commands into a prepared statement");
}

TEST_F(SessionTest, BindDecodesTextAndBinary) {
  auto p = session_->Prepare("SELECT $1 + 1, $2::text", std::vector<Oid>{23, 0});
  ASSERT_TRUE(p.has_value());
  std::string four("\0\0\0\x29", 4);  // int4 41
  std::vector<WireValue> values = {four, std::string_view("hi")};
  std::vector<Format> formats = {Format::kBinary, Format::kText};
  std::vector<Format> result_formats = {Format::kBinary, Format::kText};
  auto portal = session_->Bind(*p, {values, formats, result_formats}, nullptr);
  ASSERT_TRUE(portal.has_value()) << portal.error().message;
  EXPECT_EQ((*portal)->ResultColumns()[0].format, Format::kBinary);
  RecordingSink sink;
  auto r = session_->Execute(**portal, 0, false, sink);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->command_tag, "SELECT 1");
  ASSERT_EQ(sink.rows.size(), 1u);
  EXPECT_EQ(sink.rows[0][0], std::string("\0\0\0\x2a", 4));
  EXPECT_EQ(sink.rows[0][1], "hi");
  EXPECT_TRUE(sink.columns.empty());  // the extended protocol describes through Describe

  // Too short runs out of message (pq_getmsgint); too long leaves bytes that Bind rejects.
  std::vector<WireValue> short_value = {std::string_view("\0\0\1", 3), std::string_view("x")};
  auto bad = session_->Bind(*p, {short_value, formats, {}}, nullptr);
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().sqlstate, "08P01");
  EXPECT_EQ(bad.error().message, "insufficient data left in message");
  std::vector<WireValue> long_value = {std::string_view("\0\0\0\1\0", 5), std::string_view("x")};
  bad = session_->Bind(*p, {long_value, formats, {}}, nullptr);
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().sqlstate, "22P03");
  EXPECT_EQ(bad.error().message, "incorrect binary data format in bind parameter 1");

  std::vector<WireValue> one = {std::string_view("1")};
  bad = session_->Bind(*p, {one, {}, {}}, nullptr);
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().sqlstate, "08P01");
  EXPECT_EQ(bad.error().message, "bind message supplies 1 parameters, but prepared statement \"\" requires 2");
  bad = session_->Bind(*p, {one, {}, {}, "s1"}, nullptr);
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().message, "bind message supplies 1 parameters, but prepared statement \"s1\" requires 2");

  std::vector<WireValue> text_values = {std::string_view("x"), std::string_view("y")};
  bad = session_->Bind(*p, {text_values, {}, {}}, nullptr);
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().sqlstate, "22P02");
}

TEST_F(SessionTest, BinaryParametersAndResultsOfEveryType) {
  // numeric 1.5, float8 0.1, date 2020-01-01, bool true: PostgreSQL 15's typsend bytes.
  auto p = session_->Prepare("SELECT $1, $2, $3 + 1, NOT $4", std::vector<Oid>{1700, 701, 1082, 16});
  ASSERT_TRUE(p.has_value()) << p.error().message;
  std::string numeric("\x00\x02\x00\x00\x00\x00\x00\x01\x00\x01\x13\x88", 12);
  std::string float8("\x3f\xb9\x99\x99\x99\x99\x99\x9a", 8);
  std::string date("\x00\x00\x1c\x89", 4);
  std::string boolean("\x01", 1);
  std::vector<WireValue> values = {numeric, float8, date, boolean};
  std::vector<Format> binary = {Format::kBinary};
  auto portal = session_->Bind(*p, {values, binary, {}}, nullptr);
  ASSERT_TRUE(portal.has_value()) << portal.error().message;
  RecordingSink text_sink;
  ASSERT_TRUE(session_->Execute(**portal, 0, false, text_sink));
  EXPECT_EQ(text_sink.rows[0], (std::vector<std::string>{"1.5", "0.1", "2020-01-02", "f"}));
  auto binary_portal = session_->Bind(*p, {values, binary, binary}, nullptr);
  ASSERT_TRUE(binary_portal.has_value());
  RecordingSink binary_sink;
  ASSERT_TRUE(session_->Execute(**binary_portal, 0, false, binary_sink));
  EXPECT_EQ(binary_sink.rows[0], (std::vector<std::string>{numeric, float8, std::string("\x00\x00\x1c\x8a", 4),
                                                           std::string("\x00", 1)}));
  ASSERT_TRUE(session_->Sync(sink_));
  std::vector<Format> two_formats = {Format::kText, Format::kBinary};
  auto bad = session_->Bind(*p, {values, two_formats, {}}, nullptr);
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().message, "bind message has 2 parameter formats but 4 parameters");
  bad = session_->Bind(*p, {values, binary, two_formats}, nullptr);
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().message, "bind message has 2 result formats but query has 4 columns");
}

TEST_F(SessionTest, ReplacedPortalIsBoundAfreshInItsStorage) {
  // The unnamed portal the server passes back is reused: nothing of the old binding may show
  // through (its statement, parameters, result formats, rows or position).
  auto first = session_->Prepare("SELECT generate_series(1, $1)", std::vector<Oid>{23});
  auto second = session_->Prepare("SELECT $1::text, $2::text", {});
  ASSERT_TRUE(first.has_value() && second.has_value());
  std::vector<WireValue> three = {std::string_view("3")};
  std::vector<Format> binary = {Format::kBinary};
  auto portal = session_->Bind(*first, {three, {}, binary}, nullptr);
  ASSERT_TRUE(portal.has_value()) << portal.error().message;
  RecordingSink part;
  auto r = session_->Execute(**portal, 1, false, part);
  ASSERT_TRUE(r.has_value());
  EXPECT_TRUE(r->suspended);

  std::vector<WireValue> words = {std::string_view("a"), std::string_view("b")};
  auto reused = session_->Bind(*second, {words, {}, {}}, std::move(*portal));
  ASSERT_TRUE(reused.has_value()) << reused.error().message;
  ASSERT_EQ((*reused)->ResultColumns().size(), 2u);
  EXPECT_EQ((*reused)->ResultColumns()[0].format, Format::kText);
  RecordingSink sink;
  r = session_->Execute(**reused, 0, false, sink);
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(r->command_tag, "SELECT 1");
  ASSERT_EQ(sink.rows.size(), 1u);
  EXPECT_EQ(sink.rows[0], (std::vector<std::string>{"a", "b"}));

  // A Bind that fails consumes the replaced portal all the same (PostgreSQL drops the unnamed
  // portal when Bind creates the new one).
  std::vector<WireValue> bad_int = {std::string_view("x")};
  auto failed = session_->Bind(*first, {bad_int, {}, {}}, std::move(*reused));
  ASSERT_FALSE(failed.has_value());
  EXPECT_EQ(failed.error().sqlstate, "22P02");
}

TEST_F(SessionTest, DriverSettingsKeepFloatOutputExact) {
  // pgjdbc sets extra_float_digits = 3; output must stay the shortest exact form.
  ASSERT_EQ(Run("SET extra_float_digits = 3").sqlstate, "");
  EXPECT_EQ(Value1("SELECT 0.1::float8"), "0.1");
  EXPECT_EQ(Value1("SELECT 3.14::float4"), "3.14");
  ASSERT_EQ(Run("SET extra_float_digits = 0").sqlstate, "");
  EXPECT_EQ(Value1("SELECT 0.1::float8 + 0.2"), "0.3");
  auto show = session_->Prepare("SHOW TRANSACTION ISOLATION LEVEL", {});
  ASSERT_TRUE(show.has_value());
  ASSERT_EQ((*show)->ResultColumns().size(), 1u);
  EXPECT_EQ((*show)->ResultColumns()[0].name, "transaction_isolation");
  EXPECT_EQ(Run("SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL READ COMMITTED").sqlstate, "");
  EXPECT_EQ(Value1("SHOW transaction_isolation"), "read committed");
}

TEST_F(SessionTest, PortalHonoursRowLimit) {
  auto p = session_->Prepare("SHOW ALL", {});
  ASSERT_TRUE(p.has_value());
  ASSERT_EQ((*p)->ResultColumns().size(), 3u);
  auto portal = session_->Bind(*p, {}, nullptr);
  ASSERT_TRUE(portal.has_value());
  RecordingSink sink;
  size_t total = 0;
  int executes = 0;
  while (true) {
    auto r = session_->Execute(**portal, 7, false, sink);
    ASSERT_TRUE(r.has_value());
    ++executes;
    EXPECT_LE(sink.rows.size() - total, 7u);
    total = sink.rows.size();
    if (!r->suspended) {
      EXPECT_EQ(r->command_tag, "SHOW");
      break;
    }
  }
  EXPECT_GT(executes, 2);
  RecordingSink all;
  ASSERT_TRUE(session_->SimpleQuery("SHOW ALL", all));
  EXPECT_EQ(all.rows, sink.rows);
  ASSERT_TRUE(session_->Sync(sink_));
}

// PostgreSQL suspends a portal whenever an Execute sent max_rows rows, even if none remain;
// the next Execute then completes with no rows (checked on PostgreSQL 15 over the wire).
TEST_F(SessionTest, PortalSuspendsAtExactRowLimit) {
  auto p = session_->Prepare("SELECT 1", {});
  ASSERT_TRUE(p.has_value());
  auto portal = session_->Bind(*p, {}, nullptr);
  ASSERT_TRUE(portal.has_value());
  RecordingSink sink;
  auto first = session_->Execute(**portal, 1, false, sink);
  ASSERT_TRUE(first.has_value());
  EXPECT_TRUE(first->suspended);
  EXPECT_EQ(sink.rows.size(), 1u);
  auto second = session_->Execute(**portal, 1, false, sink);
  ASSERT_TRUE(second.has_value());
  EXPECT_FALSE(second->suspended);
  EXPECT_EQ(second->command_tag, "SELECT 0");
  EXPECT_EQ(sink.rows.size(), 1u);
  // A larger limit than the rows completes at once, with the rows counted.
  auto whole = session_->Bind(*p, {}, nullptr);
  ASSERT_TRUE(whole.has_value());
  auto r = session_->Execute(**whole, 2, false, sink);
  ASSERT_TRUE(r.has_value());
  EXPECT_FALSE(r->suspended);
  EXPECT_EQ(r->command_tag, "SELECT 1");
  // SHOW reports its own tag after the suspension, as PostgreSQL does.
  auto show = session_->Prepare("SHOW DateStyle", {});
  ASSERT_TRUE(show.has_value());
  auto show_portal = session_->Bind(*show, {}, nullptr);
  ASSERT_TRUE(show_portal.has_value());
  EXPECT_TRUE(session_->Execute(**show_portal, 1, false, sink)->suspended);
  EXPECT_EQ(session_->Execute(**show_portal, 1, false, sink)->command_tag, "SHOW");
  // A statement without rows never suspends.
  auto set = session_->Prepare("SET DateStyle = 'ISO'", {});
  ASSERT_TRUE(set.has_value());
  auto set_portal = session_->Bind(*set, {}, nullptr);
  ASSERT_TRUE(set_portal.has_value());
  auto set_result = session_->Execute(**set_portal, 1, false, sink);
  ASSERT_TRUE(set_result.has_value());
  EXPECT_FALSE(set_result->suspended);
  EXPECT_EQ(set_result->command_tag, "SET");
  ASSERT_TRUE(session_->Sync(sink_));
}

TEST_F(SessionTest, ExtendedProtocolTransactions) {
  auto begin = session_->Prepare("BEGIN", {});
  auto fail = session_->Prepare("SELECT 1/0", {});
  auto one = session_->Prepare("SELECT 1", {});
  ASSERT_TRUE(begin && fail && one);
  RecordingSink sink;
  auto exec = [&](const std::shared_ptr<const PreparedStatement>& s) -> std::expected<ExecuteResult, Error> {
    auto portal = session_->Bind(s, {}, nullptr);
    if (!portal) return std::unexpected(portal.error());
    return session_->Execute(**portal, 0, false, sink);
  };
  ASSERT_TRUE(exec(*begin));
  ASSERT_TRUE(session_->Sync(sink_));
  EXPECT_EQ(session_->Status(), TxnStatus::kInBlock);
  EXPECT_FALSE(exec(*fail));
  ASSERT_TRUE(session_->Sync(sink_));
  EXPECT_EQ(session_->Status(), TxnStatus::kFailed);
  auto r = exec(*one);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().sqlstate, "25P02");
  auto rollback = session_->Prepare("ROLLBACK", {});
  ASSERT_TRUE(rollback);
  ASSERT_TRUE(exec(*rollback));
  ASSERT_TRUE(session_->Sync(sink_));
  EXPECT_EQ(session_->Status(), TxnStatus::kIdle);
  // Outside a block an error ends the implicit transaction; the session stays usable.
  EXPECT_FALSE(exec(*fail));
  ASSERT_TRUE(session_->Sync(sink_));
  EXPECT_EQ(session_->Status(), TxnStatus::kIdle);
  EXPECT_TRUE(exec(*one));
}

TEST_F(SessionTest, CopyQueryToStdout) {
  ASSERT_EQ(Run("COPY (SELECT 1 AS a, NULL::int AS b, 'x,y' AS c, '' AS d, E'a\\tb' AS e) TO STDOUT WITH (FORMAT csv, HEADER)").sqlstate, "");
  EXPECT_EQ(sink_.copy_data, "a,b,c,d,e\n1,,\"x,y\",\"\",a\tb\n");
  EXPECT_EQ(sink_.tags, std::vector<std::string>{"COPY 1"});
  EXPECT_EQ(sink_.copy_columns, 5u);
  EXPECT_EQ(sink_.copy_ends, 1);
  ASSERT_EQ(Run("COPY (SELECT 1 AS a, NULL::int AS b, E'a\\tb\\\\' AS e) TO STDOUT WITH (HEADER)").sqlstate, "");
  EXPECT_EQ(sink_.copy_data, "a\tb\te\n1\t\\N\ta\\tb\\\\\n");
  ASSERT_EQ(Run("COPY (SELECT 1, 2) TO STDOUT WITH (DELIMITER '|', NULL 'nil')").sqlstate, "");
  EXPECT_EQ(sink_.copy_data, "1|2\n");
}

TEST_F(SessionTest, PgSleepHonoursCancelAndStatementTimeout) {
  EXPECT_EQ(Value1("SELECT pg_sleep(0.01)"), "");
  EXPECT_EQ(sink_.columns[0].type_oid, 2278u);
  ASSERT_EQ(Run("SET statement_timeout = 50").sqlstate, "");
  Error e = Run("SELECT pg_sleep(30)");
  EXPECT_EQ(e.sqlstate, "57014");
  EXPECT_EQ(e.message, "canceling statement due to statement timeout");
  ASSERT_EQ(Run("SET statement_timeout = 0").sqlstate, "");
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    cancel_.Request();
  });
  e = Run("SELECT pg_sleep(30)");
  canceller.join();
  EXPECT_EQ(e.sqlstate, "57014");
  EXPECT_EQ(e.message, "canceling statement due to user request");
  // A cancel that arrived while idle does nothing to the next statement.
  cancel_.Request();
  EXPECT_EQ(Value1("SELECT 1"), "1");
}

}  // namespace
}  // namespace farmdb::sql
