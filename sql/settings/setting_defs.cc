#include "sql/settings/setting_defs.h"
#include "sql/types/ascii.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <fmt/format.h>

#include "sql/types/datetime.h"

namespace farmdb::sql {
namespace {

using enum SettingKind;
constexpr int64_t kIntMax = 2147483647;
constexpr std::string_view kIsolations = "serializable,repeatable read,read committed,read uncommitted";

// Sorted by lower-cased name, as SHOW ALL lists them.
const std::array kDefs = {
    SettingDef{"application_name", kString, "", "Sets the application name to be reported in statistics and logs.", false, true},
    SettingDef{"bytea_output", kEnum, "hex", "Sets the output format for bytea.", false, false, false, false, 0, 0, "escape,hex"},
    SettingDef{"client_encoding", kString, "UTF8", "Sets the client's character set encoding.", false, true},
    SettingDef{"client_min_messages", kEnum, "notice", "Sets the message levels that are sent to the client.", false, false, false, false, 0, 0, "debug5,debug4,debug3,debug2,debug1,log,notice,warning,error"},
    SettingDef{"DateStyle", kString, "ISO, MDY", "Sets the display format for date and time values.", false, true, true},
    SettingDef{"default_transaction_isolation", kEnum, "serializable", "Sets the transaction isolation level of each new transaction.", false, false, false, false, 0, 0, kIsolations},
    SettingDef{"default_transaction_read_only", kBool, "off", "Sets the default read-only status of new transactions.", false, true},
    SettingDef{"extra_float_digits", kInt, "1", "Sets the number of digits displayed for floating-point values.", false, false, false, false, -15, 3},
    SettingDef{"farmdb.strict", kBool, "on", "Strict serializability (FaRMv2 section 4.2); off allows non-strict transactions.", false, false},
    SettingDef{"idle_in_transaction_session_timeout", kInt, "0", "Sets the maximum allowed idle time between queries, when in a transaction.", false, false, false, true, 0, kIntMax},
    SettingDef{"in_hot_standby", kBool, "off", "Shows whether hot standby is currently active.", true, true},
    SettingDef{"integer_datetimes", kBool, "on", "Shows whether datetimes are integer based.", true, true},
    SettingDef{"IntervalStyle", kEnum, "postgres", "Sets the display format for interval values.", false, true, false, false, 0, 0, "postgres,postgres_verbose,sql_standard,iso_8601"},
    SettingDef{"is_superuser", kBool, "off", "Shows whether the current user is a superuser.", true, true},
    SettingDef{"lc_messages", kString, "C.UTF-8", "Sets the language in which messages are displayed."},
    SettingDef{"lc_monetary", kString, "C.UTF-8", "Sets the locale for formatting monetary amounts."},
    SettingDef{"lc_numeric", kString, "C.UTF-8", "Sets the locale for formatting numbers."},
    SettingDef{"lc_time", kString, "C.UTF-8", "Sets the locale for formatting date and time values."},
    SettingDef{"lock_timeout", kInt, "0", "Sets the maximum allowed duration of any wait for a lock.", false, false, false, true, 0, kIntMax},
    SettingDef{"max_identifier_length", kInt, "63", "Shows the maximum identifier length.", true, false, false, false, 63, 63},
    SettingDef{"search_path", kString, "\"$user\", public", "Sets the schema search order for names that are not schema-qualified.", false, false, true},
    SettingDef{"server_encoding", kString, "UTF8", "Shows the server (database) character set encoding.", true, true},
    SettingDef{"server_version", kString, "15.0 (farmdb 0.1.0)", "Shows the server version.", true, true},
    SettingDef{"server_version_num", kInt, "150000", "Shows the server version as an integer.", true, false, false, false, 150000, 150000},
    SettingDef{"session_authorization", kString, "", "Sets the session user name.", true, true},
    SettingDef{"standard_conforming_strings", kBool, "on", "Causes '...' strings to treat backslashes literally.", false, true},
    SettingDef{"statement_timeout", kInt, "0", "Sets the maximum allowed duration of any statement.", false, false, false, true, 0, kIntMax},
    SettingDef{"synchronous_commit", kEnum, "on", "Sets the current transaction's synchronization level.", false, false, false, false, 0, 0, "local,remote_write,remote_apply,on,off"},
    SettingDef{"TimeZone", kString, "UTC", "Sets the time zone for displaying and interpreting time stamps.", false, true},
    SettingDef{"transaction_isolation", kEnum, "serializable", "Sets the current transaction's isolation level.", false, false, false, false, 0, 0, kIsolations},
    SettingDef{"transaction_read_only", kBool, "off", "Sets the current transaction's read-only status.", false, false},
};

std::string Trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\n\r");
  if (b == std::string_view::npos) return {};
  size_t e = s.find_last_not_of(" \t\n\r");
  return std::string(s.substr(b, e - b + 1));
}

Error InvalidValue(const SettingDef& def, std::string_view value) {
  return MakeError("22023", fmt::format("invalid value for parameter \"{}\": \"{}\"", def.name, value));
}

std::expected<std::string, Error> NormalizeBool(const SettingDef& def, std::string_view value) {
  std::string v = AsciiLower(Trim(value));
  auto prefix_of = [&](std::string_view word, size_t min_len) {
    return v.size() >= min_len && word.starts_with(v);
  };
  if (prefix_of("true", 1) || prefix_of("yes", 1) || prefix_of("on", 2) || v == "1") return "on";
  if (prefix_of("false", 1) || prefix_of("no", 1) || prefix_of("off", 2) || v == "0") return "off";
  return std::unexpected(MakeError("22023", fmt::format("parameter \"{}\" requires a Boolean value", def.name)));
}

struct Unit {
  std::string_view name;
  int64_t ms;
};
constexpr std::array<Unit, 5> kUnits = {{{"d", 86400000}, {"h", 3600000}, {"min", 60000}, {"s", 1000}, {"ms", 1}}};

std::expected<std::string, Error> NormalizeInt(const SettingDef& def, std::string_view value) {
  std::string v = Trim(value);
  int64_t n = 0;
  auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec != std::errc() || ptr == v.data()) return std::unexpected(InvalidValue(def, value));
  std::string unit = Trim(std::string_view(ptr, v.data() + v.size() - ptr));
  if (!unit.empty()) {
    bool known = false;
    if (def.in_ms && unit == "us") {
      n = (n + 500) / 1000;
      known = true;
    }
    for (const Unit& u : kUnits) {
      if (def.in_ms && unit == u.name) {
        n *= u.ms;
        known = true;
      }
    }
    if (!known) {
      Error e = InvalidValue(def, value);
      if (def.in_ms) e.hint = "Valid units for this parameter are \"us\", \"ms\", \"s\", \"min\", \"h\", and \"d\".";
      return std::unexpected(e);
    }
  }
  if (n < def.min || n > def.max) {
    return std::unexpected(MakeError("22023", fmt::format("{}{} is outside the valid range for parameter \"{}\" ({} .. {})",
                                                          n, def.in_ms ? " ms" : "", def.name, def.min, def.max)));
  }
  if (!def.in_ms || n == 0) return std::to_string(n);
  for (const Unit& u : kUnits) {
    if (n % u.ms == 0) return fmt::format("{}{}", n / u.ms, u.name);
  }
  return std::to_string(n);
}

