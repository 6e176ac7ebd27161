#include "txn/history.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <sstream>

namespace farmdb::txn {

int64_t RealNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string CheckResult::Summary() const {
  std::ostringstream s;
  s << committed << " committed, " << aborted << " aborted, " << violation_count
    << " violations, " << write_skews << " write skews";
  for (auto& v : violations) s << "\n  " << v;
  return s.str();
}

namespace {

class VersionIndex {
 public:
  VersionIndex(const std::vector<TxnRecord>& h, const std::vector<std::pair<Addr, uint64_t>>& init) {
    for (auto& [a, v] : init) versions_[a].push_back({0, v});
    for (auto& t : h) {
      if (!t.committed) continue;
      for (auto& [a, v] : t.writes) versions_[a].push_back({t.write_ts, v});
    }
    for (auto& [a, vs] : versions_) std::ranges::sort(vs);
  }
  // The committed value with the largest timestamp <= ts (strictly < ts if `before`).
  std::optional<uint64_t> At(Addr a, Timestamp ts, bool before) const {
    auto it = versions_.find(a);
    if (it == versions_.end()) return std::nullopt;
    const auto& vs = it->second;
    auto pos = before ? std::ranges::lower_bound(vs, std::pair{ts, uint64_t{0}})
                      : std::ranges::upper_bound(vs, std::pair{ts, ~uint64_t{0}});
    if (pos == vs.begin()) return std::nullopt;
    return std::prev(pos)->second;
  }
  // Whether a committed write to `a` has a timestamp in (lo, hi).
  bool WrittenBetween(Addr a, Timestamp lo, Timestamp hi) const {
    auto it = versions_.find(a);
    if (it == versions_.end()) return false;
    auto pos = std::ranges::upper_bound(it->second, std::pair{lo, ~uint64_t{0}});
    return pos != it->second.end() && pos->first < hi;
  }

