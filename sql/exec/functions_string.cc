// String functions and the LIKE operators with PostgreSQL 15's types, results and errors
// (varlena.c, oracle_compat.c, like.c). Strings are UTF-8 (the server encoding); positions
// and lengths count characters, bytea ones bytes. Case mapping is ASCII only (the C locale).
#include <algorithm>

#include <fmt/format.h>
#include <openssl/evp.h>

#include "sql/exec/builtins.h"

namespace farmdb::sql {
namespace {

using enum TypeId;
using Args = std::span<const Value>;
using Result = std::expected<Value, Error>;

constexpr int64_t kMaxAllocSize = 0x3fffffff;  // MaxAllocSize: longer results fail with 54000

Result Text(std::string s) { return Value::Str(kText, std::move(s)); }

// The byte offset of every character start, plus the end.
std::vector<size_t> CharStarts(std::string_view s) {
  std::vector<size_t> starts;
  for (size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) starts.push_back(i);
  }
  starts.push_back(s.size());
  return starts;
}

int64_t CharCount(std::string_view s) { return static_cast<int64_t>(CharStarts(s).size()) - 1; }

// bpchar arguments reach text functions without their padding (the bpchar -> text cast).
std::string_view Str(const Value& v) {
  return v.type == kBpchar ? TrimTrailingBlanks(v.AsString()) : std::string_view(v.AsString());
}

char AsciiUpper(char c) { return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c; }
char AsciiLower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }
bool AsciiAlnum(char c) { return (c >= '0' && c <= '9') || (AsciiLower(c) >= 'a' && AsciiLower(c) <= 'z'); }

Result Upper(Args a, const BoundExpr&, ExecContext&) {
  std::string s(Str(a[0]));
  for (char& c : s) c = AsciiUpper(c);
  return Text(std::move(s));
}

Result Lower(Args a, const BoundExpr&, ExecContext&) {
  std::string s(Str(a[0]));
  for (char& c : s) c = AsciiLower(c);
  return Text(std::move(s));
}

Result Initcap(Args a, const BoundExpr&, ExecContext&) {
  std::string s(Str(a[0]));
  bool in_word = false;
  for (char& c : s) {
    c = in_word ? AsciiLower(c) : AsciiUpper(c);
    // In the C locale only ASCII letters and digits make words: "élan" becomes "éLan".
    in_word = AsciiAlnum(c);
  }
  return Text(std::move(s));
}

Result CharLength(Args a, const BoundExpr&, ExecContext&) {
  if (a[0].type == kBytea) return Value::Int(kInt4, static_cast<int64_t>(a[0].AsString().size()));
  return Value::Int(kInt4, CharCount(Str(a[0])));
}

Result OctetLength(Args a, const BoundExpr&, ExecContext&) {
  // octet_length(bpchar) counts the padding, unlike length(bpchar).
  return Value::Int(kInt4, static_cast<int64_t>(a[0].AsString().size()));
}

// SQL substring semantics on [start, start + count) in characters (bytes for bytea), 1-based;
// the part before 1 is cut off. A negative count fails.
Result Substring(Args a, const BoundExpr& e, ExecContext&) {
  bool bytes = e.type == kBytea;
  std::string_view s = Str(a[0]);
  int64_t start = a[1].AsInt();
  int64_t end = INT64_MAX;
  if (a.size() > 2) {
    int64_t count = a[2].AsInt();
    if (count < 0) return std::unexpected(MakeError("22011", "negative substring length not allowed"));
    end = start + count;  // both are int4: no overflow in int64
  }
  int64_t from = std::max<int64_t>(start, 1) - 1;
  std::vector<size_t> starts;
  if (!bytes) starts = CharStarts(s);
  int64_t n = bytes ? static_cast<int64_t>(s.size()) : static_cast<int64_t>(starts.size()) - 1;
  int64_t to = std::min(end - 1, n);
  if (to <= from || from >= n) return Value::Str(e.type, "");
  size_t b = bytes ? from : starts[from], f = bytes ? to : starts[to];
  return Value::Str(e.type, std::string(s.substr(b, f - b)));
}

// overlay(s PLACING r FROM p [FOR n]): s's first p - 1 characters, r, then s from p + n
// (n defaults to r's length); errors are those of the two substrings, as in text_overlay.
Result Overlay(Args a, const BoundExpr& e, ExecContext& ctx) {
  bool bytes = e.type == kBytea;
  std::string_view r = Str(a[1]);
  int64_t from = a[2].AsInt();
  int64_t count = a.size() > 3 ? a[3].AsInt() : (bytes ? static_cast<int64_t>(r.size()) : CharCount(r));
  Value head_args[] = {a[0], Value::Int(kInt4, 1), Value::Int(kInt4, from - 1)};
  Value tail_args[] = {a[0], Value::Int(kInt4, from + count)};
  auto head = Substring(head_args, e, ctx);
  if (!head) return head;
  auto tail = Substring(tail_args, e, ctx);
  if (!tail) return tail;
  return Value::Str(e.type, head->AsString() + std::string(r) + tail->AsString());
}

