#include "tpcc/loader.h"

#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <mutex>
#include <optional>
#include <random>
#include <thread>
#include <vector>

#include "tpcc/population.h"
#include "tpcc/schema.h"

namespace farmdb::tpcc {
namespace {

using Clock = std::chrono::steady_clock;
constexpr int kMaxAttempts = 50;

std::string Now() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  return buf;
}

// Runs `step` (one statement, its own transaction) until it succeeds, again after each 40001 or
// 40P01: concurrent COPYs into one B-tree conflict at commit under optimistic concurrency
// control, and with replicas a statement may find an object still locked by the previous
// commit. Each retry waits a random time below a bound that doubles up to kMaxBackoff, so that
// loaders whose COPYs keep meeting at commit fall out of step: retried at once, one COPY of
// order_line failed validation 50 times in a row (8 warehouses, 2 loaders, 2026-11-29).
// `what` names the statement in the error. Returns the number of retries.
template <typename Step>
PgResult<int64_t> Retrying(const std::string& what, Step&& step) {
  constexpr std::chrono::milliseconds kMaxBackoff{200};
  thread_local std::minstd_rand rng(std::random_device{}());
  std::chrono::milliseconds bound{1};
  for (int attempt = 1;; ++attempt) {
    auto r = step();
    if (r) return attempt - 1;
    if (!r.error().Retryable() || attempt == kMaxAttempts) {
      PgError e = r.error();
      e.message = fmt::format("{} (attempt {}): {}", what, attempt, e.message);
      return std::unexpected(std::move(e));
    }
    std::this_thread::sleep_for(std::chrono::microseconds(rng() % (bound.count() * 1000 + 1)));
    bound = std::min(2 * bound, kMaxBackoff);
  }
}

// What the loader threads share.
struct Shared {
  std::vector<LoadUnit> units;
  std::atomic<size_t> next{0};
  std::atomic<int64_t> rows_done{0};
  std::atomic<int64_t> expected_done{0};  // ExpectedRows of finished units
  std::atomic<bool> failed{false};
  std::mutex mu;  // guards summary and error
  LoadSummary summary;
  std::optional<PgError> error;

  void Fail(PgError e) {
    std::lock_guard lock(mu);
    if (!error) error = std::move(e);
    failed = true;
  }
};

void LoaderThread(const LoadOptions& options, const std::string& now, Shared& shared) {
  auto conn = Connection::Open(options.conninfo, false);
  if (!conn) return shared.Fail(conn.error());
  while (!shared.failed) {
    size_t i = shared.next++;
    if (i >= shared.units.size()) return;
    const LoadUnit& unit = shared.units[i];
    for (TableRows& t : Populate(unit, options.scale, options.seed, now)) {
      std::string table(t.table);
      auto retries = Retrying("COPY " + table, [&] { return conn->CopyIn(table, t.text); });
      if (!retries) return shared.Fail(retries.error());
      shared.rows_done += t.rows;
      std::lock_guard lock(shared.mu);
      shared.summary.rows[table] += t.rows;
      shared.summary.retries += *retries;
    }
    shared.expected_done += ExpectedRows(unit, options.scale);
  }
}

// A bar redrawn in place on a terminal, else a line per 10%.
class Progress {
 public:
  explicit Progress(int64_t total) : total_(total), tty_(isatty(STDERR_FILENO) != 0), start_(Clock::now()) {}

  void Show(int64_t expected_done, int64_t rows) {
    double fraction = total_ > 0 ? static_cast<double>(expected_done) / static_cast<double>(total_) : 1;
    int percent = static_cast<int>(fraction * 100);
    double seconds = std::chrono::duration<double>(Clock::now() - start_).count();
    if (tty_) {
      constexpr int kWidth = 40;
      int filled = static_cast<int>(fraction * kWidth);
      fmt::print(stderr, "\rloading [{:<{}}] {:3d}% {:>9} rows {:6.1f} s", std::string(static_cast<size_t>(filled), '#'),
                 kWidth, percent, rows, seconds);
    } else if (percent / 10 > last_decile_) {
      last_decile_ = percent / 10;
      fmt::print(stderr, "loading: {:3d}% {} rows {:.1f} s\n", percent, rows, seconds);
    }
  }
  void Done() {
    if (tty_) fmt::print(stderr, "\n");
  }

 private:
  int64_t total_;
  bool tty_;
  Clock::time_point start_;
  int last_decile_ = 0;
};

}  // namespace

PgResult<LoadSummary> Load(const LoadOptions& options) {
  auto start = Clock::now();
  auto conn = Connection::Open(options.conninfo, false);
  if (!conn) return std::unexpected(conn.error());
  int64_t retries = 0;
  auto exec = [&](const std::string& sql) -> PgResult<void> {
    auto r = Retrying(sql.substr(0, sql.find('(')), [&] { return conn->Exec(sql); });
    if (!r) return std::unexpected(r.error());
    retries += *r;
    return {};
  };
  for (std::string_view ddl : SchemaStatements()) {
    if (auto r = exec(std::string(ddl)); !r) return std::unexpected(r.error());
  }

  Shared shared;
  shared.units = LoadUnits(options.warehouses, options.scale);
  int64_t total = 0;
  for (const LoadUnit& u : shared.units) total += ExpectedRows(u, options.scale);
  std::string now = Now();
  std::vector<std::thread> threads;
  for (int i = 0; i < options.connections; ++i) {
    threads.emplace_back([&] { LoaderThread(options, now, shared); });
  }
  Progress progress(total);
  while (shared.expected_done < total && !shared.failed) {
    progress.Show(shared.expected_done, shared.rows_done);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  for (std::thread& t : threads) t.join();
  progress.Show(shared.expected_done, shared.rows_done);
  progress.Done();
  if (shared.error) return std::unexpected(*shared.error);

  // PostgreSQL plans from statistics; farmdb checks the tables exist.
  for (std::string_view table : TableNames()) {
    if (auto r = exec("ANALYZE " + std::string(table)); !r) return std::unexpected(r.error());
  }
  shared.summary.retries += retries;
  shared.summary.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return std::move(shared.summary);
}

std::string Describe(const LoadSummary& s) {
  std::string out;
  int64_t total = 0;
  for (std::string_view table : TableNames()) {
    auto it = s.rows.find(std::string(table));
    int64_t n = it == s.rows.end() ? 0 : it->second;
    total += n;
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", table, n);
  }
  out += fmt::format("\nloaded {} rows in {:.1f} s ({:.0f} rows/s)", total, s.seconds,
                     s.seconds > 0 ? static_cast<double>(total) / s.seconds : 0.0);
  if (s.retries > 0) out += fmt::format(", {} statements retried after a serialization failure", s.retries);
  return out;
}

}  // namespace farmdb::tpcc
