// to_char(timestamp | timestamptz, text) as PostgreSQL 15's formatting.c (DCH_to_char): the
// template is read as keywords (first match in formatting.c's keyword order), FM/TM
// prefixes, TH/th suffixes, "quoted" text and literal characters. Names are English (the C
// locale's TM output). to_char for numbers resolves but fails with 0A000; intervals do not exist.
#include <array>
#include <cstdlib>
#include <fmt/format.h>

#include "sql/exec/builtins.h"
#include "sql/exec/datetime_fields.h"

namespace farmdb::sql {
namespace {

using Args = std::span<const Value>;
using Result = std::expected<Value, Error>;

enum class Key {
  kADdots, kAMdots, kAD, kAM, kBCdots, kBC, kCC, kDAY, kDDD, kDD, kDY, kDay, kDy, kD, kFF1, kFF2, kFF3, kFF4, kFF5,
  kFF6, kFX, kHH24, kHH12, kHH, kIDDD, kID, kIW, kIYYY, kIYY, kIY, kI, kJ, kMI, kMM, kMONTH, kMON, kMS, kMonth, kMon,
  kOF, kPMdots, kPM, kQ, kRM, kSSSS, kSS, kTZH, kTZM, kTZ, kUS, kWW, kW, kYcommaYYY, kYYYY, kYYY, kYY, kY,
  kadDots, kamDots, kad, kam, kbcDots, kbc, kday, kdy, kmonth, kmon, kpmDots, kpm, krm, ktz,
};

struct Keyword {
  std::string_view name;
  Key key;
};

// DCH_keywords in formatting.c's order: the first keyword that prefixes the text wins.
constexpr Keyword kKeywords[] = {
    {"A.D.", Key::kADdots}, {"A.M.", Key::kAMdots}, {"AD", Key::kAD}, {"AM", Key::kAM}, {"B.C.", Key::kBCdots},
    {"BC", Key::kBC}, {"CC", Key::kCC}, {"DAY", Key::kDAY}, {"DDD", Key::kDDD}, {"DD", Key::kDD}, {"DY", Key::kDY},
    {"Day", Key::kDay}, {"Dy", Key::kDy}, {"D", Key::kD}, {"FF1", Key::kFF1}, {"FF2", Key::kFF2}, {"FF3", Key::kFF3},
    {"FF4", Key::kFF4}, {"FF5", Key::kFF5}, {"FF6", Key::kFF6}, {"FX", Key::kFX}, {"HH24", Key::kHH24},
    {"HH12", Key::kHH12}, {"HH", Key::kHH}, {"IDDD", Key::kIDDD}, {"ID", Key::kID}, {"IW", Key::kIW},
    {"IYYY", Key::kIYYY}, {"IYY", Key::kIYY}, {"IY", Key::kIY}, {"I", Key::kI}, {"J", Key::kJ}, {"MI", Key::kMI},
    {"MM", Key::kMM}, {"MONTH", Key::kMONTH}, {"MON", Key::kMON}, {"MS", Key::kMS}, {"Month", Key::kMonth},
    {"Mon", Key::kMon}, {"OF", Key::kOF}, {"P.M.", Key::kPMdots}, {"PM", Key::kPM}, {"Q", Key::kQ}, {"RM", Key::kRM},
    {"SSSSS", Key::kSSSS}, {"SSSS", Key::kSSSS}, {"SS", Key::kSS}, {"TZH", Key::kTZH}, {"TZM", Key::kTZM},
    {"TZ", Key::kTZ}, {"US", Key::kUS}, {"WW", Key::kWW}, {"W", Key::kW}, {"Y,YYY", Key::kYcommaYYY},
    {"YYYY", Key::kYYYY}, {"YYY", Key::kYYY}, {"YY", Key::kYY}, {"Y", Key::kY}, {"a.d.", Key::kadDots},
    {"a.m.", Key::kamDots}, {"ad", Key::kad}, {"am", Key::kam}, {"b.c.", Key::kbcDots}, {"bc", Key::kbc},
    {"cc", Key::kCC}, {"day", Key::kday}, {"ddd", Key::kDDD}, {"dd", Key::kDD}, {"dy", Key::kdy}, {"d", Key::kD},
    {"ff1", Key::kFF1}, {"ff2", Key::kFF2}, {"ff3", Key::kFF3}, {"ff4", Key::kFF4}, {"ff5", Key::kFF5},
    {"ff6", Key::kFF6}, {"fx", Key::kFX}, {"hh24", Key::kHH24}, {"hh12", Key::kHH12}, {"hh", Key::kHH},
    {"iddd", Key::kIDDD}, {"id", Key::kID}, {"iw", Key::kIW}, {"iyyy", Key::kIYYY}, {"iyy", Key::kIYY},
    {"iy", Key::kIY}, {"i", Key::kI}, {"j", Key::kJ}, {"mi", Key::kMI}, {"mm", Key::kMM}, {"month", Key::kmonth},
    {"mon", Key::kmon}, {"ms", Key::kMS}, {"of", Key::kOF}, {"p.m.", Key::kpmDots}, {"pm", Key::kpm},
    {"q", Key::kQ}, {"rm", Key::krm}, {"sssss", Key::kSSSS}, {"ssss", Key::kSSSS}, {"ss", Key::kSS},
    {"tzh", Key::kTZH}, {"tzm", Key::kTZM}, {"tz", Key::ktz}, {"us", Key::kUS}, {"ww", Key::kWW}, {"w", Key::kW},
    {"y,yyy", Key::kYcommaYYY}, {"yyyy", Key::kYYYY}, {"yyy", Key::kYYY}, {"yy", Key::kYY}, {"y", Key::kY},
};

constexpr std::array<std::string_view, 12> kMonths = {"January", "February", "March",     "April",   "May",      "June",
                                                      "July",    "August",   "September", "October", "November", "December"};
constexpr std::array<std::string_view, 7> kDays = {"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"};
constexpr std::array<std::string_view, 12> kRomanMonths = {"I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII"};

std::string Upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
  return out;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return out;
}

// str_numth: the English ordinal suffix of a number's text (teens take "th").
std::string_view Ordinal(std::string_view num, bool upper) {
  char last = num.empty() ? '0' : num.back();
  if (num.size() > 1 && num[num.size() - 2] == '1') last = '0';
  switch (last) {
    case '1': return upper ? "ST" : "st";
    case '2': return upper ? "ND" : "nd";
    case '3': return upper ? "RD" : "rd";
    default: return upper ? "TH" : "th";
  }
}

// What a template is formatted from: local calendar fields plus the zone (timestamptz).
struct Moment {
  CalendarFields f;
  int32_t gmtoff = 0;
  std::string zone_abbreviation;  // empty for timestamp without time zone
};

// ADJUST_YEAR: BC years count from 1 backwards.
int64_t AdjustYear(int64_t year) { return year <= 0 ? -(year - 1) : year; }

// One keyword's text; `fm`: fill mode (no padding).
std::string Format(Key key, const Moment& m, bool fm) {
  const CalendarFields& f = m.f;
  auto padded = [&](int64_t v, int width) { return fmt::format("{:0{}}", v, fm ? 0 : width); };
  auto name = [&](std::string_view n, int width) { return fm ? std::string(n) : fmt::format("{:<{}}", n, width); };
  int64_t doy = f.days - DaysFromCivil(f.year, 1, 1) + 1;
  int64_t dow = IsoDow(f.days) % 7;  // 0 = Sunday
  auto [iso_week, iso_year] = IsoWeekYear(f.days);
  bool bc = f.year <= 0;
  bool pm = f.hour >= 12;
  int64_t hour12 = f.hour % 12 == 0 ? 12 : f.hour % 12;
  int64_t year = AdjustYear(f.year), iyear = AdjustYear(iso_year);
  int64_t abs_off = std::abs(m.gmtoff);
  switch (key) {
    case Key::kADdots: case Key::kBCdots: return bc ? "B.C." : "A.D.";
    case Key::kAD: case Key::kBC: return bc ? "BC" : "AD";
    case Key::kadDots: case Key::kbcDots: return bc ? "b.c." : "a.d.";
    case Key::kad: case Key::kbc: return bc ? "bc" : "ad";
    case Key::kAMdots: case Key::kPMdots: return pm ? "P.M." : "A.M.";
    case Key::kAM: case Key::kPM: return pm ? "PM" : "AM";
    case Key::kamDots: case Key::kpmDots: return pm ? "p.m." : "a.m.";
    case Key::kam: case Key::kpm: return pm ? "pm" : "am";
    case Key::kCC: {
      int64_t c = f.year > 0 ? (f.year - 1) / 100 + 1 : f.year / 100 - 1;
      if (c > 99 || c < -99) return std::to_string(c);
      return fmt::format("{:0{}}", c, fm ? 0 : c >= 0 ? 2 : 3);
    }
    case Key::kDAY: return name(Upper(kDays[dow]), 9);
    case Key::kDay: return name(kDays[dow], 9);
    case Key::kday: return name(Lower(kDays[dow]), 9);
    case Key::kDY: return Upper(kDays[dow].substr(0, 3));
    case Key::kDy: return std::string(kDays[dow].substr(0, 3));
    case Key::kdy: return Lower(kDays[dow].substr(0, 3));
    case Key::kDDD: return padded(doy, 3);
    case Key::kIDDD: return padded((iso_week - 1) * 7 + IsoDow(f.days), 3);
    case Key::kDD: return padded(f.day, 2);
    case Key::kD: return std::to_string(dow + 1);
    case Key::kID: return std::to_string(IsoDow(f.days));
    case Key::kFF1: return fmt::format("{:01}", f.micros / 100000);
    case Key::kFF2: return fmt::format("{:02}", f.micros / 10000);
    case Key::kFF3: case Key::kMS: return fmt::format("{:03}", f.micros / 1000);
    case Key::kFF4: return fmt::format("{:04}", f.micros / 100);
    case Key::kFF5: return fmt::format("{:05}", f.micros / 10);
    case Key::kFF6: case Key::kUS: return fmt::format("{:06}", f.micros);
    case Key::kFX: return "";
    case Key::kHH24: return padded(f.hour, 2);
    case Key::kHH12: case Key::kHH: return padded(hour12, 2);
    case Key::kIW: return padded(iso_week, 2);
    case Key::kIYYY: return iyear <= 9999 ? padded(iyear, 4) : std::to_string(iyear);
    case Key::kIYY: return padded(iyear % 1000, 3);
    case Key::kIY: return padded(iyear % 100, 2);
    case Key::kI: return std::to_string(iyear % 10);
    case Key::kJ: return std::to_string(f.days + 2451545);  // date2j(2000, 1, 1)
    case Key::kMI: return padded(f.minute, 2);
    case Key::kMM: return padded(f.month, 2);
    case Key::kMONTH: return name(Upper(kMonths[f.month - 1]), 9);
    case Key::kMonth: return name(kMonths[f.month - 1], 9);
    case Key::kmonth: return name(Lower(kMonths[f.month - 1]), 9);
    case Key::kMON: return Upper(kMonths[f.month - 1].substr(0, 3));
    case Key::kMon: return std::string(kMonths[f.month - 1].substr(0, 3));
    case Key::kmon: return Lower(kMonths[f.month - 1].substr(0, 3));
    case Key::kOF: {
      std::string out = fmt::format("{}{:0{}}", m.gmtoff >= 0 ? '+' : '-', abs_off / 3600, fm ? 0 : 2);
      if (abs_off % 3600 != 0) out += fmt::format(":{:02}", abs_off % 3600 / 60);
      return out;
    }
    case Key::kQ: return std::to_string((f.month - 1) / 3 + 1);
    case Key::kRM: return name(kRomanMonths[f.month - 1], 4);
    case Key::krm: return name(Lower(kRomanMonths[f.month - 1]), 4);
    case Key::kSSSS: return std::to_string(f.hour * 3600 + f.minute * 60 + f.second);
    case Key::kSS: return padded(f.second, 2);
    case Key::kTZH: return fmt::format("{}{:02}", m.gmtoff >= 0 ? '+' : '-', abs_off / 3600);
    case Key::kTZM: return fmt::format("{:02}", abs_off % 3600 / 60);
    case Key::kTZ: return Upper(m.zone_abbreviation);
    case Key::ktz: return Lower(m.zone_abbreviation);
    case Key::kWW: return padded((doy - 1) / 7 + 1, 2);
    case Key::kW: return std::to_string((f.day - 1) / 7 + 1);
    case Key::kYcommaYYY: return fmt::format("{},{:03}", year / 1000, year % 1000);
    case Key::kYYYY: return year <= 9999 ? padded(year, 4) : std::to_string(year);
    case Key::kYYY: return padded(year % 1000, 3);
    case Key::kYY: return padded(year % 100, 2);
    case Key::kY: return std::to_string(year % 10);
  }
  return "";
}

// Keywords whose output is a number, which TH/th may follow.
bool IsNumberKey(Key key) {
  switch (key) {
    case Key::kCC: case Key::kDDD: case Key::kIDDD: case Key::kDD: case Key::kD: case Key::kID: case Key::kHH24:
    case Key::kHH12: case Key::kHH: case Key::kIW: case Key::kIYYY: case Key::kIYY: case Key::kIY: case Key::kI:
    case Key::kJ: case Key::kMI: case Key::kMM: case Key::kMS: case Key::kQ: case Key::kSSSS: case Key::kSS:
    case Key::kTZM: case Key::kUS: case Key::kWW: case Key::kW: case Key::kYcommaYYY: case Key::kYYYY: case Key::kYYY:
    case Key::kYY: case Key::kY:
      return true;
    default:
      return false;
  }
}

std::string ToChar(std::string_view tmpl, const Moment& m) {
  std::string out;
  size_t i = 0;
  auto starts = [&](std::string_view s) { return tmpl.substr(i).starts_with(s); };
  while (i < tmpl.size()) {
    bool fm = false;
    if (starts("FM") || starts("fm") || starts("TM") || starts("tm")) {
      fm = tmpl[i] == 'F' || tmpl[i] == 'f';
      i += 2;
      if (i >= tmpl.size()) break;
    }
    const Keyword* hit = nullptr;
    for (const Keyword& k : kKeywords) {
      if (starts(k.name)) {
        hit = &k;
        break;
      }
    }
    if (hit != nullptr) {
      i += hit->name.size();
      std::string text = Format(hit->key, m, fm);
      if (starts("TH") || starts("th")) {
        if (IsNumberKey(hit->key)) text += Ordinal(text, tmpl[i] == 'T');
        i += 2;
      } else if (starts("SP")) {
        i += 2;  // spelled-out numbers are not implemented in PostgreSQL either
      }
      out += text;
      continue;
    }
    if (tmpl[i] == '"') {
      // A quoted literal; backslash takes the next character.
      for (++i; i < tmpl.size() && tmpl[i] != '"'; ++i) {
        if (tmpl[i] == '\\' && i + 1 < tmpl.size()) ++i;
        out += tmpl[i];
      }
      ++i;
      continue;
    }
    if (tmpl[i] == '\\' && i + 1 < tmpl.size() && tmpl[i + 1] == '"') ++i;
    out += tmpl[i++];
  }
  return out;
}

Result ToCharTimestamp(Args a, const BoundExpr&, ExecContext& ctx) {
  int64_t v = a[0].AsInt();
  std::string_view tmpl = a[1].AsString();
  if (tmpl.empty() || v == kTimestampNegInfinity || v == kTimestampPosInfinity) return Value::Null(TypeId::kText);
  Moment m;
  if (a[0].type == TypeId::kTimestampTz) {
    TimeZone::Offset offset = ctx.output.time_zone.OffsetAt(v);
    m.gmtoff = offset.seconds_east;
    m.zone_abbreviation = offset.abbreviation;
    v += int64_t{offset.seconds_east} * kMicrosPerSecond;
  }
  m.f = Split(v);
  return Value::Str(TypeId::kText, ToChar(tmpl, m));
}

// Present so that calls resolve as in PostgreSQL (to_char(1.5, ...) is the numeric one).
Result NumberToCharNotSupported(Args, const BoundExpr&, ExecContext&) {
  return std::unexpected(MakeError("0A000", "to_char for numbers is not supported yet"));
}

}  // namespace

std::span<const Builtin> FormattingFunctions() {
  static const std::vector<Builtin> kFunctions = {
      {"to_char", {TypeId::kTimestamp, TypeId::kText}, TypeId::kText, ToCharTimestamp},
      {"to_char", {TypeId::kTimestampTz, TypeId::kText}, TypeId::kText, ToCharTimestamp},
      {"to_char", {TypeId::kInt4, TypeId::kText}, TypeId::kText, NumberToCharNotSupported},
      {"to_char", {TypeId::kInt8, TypeId::kText}, TypeId::kText, NumberToCharNotSupported},
      {"to_char", {TypeId::kFloat4, TypeId::kText}, TypeId::kText, NumberToCharNotSupported},
      {"to_char", {TypeId::kFloat8, TypeId::kText}, TypeId::kText, NumberToCharNotSupported},
      {"to_char", {TypeId::kNumeric, TypeId::kText}, TypeId::kText, NumberToCharNotSupported},
  };
  return kFunctions;
}

}  // namespace farmdb::sql