Result RegexNotSupported(Args, const BoundExpr&, ExecContext&) {
  return std::unexpected(MakeError("0A000", "regular expressions are not supported yet"));
}

// position(haystack, needle) (POSITION(needle IN haystack)) and strpos: 1-based characters.
Result Position(Args a, const BoundExpr&, ExecContext&) {
  std::string_view s = Str(a[0]), needle = Str(a[1]);
  size_t at = s.find(needle);
  if (at == std::string_view::npos) return Value::Int(kInt4, 0);
  if (a[0].type == kBytea) return Value::Int(kInt4, static_cast<int64_t>(at) + 1);
  return Value::Int(kInt4, CharCount(s.substr(0, at)) + 1);
}

// btrim/ltrim/rtrim: removes the longest prefix/suffix made of the characters of `chars`.
template <bool kLeft, bool kRight>
Result Trim(Args a, const BoundExpr& e, ExecContext&) {
  std::string_view s = Str(a[0]);
  std::string_view chars = a.size() > 1 ? Str(a[1]) : std::string_view(" ");
  bool bytes = e.type == kBytea;
  std::vector<std::string_view> set;
  if (bytes) {
    for (size_t i = 0; i < chars.size(); ++i) set.push_back(chars.substr(i, 1));
  } else {
    std::vector<size_t> st = CharStarts(chars);
    for (size_t i = 0; i + 1 < st.size(); ++i) set.push_back(chars.substr(st[i], st[i + 1] - st[i]));
  }
  auto in_set = [&](std::string_view c) { return std::find(set.begin(), set.end(), c) != set.end(); };
  std::vector<size_t> st;
  if (bytes) {
    for (size_t i = 0; i <= s.size(); ++i) st.push_back(i);
  } else {
    st = CharStarts(s);
  }
  size_t first = 0, last = st.size() - 1;  // characters [first, last)
  if (kLeft) {
    while (first < last && in_set(s.substr(st[first], st[first + 1] - st[first]))) ++first;
  }
  if (kRight) {
    while (last > first && in_set(s.substr(st[last - 1], st[last] - st[last - 1]))) --last;
  }
  return Value::Str(e.type, std::string(s.substr(st[first], st[last] - st[first])));
}

Result Replace(Args a, const BoundExpr&, ExecContext&) {
  std::string_view s = Str(a[0]), from = Str(a[1]), to = Str(a[2]);
  if (from.empty()) return Text(std::string(s));
  std::string out;
  size_t pos = 0;
  for (size_t at; (at = s.find(from, pos)) != std::string_view::npos; pos = at + from.size()) {
    out.append(s.substr(pos, at - pos)).append(to);
  }
  out.append(s.substr(pos));
  return Text(std::move(out));
}

Result Translate(Args a, const BoundExpr&, ExecContext&) {
  std::string_view s = Str(a[0]), from = Str(a[1]), to = Str(a[2]);
  std::vector<size_t> fs = CharStarts(from), ts = CharStarts(to), ss = CharStarts(s);
  auto ch = [](std::string_view str, const std::vector<size_t>& st, size_t i) { return str.substr(st[i], st[i + 1] - st[i]); };
  std::string out;
  for (size_t i = 0; i + 1 < ss.size(); ++i) {
    std::string_view c = ch(s, ss, i);
    size_t k = 0;
    while (k + 1 < fs.size() && ch(from, fs, k) != c) ++k;
    if (k + 1 >= fs.size()) out.append(c);
    else if (k + 1 < ts.size()) out.append(ch(to, ts, k));
  }
  return Text(std::move(out));
}

// concat/concat_ws: non-NULL arguments in their text output form.
Result Concat(Args a, const BoundExpr&, ExecContext& ctx) {
  std::string out;
  for (const Value& v : a) {
    if (!v.IsNull()) out += FormatText(v, ctx.output);
  }
  return Text(std::move(out));
}

Result ConcatWs(Args a, const BoundExpr&, ExecContext& ctx) {
  if (a[0].IsNull()) return Value::Null(kText);
  std::string out;
  bool first = true;
  for (const Value& v : a.subspan(1)) {
    if (v.IsNull()) continue;
    if (!first) out += a[0].AsString();
    out += FormatText(v, ctx.output);
    first = false;
  }
  return Text(std::move(out));
}

