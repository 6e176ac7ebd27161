// The error every layer reports to a client in the end: PostgreSQL's ErrorResponse fields.
//
// It lives below storage and sql because value parsing (numeric input, say) raises SQLSTATEs
// wherever a value is decoded. sql/session.h re-exports these names as the server/sql seam.
// Thread-safety: value types.
#pragma once

#include <cstdint>
#include <string>

namespace farmdb {

// A PostgreSQL object identifier (pg_type.oid and friends).
using Oid = uint32_t;

struct Error {
  enum class Severity { kError, kFatal };
  Severity severity = Severity::kError;
  std::string sqlstate;  // five characters, e.g. "42601"
  std::string message;
  std::string detail;
  std::string hint;
  int position = 0;  // 1-based character offset into the statement text; 0 when unknown
};

// Builds an Error with severity ERROR; detail/hint/position are set on the result when known.
inline Error MakeError(std::string sqlstate, std::string message) {
  Error e;
  e.sqlstate = std::move(sqlstate);
  e.message = std::move(message);
  return e;
}

}  // namespace farmdb
