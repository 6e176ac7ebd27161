// date and timestamp text input, following PostgreSQL's ParseDateTime (split into fields) and
// DecodeDateTime / DecodeDate / DecodeNumber (assign fields to year, month, day, time under the
// DateStyle field order), for the forms without time zone: ISO "2024-02-29 13:14:15.5",
// "02/29/2024" / "29.02.2024" per order, month names ("Feb 29 2024", "29-Feb-2024"),
// "20240229", weekday names (ignored), AM/PM, AD/BC, and a zone (+05, -08:00, Z, UTC), which
// timestamp without time zone ignores as PostgreSQL does.
#include <cctype>
#include <cmath>
#include <fmt/format.h>
#include <optional>
#include <vector>

#include "sql/types/datetime.h"

namespace farmdb::sql {
namespace {

// DecodeDateTime's field bits (DTK_M(YEAR) ...).
enum : unsigned { kYear = 1, kMonth = 2, kDay = 4, kDateBits = 7, kTime = 8, kBc = 16, kMeridian = 32, kWeekday = 64, kZone = 128 };

// DTERR_BAD_FORMAT, DTERR_FIELD_OVERFLOW, DTERR_MD_FIELD_OVERFLOW, DTERR_TZDISP_OVERFLOW.
enum class Parsed { kOk, kSyntax, kFieldRange, kMonthRange, kZoneRange };

enum class FieldKind { kNumber, kDate, kTime, kString, kZone };

struct Field {
  FieldKind kind;
  std::string text;  // letters lower-cased
};

bool IsDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }
bool IsAlpha(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }
char Lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

// ParseDateTime: splits the input into typed fields; false on a character it cannot place.
bool SplitFields(std::string_view s, std::vector<Field>& fields) {
  size_t i = 0;
  auto take_while = [&](std::string& out, auto pred) {
    while (i < s.size() && pred(s[i])) out.push_back(Lower(s[i++]));
  };
  while (i < s.size()) {
    char c = s[i];
    Field f{FieldKind::kNumber, {}};
    if (IsDigit(c)) {
      take_while(f.text, IsDigit);
      if (i < s.size() && s[i] == ':') {
        f.kind = FieldKind::kTime;
        take_while(f.text, [](char x) { return IsDigit(x) || x == ':' || x == '.'; });
      } else if (i < s.size() && (s[i] == '-' || s[i] == '/' || s[i] == '.')) {
        char delim = s[i];
        f.text.push_back(s[i++]);
        if (i < s.size() && IsDigit(s[i])) {
          // "29.02" alone is a number with a fraction; three fields need matching delimiters.
          f.kind = delim == '.' ? FieldKind::kNumber : FieldKind::kDate;
          take_while(f.text, IsDigit);
          if (i < s.size() && s[i] == delim) {
            f.kind = FieldKind::kDate;
            take_while(f.text, [delim](char x) { return IsDigit(x) || x == delim; });
          }
        } else {
          f.kind = FieldKind::kDate;  // embedded month name: "29-feb-2024"
          take_while(f.text, [delim](char x) { return std::isalnum(static_cast<unsigned char>(x)) || x == delim; });
        }
      }
    } else if (IsAlpha(c)) {
      f.kind = FieldKind::kString;
      take_while(f.text, IsAlpha);
      if (i < s.size() && (s[i] == '-' || s[i] == '/' || s[i] == '.') && i + 1 < s.size() && IsDigit(s[i + 1])) {
        char delim = s[i];  // "feb-29-2024"
        f.kind = FieldKind::kDate;
        take_while(f.text, [delim](char x) { return std::isalnum(static_cast<unsigned char>(x)) || x == delim; });
      }
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    } else if ((c == '+' || c == '-') && i + 1 < s.size() && IsDigit(s[i + 1])) {
      f.kind = FieldKind::kZone;  // numeric zone
      f.text.push_back(s[i++]);
      take_while(f.text, [](char x) { return IsDigit(x) || x == ':'; });
    } else if (std::ispunct(static_cast<unsigned char>(c))) {
      ++i;  // other punctuation only delimits ("Feb 29, 2024")
      continue;
    } else {
      return false;
    }
    fields.push_back(std::move(f));
  }
  return true;
}

struct Decoder {
  DateOrder order;
  unsigned mask = 0;
  int64_t year = 0, month = 0, day = 0;
  int64_t micros = 0;  // time of day
  int64_t hour = 0;
  bool two_digit_year = false;
  bool text_month = false;
  enum class Meridian { k24, kAm, kPm } meridian = Meridian::k24;

