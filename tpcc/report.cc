#include "tpcc/report.h"

#include <fmt/format.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <fstream>

namespace farmdb::tpcc {
namespace {

constexpr TxnType kTypes[] = {TxnType::kNewOrder, TxnType::kPayment, TxnType::kOrderStatus, TxnType::kDelivery,
                              TxnType::kStockLevel};
constexpr size_t kRetryColumn = kTxnTypes;
constexpr size_t kSecondBuckets = 100;  // trailing average over one second of 10 ms buckets

double PerSecond(int64_t n, double seconds) { return seconds > 0 ? static_cast<double>(n) / seconds : 0; }

double RetryPercent(const TypeStats& t) {
  int64_t attempts = t.retries + t.Completed() + t.failed;
  return attempts > 0 ? 100.0 * static_cast<double>(t.retries) / static_cast<double>(attempts) : 0;
}

TypeStats Total(const RunResult& run) {
  TypeStats all;
  for (const TypeStats& t : run.stats.types) {
    all.committed += t.committed;
    all.rolled_back += t.rolled_back;
    all.retries += t.retries;
    all.failed += t.failed;
    all.most_attempts = std::max(all.most_attempts, t.most_attempts);
  }
  return all;
}

// "title:" and the reasons, most frequent first; nothing when there are none.
std::string Reasons(const std::string& title, const std::map<std::string, int64_t>& counts) {
  if (counts.empty()) return "";
  std::vector<std::pair<int64_t, std::string>> reasons;
  for (const auto& [reason, n] : counts) reasons.emplace_back(n, reason);
  std::ranges::sort(reasons, std::greater<>());
  std::string out = "\n" + title + ":\n";
  for (const auto& [n, reason] : reasons) out += fmt::format("{:>10}  {}\n", n, reason);
  return out;
}

std::string Isolation(const RunLabel& label) { return label.isolation.empty() ? "server default" : label.isolation; }

}  // namespace

std::string FormatReport(RunResult& run, const RunLabel& label) {
  double secs = run.measured_seconds;
  const TypeStats& no = run.stats.of(TxnType::kNewOrder);
  std::string out = fmt::format(
      "TPC-C on {}: {} warehouses, {} connections, isolation {}, {}; {:g} s warm-up, {:g} s measured\n"
      "{:.1f} new-orders/s committed, tpmC {:.0f}\n\n",
      label.name, run.warehouses, label.connections, Isolation(label),
      label.pipeline ? "pipelined" : "one statement per round trip", run.warmup_seconds, secs, PerSecond(no.committed, secs), PerSecond(no.Completed(), secs) * 60);
  if (run.scale != kStandardScale) {
    out += fmt::format("NOT TPC-C's population: {} items, {} customers per district\n\n", run.scale.items,
                       run.scale.customers);
  }
  if (label.mix != kStandardMix) {
    out += fmt::format("NOT the TPC-C mix: {}% New-Order, {}% Payment, {}% Order-Status, {}% Delivery, {}% Stock-Level\n\n",
                       label.mix[0], label.mix[1], label.mix[2], label.mix[3], label.mix[4]);
  }
  out += fmt::format("{:<12} {:>10} {:>9} {:>8} {:>8} {:>8} {:>8} {:>9} {:>7} {:>9} {:>7} {:>7}\n", "transaction",
                     "committed", "per s", "p50 ms", "p90 ms", "p99 ms", "max ms", "retries", "retry%", "max tries",
                     "rolled", "failed");
  for (TxnType type : kTypes) {
    TypeStats& t = run.stats.of(type);
    out += fmt::format("{:<12} {:>10} {:>9.1f} {:>8.2f} {:>8.2f} {:>8.2f} {:>8.2f} {:>9} {:>6.2f}% {:>9} {:>7} {:>7}\n",
                       Name(type), t.committed, PerSecond(t.committed, secs), QuantileMs(t.latency_us, 0.5),
                       QuantileMs(t.latency_us, 0.9), QuantileMs(t.latency_us, 0.99), QuantileMs(t.latency_us, 1.0),
                       t.retries, RetryPercent(t), t.most_attempts, t.rolled_back, t.failed);
  }
  TypeStats all = Total(run);
  out += fmt::format("{:<12} {:>10} {:>9.1f} {:>44} {:>9} {:>6.2f}% {:>9} {:>7} {:>7}\n", "all", all.committed,
                     PerSecond(all.committed, secs), "", all.retries, RetryPercent(all), all.most_attempts,
                     all.rolled_back, all.failed);
  out += Reasons("retried errors (measured window)", run.stats.abort_reasons);
  out += Reasons("retried after the window closed, by transactions still in flight", run.stats.late_abort_reasons);
  out += fmt::format("\nDelivery found nothing to deliver in {} districts\n", run.stats.delivery_skipped);
  out += fmt::format("the driver used {:.1f} s of CPU in {:.1f} s ({:.0f}% of one core)\n", run.driver_cpu_seconds,
                     run.run_seconds, run.run_seconds > 0 ? 100 * run.driver_cpu_seconds / run.run_seconds : 0.0);
  return out;
}

std::string FormatChecks(const std::vector<CheckResult>& checks) {
  std::string out = "consistency checks (Clause 3.3.2):\n";
  for (const CheckResult& c : checks) {
    out += fmt::format("  {}  condition {}: {}{}\n", c.passed ? "pass" : "FAIL", c.condition, c.description,
                       c.passed ? "" : "\n        " + c.failure);
  }
  return out;
}

void WriteSummary(const std::string& path, RunResult& run, const std::vector<CheckResult>& checks) {
  double secs = run.measured_seconds;
  const TypeStats& no = run.stats.of(TxnType::kNewOrder);
  TypeStats all = Total(run);
  std::string out;
  out += fmt::format("new_orders_per_s={:.1f}\n", PerSecond(no.committed, secs));
  out += fmt::format("tpmc={:.0f}\n", PerSecond(no.Completed(), secs) * 60);
  out += fmt::format("tps={:.1f}\n", PerSecond(all.committed, secs));
  out += fmt::format("retries={}\nretry_rate_percent={:.2f}\nfailed={}\n", all.retries, RetryPercent(all), all.failed);
  // Commits over the whole run, warm-up included, for costs measured around the whole run
  // (server CPU time per transaction).
  int64_t run_committed = 0;
  for (const Bucket& b : run.stats.buckets) {
    for (size_t t = 0; t < kTxnTypes; ++t) run_committed += b[t];
  }
  out += fmt::format("run_committed={}\nrun_seconds={:.2f}\ndriver_cpu_seconds={:.2f}\n", run_committed, run.run_seconds,
                     run.driver_cpu_seconds);
  for (TxnType type : kTypes) {
    TypeStats& t = run.stats.of(type);
    out += fmt::format("{0}_committed={1}\n{0}_per_s={2:.1f}\n{0}_p50_ms={3:.2f}\n{0}_p90_ms={4:.2f}\n{0}_p99_ms={5:.2f}\n"
                       "{0}_retry_rate_percent={6:.2f}\n",
                       Name(type), t.committed, PerSecond(t.committed, secs), QuantileMs(t.latency_us, 0.5),
                       QuantileMs(t.latency_us, 0.9), QuantileMs(t.latency_us, 0.99), RetryPercent(t));
  }
  bool passed = !checks.empty() && std::ranges::all_of(checks, [](const CheckResult& c) { return c.passed; });
  out += fmt::format("checks={}\n", checks.empty() ? "not run" : passed ? "pass" : "FAIL");
  std::ofstream(path) << out;
}

void WriteIntervals(const std::string& path, const RunResult& run) {
  const std::vector<Bucket>& b = run.stats.buckets;
  std::ofstream f(path);
  f << "# seconds\tnew_order\tpayment\torder_status\tdelivery\tstock_level\tretries"
       "\tnew_orders_per_s_1s\tretries_per_s_1s\n";
  int64_t window_new_orders = 0, window_retries = 0;
  for (size_t i = 0; i < b.size(); ++i) {
    window_new_orders += b[i][0];
    window_retries += b[i][kRetryColumn];
    if (i >= kSecondBuckets) {
      window_new_orders -= b[i - kSecondBuckets][0];
      window_retries -= b[i - kSecondBuckets][kRetryColumn];
    }
    double span = static_cast<double>(std::min(i + 1, kSecondBuckets)) * kBucketSeconds;
    f << fmt::format("{:.2f}", static_cast<double>(i) * kBucketSeconds);
    for (uint32_t n : b[i]) f << '\t' << n;
    f << fmt::format("\t{:.1f}\t{:.1f}\n", static_cast<double>(window_new_orders) / span,
                     static_cast<double>(window_retries) / span);
  }
}

bool PlotTimeline(const std::string& intervals, const std::string& png, const RunResult& run, const RunLabel& label) {
  FILE* gp = popen("gnuplot", "w");
  if (gp == nullptr) {
    fmt::print(stderr, "tpcc: cannot run gnuplot (Debian package gnuplot-nox): no {}\n", png);
    return false;
  }
  double per_bucket = 1 / kBucketSeconds;
  fmt::print(gp,
             "set terminal pngcairo noenhanced size 1200,500 font ',10'\n"
             "set output '{0}'\n"
             "set title \"{2}: {3} connections, {4} warehouses, isolation {5}\"\n"
             "set xlabel 'seconds since the first transaction'\n"
             "set ylabel 'per second'\n"
             "set key below\n"
             "set grid\n"
             "set xrange [0:{8:.1f}]\n"
             "set yrange [0:*]\n"
             "set arrow from {6}, graph 0 to {6}, graph 1 nohead dashtype 2 lc rgb 'black'\n"
             "set label 'measured from here' at {6}, graph 0.04 offset 0.5, 0\n"
             "plot '{1}' using 1:($2*{7}) with lines lc rgb '#b8c8f0' title 'new-orders/s, 10 ms buckets', \\\n"
             "     '{1}' using 1:8 with lines lw 2 lc rgb '#1040a0' title 'new-orders/s, 1 s average', \\\n"
             "     '{1}' using 1:9 with lines lw 2 lc rgb '#c03030' title 'retries/s, 1 s average'\n",
             png, intervals, label.name, label.connections, run.warehouses, Isolation(label), run.warmup_seconds,
             per_bucket, run.run_seconds);
  int status = pclose(gp);
  if (status != 0) {
    fmt::print(stderr, "tpcc: gnuplot failed (status {}): no {}\n", status, png);
    return false;
  }
  return true;
}

}  // namespace farmdb::tpcc
