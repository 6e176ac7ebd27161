// driver: N terminals, one thread and one connection each, running the TPC-C mix against a
// loaded database for a warm-up and then a measured duration. A transaction that fails with
// 40001 (serialization failure: farmdb's optimistic commit, or PostgreSQL at SERIALIZABLE) or
// 40P01 (deadlock) is rolled back and run again with the same input, and the retry is counted
// apart from the commits. Any other error stops the run: it is a bug in the driver or in the
// database, and the report must not hide it.
//
// Terminal i has home warehouse i % W + 1 and Stock-Level district (i / W) % 10 + 1, so the
// connections spread over the warehouses. By default there is no keying or think time: each
// terminal starts its next transaction as soon as the last one completes.
#pragma once

#include <cstdint>
#include <string>

#include "tpcc/inputs.h"
#include "tpcc/pg.h"
#include "tpcc/stats.h"

namespace farmdb::tpcc {

struct DriverOptions {
  std::string conninfo;
  // Where terminal i connects: terminal_conninfos[i % size] (the nodes of a cluster, so that
  // sessions spread over them); empty: conninfo.
  std::vector<std::string> terminal_conninfos;
  int connections = 8;
  Mix mix = kStandardMix;
  double warmup_seconds = 5;
  double duration_seconds = 30;
  // SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL <isolation>; "" keeps the
  // server's default.
  std::string isolation;
  bool pipeline = true;
  uint64_t seed = 1;
  bool spec_wait = false;  // keying and think times of Clause 5.2.5.7 (mean think 5-12 s)
  int max_attempts = 1000;
};

struct RunResult {
  Stats stats;
  int warehouses = 0;  // found in the database
  Scale scale;         // likewise
  double warmup_seconds = 0;
  double measured_seconds = 0;
  double run_seconds = 0;         // first transaction to the last thread's exit
  double driver_cpu_seconds = 0;  // this process's user + system time over that span
};

PgResult<RunResult> Drive(const DriverOptions& options);

}  // namespace farmdb::tpcc
