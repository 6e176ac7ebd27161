// Evaluation of bound expressions for one row (for now: the constant row of a SELECT).
//
// Thread-safety: an ExecContext belongs to one running statement on the session's thread; it
// reads the CancelFlag, which other threads may set.
#pragma once

#include <chrono>
#include <expected>
#include <span>

#include "sql/bind/bound_expr.h"
#include "sql/session.h"
#include "sql/settings/settings.h"
#include "sql/types/type_io.h"

namespace farmdb::sql {

class TransactionBlock;

struct ExecContext {
  std::span<const Value> params;
  Settings& settings;
  CancelFlag* cancel = nullptr;
  // statement_timeout's deadline (time_point::max() when off).
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  TextOptions output;
  // The session's transaction, for functions that act on it (pg_export_snapshot); null when
  // there is none (e.g. evaluation outside a session).
  TransactionBlock* transaction = nullptr;

  // 57014 when the client cancelled or the statement ran past statement_timeout.
  std::expected<void, Error> CheckInterrupts() const;
};

std::expected<Value, Error> Evaluate(const BoundExpr& e, ExecContext& ctx);

// Operators (operators.cc), on non-NULL operands of the bound types.
std::expected<Value, Error> EvalArith(ArithOp op, TypeId result, const Value& l, const Value& r);
std::expected<Value, Error> EvalNegate(const Value& v);
// Three-way comparison with PostgreSQL's ordering (NaN above all numbers).
int CompareValues(const Value& l, const Value& r);

// Built-in functions (functions.cc); NULL handling is the caller's for strict functions.
std::expected<Value, Error> EvalFunction(const BoundExpr& e, std::span<const Value> args, ExecContext& ctx);

}  // namespace farmdb::sql