// left/right: n characters, or all but |n| when n is negative.
template <bool kLeft>
Result LeftRight(Args a, const BoundExpr&, ExecContext&) {
  std::string_view s = Str(a[0]);
  std::vector<size_t> st = CharStarts(s);
  int64_t len = static_cast<int64_t>(st.size()) - 1, n = a[1].AsInt();
  // right(s, INT_MIN) is all of s in PostgreSQL: text_right negates n in 32 bits.
  if (!kLeft && n == INT32_MIN) return Text(std::string(s));
  int64_t keep = std::clamp<int64_t>(n >= 0 ? n : len + n, 0, len);
  if (kLeft) return Text(std::string(s.substr(0, st[keep])));
  return Text(std::string(s.substr(st[len - keep])));
}

template <bool kLeft>
Result Pad(Args a, const BoundExpr&, ExecContext&) {
  std::string_view s = Str(a[0]);
  std::string_view fill = a.size() > 2 ? Str(a[2]) : std::string_view(" ");
  int64_t len = std::max<int64_t>(a[1].AsInt(), 0);
  std::vector<size_t> st = CharStarts(s);
  int64_t have = static_cast<int64_t>(st.size()) - 1;
  if (have >= len || fill.empty()) return Text(std::string(s.substr(0, st[std::min(have, len)])));
  std::vector<size_t> fs = CharStarts(fill);
  int64_t fill_chars = static_cast<int64_t>(fs.size()) - 1;
  if ((len - have) * static_cast<int64_t>(fill.size() / fill_chars + 1) > kMaxAllocSize) {
    return std::unexpected(MakeError("54000", "requested length too large"));
  }
  std::string pad;
  for (int64_t i = 0; i < len - have; ++i) {
    size_t k = i % fill_chars;
    pad.append(fill.substr(fs[k], fs[k + 1] - fs[k]));
  }
  return Text(kLeft ? pad + std::string(s) : std::string(s) + pad);
}

Result Repeat(Args a, const BoundExpr&, ExecContext&) {
  std::string_view s = Str(a[0]);
  int64_t n = std::max<int64_t>(a[1].AsInt(), 0);
  if (static_cast<int64_t>(s.size()) * n > kMaxAllocSize) {
    return std::unexpected(MakeError("54000", "requested length too large"));
  }
  std::string out;
  for (int64_t i = 0; i < n; ++i) out.append(s);
  return Text(std::move(out));
}

Result Reverse(Args a, const BoundExpr&, ExecContext&) {
  std::string_view s = Str(a[0]);
  std::vector<size_t> st = CharStarts(s);
  std::string out;
  for (size_t i = st.size() - 1; i > 0; --i) out.append(s.substr(st[i - 1], st[i] - st[i - 1]));
  return Text(std::move(out));
}

Result SplitPart(Args a, const BoundExpr&, ExecContext&) {
  std::string_view s = Str(a[0]), sep = Str(a[1]);
  int64_t field = a[2].AsInt();
  if (field == 0) return std::unexpected(MakeError("22023", "field position must not be zero"));
  std::vector<std::string_view> parts;
  if (s.empty()) return Text("");
  if (sep.empty()) {
    parts.push_back(s);
  } else {
    size_t pos = 0;
    for (size_t at; (at = s.find(sep, pos)) != std::string_view::npos; pos = at + sep.size()) parts.push_back(s.substr(pos, at - pos));
    parts.push_back(s.substr(pos));
  }
  int64_t n = static_cast<int64_t>(parts.size());
  int64_t index = field > 0 ? field - 1 : n + field;  // negative: from the end
  if (index < 0 || index >= n) return Text("");
  return Text(std::string(parts[index]));
}

Result Ascii(Args a, const BoundExpr&, ExecContext&) {
  std::string_view s = Str(a[0]);
  if (s.empty()) return Value::Int(kInt4, 0);
  unsigned char c = s[0];
  if (c < 0x80) return Value::Int(kInt4, c);
  int n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
  int64_t cp = c & (0x7F >> n);
  for (int i = 1; i < n && i < static_cast<int>(s.size()); ++i) cp = cp << 6 | (static_cast<unsigned char>(s[i]) & 0x3F);
  return Value::Int(kInt4, cp);
}