 private:
  std::map<Addr, std::vector<std::pair<Timestamp, uint64_t>>> versions_;
};

std::string Describe(size_t i, const TxnRecord& t) {
  std::ostringstream s;
  s << "txn#" << i << (t.committed ? " committed" : " aborted")
    << (t.isolation == Isolation::kSnapshot ? " SI" : " SER") << (t.strict ? "" : " non-strict")
    << " R=" << t.read_ts << " W=" << t.write_ts;
  return s.str();
}

// The witness order puts every writer at its W, so it is only an order if conflicting writers
// have distinct W. The protocol guarantees that: a conflicting commit takes its W after the other
// released its locks (or after validation saw the object unlocked), which is strictly later in
// master time (FaRMv2 §4.2). Two committed writes of one key at the same W, or two committed
// serializable read-write transactions at the same W where one wrote what the other read, are
// violations the per-transaction checks cannot see (each is judged against the state strictly
// before its W).
template <typename Violation>
void CheckTiedWriteTimestamps(const std::vector<TxnRecord>& history, Violation&& violation) {
  std::map<std::pair<Addr, Timestamp>, size_t> writers;
  std::map<Timestamp, std::vector<size_t>> by_w;  // serializable committed writers
  for (size_t i = 0; i < history.size(); ++i) {
    const TxnRecord& t = history[i];
    if (!t.committed || t.writes.empty()) continue;
    for (auto& [a, v] : t.writes) {
      auto [it, fresh] = writers.try_emplace({a, t.write_ts}, i);
      if (!fresh && it->second != i) {
        violation(Describe(i, t) + " and " + Describe(it->second, history[it->second]) +
                  " both wrote key " + std::to_string(a.raw) + " at the same timestamp");
      }
    }
    if (t.isolation == Isolation::kSerializable) by_w[t.write_ts].push_back(i);
  }
  auto writes_what_reads = [&](const TxnRecord& w, const TxnRecord& r) {
    return std::ranges::any_of(r.reads, [&](auto& rv) {
      return std::ranges::any_of(w.writes, [&](auto& wv) { return wv.first == rv.first; });
    });
  };
  for (auto& [ts, group] : by_w) {
    for (size_t x = 0; x < group.size(); ++x) {
      for (size_t y = x + 1; y < group.size(); ++y) {
        const TxnRecord& a = history[group[x]];
        const TxnRecord& b = history[group[y]];
        if (writes_what_reads(a, b) || writes_what_reads(b, a)) {
          violation(Describe(group[x], a) + " and " + Describe(group[y], b) +
                    " conflict but share their write timestamp");
        }
      }
    }
  }
}

}  // namespace

CheckResult CheckHistory(const std::vector<TxnRecord>& history,
                         const std::vector<std::pair<Addr, uint64_t>>& initial) {
  CheckResult res;
  VersionIndex index(history, initial);
  auto violation = [&](std::string what) {
    if (res.violations.size() < 5) res.violations.push_back(std::move(what));
    ++res.violation_count;
  };
  for (size_t i = 0; i < history.size(); ++i) {
    const TxnRecord& t = history[i];
    (t.committed ? res.committed : res.aborted)++;
    // Opacity: a consistent snapshot at R, aborted or not.
    for (auto& [a, v] : t.reads) {
      auto expect = index.At(a, t.read_ts, false);
      if (!expect || *expect != v) {
        std::ostringstream s;
        s << Describe(i, t) << " read " << v << " at key " << a.raw << " but the snapshot at R has "
          << (expect ? std::to_string(*expect) : "nothing");
        violation(s.str());
      }
    }
    if (!t.committed || t.writes.empty()) continue;
    bool reads_hold_at_w = std::ranges::all_of(t.reads, [&](auto& rv) {
      auto at_w = index.At(rv.first, t.write_ts, true);
      return at_w && *at_w == rv.second;
    });
    if (t.isolation == Isolation::kSerializable) {
      if (!reads_hold_at_w) violation(Describe(i, t) + ": a read changed between R and W");
    } else {
      if (!reads_hold_at_w) ++res.write_skews;
      for (auto& [a, v] : t.writes) {
        if (index.WrittenBetween(a, t.read_ts, t.write_ts)) {
          violation(Describe(i, t) + ": lost update, key " + std::to_string(a.raw) +
                    " written by another commit between R and W");
        }
      }
    }
  }
  CheckTiedWriteTimestamps(history, violation);
  // Strictness: order strict committed transactions by end time; each strict transaction's
  // serialisation point must not precede any that ended before it began.
  struct Point {
    int64_t time;
    Timestamp ts;
    size_t index;
  };
  std::vector<Point> ends;
  for (size_t i = 0; i < history.size(); ++i) {
    const TxnRecord& t = history[i];
    if (!t.committed || !t.strict) continue;
    // A writer's effects are visible from W on; a reader observes everything at or before R.
    ends.push_back({t.end_ns, t.writes.empty() ? t.read_ts : t.write_ts, i});
  }
  std::ranges::sort(ends, {}, &Point::time);
  std::vector<std::pair<Timestamp, size_t>> prefix_max(ends.size());
  for (size_t k = 0; k < ends.size(); ++k) {
    prefix_max[k] = k && prefix_max[k - 1].first >= ends[k].ts ? prefix_max[k - 1]
                                                               : std::pair{ends[k].ts, ends[k].index};
  }
  for (size_t i = 0; i < history.size(); ++i) {
    const TxnRecord& t = history[i];
    if (!t.strict) continue;
    auto pos = std::ranges::lower_bound(ends, t.begin_ns, {}, &Point::time);
    if (pos == ends.begin()) continue;
    auto [before_ts, j] = prefix_max[pos - ends.begin() - 1];
    // Later transactions read at R >= every earlier commit point; their own commit point is
    // later still.
    if (t.read_ts < before_ts) {
      violation(Describe(i, t) + " began after " + Describe(j, history[j]) +
                " ended but reads at an earlier timestamp");
    }
  }
  return res;
}

}  // namespace farmdb::txn
