// Overload resolution for functions and operators, as PostgreSQL's func_select_candidate
// (parse_func.c) does it for the built-in types: exact matches, then implicit casts, then
// preferred types (float8, text, timestamptz, bool), then the category an unknown literal
// most plausibly has (string first), then unknown literals taken as the type of the known ones.
//
// Thread-safety: pure functions.
#pragma once

#include <span>

#include "types/type.h"

namespace farmdb::sql {

struct OverloadCandidate {
  std::span<const TypeId> args;
  bool variadic_any = false;  // one or more further arguments of any type
};

struct OverloadChoice {
  int index = -1;          // into the candidates; -1 when none or several fit
  bool ambiguous = false;  // several fit equally well (42725 rather than 42883)
};

OverloadChoice SelectOverload(std::span<const OverloadCandidate> candidates, std::span<const TypeId> inputs);

}  // namespace farmdb::sql
