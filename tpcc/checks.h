// checks: TPC-C consistency conditions 1 to 5 (Clause 3.3.2), evaluated after a run from a few
// aggregate queries read in one REPEATABLE READ READ ONLY transaction, compared here in exact
// integer arithmetic (money in cents).
#pragma once

#include <string>
#include <vector>

#include "tpcc/pg.h"

namespace farmdb::tpcc {

struct CheckResult {
  int condition = 0;
  std::string description;
  bool passed = false;
  std::string failure;  // the first violation, when !passed
};

PgResult<std::vector<CheckResult>> CheckConsistency(const std::string& conninfo);

}  // namespace farmdb::tpcc
