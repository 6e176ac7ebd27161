// ASCII case folding, as PostgreSQL folds identifiers, setting names and keywords.
#pragma once

#include <cctype>
#include <string>
#include <string_view>

namespace farmdb::sql {

inline std::string AsciiLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace farmdb::sql
