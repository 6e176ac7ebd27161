#include "sql/types/datetime.h"
#include "sql/types/ascii.h"

#include <cctype>
#include <fmt/format.h>
#include <optional>
#include <vector>

namespace farmdb::sql {
namespace {
constexpr int64_t kUnixToPgDays = 10957;  // 1970-01-01 .. 2000-01-01
}  // namespace

// Howard Hinnant's days_from_civil / civil_from_days (proleptic Gregorian; year 0 = 1 BC).
int64_t DaysFromCivil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2;
  int64_t era = (y >= 0 ? y : y - 399) / 400;
  int64_t yoe = y - era * 400;
  int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468 - kUnixToPgDays;
}

int DaysInMonth(int64_t y, int64_t m) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return m == 2 && leap ? 29 : kDays[m - 1];
}

Civil CivilFromDays(int64_t days) {
  int64_t z = days + kUnixToPgDays + 719468;
  int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  int64_t doe = z - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153;
  int64_t d = doy - (153 * mp + 2) / 5 + 1;
  int64_t m = mp + (mp < 10 ? 3 : -9);
  return {yoe + era * 400 + (m <= 2), m, d};
}

namespace {

const int64_t kMinDate = DaysFromCivil(-4713, 11, 24);     // Julian day 0
const int64_t kMaxDate = DaysFromCivil(5874898, 1, 1) - 1;  // 5874897-12-31
const int64_t kMaxTimestampDays = DaysFromCivil(294277, 1, 1);

constexpr std::string_view kMonthAbbrevs[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                              "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
constexpr std::string_view kDayAbbrevs[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};

// SplitIdentifierString(value, ','): unquoted words are trimmed and lower-cased, "quoted" ones
// kept; an empty element or text after a word is a syntax error.
std::optional<std::vector<std::string>> SplitList(std::string_view s) {
  std::vector<std::string> out;
  size_t i = 0;
  auto skip_space = [&] {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  };
  skip_space();
  if (i == s.size()) return out;
  while (true) {
    std::string word;
    if (s[i] == '"') {
      for (++i;; ++i) {
        if (i == s.size()) return std::nullopt;
        if (s[i] == '"') {
          if (i + 1 < s.size() && s[i + 1] == '"') {
            word.push_back('"');
            ++i;
            continue;
          }
          ++i;
          break;
        }
        word.push_back(s[i]);
      }
    } else {
      while (i < s.size() && s[i] != ',' && !std::isspace(static_cast<unsigned char>(s[i]))) word.push_back(s[i++]);
      if (word.empty()) return std::nullopt;
      word = AsciiLower(word);
    }
    out.push_back(std::move(word));
    skip_space();
    if (i == s.size()) return out;
    if (s[i] != ',') return std::nullopt;
    ++i;
    skip_space();
  }
}

struct Ymd {
  int64_t year;  // as printed: 1 BC is 1
  int64_t month, day;
  bool bc;
};

Ymd ToYmd(int64_t days) {
  Civil c = CivilFromDays(days);
  bool bc = c.year <= 0;
  return {bc ? 1 - c.year : c.year, c.month, c.day, bc};
}

// EncodeDateOnly's date part in each style (the Postgres style's timestamp form differs).
std::string DatePart(const Ymd& d, DateStyle style) {
  bool dmy = style.order == DateOrder::kDmy;
  switch (style.style) {
    case DateOutputStyle::kIso:
      return fmt::format("{:04}-{:02}-{:02}", d.year, d.month, d.day);
    case DateOutputStyle::kSql:
      return dmy ? fmt::format("{:02}/{:02}/{:04}", d.day, d.month, d.year)
                 : fmt::format("{:02}/{:02}/{:04}", d.month, d.day, d.year);
    case DateOutputStyle::kGerman:
      return fmt::format("{:02}.{:02}.{:04}", d.day, d.month, d.year);
    case DateOutputStyle::kPostgres:
      return dmy ? fmt::format("{:02}-{:02}-{:04}", d.day, d.month, d.year)
                 : fmt::format("{:02}-{:02}-{:04}", d.month, d.day, d.year);
  }
  return {};
}

}  // namespace

std::expected<DateStyle, std::string> ParseDateStyle(std::string_view value, DateStyle current, DateStyle reset) {
  auto words = SplitList(value);
  if (!words) return std::unexpected("List syntax is invalid.");
  DateStyle out = current;
  bool have_style = false, have_order = false, ok = true;
  auto style = [&](DateOutputStyle s) {
    ok = ok && (!have_style || out.style == s);
    out.style = s;
    have_style = true;
  };
  auto order = [&](DateOrder o) {
    ok = ok && (!have_order || out.order == o);
    out.order = o;
    have_order = true;
  };
  for (const std::string& w : *words) {
    std::string word = AsciiLower(w);
    if (word == "iso") style(DateOutputStyle::kIso);
    else if (word == "sql") style(DateOutputStyle::kSql);
    else if (word.starts_with("postgres")) style(DateOutputStyle::kPostgres);
    else if (word == "german") {
      style(DateOutputStyle::kGerman);
      if (!have_order) out.order = DateOrder::kDmy;  // German implies DMY unless given
    } else if (word == "ymd") order(DateOrder::kYmd);
    else if (word == "dmy" || word.starts_with("euro")) order(DateOrder::kDmy);
    else if (word == "mdy" || word == "us" || word.starts_with("noneuro")) order(DateOrder::kMdy);
    else if (word == "default") {
      if (!have_style) out.style = reset.style;
      if (!have_order) out.order = reset.order;
    } else {
      return std::unexpected(fmt::format("Unrecognized key word: \"{}\".", w));
    }
  }
  if (!ok) return std::unexpected("Conflicting \"datestyle\" specifications.");
  return out;
}

std::string DateStyleName(DateStyle style) {
  static constexpr std::string_view kStyles[] = {"ISO", "SQL", "Postgres", "German"};
  static constexpr std::string_view kOrders[] = {"MDY", "DMY", "YMD"};
  return fmt::format("{}, {}", kStyles[static_cast<int>(style.style)], kOrders[static_cast<int>(style.order)]);
}

bool IsValidDate(int64_t days) { return days >= kMinDate && days <= kMaxDate; }

bool IsValidTimestamp(int64_t micros) {
  int64_t days = micros >= 0 ? micros / kMicrosPerDay : -((-micros - 1) / kMicrosPerDay) - 1;
  return days >= kMinDate && days < kMaxTimestampDays;
}

std::expected<int64_t, Error> RoundTimestamp(int64_t micros, int32_t precision) {
  if (micros == kTimestampPosInfinity || micros == kTimestampNegInfinity || precision >= kMaxTimestampPrecision) {
    return micros;
  }
  int64_t scale = 1;
  for (int32_t i = precision; i < kMaxTimestampPrecision; ++i) scale *= 10;
  int64_t offset = scale / 2;
  int64_t rounded = micros >= 0 ? (micros + offset) / scale * scale : -((-micros + offset) / scale * scale);
  if (!IsValidTimestamp(rounded)) return std::unexpected(MakeError("22008", "timestamp out of range"));
  return rounded;
}

std::string FormatDate(int64_t days, DateStyle style) {
  if (days == kDatePosInfinity) return "infinity";
  if (days == kDateNegInfinity) return "-infinity";
  Ymd d = ToYmd(days);
  std::string out = DatePart(d, style);
  return d.bc ? out + " BC" : out;
}

namespace {

// EncodeDateTime: `micros` of local time, then `zone` (already spelled for the style), then BC.
std::string FormatLocalTimestamp(int64_t micros, DateStyle style, std::string_view zone) {
  int64_t days = micros / kMicrosPerDay;
  int64_t rem = micros % kMicrosPerDay;
  if (rem < 0) {
    rem += kMicrosPerDay;
    --days;
  }
  Ymd d = ToYmd(days);
  int64_t secs = rem / 1'000'000;
  int64_t frac = rem % 1'000'000;
  // AppendTimestampSeconds: fractional digits only as far as they are non-zero.
  std::string time = fmt::format("{:02}:{:02}:{:02}", secs / 3600, secs / 60 % 60, secs % 60);
  if (frac != 0) {
    std::string f = fmt::format("{:06}", frac);
    f.erase(f.find_last_not_of('0') + 1);
    time += "." + f;
  }
  std::string out;
  if (style.style == DateOutputStyle::kPostgres) {
    // "Thu Feb 29 13:14:15 2024" (MDY, YMD) or "Thu 29 Feb 13:14:15 2024" (DMY).
    int64_t weekday = ((days % 7) + 7 + 6) % 7;  // 2000-01-01 was a Saturday
    std::string_view month = kMonthAbbrevs[d.month - 1];
    out = style.order == DateOrder::kDmy
              ? fmt::format("{} {:02} {} {} {:04}", kDayAbbrevs[weekday], d.day, month, time, d.year)
              : fmt::format("{} {} {:02} {} {:04}", kDayAbbrevs[weekday], month, d.day, time, d.year);
  } else {
    out = DatePart(d, style) + " " + time;
  }
  out += zone;
  return d.bc ? out + " BC" : out;
}

// EncodeTimezone: +hh, then :mm and :ss only where non-zero.
std::string IsoOffset(int32_t seconds_east) {
  int32_t a = seconds_east < 0 ? -seconds_east : seconds_east;
  std::string out = fmt::format("{}{:02}", seconds_east < 0 ? '-' : '+', a / 3600);
  if (a % 3600 != 0) out += fmt::format(":{:02}", a / 60 % 60);
  if (a % 60 != 0) out += fmt::format(":{:02}", a % 60);
  return out;
}

}  // namespace

std::string FormatTimestamp(int64_t micros, DateStyle style) {
  if (micros == kTimestampPosInfinity) return "infinity";
  if (micros == kTimestampNegInfinity) return "-infinity";
  return FormatLocalTimestamp(micros, style, "");
}

std::string FormatTimestampTz(int64_t utc_micros, DateStyle style, const TimeZone& zone) {
  if (utc_micros == kTimestampPosInfinity) return "infinity";
  if (utc_micros == kTimestampNegInfinity) return "-infinity";
  TimeZone::Offset offset = zone.OffsetAt(utc_micros);
  // ISO prints the numeric offset; the other styles the zone's abbreviation, as PostgreSQL does.
  std::string suffix = style.style == DateOutputStyle::kIso ? IsoOffset(offset.seconds_east) : " " + offset.abbreviation;
  return FormatLocalTimestamp(utc_micros + int64_t{offset.seconds_east} * 1'000'000, style, suffix);
}

}  // namespace farmdb::sql
