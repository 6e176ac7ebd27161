// The table of session settings farmdb knows (PostgreSQL's GUC names, defaults and checks).
//
// Thread-safety: immutable; safe from any thread.
#pragma once

#include <expected>
#include <span>
#include <string>
#include <string_view>

#include "sql/session.h"

namespace farmdb::sql {

enum class SettingKind { kBool, kInt, kEnum, kString };

struct SettingDef {
  std::string_view name;  // canonical spelling (SHOW's column name), e.g. "DateStyle"
  SettingKind kind;
  std::string_view default_value;  // already in canonical form
  std::string_view description;
  bool read_only = false;   // PGC_INTERNAL: SET fails with 55P02
  bool report = false;      // GUC_REPORT: sent to the client as ParameterStatus
  bool list_input = false;  // GUC_LIST_INPUT: SET takes a comma list (search_path)
  bool in_ms = false;       // integer with unit ms (timeouts)
  int64_t min = 0, max = 0;           // kInt range
  std::string_view enum_values = {};  // kEnum: comma-separated, lower case
};

std::span<const SettingDef> SettingDefs();
// Case-insensitive lookup; nullptr when unknown.
const SettingDef* FindSetting(std::string_view name);
// Checks `value` and returns its canonical form ("on", "1s", "ISO, MDY", ...) or the
// PostgreSQL error (22023 with the usual wording). `current` and `reset` are the setting's
// canonical value now and its session default, which DateStyle's partial values build on.
std::expected<std::string, Error> NormalizeSetting(const SettingDef& def, std::string_view value, std::string_view current,
                                                   std::string_view reset);
// Parses a canonical integer-with-unit value back to milliseconds (timeouts) or the integer.
int64_t SettingInt(const SettingDef& def, std::string_view canonical);

}  // namespace farmdb::sql