Result Chr(Args a, const BoundExpr&, ExecContext&) {
  int64_t cp = a[0].AsInt();
  if (cp == 0) return std::unexpected(MakeError("54000", "null character not permitted"));
  if (cp < 0) return std::unexpected(MakeError("54000", "character number must be positive"));
  if (cp > 0x10FFFF) return std::unexpected(MakeError("54000", fmt::format("requested character too large for encoding: {}", cp)));
  if (cp >= 0xD800 && cp <= 0xDFFF) {
    return std::unexpected(MakeError("54000", fmt::format("requested character not valid for encoding: {}", cp)));
  }
  std::string out;
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | cp >> 6);
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | cp >> 12);
    out += static_cast<char>(0x80 | (cp >> 6 & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | cp >> 18);
    out += static_cast<char>(0x80 | (cp >> 12 & 0x3F));
    out += static_cast<char>(0x80 | (cp >> 6 & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
  return Text(std::move(out));
}

Result Md5(Args a, const BoundExpr&, ExecContext&) {
  std::string_view s = Str(a[0]);
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(s.data(), s.size(), digest, &len, EVP_md5(), nullptr);
  std::string hex;
  for (unsigned int i = 0; i < len; ++i) hex += fmt::format("{:02x}", digest[i]);
  return Text(std::move(hex));
}

Result StartsWith(Args a, const BoundExpr&, ExecContext&) { return Value::Bool(Str(a[0]).starts_with(Str(a[1]))); }

Result ToHex(Args a, const BoundExpr&, ExecContext&) {
  // Two's complement of the argument's width: to_hex(-1) is ffffffff for integer.
  int64_t v = a[0].AsInt();
  uint64_t bits = a[0].type == kInt8 ? static_cast<uint64_t>(v) : static_cast<uint32_t>(v);
  return Text(fmt::format("{:x}", bits));
}

// like_escape(pattern, escape): the pattern rewritten to backslash escapes (like_match.c's
// do_like_escape). An empty escape turns escaping off.
Result LikeEscape(Args a, const BoundExpr& e, ExecContext&) {
  std::string_view p = Str(a[0]), esc = Str(a[1]);
  bool bytes = e.type == kBytea;
  if (!esc.empty() && (bytes ? esc.size() != 1 : CharCount(esc) != 1)) {
    Error error = MakeError("22025", "invalid escape string");
    error.hint = "Escape string must be empty or one character.";
    return std::unexpected(error);
  }
  std::string out;
  std::vector<size_t> st = bytes ? std::vector<size_t>{} : CharStarts(p);
  size_t n = bytes ? p.size() : st.size() - 1;
  auto ch = [&](size_t i) { return bytes ? p.substr(i, 1) : p.substr(st[i], st[i + 1] - st[i]); };
  bool after_escape = false;
  for (size_t i = 0; i < n; ++i) {
    std::string_view c = ch(i);
    if (esc.empty()) {
      if (c == "\\") out += '\\';  // a literal backslash
      out.append(c);
    } else if (after_escape) {
      out.append(c);
      after_escape = false;
    } else if (c == esc) {
      out += '\\';
      after_escape = true;
    } else if (c == "\\") {
      out += "\\\\";
    } else {
      out.append(c);
    }
  }
  return Value::Str(e.type, std::move(out));
}

// ~~ !~~ ~~* !~~* over text-like operands, ~~ !~~ over bytea. bpchar keeps its padding, as
// bpcharlike matches the stored value.
template <bool kNegated, bool kCaseInsensitive>
Result Like(Args a, const BoundExpr&, ExecContext&) {
  bool bytes = a[0].type == kBytea;
  auto m = LikeMatch(a[0].AsString(), a[1].AsString(), kCaseInsensitive, bytes);
  if (!m) return std::unexpected(m.error());
  return Value::Bool(*m != kNegated);
}

}  // namespace

std::span<const Builtin> StringFunctions() {
  static const std::vector<Builtin> kFunctions = {
      {"upper", {kText}, kText, Upper},
      {"lower", {kText}, kText, Lower},
      {"initcap", {kText}, kText, Initcap},
      {"length", {kText}, kInt4, CharLength},
      {"length", {kBpchar}, kInt4, CharLength},
      {"length", {kBytea}, kInt4, CharLength},
      {"char_length", {kText}, kInt4, CharLength},
      {"char_length", {kBpchar}, kInt4, CharLength},
      {"character_length", {kText}, kInt4, CharLength},
      {"character_length", {kBpchar}, kInt4, CharLength},
      {"octet_length", {kText}, kInt4, OctetLength},
      {"octet_length", {kBpchar}, kInt4, OctetLength},
      {"octet_length", {kBytea}, kInt4, OctetLength},
      {"substr", {kText, kInt4}, kText, Substring},
      {"substr", {kText, kInt4, kInt4}, kText, Substring},
      {"substr", {kBytea, kInt4}, kBytea, Substring},
      {"substr", {kBytea, kInt4, kInt4}, kBytea, Substring},
      {"substring", {kText, kInt4}, kText, Substring},
      {"substring", {kText, kInt4, kInt4}, kText, Substring},
      {"substring", {kBytea, kInt4}, kBytea, Substring},
      {"substring", {kBytea, kInt4, kInt4}, kBytea, Substring},
      // substring(text FROM pattern [FOR escape]): SQL and POSIX regular expressions.
      {"substring", {kText, kText}, kText, RegexNotSupported},
      {"substring", {kText, kText, kText}, kText, RegexNotSupported},
      {"overlay", {kText, kText, kInt4}, kText, Overlay},
      {"overlay", {kText, kText, kInt4, kInt4}, kText, Overlay},
      {"overlay", {kBytea, kBytea, kInt4}, kBytea, Overlay},
      {"overlay", {kBytea, kBytea, kInt4, kInt4}, kBytea, Overlay},
      {"position", {kText, kText}, kInt4, Position},
      {"position", {kBytea, kBytea}, kInt4, Position},
      {"strpos", {kText, kText}, kInt4, Position},
      {"btrim", {kText}, kText, Trim<true, true>},
      {"btrim", {kText, kText}, kText, Trim<true, true>},
      {"btrim", {kBytea, kBytea}, kBytea, Trim<true, true>},
      {"ltrim", {kText}, kText, Trim<true, false>},
      {"ltrim", {kText, kText}, kText, Trim<true, false>},
      {"ltrim", {kBytea, kBytea}, kBytea, Trim<true, false>},
      {"rtrim", {kText}, kText, Trim<false, true>},
      {"rtrim", {kText, kText}, kText, Trim<false, true>},
      {"rtrim", {kBytea, kBytea}, kBytea, Trim<false, true>},
      {"replace", {kText, kText, kText}, kText, Replace},
      {"translate", {kText, kText, kText}, kText, Translate},
      {"concat", {}, kText, Concat, false, true},
      {"concat_ws", {kText}, kText, ConcatWs, false, true},
      {"left", {kText, kInt4}, kText, LeftRight<true>},
      {"right", {kText, kInt4}, kText, LeftRight<false>},
      {"lpad", {kText, kInt4}, kText, Pad<true>},
      {"lpad", {kText, kInt4, kText}, kText, Pad<true>},
      {"rpad", {kText, kInt4}, kText, Pad<false>},
      {"rpad", {kText, kInt4, kText}, kText, Pad<false>},
      {"repeat", {kText, kInt4}, kText, Repeat},
      {"reverse", {kText}, kText, Reverse},
      {"split_part", {kText, kText, kInt4}, kText, SplitPart},
      {"ascii", {kText}, kInt4, Ascii},
      {"chr", {kInt4}, kText, Chr},
      {"md5", {kText}, kText, Md5},
      {"md5", {kBytea}, kText, Md5},
      {"starts_with", {kText, kText}, kBool, StartsWith},
      {"to_hex", {kInt4}, kText, ToHex},
      {"to_hex", {kInt8}, kText, ToHex},
      {"like_escape", {kText, kText}, kText, LikeEscape},
      {"like_escape", {kBytea, kBytea}, kBytea, LikeEscape},
  };
  return kFunctions;
}

std::span<const Builtin> StringOperators() {
  static const std::vector<Builtin> kOperators = {
      {"~~", {kText, kText}, kBool, Like<false, false>},
      {"~~", {kBpchar, kText}, kBool, Like<false, false>},
      {"~~", {kName, kText}, kBool, Like<false, false>},
      {"~~", {kBytea, kBytea}, kBool, Like<false, false>},
      {"!~~", {kText, kText}, kBool, Like<true, false>},
      {"!~~", {kBpchar, kText}, kBool, Like<true, false>},
      {"!~~", {kName, kText}, kBool, Like<true, false>},
      {"!~~", {kBytea, kBytea}, kBool, Like<true, false>},
      {"~~*", {kText, kText}, kBool, Like<false, true>},
      {"~~*", {kBpchar, kText}, kBool, Like<false, true>},
      {"~~*", {kName, kText}, kBool, Like<false, true>},
      {"!~~*", {kText, kText}, kBool, Like<true, true>},
      {"!~~*", {kBpchar, kText}, kBool, Like<true, true>},
      {"!~~*", {kName, kText}, kBool, Like<true, true>},
  };
  return kOperators;
}

}  // namespace farmdb::sql
