// Calendar fields of a timestamp, shared by the date/time functions and to_char: the split
// PostgreSQL's timestamp2tm makes, ISO weeks (date2isoweek / date2isoyear).
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <utility>

#include "sql/types/datetime.h"

namespace farmdb::sql {

inline constexpr int64_t kMicrosPerSecond = 1'000'000;

inline int64_t FloorDiv(int64_t a, int64_t b) { return a / b - (a % b != 0 && (a < 0) != (b < 0)); }

// A finite timestamp split into calendar fields (year 0 = 1 BC, as PostgreSQL's tm_year).
struct CalendarFields {
  int64_t days;  // since 2000-01-01
  int64_t year, month, day, hour, minute, second, micros;  // micros: within the second
};

inline CalendarFields Split(int64_t local) {
  CalendarFields f{};
  f.days = FloorDiv(local, kMicrosPerDay);
  int64_t in_day = local - f.days * kMicrosPerDay;
  Civil c = CivilFromDays(f.days);
  f.year = c.year, f.month = c.month, f.day = c.day;
  f.hour = in_day / (3600 * kMicrosPerSecond);
  f.minute = in_day / (60 * kMicrosPerSecond) % 60;
  f.second = in_day / kMicrosPerSecond % 60;
  f.micros = in_day % kMicrosPerSecond;
  return f;
}

inline int64_t IsoDow(int64_t days) { return (days % 7 + 7 + 5) % 7 + 1; }  // 2000-01-01 was a Saturday (6)

// date2isoweek / date2isoyear: the ISO week's Thursday decides its year.
inline std::pair<int64_t, int64_t> IsoWeekYear(int64_t days) {
  int64_t thursday = days + 4 - IsoDow(days);
  int64_t year = CivilFromDays(thursday).year;
  return {(thursday - DaysFromCivil(year, 1, 1)) / 7 + 1, year};
}

}  // namespace farmdb::sql
