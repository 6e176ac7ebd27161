#include "sql/types/timezone.h"

#include <chrono>

#include <cctz/civil_time.h>

#include "sql/types/ascii.h"

namespace farmdb::sql {
namespace {

// PostgreSQL's epoch (2000-01-01) in Unix seconds.
constexpr int64_t kEpochUnixSeconds = 946'684'800;
constexpr int64_t kMicrosPerSecond = 1'000'000;

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - (a % b != 0 && (a < 0) != (b < 0) ? 1 : 0); }

cctz::time_point<cctz::seconds> UnixPoint(int64_t unix_seconds) {
  return cctz::time_point<cctz::seconds>(cctz::seconds(unix_seconds));
}

}  // namespace

TimeZone TimeZone::Utc() { return TimeZone(cctz::utc_time_zone(), "UTC"); }

std::optional<TimeZone> TimeZone::Load(std::string_view name) {
  std::string lower = AsciiLower(name);
  if (lower == "utc" || lower == "gmt" || lower == "z" || lower == "zulu") {
    return TimeZone(cctz::utc_time_zone(), lower == "gmt" ? "GMT" : "UTC");
  }
  // A name is a path under the tz database: refuse anything that could leave it.
  if (name.empty() || name.front() == '/' || name.find("..") != std::string_view::npos) return std::nullopt;
  cctz::time_zone zone;
  if (!cctz::load_time_zone(std::string(name), &zone)) return std::nullopt;
  return TimeZone(zone, std::string(name));
}

TimeZone::Offset TimeZone::OffsetAt(int64_t utc_micros) const {
  int64_t unix_seconds = FloorDiv(utc_micros, kMicrosPerSecond) + kEpochUnixSeconds;
  cctz::time_zone::absolute_lookup al = zone_.lookup(UnixPoint(unix_seconds));
  return Offset{al.offset, al.abbr};
}

int64_t TimeZone::ToUtc(int64_t local_micros) const {
  // Offsets are whole seconds, so the sub-second part passes through unchanged.
  int64_t local_seconds = FloorDiv(local_micros, kMicrosPerSecond);
  int64_t fraction = local_micros - local_seconds * kMicrosPerSecond;
  cctz::civil_second civil = cctz::civil_second(2000, 1, 1) + local_seconds;
  cctz::time_zone::civil_lookup cl = zone_.lookup(civil);
  // UNIQUE: pre == post; SKIPPED: pre uses the offset before the jump; REPEATED: post after it.
  cctz::time_point<cctz::seconds> point = cl.kind == cctz::time_zone::civil_lookup::REPEATED ? cl.post : cl.pre;
  int64_t unix_seconds = point.time_since_epoch().count();
  return (unix_seconds - kEpochUnixSeconds) * kMicrosPerSecond + fraction;
}

}  // namespace farmdb::sql
