#include "sql/types/datetime.h"

#include <gtest/gtest.h>

namespace farmdb::sql {
namespace {

constexpr DateStyle kIsoMdy{};
constexpr DateStyle kIsoDmy{DateOutputStyle::kIso, DateOrder::kDmy};

int64_t Ts(std::string_view text, DateOrder order = DateOrder::kMdy) {
  auto t = ParseTimestamp(text, order);
  EXPECT_TRUE(t.has_value()) << text << ": " << (t ? "" : t.error().message);
  return t.value_or(0);
}

std::string Date(std::string_view text, DateOrder order) {
  auto d = ParseDate(text, order);
  if (!d) return d.error().sqlstate + " " + d.error().message;
  return FormatDate(*d, kIsoMdy);
}

// check_datestyle's parsing and canonical names, as PostgreSQL 15 shows them.
TEST(TypeIoDateTimeTest, DateStyleSetting) {
  auto parse = [](std::string_view v, DateStyle current = {}) {
    auto s = ParseDateStyle(v, current, DateStyle{});
    return s ? DateStyleName(*s) : "error: " + s.error();
  };
  EXPECT_EQ(parse("German"), "German, DMY");
  EXPECT_EQ(parse("SQL, DMY"), "SQL, DMY");
  EXPECT_EQ(parse("German, MDY"), "German, MDY");
  EXPECT_EQ(parse("YMD"), "ISO, YMD");
  EXPECT_EQ(parse("Postgres", {DateOutputStyle::kIso, DateOrder::kYmd}), "Postgres, YMD");
  EXPECT_EQ(parse("euro"), "ISO, DMY");
  EXPECT_EQ(parse("postgresxyz, noneuropean"), "Postgres, MDY");
  EXPECT_EQ(parse(" \"iso\" , dmy "), "ISO, DMY");
  EXPECT_EQ(parse("DEFAULT, sql", {DateOutputStyle::kGerman, DateOrder::kDmy}), "SQL, MDY");
  EXPECT_EQ(parse("", {DateOutputStyle::kSql, DateOrder::kDmy}), "SQL, DMY");
  EXPECT_EQ(parse("SQL DMY"), "error: List syntax is invalid.");
  EXPECT_EQ(parse("sql,"), "error: List syntax is invalid.");
  EXPECT_EQ(parse("foo"), "error: Unrecognized key word: \"foo\".");
  EXPECT_EQ(parse("ISO, SQL"), "error: Conflicting \"datestyle\" specifications.");
  EXPECT_EQ(parse("DMY, MDY"), "error: Conflicting \"datestyle\" specifications.");
}

// EncodeDateOnly / EncodeDateTime in every style and order (outputs taken from PostgreSQL 15).
TEST(TypeIoDateTimeTest, OutputStyles) {
  int64_t ts = Ts("2024-02-29 13:14:15.5");
  int64_t day = ts / kMicrosPerDay;
  struct Case {
    DateStyle style;
    std::string date, timestamp;
  };
  for (const Case& c : {
           Case{kIsoMdy, "2024-02-29", "2024-02-29 13:14:15.5"},
           Case{kIsoDmy, "2024-02-29", "2024-02-29 13:14:15.5"},
           Case{{DateOutputStyle::kSql, DateOrder::kMdy}, "02/29/2024", "02/29/2024 13:14:15.5"},
           Case{{DateOutputStyle::kSql, DateOrder::kDmy}, "29/02/2024", "29/02/2024 13:14:15.5"},
           Case{{DateOutputStyle::kGerman, DateOrder::kDmy}, "29.02.2024", "29.02.2024 13:14:15.5"},
           Case{{DateOutputStyle::kPostgres, DateOrder::kMdy}, "02-29-2024", "Thu Feb 29 13:14:15.5 2024"},
           Case{{DateOutputStyle::kPostgres, DateOrder::kDmy}, "29-02-2024", "Thu 29 Feb 13:14:15.5 2024"},
           Case{{DateOutputStyle::kPostgres, DateOrder::kYmd}, "02-29-2024", "Thu Feb 29 13:14:15.5 2024"},
       }) {
    EXPECT_EQ(FormatDate(day, c.style), c.date) << DateStyleName(c.style);
    EXPECT_EQ(FormatTimestamp(ts, c.style), c.timestamp) << DateStyleName(c.style);
  }
  DateStyle postgres{DateOutputStyle::kPostgres, DateOrder::kMdy};
  EXPECT_EQ(FormatTimestamp(Ts("0044-03-15 12:00 BC"), postgres), "Fri Mar 15 12:00:00 0044 BC");
  EXPECT_EQ(FormatDate(ParseDate("0044-03-15 BC", DateOrder::kMdy).value(), {DateOutputStyle::kGerman}), "15.03.0044 BC");
  EXPECT_EQ(FormatTimestamp(kTimestampPosInfinity, postgres), "infinity");
}

// DecodeDateTime under each field order (results checked on PostgreSQL 15).
TEST(TypeIoDateTimeTest, InputFollowsFieldOrder) {
  EXPECT_EQ(Date("01/02/2024", DateOrder::kMdy), "2024-01-02");
  EXPECT_EQ(Date("01/02/2024", DateOrder::kDmy), "2024-02-01");
  EXPECT_EQ(Date("01/02/03", DateOrder::kYmd), "2001-02-03");
  EXPECT_EQ(Date("2024-02-29", DateOrder::kDmy), "2024-02-29");
  EXPECT_EQ(Date("2024/02/29", DateOrder::kMdy), "2024-02-29");
  EXPECT_EQ(Date("29.02.2024", DateOrder::kDmy), "2024-02-29");
  EXPECT_EQ(Date("02-29-2024", DateOrder::kMdy), "2024-02-29");
  EXPECT_EQ(Date("Feb 29 2024", DateOrder::kDmy), "2024-02-29");
  EXPECT_EQ(Date("February 29, 2024", DateOrder::kMdy), "2024-02-29");
  EXPECT_EQ(Date("29 Feb 2024", DateOrder::kMdy), "2024-02-29");
  EXPECT_EQ(Date("29-feb-2024", DateOrder::kYmd), "2024-02-29");
  EXPECT_EQ(Date("2024-Feb-29", DateOrder::kMdy), "2024-02-29");
  EXPECT_EQ(Date("Thu Feb 29 13:14:15 2024", DateOrder::kMdy), "2024-02-29");
  EXPECT_EQ(Date("20240229", DateOrder::kMdy), "2024-02-29");
  EXPECT_EQ(Date("1/2/99", DateOrder::kMdy), "1999-01-02");
  EXPECT_EQ(Date("1/2/69", DateOrder::kMdy), "2069-01-02");
  // Errors: month out of range hints at DateStyle; an impossible day does not.
  EXPECT_EQ(Date("13/01/2024", DateOrder::kMdy), "22008 date/time field value out of range: \"13/01/2024\"");
  EXPECT_EQ(ParseDate("13/01/2024", DateOrder::kMdy).error().hint, "Perhaps you need a different \"datestyle\" setting.");
  EXPECT_EQ(Date("13/01/2024", DateOrder::kDmy), "2024-01-13");
  EXPECT_EQ(ParseDate("02/30/2024", DateOrder::kMdy).error().hint, "");
  EXPECT_EQ(Date("2024-02", DateOrder::kMdy), "22007 invalid input syntax for type date: \"2024-02\"");
  EXPECT_EQ(Date("Foo 1 2024", DateOrder::kMdy), "22007 invalid input syntax for type date: \"Foo 1 2024\"");
  EXPECT_EQ(Date("0000-01-01", DateOrder::kMdy), "22008 date/time field value out of range: \"0000-01-01\"");
}

TEST(TypeIoDateTimeTest, TimestampInputForms) {
  int64_t expected = Ts("2024-02-29 13:14:15");
  EXPECT_EQ(Ts("02/29/2024 13:14:15"), expected);
  EXPECT_EQ(Ts("29/02/2024 13:14:15", DateOrder::kDmy), expected);
  EXPECT_EQ(Ts("29.02.2024 13:14:15", DateOrder::kDmy), expected);
  EXPECT_EQ(Ts("Thu Feb 29 13:14:15 2024"), expected);
  EXPECT_EQ(Ts("Thu 29 Feb 13:14:15 2024", DateOrder::kDmy), expected);
  EXPECT_EQ(Ts("2024-02-29T13:14:15"), expected);
  EXPECT_EQ(Ts("2024-02-29 01:14:15 PM"), expected);
  EXPECT_EQ(Ts("2024-02-29 13:14:15+02"), expected);  // the zone is ignored without time zone
  EXPECT_EQ(Ts("2024-02-29 12:00 AM"), Ts("2024-02-29"));
  EXPECT_EQ(Ts("2024-02-29 24:00"), Ts("2024-03-01"));
  EXPECT_EQ(Ts("2024-02-29 13:14:15.1234567") % 1'000'000, 123457);
  EXPECT_EQ(ParseTimestamp("2024-02-29 25:00", DateOrder::kMdy).error().sqlstate, "22008");
  EXPECT_EQ(ParseTimestamp("2024-02-29 13:00 PM", DateOrder::kMdy).error().sqlstate, "22008");
  EXPECT_EQ(ParseTimestamp("13:14:15", DateOrder::kMdy).error().sqlstate, "22007");
}

// "YYYY-MM-DD[ HH:MM:SS[.ffffff]]" takes a shortcut past the general parser: the same values as
// the general forms, and the inputs next to it (leap second, 30 February, year 0, a zone, seven
// fractional digits) still get the general parser's answer (PostgreSQL 15's, above).
TEST(TypeIoDateTimeTest, IsoShortcutAgreesWithTheGeneralParser) {
  EXPECT_EQ(Ts("2024-02-29 13:14:15.5"), Ts("02/29/2024 13:14:15.5"));
  EXPECT_EQ(Ts("2024-02-29 13:14:15.000001"), Ts("02/29/2024 13:14:15.000001"));
  EXPECT_EQ(Ts("1999-12-31 23:59:59.999999"), Ts("12/31/1999 23:59:59.999999"));
  EXPECT_EQ(Ts("2024-02-29 23:59:60"), Ts("2024-03-01"));
  // Seven digits: PostgreSQL rounds the fraction as a double, half to even.
  EXPECT_EQ(Ts("2024-02-29 13:14:15.1234565") % 1'000'000, 123456);
  EXPECT_EQ(Ts("2024-02-29 13:14:15.1234575") % 1'000'000, 123458);
  EXPECT_EQ(Date("2024-02-29 13:14:15", DateOrder::kDmy), "2024-02-29");
  EXPECT_EQ(Date("0099-01-01", DateOrder::kMdy), "0099-01-01");
  EXPECT_EQ(Date("2023-02-29", DateOrder::kMdy).substr(0, 5), "22008");
  EXPECT_EQ(Date("0000-01-01", DateOrder::kMdy).substr(0, 5), "22008");
  EXPECT_EQ(Date("2024-13-01", DateOrder::kYmd).substr(0, 5), "22008");
}

// AdjustTimestampForTypmod: half away from zero, also before 2000 (negative values).
TEST(TypeIoDateTimeTest, RoundTimestamp) {
  DateStyle iso;
  EXPECT_EQ(FormatTimestamp(RoundTimestamp(Ts("2024-02-29 13:14:15.123456"), 2).value(), iso), "2024-02-29 13:14:15.12");
  EXPECT_EQ(FormatTimestamp(RoundTimestamp(Ts("2024-02-29 13:14:15.125"), 2).value(), iso), "2024-02-29 13:14:15.13");
  EXPECT_EQ(FormatTimestamp(RoundTimestamp(Ts("2024-02-29 23:59:59.9999"), 0).value(), iso), "2024-03-01 00:00:00");
  EXPECT_EQ(FormatTimestamp(RoundTimestamp(Ts("1999-12-31 23:59:59.999999"), 5).value(), iso), "2000-01-01 00:00:00");
  EXPECT_EQ(FormatTimestamp(RoundTimestamp(Ts("1999-12-31 23:59:59.5 BC"), 0).value(), iso), "1999-12-31 23:59:59 BC");
  EXPECT_EQ(RoundTimestamp(kTimestampPosInfinity, 0).value(), kTimestampPosInfinity);
  EXPECT_EQ(RoundTimestamp(Ts("2024-02-29 13:14:15.123456"), 6).value(), Ts("2024-02-29 13:14:15.123456"));
}

TEST(TimeZoneTest, LoadsIanaNamesAndRefusesOthers) {
  EXPECT_EQ(TimeZone::Load("utc")->name(), "UTC");
  EXPECT_EQ(TimeZone::Load("America/New_York")->name(), "America/New_York");
  EXPECT_FALSE(TimeZone::Load("bogus"));
  EXPECT_FALSE(TimeZone::Load("../../etc/passwd"));
  EXPECT_FALSE(TimeZone::Load("/etc/localtime"));
}

TEST(TimeZoneTest, TransitionsFollowPostgres) {
  TimeZone ny = *TimeZone::Load("America/New_York");
  constexpr int64_t kHour = 3'600'000'000;
  int64_t gap = Ts("2018-03-11 02:30");      // skipped: the offset before the jump (-5)
  int64_t overlap = Ts("2018-11-04 01:30");  // repeated: the offset after the jump (-5)
  EXPECT_EQ(ny.ToUtc(gap), gap + 5 * kHour);
  EXPECT_EQ(ny.ToUtc(overlap), overlap + 5 * kHour);
  EXPECT_EQ(ny.OffsetAt(Ts("2024-07-01 12:00")).seconds_east, -4 * 3600);
  EXPECT_EQ(ny.OffsetAt(Ts("2024-07-01 12:00")).abbreviation, "EDT");
  // Before 2000 (negative microseconds) the fraction is kept and the seconds floor correctly.
  int64_t landing = Ts("1969-07-20 20:17:40.5");  // EDT that summer
  EXPECT_EQ(ny.ToUtc(landing), landing + 4 * kHour);
  EXPECT_EQ(ny.OffsetAt(landing + 4 * kHour).seconds_east, -4 * 3600);
}

TEST(TimeZoneTest, TimestampTzTextUsesTheZone) {
  TimeZone ny = *TimeZone::Load("America/New_York");
  auto t = ParseTimestampTz("2024-01-02 03:04:05.25", DateOrder::kMdy, ny);
  ASSERT_TRUE(t);
  EXPECT_EQ(FormatTimestampTz(*t, DateStyle{}, ny), "2024-01-02 03:04:05.25-05");
  EXPECT_EQ(FormatTimestampTz(*t, DateStyle{}, TimeZone::Utc()), "2024-01-02 08:04:05.25+00");
  EXPECT_EQ(*ParseTimestampTz("2024-01-02 03:04:05+0530", DateOrder::kMdy, ny), Ts("2024-01-01 21:34:05"));
  EXPECT_EQ(ParseTimestampTz("2024-01-02 03:04:05+16", DateOrder::kMdy, ny).error().sqlstate, "22009");
}

}  // namespace
}  // namespace farmdb::sql
