#include "tpcc/random.h"

#include <array>
#include <charconv>
#include <cstdlib>

namespace farmdb::tpcc {
namespace {

constexpr std::string_view kAlnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
constexpr std::array<std::string_view, 10> kSyllables = {"BAR", "OUGHT", "ABLE", "PRI", "PRES",
                                                         "ESE", "ANTI", "CALLY", "ATION", "EING"};

}  // namespace

bool ValidLastNameDelta(int64_t c_load, int64_t c_run) {
  int64_t delta = std::abs(c_run - c_load);
  return delta >= 65 && delta <= 119 && delta != 96 && delta != 112;
}

NURandConstants RunConstants(uint64_t seed) {
  Random r(seed ^ 0x9e3779b97f4a7c15ULL);
  NURandConstants c;
  do {
    c.c_last = r.Uniform(0, 255);
  } while (!ValidLastNameDelta(kLoadConstants.c_last, c.c_last));
  c.c_id = r.Uniform(0, 1023);
  c.ol_i_id = r.Uniform(0, 8191);
  return c;
}

int64_t Random::NURand(int64_t a, int64_t x, int64_t y) {
  int64_t c = a == 255 ? c_.c_last : a == 1023 ? c_.c_id : c_.ol_i_id;
  return (((Uniform(0, a) | Uniform(x, y)) + c) % (y - x + 1)) + x;
}

std::string Random::AString(int min_len, int max_len) {
  std::string s(static_cast<size_t>(Uniform(min_len, max_len)), ' ');
  for (char& ch : s) ch = kAlnum[static_cast<size_t>(Uniform(0, kAlnum.size() - 1))];
  return s;
}

std::string Random::NString(int min_len, int max_len) {
  std::string s(static_cast<size_t>(Uniform(min_len, max_len)), ' ');
  for (char& ch : s) ch = static_cast<char>('0' + Uniform(0, 9));
  return s;
}

std::string Random::Data() {
  std::string s = AString(26, 50);
  if (Uniform(1, 10) == 1) {
    constexpr std::string_view kOriginal = "ORIGINAL";
    s.replace(static_cast<size_t>(Uniform(0, static_cast<int64_t>(s.size() - kOriginal.size()))), kOriginal.size(),
              kOriginal);
  }
  return s;
}

std::string Random::LastName(int64_t n) {
  std::string s;
  s += kSyllables[n / 100];
  s += kSyllables[n / 10 % 10];
  s += kSyllables[n % 10];
  return s;
}

std::string Random::FormatDecimal(int64_t units, int scale) {
  if (scale == 0) return std::to_string(units);
  uint64_t pow = 1;
  for (int i = 0; i < scale; ++i) pow *= 10;
  uint64_t magnitude = units < 0 ? 0 - static_cast<uint64_t>(units) : static_cast<uint64_t>(units);
  // The payment path formats an amount per transaction: to_chars, not a format string.
  char text[48];
  char* end = text;
  if (units < 0) *end++ = '-';
  end = std::to_chars(end, text + sizeof text, magnitude / pow).ptr;
  *end++ = '.';
  char* fraction = end;
  end += scale;
  for (uint64_t rest = magnitude % pow; end > fraction; rest /= 10) *--end = static_cast<char>('0' + rest % 10);
  return std::string(text, fraction + scale);
}

}  // namespace farmdb::tpcc