  bool bc = false;
  std::optional<int32_t> zone_seconds = std::nullopt;  // east of UTC, when the text names a zone

  // DecodeTimezone: +hh, +hhmm, +hh:mm, +hh:mm:ss, +hhmmss.
  Parsed Zone(std::string_view text) {
    if (Flag(kZone) != Parsed::kOk) return Parsed::kSyntax;
    int sign = text[0] == '-' ? -1 : 1;
    std::string_view rest = text.substr(1);
    int64_t parts[3] = {0, 0, 0};
    if (rest.find(':') != std::string_view::npos) {
      int n = 0;
      for (size_t start = 0; start <= rest.size(); ++n) {
        size_t end = std::min(rest.find(':', start), rest.size());
        if (n == 3 || end == start || end - start > 2) return Parsed::kSyntax;
        parts[n] = std::stoll(std::string(rest.substr(start, end - start)));
        start = end + 1;
      }
    } else if (rest.size() <= 2) {
      parts[0] = std::stoll(std::string(rest));
    } else if (rest.size() == 4 || rest.size() == 6) {
      for (size_t k = 0; k < rest.size() / 2; ++k) parts[k] = std::stoll(std::string(rest.substr(2 * k, 2)));
    } else {
      return Parsed::kSyntax;
    }
    if (parts[0] > 15) return Parsed::kZoneRange;  // MAX_TZDISP_HOUR
    if (parts[1] > 59 || parts[2] > 59) return Parsed::kFieldRange;
    zone_seconds = static_cast<int32_t>(sign * (parts[0] * 3600 + parts[1] * 60 + parts[2]));
    return Parsed::kOk;
  }

  Parsed Set(unsigned bit, int64_t& slot, int64_t value) {
    if (mask & bit) return Parsed::kSyntax;  // the same field twice
    mask |= bit;
    slot = value;
    return Parsed::kOk;
  }

  // DecodeNumber: an all-digit field, placed by what is already known and the field order.
  Parsed Number(std::string_view digits) {
    if (digits.empty() || digits.size() > 9) return Parsed::kSyntax;
    for (char c : digits) {
      if (!IsDigit(c)) return Parsed::kSyntax;
    }
    int64_t v = std::stoll(std::string(digits));
    size_t len = digits.size();
    unsigned bit = 0;
    switch (mask & kDateBits) {
      case 0:
        // YYYY-MM-DD needs a 3+ digit year; otherwise the DateStyle order decides.
        bit = len >= 3 || order == DateOrder::kYmd ? kYear : order == DateOrder::kDmy ? kDay : kMonth;
        break;
      case kYear:
        bit = kMonth;
        break;
      case kMonth:
        // After a month name: MON-DD-YYYY, YYYY-MON-DD; numeric MM-DD-YY.
        bit = text_month && (len >= 3 || order == DateOrder::kYmd) ? kYear : kDay;
        break;
      case kYear | kMonth:
        if (text_month && len >= 3 && two_digit_year) {
          // DD-MON-YYYY even in YMD mode: the first number was the day.
          mask |= kDay;
          day = year;
          year = v;
          two_digit_year = false;
          return Parsed::kOk;
        }
        bit = kDay;
        break;
      case kDay:
        bit = kMonth;
        break;
      case kMonth | kDay:
        bit = kYear;
        break;
      default:
        return Parsed::kSyntax;
    }
    if (Set(bit, bit == kYear ? year : bit == kMonth ? month : day, v) != Parsed::kOk) return Parsed::kSyntax;
    if (bit == kYear) two_digit_year = len <= 2;
    return Parsed::kOk;
  }

  // DecodeNumberField: YYYYMMDD / YYMMDD without a date, hhmmss after one.
  Parsed Concatenated(std::string_view digits) {
    if (!(mask & kDateBits) && (digits.size() == 8 || digits.size() == 6)) {
      size_t ylen = digits.size() - 4;
      mask |= kDateBits;
      year = std::stoll(std::string(digits.substr(0, ylen)));
      month = std::stoll(std::string(digits.substr(ylen, 2)));
      day = std::stoll(std::string(digits.substr(ylen + 2, 2)));
      two_digit_year = ylen == 2;
      return Parsed::kOk;
    }
    if (!(mask & kTime) && digits.size() == 6) {
      return Time(fmt::format("{}:{}:{}", digits.substr(0, 2), digits.substr(2, 2), digits.substr(4, 2)));
    }
    return Parsed::kSyntax;
  }

