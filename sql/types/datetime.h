// date, timestamp and timestamptz in PostgreSQL's representation and text forms under
// DateStyle: date = days since 2000-01-01, timestamp = microseconds since 2000-01-01 00:00:00
// (timestamptz: of UTC);
// +/-infinity are the type's extreme values. Output in datetime.cc, input in datetime_input.cc.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <expected>
#include <limits>
#include <string>
#include <string_view>

#include "sql/session.h"
#include "sql/types/timezone.h"

namespace farmdb::sql {

inline constexpr int64_t kDateNegInfinity = std::numeric_limits<int32_t>::min();
inline constexpr int64_t kDatePosInfinity = std::numeric_limits<int32_t>::max();
inline constexpr int64_t kTimestampNegInfinity = std::numeric_limits<int64_t>::min();
inline constexpr int64_t kTimestampPosInfinity = std::numeric_limits<int64_t>::max();
inline constexpr int64_t kMicrosPerDay = 86'400'000'000;

// DateStyle's two halves: the output style and the field order, which decides both how
// ambiguous input ("01/02/2024") is read and the order SQL and Postgres styles print.
enum class DateOutputStyle : uint8_t { kIso, kSql, kPostgres, kGerman };
enum class DateOrder : uint8_t { kMdy, kDmy, kYmd };
struct DateStyle {
  DateOutputStyle style = DateOutputStyle::kIso;
  DateOrder order = DateOrder::kMdy;
  bool operator==(const DateStyle&) const = default;
};

// check_datestyle: a comma list of ISO, SQL, Postgres, German (which implies DMY unless an
// order is given), YMD, DMY/Euro*, MDY/US/NonEuro*, DEFAULT (`reset`'s halves). Parts not
// named keep `current`'s. Conflicting or unknown words fail with the DETAIL PostgreSQL gives.
std::expected<DateStyle, std::string> ParseDateStyle(std::string_view value, DateStyle current, DateStyle reset);
// The canonical setting ("ISO, MDY", "German, DMY"), as SHOW prints it.
std::string DateStyleName(DateStyle style);

std::expected<int64_t, Error> ParseDate(std::string_view text, DateOrder order);
std::string FormatDate(int64_t days, DateStyle style);
std::expected<int64_t, Error> ParseTimestamp(std::string_view text, DateOrder order);
std::string FormatTimestamp(int64_t micros, DateStyle style);
// timestamptz: a zone in the text (+05, -08:00, Z, UTC) wins; otherwise the text is local time
// in `zone`. Output is local time in `zone` with its offset (ISO) or abbreviation.
std::expected<int64_t, Error> ParseTimestampTz(std::string_view text, DateOrder order, const TimeZone& zone);
std::string FormatTimestampTz(int64_t utc_micros, DateStyle style, const TimeZone& zone);

// Proleptic Gregorian calendar; year 0 is 1 BC.
int64_t DaysFromCivil(int64_t year, int64_t month, int64_t day);
struct Civil {
  int64_t year, month, day;
};
Civil CivilFromDays(int64_t days);
int DaysInMonth(int64_t year, int64_t month);
// A finite date's days must lie in PostgreSQL's range (4713 BC .. 5874897 AD).
bool IsValidDate(int64_t days);
bool IsValidTimestamp(int64_t micros);

inline constexpr int32_t kMaxTimestampPrecision = 6;
// Rounds a timestamp to `precision` (0..6) fractional digits, half away from zero as
// AdjustTimestampForTypmod does; infinities are kept. 22008 if rounding leaves the range.
std::expected<int64_t, Error> RoundTimestamp(int64_t micros, int32_t precision);

}  // namespace farmdb::sql
