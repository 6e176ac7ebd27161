// loader: creates the schema and loads the initial population (population.h) over several
// connections at once, one COPY FROM STDIN per table of a unit, with a progress bar on stderr
// and a summary of rows per table and seconds.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "tpcc/pg.h"
#include "tpcc/population.h"

namespace farmdb::tpcc {

struct LoadOptions {
  std::string conninfo;
  int warehouses = 1;
  int connections = 2;
  uint64_t seed = 1;
  Scale scale;  // TPC-C's unless a test asks for less
};

struct LoadSummary {
  std::map<std::string, int64_t> rows;  // per table
  int64_t retries = 0;                  // statements run again after 40001/40P01
  double seconds = 0;
};

// Drops and recreates the nine tables, loads them and ANALYZEs them.
PgResult<LoadSummary> Load(const LoadOptions& options);

// "item 100000, warehouse 1, ... in 12.3 s (45678 rows/s)"
std::string Describe(const LoadSummary& summary);

}  // namespace farmdb::tpcc
