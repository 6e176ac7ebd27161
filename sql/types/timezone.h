// TimeZone: the session's TimeZone setting, as timestamptz input and output use it.
//
// Zones come from the system's tz database (Debian's tzdata, read through CCTZ), so names are
// IANA names ("America/New_York", "Europe/Berlin", "UTC", "EST5EDT"); "utc", "gmt" and "z" in
// any case are UTC. POSIX-style specs ("UTC+3") are not supported yet.
// Thread-safety: immutable after Load; copies share CCTZ's process-wide zone cache, which is
// itself thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <cctz/time_zone.h>

namespace farmdb::sql {

class TimeZone {
 public:
  static TimeZone Utc();
  static std::optional<TimeZone> Load(std::string_view name);

  // The name as the setting shows it.
  const std::string& name() const { return name_; }

  struct Offset {
    int32_t seconds_east = 0;  // local = UTC + seconds_east
    std::string abbreviation;  // "EST", "CEST", "+0530": what non-ISO DateStyles print
  };
  // The offset in force at a UTC instant (microseconds since 2000-01-01 00:00 UTC).
  Offset OffsetAt(int64_t utc_micros) const;
  // The UTC instant of a wall-clock time in this zone. As PostgreSQL's DetermineTimeZoneOffset:
  // a time skipped by a forward jump takes the offset in force before the jump, and a time
  // repeated by a backward jump takes the offset in force after it.
  int64_t ToUtc(int64_t local_micros) const;

 private:
  TimeZone(cctz::time_zone zone, std::string name) : zone_(zone), name_(std::move(name)) {}
  cctz::time_zone zone_;
  std::string name_;
};

}  // namespace farmdb::sql
