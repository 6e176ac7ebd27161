// random: the TPC-C random value generators (TPC-C 5.11 Clause 4.3.2): uniform integers,
// NURand, random a-strings and n-strings, customer last names from syllables, and the
// "ORIGINAL" marker in 10% of item and stock data. Seeded and deterministic: one Random per
// thread, seeded from the run's seed, so a load or a run can be repeated.
//
// Thread-safety: a Random belongs to one thread.
#pragma once

#include <cstdint>
#include <random>
#include <string>

namespace farmdb::tpcc {

// The C constants of NURand (Clause 2.1.6). The loader uses kLoad; a run derives its own with
// RunConstants, which keeps C_LAST's run value at a legal distance from the load value
// (Clause 2.1.6.1) without the run having to ask the database what the load used.
struct NURandConstants {
  int64_t c_last = 0;  // A = 255
  int64_t c_id = 0;    // A = 1023
  int64_t ol_i_id = 0;  // A = 8191
};
inline constexpr NURandConstants kLoadConstants{157, 259, 7911};
NURandConstants RunConstants(uint64_t seed);
// Clause 2.1.6.1: |C_run - C_load| in [65, 119], and neither 96 nor 112.
bool ValidLastNameDelta(int64_t c_load, int64_t c_run);

class Random {
 public:
  explicit Random(uint64_t seed, NURandConstants c = kLoadConstants) : gen_(seed), c_(c) {}

  // Uniform in [lo, hi], both inclusive.
  int64_t Uniform(int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(gen_); }
  // NURand(A, x, y) = (((random(0, A) | random(x, y)) + C) % (y - x + 1)) + x.
  int64_t NURand(int64_t a, int64_t x, int64_t y);
  // Clause 2.1.6's draws, over `customers` per district (3,000), `items` (100,000) and `names`
  // last names (1,000).
  int64_t CustomerId(int64_t customers) { return NURand(1023, 1, customers); }
  int64_t ItemId(int64_t items) { return NURand(8191, 1, items); }
  std::string CustomerLastName(int64_t names) { return LastName(NURand(255, 0, names - 1)); }

  // Random a-string / n-string with a length uniform in [min_len, max_len] (Clause 4.3.2.2).
  std::string AString(int min_len, int max_len);
  std::string NString(int min_len, int max_len);
  // i_data / s_data: an a-string of 26..50, 10% holding "ORIGINAL" at a random position.
  std::string Data();
  // w_zip etc.: 4 random digits then "11111" (Clause 4.3.2.7).
  std::string Zip() { return NString(4, 4) + "11111"; }
  // A fixed-point value in [lo, hi] hundredths (or ten-thousandths), e.g. Decimal(0, 2000, 4)
  // for a tax rate "0.0000".."0.2000".
  std::string Decimal(int64_t lo, int64_t hi, int scale) { return FormatDecimal(Uniform(lo, hi), scale); }

  // The syllable name of a number in [0, 999] (Clause 4.3.2.3): 371 -> "PRICALLYOUGHT".
  static std::string LastName(int64_t n);
  // `units` / 10^scale as text: FormatDecimal(-1000, 2) == "-10.00".
  static std::string FormatDecimal(int64_t units, int scale);

 private:
  std::mt19937_64 gen_;
  NURandConstants c_;
};

}  // namespace farmdb::tpcc
