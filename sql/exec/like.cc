// LIKE / ILIKE matching after PostgreSQL's like_match.c (MatchText): `%` matches any run,
// `_` one character (one byte for bytea), a backslash takes the next character literally.
// ILIKE folds ASCII letters only, as the C locale does. ESCAPE 'c' was turned into backslash
// escapes beforehand by like_escape() (functions_string.cc).
#include "sql/exec/builtins.h"

namespace farmdb::sql {
namespace {

char Fold(char c, bool fold) {
  return fold && c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

// Length of the UTF-8 character starting at s[i] (one byte when `bytes`).
size_t CharLen(std::string_view s, size_t i, bool bytes) {
  if (bytes) return 1;
  size_t n = 1;
  while (i + n < s.size() && (static_cast<unsigned char>(s[i + n]) & 0xC0) == 0x80) ++n;
  return n;
}

enum class Match { kTrue, kFalse, kAbort };

// MatchText's recursion: kAbort means no later start of a `%` can match either.
std::expected<Match, Error> MatchFrom(std::string_view t, std::string_view p, bool fold, bool bytes) {
  size_t ti = 0, pi = 0;
  while (ti < t.size() && pi < p.size()) {
    if (p[pi] == '\\') {
      if (++pi >= p.size()) {
        return std::unexpected(MakeError("22025", "LIKE pattern must not end with escape character"));
      }
      if (Fold(p[pi], fold) != Fold(t[ti], fold)) return Match::kFalse;
    } else if (p[pi] == '%') {
      // Collapse runs of % and _: each _ consumes one character.
      while (pi < p.size() && (p[pi] == '%' || p[pi] == '_')) {
        if (p[pi] == '_') {
          if (ti >= t.size()) return Match::kAbort;
          ti += CharLen(t, ti, bytes);
        }
        ++pi;
      }
      if (pi >= p.size()) return Match::kTrue;
      while (ti < t.size()) {
        auto m = MatchFrom(t.substr(ti), p.substr(pi), fold, bytes);
        if (!m) return m;
        if (*m != Match::kFalse) return *m;
        ti += CharLen(t, ti, bytes);
      }
      return Match::kAbort;
    } else if (p[pi] == '_') {
      ti += CharLen(t, ti, bytes);
      ++pi;
      continue;
    } else if (Fold(p[pi], fold) != Fold(t[ti], fold)) {
      return Match::kFalse;
    }
    // A literal byte matched; multibyte characters match byte by byte.
    ++ti;
    ++pi;
  }
  if (ti < t.size()) return Match::kFalse;
  while (pi < p.size() && p[pi] == '%') ++pi;
  return pi >= p.size() ? Match::kTrue : Match::kAbort;
}

}  // namespace

std::expected<bool, Error> LikeMatch(std::string_view text, std::string_view pattern, bool case_insensitive, bool bytes) {
  auto m = MatchFrom(text, pattern, case_insensitive, bytes);
  if (!m) return std::unexpected(m.error());
  return *m == Match::kTrue;
}

}  // namespace farmdb::sql
