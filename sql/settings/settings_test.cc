#include "sql/settings/settings.h"

#include <gtest/gtest.h>

namespace farmdb::sql {
namespace {

Settings Make(std::vector<std::pair<std::string, std::string>> startup = {}) {
  SessionOptions options;
  options.user = "alice";
  options.startup_settings = std::move(startup);
  auto s = Settings::Create(options);
  EXPECT_TRUE(s.has_value());
  return std::move(*s);
}

std::string Get(const Settings& s, std::string_view name) {
  auto v = s.Get(name, false);
  EXPECT_TRUE(v.has_value()) << name;
  return v && *v ? **v : "<missing>";
}

TEST(SettingsTest, DefaultsAndIdentity) {
  Settings s = Make();
  EXPECT_EQ(Get(s, "server_version"), "15.0 (farmdb 0.1.0)");
  EXPECT_EQ(Get(s, "DATESTYLE"), "ISO, MDY");
  EXPECT_EQ(Get(s, "session_authorization"), "alice");
  EXPECT_EQ(Get(s, "is_superuser"), "off");
  EXPECT_EQ(Get(s, "default_transaction_isolation"), "serializable");
  EXPECT_EQ(Get(s, "farmdb.strict"), "on");
  std::vector<std::string> reported;
  for (const auto& [name, value] : s.Reported()) reported.push_back(name);
  EXPECT_EQ(reported, (std::vector<std::string>{"application_name", "client_encoding", "DateStyle",
                                                "default_transaction_read_only", "in_hot_standby", "integer_datetimes",
                                                "IntervalStyle", "is_superuser", "server_encoding", "server_version",
                                                "session_authorization", "standard_conforming_strings", "TimeZone"}));
}

TEST(SettingsTest, SetCommitAbortAndLocal) {
  Settings s = Make();
  s.BeginTransaction();
  ASSERT_TRUE(s.Set("extra_float_digits", "3", false));
  s.EndTransaction(false);
  EXPECT_EQ(Get(s, "extra_float_digits"), "1");

  s.BeginTransaction();
  ASSERT_TRUE(s.Set("extra_float_digits", "3", false));
  ASSERT_TRUE(s.Set("extra_float_digits", "2", true));  // SET LOCAL after SET: commit keeps the SET
  EXPECT_EQ(Get(s, "extra_float_digits"), "2");
  s.EndTransaction(true);
  EXPECT_EQ(Get(s, "extra_float_digits"), "3");

  s.BeginTransaction();
  ASSERT_TRUE(s.Set("extra_float_digits", "0", true));
  ASSERT_TRUE(s.Set("extra_float_digits", "-1", false));  // SET after SET LOCAL: it persists
  s.EndTransaction(true);
  EXPECT_EQ(Get(s, "extra_float_digits"), "-1");

  s.BeginTransaction();
  ASSERT_TRUE(s.Set("extra_float_digits", std::nullopt, false));  // DEFAULT / RESET
  s.EndTransaction(true);
  EXPECT_EQ(Get(s, "extra_float_digits"), "1");
}

TEST(SettingsTest, TransactionScopedSettings) {
  Settings s = Make();
  // A transaction starts with the session defaults; SET changes only the current one.
  s.BeginTransaction();
  ASSERT_TRUE(s.Set("default_transaction_isolation", "read committed", false));
  ASSERT_TRUE(s.Set("default_transaction_read_only", "on", false));
  EXPECT_EQ(s.TransactionIsolation(), "serializable");
  EXPECT_FALSE(s.TransactionReadOnly());
  s.EndTransaction(true);
  s.BeginTransaction();
  EXPECT_EQ(Get(s, "transaction_isolation"), "read committed");
  EXPECT_EQ(s.TransactionIsolation(), "read committed");
  EXPECT_EQ(Get(s, "transaction_read_only"), "on");
  EXPECT_TRUE(s.TransactionReadOnly());
  ASSERT_TRUE(s.Set("transaction_isolation", "REPEATABLE READ", false));
  EXPECT_EQ(Get(s, "transaction_isolation"), "repeatable read");
  EXPECT_EQ(s.TransactionIsolation(), "repeatable read");
  ASSERT_TRUE(s.Set("farmdb.strict", "off", true));
  EXPECT_FALSE(s.Strict());
  ASSERT_TRUE(s.Set("default_transaction_isolation", "serializable", false));
  ASSERT_TRUE(s.Set("default_transaction_read_only", "off", false));
  s.EndTransaction(true);
  EXPECT_TRUE(s.Strict());
  s.BeginTransaction();
  EXPECT_EQ(Get(s, "transaction_isolation"), "serializable");
  s.EndTransaction(true);
}

TEST(SettingsTest, ValidationMessages) {
  Settings s = Make();
  s.BeginTransaction();
  auto e = s.Set("lock_timeout", "-1", false);
  EXPECT_EQ(e.error().message, "-1 ms is outside the valid range for parameter \"lock_timeout\" (0 .. 2147483647)");
  e = s.Set("statement_timeout", "5 parsecs", false);
  EXPECT_EQ(e.error().sqlstate, "22023");
  EXPECT_EQ(e.error().hint, "Valid units for this parameter are \"us\", \"ms\", \"s\", \"min\", \"h\", and \"d\".");
  ASSERT_TRUE(s.Set("statement_timeout", "60s", false));
  EXPECT_EQ(Get(s, "statement_timeout"), "1min");
  EXPECT_EQ(s.StatementTimeoutMs(), 60000);
  ASSERT_TRUE(s.Set("statement_timeout", "1500", false));
  EXPECT_EQ(Get(s, "statement_timeout"), "1500ms");
  e = s.Set("standard_conforming_strings", "maybe", false);
  EXPECT_EQ(e.error().message, "parameter \"standard_conforming_strings\" requires a Boolean value");
  e = s.Set("default_transaction_isolation", "foo", false);
  EXPECT_EQ(e.error().hint, "Available values: serializable, repeatable read, read committed, read uncommitted.");
  EXPECT_EQ(s.Set("integer_datetimes", "off", false).error().sqlstate, "55P02");
  EXPECT_EQ(s.Set("nope", "1", false).error().message, "unrecognized configuration parameter \"nope\"");
  ASSERT_TRUE(s.Set("DateStyle", "iso, dmy", false));
  EXPECT_EQ(Get(s, "datestyle"), "ISO, DMY");
  // check_datestyle builds on the current value; German implies DMY; DEFAULT is the reset value.
  ASSERT_TRUE(s.Set("DateStyle", "German", false));
  EXPECT_EQ(Get(s, "datestyle"), "German, DMY");
  ASSERT_TRUE(s.Set("DateStyle", "SQL", false));
  EXPECT_EQ(Get(s, "datestyle"), "SQL, DMY");
  ASSERT_TRUE(s.Set("DateStyle", "DEFAULT, Postgres", false));
  EXPECT_EQ(Get(s, "datestyle"), "Postgres, MDY");
  auto bad_style = s.Set("DateStyle", "foo", false);
  ASSERT_FALSE(bad_style.has_value());
  EXPECT_EQ(bad_style.error().sqlstate, "22023");
  EXPECT_EQ(bad_style.error().message, "invalid value for parameter \"DateStyle\": \"foo\"");
  EXPECT_EQ(bad_style.error().detail, "Unrecognized key word: \"foo\".");
  EXPECT_EQ(Get(s, "datestyle"), "Postgres, MDY");
  EXPECT_EQ(s.Text().date_style, (DateStyle{DateOutputStyle::kPostgres, DateOrder::kMdy}));
  ASSERT_TRUE(s.Set("client_encoding", "unicode", false));
  EXPECT_EQ(Get(s, "client_encoding"), "UTF8");
  std::vector<SetArg> two = {{"a", false}, {"b", false}};
  EXPECT_EQ(s.FlattenArgs("extra_float_digits", two).error().message, "SET extra_float_digits takes only one argument");
  std::vector<SetArg> path = {{"$user", true}, {"public", false}};
  EXPECT_EQ(*s.FlattenArgs("search_path", path), "\"$user\", public");
  s.EndTransaction(true);
}

TEST(SettingsTest, PlaceholdersAndResetAll) {
  Settings s = Make({{"application_name", "psql"}, {"my.opt", "x"}});
  EXPECT_EQ(Get(s, "my.opt"), "x");
  EXPECT_EQ(s.DisplayName("MY.OPT"), "my.opt");
  EXPECT_EQ(s.DisplayName("timezone"), "TimeZone");
  auto missing = s.Get("other.opt", true);
  ASSERT_TRUE(missing.has_value());
  EXPECT_FALSE(missing->has_value());
  s.BeginTransaction();
  ASSERT_TRUE(s.Set("application_name", "other", false));
  ASSERT_TRUE(s.Set("bytea_output", "escape", false));
  EXPECT_FALSE(s.Text().bytea_hex);
  s.ResetAll();
  s.EndTransaction(true);
  EXPECT_EQ(Get(s, "application_name"), "psql");  // the startup value is the session default
  EXPECT_TRUE(s.Text().bytea_hex);
}

TEST(SettingsTest, BadStartupSettings) {
  SessionOptions options;
  options.startup_settings = {{"server_version", "1"}};
  EXPECT_EQ(Settings::Create(options).error().sqlstate, "55P02");
  options.startup_settings = {{"extra_float_digits", "x"}};
  EXPECT_EQ(Settings::Create(options).error().sqlstate, "22023");
  options.startup_settings = {{"client_encoding", "LATIN1"}};
  EXPECT_EQ(Settings::Create(options).error().sqlstate, "22023");
}

}  // namespace
}  // namespace farmdb::sql