  // DecodeDate: a field with separators; month names first, then the numbers in order.
  Parsed Date(std::string_view text) {
    std::vector<std::string> parts;
    std::string cur;
    for (char c : text) {
      if (std::isalnum(static_cast<unsigned char>(c))) {
        cur.push_back(c);
      } else if (!cur.empty()) {
        parts.push_back(std::move(cur));
        cur.clear();
      }
    }
    if (!cur.empty()) parts.push_back(std::move(cur));
    if (parts.size() > 3) return Parsed::kSyntax;
    std::vector<std::string> numbers;
    for (std::string& p : parts) {
      if (IsAlpha(p[0])) {
        int m = MonthNumber(p);
        if (m == 0 || Set(kMonth, month, m) != Parsed::kOk) return Parsed::kSyntax;
        text_month = true;
      } else {
        numbers.push_back(std::move(p));
      }
    }
    for (const std::string& n : numbers) {
      if (Parsed r = Number(n); r != Parsed::kOk) return r;
    }
    return Parsed::kOk;
  }

  // DecodeTime: hh:mm[:ss[.frac]].
  Parsed Time(std::string_view text) {
    if (mask & kTime) return Parsed::kSyntax;
    mask |= kTime;
    int64_t parts[3] = {0, 0, 0};
    int n = 0;
    size_t i = 0;
    double frac = 0;
    while (i < text.size()) {
      if (n == 3) return Parsed::kSyntax;
      size_t start = i;
      while (i < text.size() && IsDigit(text[i])) ++i;
      if (i == start || i - start > 9) return Parsed::kSyntax;
      parts[n++] = std::stoll(std::string(text.substr(start, i - start)));
      if (i < text.size() && text[i] == '.') {
        if (n != 3) return Parsed::kSyntax;
        size_t fstart = i;
        ++i;
        while (i < text.size() && IsDigit(text[i])) ++i;
        frac = std::stod("0" + std::string(text.substr(fstart, i - fstart)));
        if (i != text.size()) return Parsed::kSyntax;
      } else if (i < text.size()) {
        if (text[i] != ':') return Parsed::kSyntax;
        ++i;
        if (i == text.size()) return Parsed::kSyntax;
      }
    }
    if (n < 2) return Parsed::kSyntax;
    int64_t fsec = static_cast<int64_t>(std::rint(frac * 1'000'000));
    auto [h, mi, s] = parts;
    if (mi > 59 || s > 60 || h > 24 || (h == 24 && (mi > 0 || s > 0 || fsec > 0))) return Parsed::kFieldRange;
    hour = h;
    micros = ((h * 60 + mi) * 60 + s) * 1'000'000 + fsec;
    return Parsed::kOk;
  }

  static int MonthNumber(std::string_view word) {
    static constexpr std::string_view kMonths[] = {"january", "february", "march",     "april",   "may",      "june",
                                                   "july",    "august",   "september", "october", "november", "december"};
    for (int m = 0; m < 12; ++m) {
      // datetktbl: the three-letter abbreviation, "sept", or the full name.
      if (word == kMonths[m] || word == kMonths[m].substr(0, 3) || (m == 8 && word == "sept")) return m + 1;
    }
    return 0;
  }

  // DecodeSpecial's words that make sense without time zone.
  Parsed Word(std::string_view word) {
    if (int m = MonthNumber(word); m != 0) {
      // A number taken as the month becomes the day once a month name appears ("29 Feb").
      if ((mask & kMonth) && !text_month && !(mask & kDay) && month >= 1 && month <= 31) {
        mask |= kDay;
        day = month;
        month = m;
      } else if (Set(kMonth, month, m) != Parsed::kOk) {
        return Parsed::kSyntax;
      }
      text_month = true;
      return Parsed::kOk;
    }
    static constexpr std::string_view kWeekdays[] = {"sun", "sunday", "mon", "monday", "tue", "tues", "tuesday",
                                                     "wed", "wednes", "wednesday", "thu", "thur", "thurs",
                                                     "thursday", "fri", "friday", "sat", "saturday"};
    for (std::string_view w : kWeekdays) {
      if (word == w) return Flag(kWeekday);
    }
    if (word == "ad") return Flag(kBc);
    if (word == "bc") {
      if (Flag(kBc) != Parsed::kOk) return Parsed::kSyntax;
      bc = true;
      return Parsed::kOk;
    }
    if (word == "am" || word == "pm") {
      if (Flag(kMeridian) != Parsed::kOk) return Parsed::kSyntax;
      meridian = word == "am" ? Meridian::kAm : Meridian::kPm;
      return Parsed::kOk;
    }
    if (word == "t" || word == "at" || word == "on") return Parsed::kOk;  // ISO 'T', noise words
    if (word == "z" || word == "zulu" || word == "utc" || word == "gmt" || word == "ut") {
      if (Flag(kZone) != Parsed::kOk) return Parsed::kSyntax;
      zone_seconds = 0;
      return Parsed::kOk;
    }
    if (word == "allballs") return Time("00:00:00");
    return Parsed::kSyntax;
  }

