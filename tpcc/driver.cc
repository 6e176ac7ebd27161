#include "tpcc/driver.h"

#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "tpcc/transactions.h"

namespace farmdb::tpcc {
namespace {

using Clock = std::chrono::steady_clock;

// Clause 5.2.5.7: keying time, and the mean of the negative-exponential think time, in seconds.
constexpr double kKeyingSeconds[kTxnTypes] = {18, 3, 2, 2, 2};
constexpr double kThinkMeanSeconds[kTxnTypes] = {12, 12, 10, 5, 5};

struct Shared {
  Shared(const DriverOptions& o, int w, Scale scale) : options(o), warehouses(w), scale(scale) {}

  const DriverOptions& options;
  int warehouses;
  Scale scale;
  Clock::time_point start, measure_start, end;
  std::atomic<bool> stop{false};
  std::mutex mu;  // guards error and stats
  std::optional<PgError> error;
  Stats stats;

  void Fail(PgError e) {
    std::lock_guard lock(mu);
    if (!error) error = std::move(e);
    stop = true;
  }
};

double Since(Clock::time_point from, Clock::time_point t) { return std::chrono::duration<double>(t - from).count(); }

double CpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  auto seconds = [](timeval t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; };
  return seconds(u.ru_utime) + seconds(u.ru_stime);
}

Clock::duration Seconds(double x) { return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(x)); }

// Sleeps `seconds`, or until the run ends.
void Wait(const Shared& s, double seconds) {
  auto until = std::min(s.end, Clock::now() + Seconds(seconds));
  while (!s.stop && Clock::now() < until) {
    std::this_thread::sleep_for(std::min<Clock::duration>(until - Clock::now(), std::chrono::milliseconds(100)));
  }
}

// Clause 5.2.5.4: think time = -ln(uniform) * mean, at most ten times the mean.
double ThinkSeconds(size_t type, Random& r) {
  double uniform = 1.0 - static_cast<double>(r.Uniform(0, 999999)) / 1e6;  // (0, 1]
  return std::min(-std::log(uniform) * kThinkMeanSeconds[type], 10 * kThinkMeanSeconds[type]);
}

PgResult<Connection> OpenTerminal(const DriverOptions& o, int index) {
  const std::vector<std::string>& nodes = o.terminal_conninfos;
  auto conn = Connection::Open(nodes.empty() ? o.conninfo : nodes[static_cast<size_t>(index) % nodes.size()],
                               o.pipeline);
  if (!conn) return conn;
  if (!o.isolation.empty()) {
    auto r = conn->Exec("SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL " + o.isolation);
    if (!r) return std::unexpected(r.error());
  }
  if (auto r = PrepareStatements(*conn); !r) return std::unexpected(r.error());
  return conn;
}

void TerminalThread(int index, Connection conn, Shared& s) {
  const DriverOptions& o = s.options;
  Terminal terminal{index % s.warehouses + 1, (index / s.warehouses) % kDistrictsPerWarehouse + 1, s.warehouses,
                    s.scale};
  Random r(o.seed * 1000003 + static_cast<uint64_t>(index), RunConstants(o.seed));
  Stats stats;
  auto in_window = [&](Clock::time_point t) { return t >= s.measure_start && t < s.end; };
  while (!s.stop && Clock::now() < s.end) {
    TxnType type = ChooseType(o.mix, r);
    auto t = static_cast<size_t>(type);
    Input input = MakeInput(type, terminal, r);
    if (o.spec_wait) Wait(s, kKeyingSeconds[t]);
    auto begin = Clock::now();
    std::optional<Outcome> outcome;
    int attempt = 1;
    for (; attempt <= o.max_attempts; ++attempt) {
      auto result = Execute(conn, input);
      if (result) {
        outcome = *result;
        break;
      }
      const PgError& e = result.error();
      if (auto rb = conn.Exec("ROLLBACK"); !rb) return s.Fail(rb.error());
      if (!e.Retryable()) {
        PgError fatal = e;
        fatal.message = std::string(Name(type)) + ": " + fatal.message;
        return s.Fail(std::move(fatal));
      }
      auto now = Clock::now();
      stats.Count(Since(s.start, now), kTxnTypes);
      std::string reason = std::string(Name(type)) + ": " + AbortReason(e.sqlstate, e.message, e.detail);
      if (in_window(now)) {
        ++stats.types[t].retries;
        ++stats.abort_reasons[reason];
      } else if (now >= s.end) {
        ++stats.late_abort_reasons[reason];  // a transaction still retrying after the others stopped
      }
    }
    auto done = Clock::now();
    if (outcome && !outcome->rolled_back) stats.Count(Since(s.start, done), t);
    if (in_window(done)) {
      TypeStats& ts = stats.types[t];
      ts.most_attempts = std::max(ts.most_attempts, std::min(attempt, o.max_attempts));
      if (!outcome) {
        ++ts.failed;
      } else {
        ++(outcome->rolled_back ? ts.rolled_back : ts.committed);
        auto micros = std::chrono::duration_cast<std::chrono::microseconds>(done - begin).count();
        ts.latency_us.push_back(static_cast<uint32_t>(micros));
        stats.delivery_skipped += outcome->skipped_districts;
      }
    }
    if (o.spec_wait) Wait(s, ThinkSeconds(t, r));
  }
  std::lock_guard lock(s.mu);
  s.stats.Merge(std::move(stats));
}

}  // namespace

PgResult<RunResult> Drive(const DriverOptions& o) {
  auto probe = Connection::Open(o.conninfo, false);
  if (!probe) return std::unexpected(probe.error());
  // The database's size, as the loader made it: the inputs draw ids within it.
  auto count = probe->Exec(
      "SELECT (SELECT count(*) FROM warehouse), (SELECT count(*) FROM item), "
      "(SELECT count(*) FROM customer WHERE c_w_id = 1 AND c_d_id = 1)");
  if (!count) return std::unexpected(count.error());
  int warehouses = static_cast<int>(count->Int(0, 0));
  Scale scale{static_cast<int>(count->Int(0, 1)), static_cast<int>(count->Int(0, 2))};
  if (warehouses < 1 || scale.items < 1 || scale.customers < 1) {
    return std::unexpected(PgError{"", "no warehouses, items or customers: load the database first", ""});
  }

  // Every terminal connects and prepares before the clock starts.
  std::vector<Connection> terminals;
  for (int i = 0; i < o.connections; ++i) {
    auto conn = OpenTerminal(o, i);
    if (!conn) return std::unexpected(conn.error());
    terminals.push_back(std::move(*conn));
  }
  Shared s(o, warehouses, scale);
  double cpu_start = CpuSeconds();
  s.start = Clock::now();
  s.measure_start = s.start + Seconds(o.warmup_seconds);
  s.end = s.measure_start + Seconds(o.duration_seconds);
  std::vector<std::thread> threads;
  for (int i = 0; i < o.connections; ++i) {
    threads.emplace_back(TerminalThread, i, std::move(terminals[static_cast<size_t>(i)]), std::ref(s));
  }
  for (std::thread& t : threads) t.join();
  if (s.error) return std::unexpected(*s.error);
  RunResult result;
  result.run_seconds = Since(s.start, Clock::now());
  result.driver_cpu_seconds = CpuSeconds() - cpu_start;
  result.stats = std::move(s.stats);
  result.warehouses = warehouses;
  result.scale = scale;
  result.warmup_seconds = o.warmup_seconds;
  result.measured_seconds = o.duration_seconds;
  return result;
}

}  // namespace farmdb::tpcc
