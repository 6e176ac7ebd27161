// tpcc: TPC-C over the PostgreSQL protocol, against farmdb or PostgreSQL unchanged.
//
//   tpcc load  [-w WAREHOUSES] [-c CONNECTIONS]                 schema + initial population
//              [--items N] [--customers N]                      (smaller than TPC-C's, for tests)
//   tpcc run   [-c CONNECTIONS] [--warmup S] [--duration S]     the mix, then the checks
//              [--isolation default|serializable|repeatable-read|read-committed]
//              [--no-pipeline] [--spec-wait] [--no-check] [--label NAME] [--mix 45,43,4,4,4]
//              [--log FILE.tsv] [--plot FILE.png] [--summary FILE]
//   tpcc check                                                  consistency conditions only
//
// Common flags: --dsn CONNINFO (libpq's; default: the PG* environment), --seed N.
// Exit status: 0 success, 1 an error or a failed consistency condition, 2 bad usage.
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "tpcc/checks.h"
#include "tpcc/driver.h"
#include "tpcc/loader.h"
#include "tpcc/report.h"

namespace farmdb::tpcc {
namespace {

constexpr const char* kUsage =
    "usage: tpcc load  [-w WAREHOUSES] [-c CONNECTIONS] [--items N] [--customers N]\n"
    "       tpcc run   [-c CONNECTIONS] [--warmup S] [--duration S]\n"
    "                  [--isolation default|serializable|repeatable-read|read-committed]\n"
    "                  [--no-pipeline] [--spec-wait] [--no-check] [--label NAME]\n"
    "                  [--mix NEWORDER,PAYMENT,ORDERSTATUS,DELIVERY,STOCKLEVEL] (percentages)\n"
    "                  [--node-dsns 'DSN;DSN;...'] (terminals connect to each in turn)\n"
    "                  [--log FILE.tsv] [--plot FILE.png] [--summary FILE]\n"
    "       tpcc check\n"
    "common: --dsn CONNINFO (default: PGHOST, PGPORT, ... from the environment), --seed N\n";

struct Flags {
  std::string command;
  std::map<std::string, std::string> values;
  std::set<std::string> switches;