  Parsed Flag(unsigned bit) {
    if (mask & bit) return Parsed::kSyntax;
    mask |= bit;
    return Parsed::kOk;
  }
};

// ValidateDate and the meridian adjustment; fills days and time of day.
Parsed Finish(Decoder& d, int64_t& days, int64_t& micros) {
  if ((d.mask & kDateBits) != kDateBits) return Parsed::kSyntax;
  if (d.bc) {
    if (d.year <= 0) return Parsed::kFieldRange;
    d.year = 1 - d.year;
  } else if (d.two_digit_year) {
    d.year += d.year < 70 ? 2000 : d.year < 100 ? 1900 : 0;
  } else if (d.year <= 0) {
    return Parsed::kFieldRange;
  }
  if (d.month < 1 || d.month > 12) return Parsed::kMonthRange;
  if (d.day < 1 || d.day > 31) return Parsed::kMonthRange;
  if (d.day > DaysInMonth(d.year, d.month)) return Parsed::kFieldRange;
  micros = d.micros;
  if (d.meridian != Decoder::Meridian::k24) {
    if (d.hour > 12) return Parsed::kFieldRange;
    constexpr int64_t kHour = 3'600'000'000;
    if (d.meridian == Decoder::Meridian::kAm && d.hour == 12) micros -= 12 * kHour;
    if (d.meridian == Decoder::Meridian::kPm && d.hour != 12) micros += 12 * kHour;
  }
  days = DaysFromCivil(d.year, d.month, d.day);
  return Parsed::kOk;
}

Parsed Decode(std::string_view text, DateOrder order, int64_t& days, int64_t& micros,
              std::optional<int32_t>& zone_seconds) {
  std::vector<Field> fields;
  if (!SplitFields(text, fields) || fields.empty()) return Parsed::kSyntax;
  Decoder d{order};
  for (const Field& f : fields) {
    Parsed r = Parsed::kOk;
    switch (f.kind) {
      case FieldKind::kDate:
        r = d.Date(f.text);
        break;
      case FieldKind::kTime:
        r = d.Time(f.text);
        break;
      case FieldKind::kString:
        r = d.Word(f.text);
        break;
      case FieldKind::kZone:
        r = d.Zone(f.text);
        break;
      case FieldKind::kNumber:
        if (f.text.find('.') != std::string::npos) {
          // "2024.060" style dates are rare; a dotted number before any date is one.
          r = (d.mask & kDateBits) ? Parsed::kSyntax : d.Date(f.text);
        } else if (f.text.size() >= 6 && (!(d.mask & kDateBits) || !(d.mask & kTime))) {
          r = d.Concatenated(f.text);
        } else {
          r = d.Number(f.text);
        }
        break;
    }
    if (r != Parsed::kOk) return r;
  }
  zone_seconds = d.zone_seconds;
  return Finish(d, days, micros);
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool EqualsNoCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (Lower(a[i]) != b[i]) return false;
  }
  return true;
}

struct ParsedDateTime {
  int64_t days = 0;
  int64_t micros = 0;  // time of day
  std::optional<int32_t> zone_seconds;
};

// DateTimeParseError's wording for each failure.
// The ISO forms drivers send, "YYYY-MM-DD" and "YYYY-MM-DD HH:MM:SS[.ffffff]", read without the
// general tokenizer (which costs thousands of instructions per value). Anything else, including
// what the general parser has rules for (24:00:00, leap seconds, year 0, more than six
// fractional digits, spaces around, a zone), is std::nullopt and takes the general path.
std::optional<ParsedDateTime> ParseIsoDateTime(std::string_view s) {
  auto number = [&s](size_t at, size_t n, int64_t& out) {
    out = 0;
    for (char c : s.substr(at, n)) {
      if (c < '0' || c > '9') return false;
      out = out * 10 + (c - '0');
    }
    return true;
  };
  int64_t year, month, day;
  if (s.size() != 10 && s.size() < 19) return std::nullopt;
  if (!number(0, 4, year) || s[4] != '-' || !number(5, 2, month) || s[7] != '-' || !number(8, 2, day)) {
    return std::nullopt;
  }
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > DaysInMonth(year, month)) return std::nullopt;
  ParsedDateTime p;
  p.days = DaysFromCivil(year, month, day);
  if (s.size() == 10) return p;
  int64_t hour, minute, second, fraction = 0;
  if (s[10] != ' ' || !number(11, 2, hour) || s[13] != ':' || !number(14, 2, minute) || s[16] != ':' ||
      !number(17, 2, second) || hour > 23 || minute > 59 || second > 59) {
    return std::nullopt;
  }
  if (s.size() > 19) {
    size_t digits = s.size() - 20;
    if (s[19] != '.' || digits < 1 || digits > 6 || !number(20, digits, fraction)) return std::nullopt;
    for (size_t i = digits; i < 6; ++i) fraction *= 10;
  }
  p.micros = ((hour * 60 + minute) * 60 + second) * 1'000'000 + fraction;
  return p;
}

