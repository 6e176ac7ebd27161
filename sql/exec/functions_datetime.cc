// Date/time functions with PostgreSQL 15's types, results and errors (timestamp.c, date.c):
// now() and its kin (fixed per transaction / statement, see ExecContext), CURRENT_DATE,
// CURRENT_TIMESTAMP, LOCALTIMESTAMP, date_trunc, date_part (float8), extract (numeric),
// make_date, make_timestamp, isfinite. timestamptz fields are those of the session's TimeZone.
// No interval type exists yet, so nothing here takes or returns one.
#include <cmath>
#include <fmt/format.h>

#include "sql/exec/builtins.h"
#include "sql/exec/datetime_fields.h"
#include "sql/exec/numeric_math.h"
#include "sql/types/datetime.h"

namespace farmdb::sql {
namespace {

using enum TypeId;
using Args = std::span<const Value>;
using Result = std::expected<Value, Error>;

constexpr int64_t kJulianOf2000 = 2451545;  // date2j(2000, 1, 1)
constexpr int64_t kSecondsPer1970To2000 = 946'684'800;

int64_t TransactionStart(const ExecContext& ctx) { return ctx.transaction_start != 0 ? ctx.transaction_start : ClockNow(); }

Result Now(Args, const BoundExpr&, ExecContext& ctx) { return Value::Int(kTimestampTz, TransactionStart(ctx)); }
Result StatementTimestamp(Args, const BoundExpr&, ExecContext& ctx) {
  return Value::Int(kTimestampTz, ctx.statement_start != 0 ? ctx.statement_start : ClockNow());
}
Result ClockTimestamp(Args, const BoundExpr&, ExecContext&) { return Value::Int(kTimestampTz, ClockNow()); }

int64_t LocalMicros(int64_t utc, const TimeZone& zone) {
  return utc + int64_t{zone.OffsetAt(utc).seconds_east} * kMicrosPerSecond;
}

Result LocalTimestamp(Args, const BoundExpr&, ExecContext& ctx) {
  return Value::Int(kTimestamp, LocalMicros(TransactionStart(ctx), ctx.output.time_zone));
}
Result CurrentDate(Args, const BoundExpr&, ExecContext& ctx) {
  return Value::Int(kDate, FloorDiv(LocalMicros(TransactionStart(ctx), ctx.output.time_zone), kMicrosPerDay));
}

// Field names as DecodeUnits/DecodeSpecial accept them (the common spellings).
enum class Unit { kMicroseconds, kMilliseconds, kSecond, kMinute, kHour, kDay, kWeek, kMonth, kQuarter, kYear,
                  kDecade, kCentury, kMillennium, kEpoch, kDow, kIsoDow, kDoy, kJulian, kIsoYear,
                  kTimezone, kTimezoneHour, kTimezoneMinute };

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return out;
}

std::optional<Unit> ParseUnit(std::string_view name) {
  struct Alias { std::string_view name; Unit unit; };
  static constexpr Alias kAliases[] = {
      {"microsecond", Unit::kMicroseconds}, {"microseconds", Unit::kMicroseconds}, {"us", Unit::kMicroseconds},
      {"usec", Unit::kMicroseconds}, {"usecs", Unit::kMicroseconds}, {"usecond", Unit::kMicroseconds},
      {"useconds", Unit::kMicroseconds}, {"millisecond", Unit::kMilliseconds}, {"milliseconds", Unit::kMilliseconds},
      {"ms", Unit::kMilliseconds}, {"msec", Unit::kMilliseconds}, {"msecs", Unit::kMilliseconds},
      {"msecond", Unit::kMilliseconds}, {"mseconds", Unit::kMilliseconds}, {"second", Unit::kSecond},
      {"seconds", Unit::kSecond}, {"s", Unit::kSecond}, {"sec", Unit::kSecond}, {"secs", Unit::kSecond},
      {"minute", Unit::kMinute}, {"minutes", Unit::kMinute}, {"m", Unit::kMinute}, {"min", Unit::kMinute},
      {"mins", Unit::kMinute}, {"hour", Unit::kHour}, {"hours", Unit::kHour}, {"h", Unit::kHour}, {"hr", Unit::kHour},
      {"hrs", Unit::kHour}, {"day", Unit::kDay}, {"days", Unit::kDay}, {"d", Unit::kDay}, {"week", Unit::kWeek},
      {"weeks", Unit::kWeek}, {"w", Unit::kWeek}, {"month", Unit::kMonth}, {"months", Unit::kMonth},
      {"mon", Unit::kMonth}, {"mons", Unit::kMonth}, {"quarter", Unit::kQuarter}, {"qtr", Unit::kQuarter},
      {"year", Unit::kYear}, {"years", Unit::kYear}, {"y", Unit::kYear}, {"yr", Unit::kYear}, {"yrs", Unit::kYear},
      {"decade", Unit::kDecade}, {"decades", Unit::kDecade}, {"dec", Unit::kDecade}, {"decs", Unit::kDecade},
      {"century", Unit::kCentury}, {"centuries", Unit::kCentury}, {"c", Unit::kCentury}, {"cent", Unit::kCentury},
      {"millennium", Unit::kMillennium}, {"millennia", Unit::kMillennium}, {"mil", Unit::kMillennium},
      {"mils", Unit::kMillennium}, {"epoch", Unit::kEpoch}, {"dow", Unit::kDow}, {"isodow", Unit::kIsoDow},
      {"doy", Unit::kDoy}, {"julian", Unit::kJulian}, {"j", Unit::kJulian}, {"isoyear", Unit::kIsoYear},
      {"timezone", Unit::kTimezone}, {"timezone_h", Unit::kTimezoneHour}, {"timezone_hour", Unit::kTimezoneHour},
      {"timezone_m", Unit::kTimezoneMinute}, {"timezone_minute", Unit::kTimezoneMinute},
  };
  // DecodeUnits compares the first TOKMAXLEN (10) characters only.
  constexpr size_t kTokMaxLen = 10;
  std::string lower = Lower(name).substr(0, kTokMaxLen);
  for (const Alias& a : kAliases) {
    if (a.name.substr(0, kTokMaxLen) == lower) return a.unit;
  }
  return std::nullopt;
}

// Units PostgreSQL finds among the reserved words rather than the units (DecodeSpecial):
// date_part knows them, date_trunc does not.
bool IsReservedUnit(Unit u) {
  return u == Unit::kEpoch || u == Unit::kDow || u == Unit::kIsoDow || u == Unit::kDoy || u == Unit::kJulian ||
         u == Unit::kIsoYear;
}

Error UnitNotRecognized(std::string_view unit, TypeId type) {
  return MakeError("22023", fmt::format("unit \"{}\" not recognized for type {}", Lower(unit), Info(type).sql_name));
}
Error UnitNotSupported(std::string_view unit, TypeId type) {
  return MakeError("0A000", fmt::format("unit \"{}\" not supported for type {}", Lower(unit), Info(type).sql_name));
}


// timestamp_part_common / extract_date: the value of `unit` as numeric, or as float8 for
// date_part. `zone_offset` is the timestamptz's UTC offset in seconds (nullopt otherwise).
Result Part(std::string_view unit_name, TypeId type, int64_t value, std::optional<int32_t> zone_offset, bool numeric) {
  auto unit = ParseUnit(unit_name);
  if (!unit) return std::unexpected(UnitNotRecognized(unit_name, type));
  bool is_date = type == kDate;
  bool infinite = is_date ? (value == kDateNegInfinity || value == kDatePosInfinity)
                          : (value == kTimestampNegInfinity || value == kTimestampPosInfinity);
  bool time_unit = *unit == Unit::kMicroseconds || *unit == Unit::kMilliseconds || *unit == Unit::kSecond ||
                   *unit == Unit::kMinute || *unit == Unit::kHour;
  bool zone_unit = *unit == Unit::kTimezone || *unit == Unit::kTimezoneHour || *unit == Unit::kTimezoneMinute;
  // Units a type does not have: extract(... from date) knows no time of day or zone, even for
  // infinities (date_part(text, date) goes through timestamp); a finite timestamp has no zone
  // (an infinite one gives NULL, as for the other oscillating units).
  if (is_date && numeric && (time_unit || zone_unit)) return std::unexpected(UnitNotSupported(unit_name, type));
  if (zone_unit && !zone_offset && !infinite) return std::unexpected(UnitNotSupported(unit_name, type));
  if (infinite) {
    bool negative = is_date ? value == kDateNegInfinity : value == kTimestampNegInfinity;
    switch (*unit) {
      case Unit::kYear: case Unit::kDecade: case Unit::kCentury: case Unit::kMillennium:
      case Unit::kJulian: case Unit::kIsoYear: case Unit::kEpoch:
        if (numeric) return std::unexpected(MakeError("0A000", "numeric infinity is not supported yet"));
        return Value::Float(kFloat8, negative ? -INFINITY : INFINITY);
      default:
        return Value::Null(numeric ? kNumeric : kFloat8);
    }
  }
  // A date's fields come from its day count: as microseconds it could overflow int64.
  CalendarFields f = is_date ? Split(0) : Split(value);
  if (is_date) {
    Civil c = CivilFromDays(value);
    f.days = value, f.year = c.year, f.month = c.month, f.day = c.day;
  }
  int64_t day_micros = is_date ? 0 : value - f.days * kMicrosPerDay;
  int64_t sec_micros = f.second * kMicrosPerSecond + f.micros;
  auto out = [&](int64_t v) -> Result {
    return numeric ? Value::Num(Numeric::FromInt(v)) : Value::Float(kFloat8, static_cast<double>(v));
  };
  auto fraction = [&](int64_t num, int scale) -> Result {
    return numeric ? Value::Num(ScaledNumeric(Numeric::FromInt(num), scale)) : Value::Float(kFloat8, static_cast<double>(num) / std::pow(10.0, scale));
  };
  switch (*unit) {
    case Unit::kMicroseconds: return out(sec_micros);
    case Unit::kMilliseconds: return fraction(sec_micros, 3);
    case Unit::kSecond: return fraction(sec_micros, 6);
    case Unit::kMinute: return out(f.minute);
    case Unit::kHour: return out(f.hour);
    case Unit::kDay: return out(f.day);
    case Unit::kMonth: return out(f.month);
    case Unit::kQuarter: return out((f.month - 1) / 3 + 1);
    case Unit::kWeek: return out(IsoWeekYear(f.days).first);
    case Unit::kYear: return out(f.year > 0 ? f.year : f.year - 1);
    case Unit::kDecade: return out(f.year >= 0 ? f.year / 10 : -((8 - (f.year - 1)) / 10));
    case Unit::kCentury: return out(f.year > 0 ? (f.year + 99) / 100 : -((99 - (f.year - 1)) / 100));
    case Unit::kMillennium: return out(f.year > 0 ? (f.year + 999) / 1000 : -((999 - (f.year - 1)) / 1000));
    case Unit::kDow: return out(IsoDow(f.days) % 7);
    case Unit::kIsoDow: return out(IsoDow(f.days));
    case Unit::kDoy: return out(f.days - DaysFromCivil(f.year, 1, 1) + 1);
    case Unit::kIsoYear: {
      int64_t y = IsoWeekYear(f.days).second;
      return out(y > 0 ? y : y - 1);
    }
    case Unit::kJulian: {
      int64_t julian = f.days + kJulianOf2000;
      if (is_date && numeric) return out(julian);
      if (!numeric) return Value::Float(kFloat8, static_cast<double>(julian) + static_cast<double>(day_micros) / kMicrosPerDay);
      auto part = Numeric::FromInt(day_micros).Div(Numeric::FromInt(kMicrosPerDay));
      if (!part) return std::unexpected(part.error());
      return Value::Num(Numeric::FromInt(julian).Add(*part));
    }
    case Unit::kEpoch: {
      // Seconds since 1970-01-01 UTC; a timestamp without zone counts as UTC.
      if (is_date) return out(f.days * 86400 + kSecondsPer1970To2000);  // extract only
      int64_t utc = value - int64_t{zone_offset.value_or(0)} * kMicrosPerSecond;
      // The sum can pass int64 near the end of the range: numeric adds exactly, float8 as
      // timestamp_part does.
      constexpr int64_t kEpochMicros = kSecondsPer1970To2000 * kMicrosPerSecond;
      if (numeric && utc < INT64_MAX - kEpochMicros) return Value::Num(ScaledNumeric(Numeric::FromInt(utc + kEpochMicros), 6));
      if (numeric) {
        // timestamp_part_common's fallback: numeric_div (rounded at its select_div_scale), then
        // round(..., 6).
        auto seconds = Numeric::FromInt(utc).Add(Numeric::FromInt(kEpochMicros)).Div(Numeric::FromInt(kMicrosPerSecond));
        if (!seconds) return std::unexpected(seconds.error());
        return Value::Num(seconds->Round(6));
      }
      if (utc < INT64_MAX - kEpochMicros) return Value::Float(kFloat8, static_cast<double>(utc + kEpochMicros) / 1e6);
      return Value::Float(kFloat8, (static_cast<double>(utc) + static_cast<double>(kEpochMicros)) / 1e6);
    }
    case Unit::kTimezone:
    case Unit::kTimezoneHour:
    case Unit::kTimezoneMinute: {
      // PostgreSQL's tz is seconds west; the fields are of its negation (east positive).
      int64_t east = zone_offset.value_or(0);
      if (*unit == Unit::kTimezone) return out(east);
      if (*unit == Unit::kTimezoneHour) return out(east / 3600);
      return out(east / 60 % 60);
    }
  }
  return std::unexpected(UnitNotSupported(unit_name, type));
}

template <bool kNumeric>
Result DatePart(Args a, const BoundExpr&, ExecContext& ctx) {
  const Value& v = a[1];
  if (v.type == kTimestampTz) {
    int64_t utc = v.AsInt();
    bool finite = utc != kTimestampNegInfinity && utc != kTimestampPosInfinity;
    int32_t offset = finite ? ctx.output.time_zone.OffsetAt(utc).seconds_east : 0;
    return Part(a[0].AsString(), kTimestampTz, finite ? utc + int64_t{offset} * kMicrosPerSecond : utc, offset, kNumeric);
  }
  // date_part(text, date) is date_part(text, date::timestamp) in PostgreSQL.
  if (v.type == kDate && !kNumeric) {
    int64_t d = v.AsInt();
    bool finite = d != kDatePosInfinity && d != kDateNegInfinity;
    if (finite && (d > INT64_MAX / kMicrosPerDay || d < INT64_MIN / kMicrosPerDay || !IsValidTimestamp(d * kMicrosPerDay))) {
      return std::unexpected(MakeError("22008", "date out of range for timestamp"));
    }
    int64_t ts = !finite ? (d == kDatePosInfinity ? kTimestampPosInfinity : kTimestampNegInfinity) : d * kMicrosPerDay;
    return Part(a[0].AsString(), kTimestamp, ts, std::nullopt, false);
  }
  return Part(a[0].AsString(), v.type, v.AsInt(), std::nullopt, kNumeric);
}

// timestamp_trunc: local fields below the unit reset. std::nullopt: not a truncation unit.
std::optional<int64_t> Truncate(Unit unit, int64_t local) {
  CalendarFields f = Split(local);
  int64_t day_start = f.days * kMicrosPerDay;
  auto year_start = [](int64_t year) { return DaysFromCivil(year, 1, 1) * kMicrosPerDay; };
  switch (unit) {
    case Unit::kMicroseconds: return local;
    case Unit::kMilliseconds: return local - f.micros % 1000;
    case Unit::kSecond: return local - f.micros;
    case Unit::kMinute: return local - f.micros - f.second * kMicrosPerSecond;
    case Unit::kHour: return day_start + f.hour * 3600 * kMicrosPerSecond;
    case Unit::kDay: return day_start;
    case Unit::kWeek: return (f.days - (IsoDow(f.days) - 1)) * kMicrosPerDay;
    case Unit::kMonth: return DaysFromCivil(f.year, f.month, 1) * kMicrosPerDay;
    case Unit::kQuarter: return DaysFromCivil(f.year, (f.month - 1) / 3 * 3 + 1, 1) * kMicrosPerDay;
    case Unit::kYear: return year_start(f.year);
    case Unit::kDecade: return year_start(f.year > 0 ? f.year / 10 * 10 : -((8 - (f.year - 1)) / 10) * 10);
    case Unit::kCentury: return year_start(f.year > 0 ? (f.year + 99) / 100 * 100 - 99 : -((99 - (f.year - 1)) / 100) * 100 + 1);
    case Unit::kMillennium:
      return year_start(f.year > 0 ? (f.year + 999) / 1000 * 1000 - 999 : -((999 - (f.year - 1)) / 1000) * 1000 + 1);
    default: return std::nullopt;
  }
}

Result DateTrunc(Args a, const BoundExpr& e, ExecContext& ctx) {
  std::string_view unit_name = a[0].AsString();
  int64_t v = a[1].AsInt();
  auto unit = ParseUnit(unit_name);
  if (!unit || IsReservedUnit(*unit)) return std::unexpected(UnitNotRecognized(unit_name, e.type));
  if (v == kTimestampNegInfinity || v == kTimestampPosInfinity) {
    if (!Truncate(*unit, 0)) return std::unexpected(UnitNotSupported(unit_name, e.type));
    return Value::Int(e.type, v);
  }
  if (e.type == kTimestamp) {
    auto t = Truncate(*unit, v);
    if (!t) return std::unexpected(UnitNotSupported(unit_name, e.type));
    if (!IsValidTimestamp(*t)) return std::unexpected(MakeError("22008", "timestamp out of range"));
    return Value::Int(kTimestamp, *t);
  }
  TimeZone zone = ctx.output.time_zone;
  if (a.size() > 2) {
    auto named = TimeZone::Load(a[2].AsString());
    if (!named) return std::unexpected(MakeError("22023", fmt::format("time zone \"{}\" not recognized", a[2].AsString())));
    zone = *named;
  }
  int64_t offset = int64_t{zone.OffsetAt(v).seconds_east} * kMicrosPerSecond;
  auto t = Truncate(*unit, v + offset);
  if (!t) return std::unexpected(UnitNotSupported(unit_name, e.type));
  // Units of a day or more start at a local midnight whose offset may differ (DST).
  bool redo_zone = *unit != Unit::kMicroseconds && *unit != Unit::kMilliseconds && *unit != Unit::kSecond &&
                   *unit != Unit::kMinute && *unit != Unit::kHour;
  int64_t utc = redo_zone ? zone.ToUtc(*t) : *t - offset;
  if (!IsValidTimestamp(utc)) return std::unexpected(MakeError("22008", "timestamp out of range"));
  return Value::Int(kTimestampTz, utc);
}

// ValidateDate's message names the year as PostgreSQL holds it after reading a negative one as
// BC (-1 is 0), except INT_MIN, whose negation overflows there and stays as given.
Error DateOutOfRange(int64_t y, int64_t m, int64_t d) {
  int64_t year = y < 0 && y != INT32_MIN ? y + 1 : y;
  return MakeError("22008", fmt::format("date field value out of range: {}-{:02}-{:02}", year, m, d));
}

// make_date / make_timestamp: a negative year is BC; year 0 does not exist.
std::expected<int64_t, Error> MakeDays(int64_t y, int64_t m, int64_t d) {
  if (y == 0 || y == INT32_MIN || m < 1 || m > 12 || d < 1) return std::unexpected(DateOutOfRange(y, m, d));
  int64_t year = y < 0 ? y + 1 : y;
  if (d > DaysInMonth(year, m)) return std::unexpected(DateOutOfRange(y, m, d));
  int64_t days = DaysFromCivil(year, m, d);
  // This one names the year as PostgreSQL holds it (1 BC is 0).
  if (!IsValidDate(days)) return std::unexpected(MakeError("22008", fmt::format("date out of range: {}-{:02}-{:02}", year, m, d)));
  return days;
}

Result MakeDate(Args a, const BoundExpr&, ExecContext&) {
  auto days = MakeDays(a[0].AsInt(), a[1].AsInt(), a[2].AsInt());
  if (!days) return std::unexpected(days.error());
  return Value::Int(kDate, *days);
}

Result MakeTimestamp(Args a, const BoundExpr&, ExecContext&) {
  int64_t y = a[0].AsInt(), m = a[1].AsInt(), d = a[2].AsInt(), h = a[3].AsInt(), mi = a[4].AsInt();
  double sec = a[5].AsFloat();
  auto days = MakeDays(y, m, d);
  if (!days) return std::unexpected(days.error());
  // float_time_overflows: 24:00:00 is allowed, nothing later.
  // PostgreSQL's snprintf spells non-finite seconds NaN / Infinity.
  std::string sec_text = std::isnan(sec) ? "NaN" : std::isinf(sec) ? (sec > 0 ? "Infinity" : "-Infinity") : fmt::format("{:02}", sec);
  if (h < 0 || h > 24 || mi < 0 || mi > 59 || !(sec >= 0) || sec > 60 || (h == 24 && (mi > 0 || sec > 0))) {
    return std::unexpected(MakeError("22008", fmt::format("time field value out of range: {}:{:02}:{}", h, mi, sec_text)));
  }
  int64_t micros = static_cast<int64_t>(std::nearbyint(sec * kMicrosPerSecond));
  // Days past the timestamp range would overflow as microseconds: check them first.
  bool in_range = *days < INT64_MAX / kMicrosPerDay - 1 && *days > INT64_MIN / kMicrosPerDay + 1;
  int64_t ts = in_range ? *days * kMicrosPerDay + (h * 3600 + mi * 60) * kMicrosPerSecond + micros : 0;
  if (!in_range || !IsValidTimestamp(ts)) {
    return std::unexpected(MakeError("22008", fmt::format("timestamp out of range: {}-{:02}-{:02} {}:{:02}:{}", y, m, d, h, mi, sec_text)));
  }
  return Value::Int(kTimestamp, ts);
}

Result IsFinite(Args a, const BoundExpr&, ExecContext&) {
  int64_t v = a[0].AsInt();
  if (a[0].type == kDate) return Value::Bool(v != kDateNegInfinity && v != kDatePosInfinity);
  return Value::Bool(v != kTimestampNegInfinity && v != kTimestampPosInfinity);
}

}  // namespace

