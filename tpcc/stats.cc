#include "tpcc/stats.h"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace farmdb::tpcc {

void Stats::Count(double seconds, size_t column) {
  if (seconds < 0) return;
  auto i = static_cast<size_t>(seconds / kBucketSeconds);
  if (i >= buckets.size()) buckets.resize(i + 1, Bucket{});
  ++buckets[i][column];
}

void Stats::Merge(Stats&& other) {
  for (size_t t = 0; t < types.size(); ++t) {
    TypeStats& mine = types[t];
    TypeStats& theirs = other.types[t];
    mine.committed += theirs.committed;
    mine.rolled_back += theirs.rolled_back;
    mine.retries += theirs.retries;
    mine.failed += theirs.failed;
    mine.most_attempts = std::max(mine.most_attempts, theirs.most_attempts);
    mine.latency_us.insert(mine.latency_us.end(), theirs.latency_us.begin(), theirs.latency_us.end());
  }
  if (other.buckets.size() > buckets.size()) buckets.resize(other.buckets.size(), Bucket{});
  for (size_t i = 0; i < other.buckets.size(); ++i) {
    for (size_t c = 0; c < Bucket{}.size(); ++c) buckets[i][c] += other.buckets[i][c];
  }
  for (const auto& [reason, n] : other.abort_reasons) abort_reasons[reason] += n;
  for (const auto& [reason, n] : other.late_abort_reasons) late_abort_reasons[reason] += n;
  delivery_skipped += other.delivery_skipped;
}

double QuantileMs(std::vector<uint32_t>& values, double p) {
  if (values.empty()) return 0;
  std::ranges::sort(values);
  // Nearest rank: the smallest value with at least p of the values at or below it.
  auto rank = static_cast<size_t>(std::ceil(p * static_cast<double>(values.size())));
  return values[std::clamp<size_t>(rank, 1, values.size()) - 1] / 1000.0;
}

std::string AbortReason(const std::string& sqlstate, const std::string& message, const std::string& detail) {
  std::string text = detail.empty() ? message : message + ": " + detail;
  std::string out = sqlstate + " ";
  // Numbers (ids, timestamps) become N; digits inside a word ("FaRMv2") stay.
  bool in_number = false, in_word = false;
  for (char c : text) {
    if (c == '\n') c = ' ';  // PostgreSQL's deadlock DETAIL spans lines
    bool digit = std::isdigit(static_cast<unsigned char>(c)) != 0;
    if (!digit || in_word) {
      out += c;
    } else if (!in_number) {
      out += 'N';
    }
    in_number = digit && !in_word;
    in_word = std::isalpha(static_cast<unsigned char>(c)) != 0 || (in_word && digit);
  }
  return out;
}

}  // namespace farmdb::tpcc