std::expected<ParsedDateTime, Error> ParseCommon(std::string_view text, DateOrder order, std::string_view type_name) {
  if (auto iso = ParseIsoDateTime(text)) return *iso;
  ParsedDateTime p;
  switch (Decode(text, order, p.days, p.micros, p.zone_seconds)) {
    case Parsed::kOk:
      return p;
    case Parsed::kSyntax:
      return std::unexpected(MakeError("22007", fmt::format("invalid input syntax for type {}: \"{}\"", type_name, text)));
    case Parsed::kFieldRange:
      return std::unexpected(MakeError("22008", fmt::format("date/time field value out of range: \"{}\"", text)));
    case Parsed::kZoneRange:
      return std::unexpected(MakeError("22009", fmt::format("time zone displacement out of range: \"{}\"", text)));
    case Parsed::kMonthRange: {
      Error e = MakeError("22008", fmt::format("date/time field value out of range: \"{}\"", text));
      e.hint = "Perhaps you need a different \"datestyle\" setting.";
      return std::unexpected(e);
    }
  }
  return std::unexpected(MakeError("XX000", "unreachable"));
}

// The special words every timestamp type accepts; std::nullopt for anything else.
std::optional<int64_t> SpecialTimestamp(std::string_view text) {
  std::string_view t = Trim(text);
  if (EqualsNoCase(t, "infinity")) return kTimestampPosInfinity;
  if (EqualsNoCase(t, "-infinity")) return kTimestampNegInfinity;
  if (EqualsNoCase(t, "epoch")) return DaysFromCivil(1970, 1, 1) * kMicrosPerDay;
  return std::nullopt;
}

std::expected<int64_t, Error> CheckTimestamp(int64_t micros, std::string_view text) {
  if (!IsValidTimestamp(micros)) {
    return std::unexpected(MakeError("22008", fmt::format("timestamp out of range: \"{}\"", text)));
  }
  return micros;
}

}  // namespace

std::expected<int64_t, Error> ParseDate(std::string_view text, DateOrder order) {
  std::string_view t = Trim(text);
  if (EqualsNoCase(t, "infinity")) return kDatePosInfinity;
  if (EqualsNoCase(t, "-infinity")) return kDateNegInfinity;
  if (EqualsNoCase(t, "epoch")) return DaysFromCivil(1970, 1, 1);
  auto parsed = ParseCommon(text, order, "date");
  if (!parsed) return std::unexpected(parsed.error());
  if (!IsValidDate(parsed->days)) {
    return std::unexpected(MakeError("22008", fmt::format("date out of range: \"{}\"", text)));
  }
  return parsed->days;
}

std::expected<int64_t, Error> ParseTimestamp(std::string_view text, DateOrder order) {
  if (auto special = SpecialTimestamp(text)) return *special;
  auto parsed = ParseCommon(text, order, "timestamp");
  if (!parsed) return std::unexpected(parsed.error());
  return CheckTimestamp(parsed->days * kMicrosPerDay + parsed->micros, text);
}

std::expected<int64_t, Error> ParseTimestampTz(std::string_view text, DateOrder order, const TimeZone& zone) {
  if (auto special = SpecialTimestamp(text)) return *special;
  auto parsed = ParseCommon(text, order, "timestamp with time zone");
  if (!parsed) return std::unexpected(parsed.error());
  int64_t local = parsed->days * kMicrosPerDay + parsed->micros;
  if (!IsValidTimestamp(local)) return CheckTimestamp(local, text);
  int64_t utc = parsed->zone_seconds ? local - int64_t{*parsed->zone_seconds} * 1'000'000 : zone.ToUtc(local);
  return CheckTimestamp(utc, text);
}

}  // namespace farmdb::sql