std::span<const Builtin> DateTimeFunctions() {
  static const std::vector<Builtin> kFunctions = {
      {"now", {}, kTimestampTz, Now},
      {"transaction_timestamp", {}, kTimestampTz, Now},
      {"current_timestamp", {}, kTimestampTz, Now},  // the SQL value function (transform_expr.cc)
      {"statement_timestamp", {}, kTimestampTz, StatementTimestamp},
      {"clock_timestamp", {}, kTimestampTz, ClockTimestamp},
      {"localtimestamp", {}, kTimestamp, LocalTimestamp},
      {"current_date", {}, kDate, CurrentDate},
      {"date_trunc", {kText, kTimestamp}, kTimestamp, DateTrunc},
      {"date_trunc", {kText, kTimestampTz}, kTimestampTz, DateTrunc},
      {"date_trunc", {kText, kTimestampTz, kText}, kTimestampTz, DateTrunc},
      {"date_part", {kText, kDate}, kFloat8, DatePart<false>},
      {"date_part", {kText, kTimestamp}, kFloat8, DatePart<false>},
      {"date_part", {kText, kTimestampTz}, kFloat8, DatePart<false>},
      {"extract", {kText, kDate}, kNumeric, DatePart<true>},
      {"extract", {kText, kTimestamp}, kNumeric, DatePart<true>},
      {"extract", {kText, kTimestampTz}, kNumeric, DatePart<true>},
      {"make_date", {kInt4, kInt4, kInt4}, kDate, MakeDate},
      {"make_timestamp", {kInt4, kInt4, kInt4, kInt4, kInt4, kFloat8}, kTimestamp, MakeTimestamp},
      {"isfinite", {kDate}, kBool, IsFinite},
      {"isfinite", {kTimestamp}, kBool, IsFinite},
      {"isfinite", {kTimestampTz}, kBool, IsFinite},
  };
  return kFunctions;
}

}  // namespace farmdb::sql
