// report: a run's figures for people (a table on stdout), for scripts (key=value lines), and
// as a timeline (the 10 ms throughput log and a gnuplot PNG of it), so that a stall, a failure
// or a recovery shows as a shape rather than hides in an average.
//
// Definitions. new-orders/s: committed New-Orders per second of the measured window. tpmC:
// completed New-Orders per minute, the 1% rolled back by design included (Clause 5.4.2 counts
// them). Retry rate: attempts that ended in 40001/40P01 over all attempts.
#pragma once

#include <string>
#include <vector>

#include "tpcc/checks.h"
#include "tpcc/driver.h"

namespace farmdb::tpcc {

struct RunLabel {
  std::string name;  // "farmdb", "PostgreSQL 15", ... (plot title)
  int connections = 0;
  std::string isolation;  // as run ("" = server default)
  bool pipeline = true;
  Mix mix = kStandardMix;
};

// Sorts the latency samples in place.
std::string FormatReport(RunResult& run, const RunLabel& label);
std::string FormatChecks(const std::vector<CheckResult>& checks);

// key=value lines: new_orders_per_s, tpmc, tps, retry_rate_percent, checks, and per type.
// REQUIRES: FormatReport ran (the samples are sorted).
void WriteSummary(const std::string& path, RunResult& run, const std::vector<CheckResult>& checks);

// One line per 10 ms: seconds since start, commits per type, retries, then new-orders/s and
// retries/s averaged over the trailing second.
void WriteIntervals(const std::string& path, const RunResult& run);
// Renders WriteIntervals' file with gnuplot; false (and a message on stderr) if it could not.
bool PlotTimeline(const std::string& intervals, const std::string& png, const RunResult& run, const RunLabel& label);

}  // namespace farmdb::tpcc