std::expected<std::string, Error> NormalizeEnum(const SettingDef& def, std::string_view value) {
  std::string v = AsciiLower(Trim(value));
  // PostgreSQL's synchronous_commit also takes these hidden spellings of on and off.
  if (def.name == "synchronous_commit") {
    if (v == "true" || v == "yes" || v == "1") return "on";
    if (v == "false" || v == "no" || v == "0") return "off";
  }
  std::string_view values = def.enum_values;
  while (!values.empty()) {
    size_t comma = values.find(',');
    std::string_view candidate = values.substr(0, comma);
    if (candidate == v) return std::string(candidate);
    values = comma == std::string_view::npos ? std::string_view() : values.substr(comma + 1);
  }
  Error e = InvalidValue(def, value);
  std::string list(def.enum_values);
  size_t pos = 0;
  while ((pos = list.find(',', pos)) != std::string::npos) list.replace(pos, 1, ", "), pos += 2;
  e.hint = "Available values: " + list + ".";
  return std::unexpected(e);
}

// DateStyle: check_datestyle starts from the current value, so 'DMY' keeps the style; DEFAULT
// takes the session default's parts.
std::expected<std::string, Error> NormalizeDateStyle(const SettingDef& def, std::string_view value,
                                                     std::string_view current, std::string_view reset) {
  auto style = ParseDateStyle(value, ParseDateStyle(current, {}, {}).value_or(DateStyle{}),
                              ParseDateStyle(reset, {}, {}).value_or(DateStyle{}));
  if (!style) {
    Error e = InvalidValue(def, value);
    e.detail = style.error();
    return std::unexpected(e);
  }
  return DateStyleName(*style);
}

std::expected<std::string, Error> NormalizeString(const SettingDef& def, std::string_view value, std::string_view current,
                                                  std::string_view reset) {
  if (def.name == "client_encoding") {
    std::string key;
    for (char c : value) {
      if (std::isalnum(static_cast<unsigned char>(c))) key.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
    }
    // farmdb speaks UTF-8 only; PostgreSQL's spellings of it are accepted.
    if (key == "UTF8" || key == "UNICODE") return "UTF8";
    return std::unexpected(InvalidValue(def, value));
  }
  if (def.name == "DateStyle") return NormalizeDateStyle(def, value, current, reset);
  if (def.name == "TimeZone") {
    auto zone = TimeZone::Load(value);
    if (!zone) return std::unexpected(InvalidValue(def, value));
    return zone->name();
  }
  return std::string(value);
}

}  // namespace

std::span<const SettingDef> SettingDefs() { return kDefs; }

const SettingDef* FindSetting(std::string_view name) {
  auto same_letter = [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
  };
  for (const SettingDef& def : kDefs) {
    if (std::ranges::equal(def.name, name, same_letter)) return &def;
  }
  return nullptr;
}

std::expected<std::string, Error> NormalizeSetting(const SettingDef& def, std::string_view value, std::string_view current,
                                                   std::string_view reset) {
  switch (def.kind) {
    case kBool:
      return NormalizeBool(def, value);
    case kInt:
      return NormalizeInt(def, value);
    case kEnum:
      return NormalizeEnum(def, value);
    case kString:
      return NormalizeString(def, value, current, reset);
  }
  return std::unexpected(InvalidValue(def, value));
}

int64_t SettingInt(const SettingDef& def, std::string_view canonical) {
  int64_t n = 0;
  auto [ptr, ec] = std::from_chars(canonical.data(), canonical.data() + canonical.size(), n);
  std::string_view unit(ptr, canonical.data() + canonical.size() - ptr);
  for (const Unit& u : kUnits) {
    if (unit == u.name) return n * u.ms;
  }
  return n;
}

}  // namespace farmdb::sql