  std::string Get(const std::string& name, const std::string& fallback) const {
    auto it = values.find(name);
    return it == values.end() ? fallback : it->second;
  }
  bool Has(const std::string& name) const { return switches.contains(name) || values.contains(name); }
};

std::optional<Flags> Parse(int argc, char** argv) {
  static const std::map<std::string, std::string> kAliases = {{"-w", "--warehouses"}, {"-c", "--connections"}};
  static const std::vector<std::string> kSwitches = {"--no-pipeline", "--spec-wait", "--no-check"};
  static const std::vector<std::string> kValued = {"--warehouses", "--connections", "--warmup", "--duration",
                                                   "--isolation",  "--label",       "--log",    "--plot",
                                                   "--summary",    "--dsn",         "--seed",   "--mix",
                                                   "--items",      "--customers",   "--node-dsns"};
  if (argc < 2) return std::nullopt;
  Flags f;
  f.command = argv[1];
  for (int i = 2; i < argc; ++i) {
    std::string name = argv[i];
    if (auto a = kAliases.find(name); a != kAliases.end()) name = a->second;
    if (std::ranges::find(kSwitches, name) != kSwitches.end()) {
      f.switches.insert(name);
    } else if (std::ranges::find(kValued, name) != kValued.end() && i + 1 < argc) {
      f.values[name] = std::string(argv[++i]);
    } else {
      fmt::print(stderr, "tpcc: unknown flag or missing value: {}\n", argv[i]);
      return std::nullopt;
    }
  }
  return f;
}

std::optional<std::string> IsolationSql(const std::string& flag) {
  if (flag == "default") return "";
  if (flag == "serializable") return "SERIALIZABLE";
  if (flag == "repeatable-read") return "REPEATABLE READ";
  if (flag == "read-committed") return "READ COMMITTED";
  return std::nullopt;
}

// "45,43,4,4,4": five percentages summing to 100.
std::optional<Mix> ParseMix(const std::string& text) {
  Mix mix{};
  size_t at = 0;
  for (size_t i = 0; i < mix.size(); ++i) {
    size_t end = text.find(',', at);
    if ((end == std::string::npos) != (i + 1 == mix.size())) return std::nullopt;
    mix[i] = std::atoi(text.substr(at, end - at).c_str());
    if (mix[i] < 0) return std::nullopt;
    at = end + 1;
  }
  int sum = 0;
  for (int m : mix) sum += m;
  return sum == 100 ? std::optional(mix) : std::nullopt;
}

int Fail(const PgError& e) {
  fmt::print(stderr, "tpcc: {}\n", e.ToString());
  return 1;
}

// Prints the checks; true when all passed.
bool RunChecks(const std::string& dsn, std::vector<CheckResult>& out) {
  auto checks = CheckConsistency(dsn);
  if (!checks) {
    Fail(checks.error());
    return false;
  }
  out = std::move(*checks);
  fmt::print("{}", FormatChecks(out));
  return std::ranges::all_of(out, [](const CheckResult& c) { return c.passed; });
}

int Load(const Flags& f) {
  LoadOptions o;
  o.conninfo = f.Get("--dsn", "");
  o.warehouses = std::atoi(f.Get("--warehouses", "1").c_str());
  o.connections = std::atoi(f.Get("--connections", "2").c_str());
  o.seed = std::strtoull(f.Get("--seed", "1").c_str(), nullptr, 10);
  o.scale.items = std::atoi(f.Get("--items", std::to_string(kStandardScale.items)).c_str());
  o.scale.customers = std::atoi(f.Get("--customers", std::to_string(kStandardScale.customers)).c_str());
  if (o.warehouses < 1 || o.connections < 1 || o.scale.items < 1 || o.scale.customers < 10) {
    return fmt::print(stderr, "{}", kUsage), 2;
  }
  auto summary = Load(o);
  if (!summary) return Fail(summary.error());
  fmt::print("{}\n", Describe(*summary));
  return 0;
}

int Run(const Flags& f) {
  DriverOptions o;
  o.conninfo = f.Get("--dsn", "");
  // "DSN;DSN;...": the terminals connect to each in turn (a multi-process cluster's nodes).
  const std::string node_dsns = f.Get("--node-dsns", "");
  for (std::string_view rest = node_dsns; !rest.empty();) {
    size_t end = std::min(rest.find(';'), rest.size());
    if (end > 0) o.terminal_conninfos.emplace_back(rest.substr(0, end));
    rest.remove_prefix(std::min(end + 1, rest.size()));
  }
  o.connections = std::atoi(f.Get("--connections", "8").c_str());
  o.warmup_seconds = std::atof(f.Get("--warmup", "5").c_str());
  o.duration_seconds = std::atof(f.Get("--duration", "30").c_str());
  auto isolation = IsolationSql(f.Get("--isolation", "default"));
  auto mix = ParseMix(f.Get("--mix", "45,43,4,4,4"));
  o.pipeline = !f.Has("--no-pipeline");
  o.spec_wait = f.Has("--spec-wait");
  o.seed = std::strtoull(f.Get("--seed", "1").c_str(), nullptr, 10);
  if (!isolation || !mix || o.connections < 1 || o.duration_seconds <= 0 || o.warmup_seconds < 0) {
    return fmt::print(stderr, "{}", kUsage), 2;
  }
  o.isolation = *isolation;
  o.mix = *mix;
  auto run = Drive(o);
  if (!run) return Fail(run.error());
  RunLabel label{f.Get("--label", "the server"), o.connections, o.isolation, o.pipeline, o.mix};
  fmt::print("{}\n", FormatReport(*run, label));
  std::string log = f.Get("--log", "tpcc_intervals.tsv");
  WriteIntervals(log, *run);
  PlotTimeline(log, f.Get("--plot", "tpcc_timeline.png"), *run, label);
  std::vector<CheckResult> checks;
  bool passed = f.Has("--no-check") || RunChecks(o.conninfo, checks);
  if (f.Has("--summary")) WriteSummary(f.Get("--summary", ""), *run, checks);
  return passed ? 0 : 1;
}

int Check(const Flags& f) {
  std::vector<CheckResult> checks;
  return RunChecks(f.Get("--dsn", ""), checks) ? 0 : 1;
}

}  // namespace
}  // namespace farmdb::tpcc

int main(int argc, char** argv) {
  using namespace farmdb::tpcc;
  auto flags = Parse(argc, argv);
  if (!flags) return fmt::print(stderr, "{}", kUsage), 2;
  if (flags->command == "load") return Load(*flags);
  if (flags->command == "run") return Run(*flags);
  if (flags->command == "check") return Check(*flags);
  fmt::print(stderr, "{}", kUsage);
  return 2;
}
