// Predicates with SQL's NULL rules, and the call of a data-described built-in.
#include <chrono>

#include "sql/exec/builtins.h"

namespace farmdb::sql {

std::expected<Value, Error> CallBuiltin(const BoundExpr& e, std::span<const Value> args, ExecContext& ctx) {
  if (e.builtin->strict) {
    for (const Value& v : args) {
      if (v.IsNull()) return Value::Null(e.type);
    }
  }
  if (e.builtin->eval == nullptr) {
    // The binder lets set-returning calls only where a ProjectSet or function scan runs them.
    return std::unexpected(MakeError("0A000", "set-valued function called in context that cannot accept a set"));
  }
  return e.builtin->eval(args, e, ctx);
}

Value EvalPredicate(const BoundExpr& e, std::span<const Value> args) {
  switch (e.kind) {
    case BoundKind::kInList: {
      // x = ANY(list): true on a match, else NULL if x or an item is NULL, else false.
      if (args[0].IsNull()) return Value::Null(TypeId::kBool);
      bool saw_null = false;
      for (const Value& item : args.subspan(1)) {
        if (item.IsNull()) saw_null = true;
        else if (CompareValues(args[0], item) == 0) return Value::Bool(true);
      }
      return saw_null ? Value::Null(TypeId::kBool) : Value::Bool(false);
    }
    case BoundKind::kIsDistinct:
    case BoundKind::kIsNotDistinct: {
      bool distinct = args[0].IsNull() != args[1].IsNull() ||
                      (!args[0].IsNull() && CompareValues(args[0], args[1]) != 0);
      return Value::Bool(distinct == (e.kind == BoundKind::kIsDistinct));
    }
    case BoundKind::kIsTrue:
      return Value::Bool(!args[0].IsNull() && args[0].AsBool());
    case BoundKind::kIsNotTrue:
      return Value::Bool(args[0].IsNull() || !args[0].AsBool());
    case BoundKind::kIsFalse:
      return Value::Bool(!args[0].IsNull() && !args[0].AsBool());
    case BoundKind::kIsNotFalse:
      return Value::Bool(args[0].IsNull() || args[0].AsBool());
    default:
      return Value::Null(TypeId::kBool);
  }
}

int64_t ClockNow() {
  // PostgreSQL's epoch is 2000-01-01 00:00 UTC, 946684800 s after the Unix epoch.
  constexpr int64_t kPgEpochUnixMicros = 946'684'800'000'000;
  auto since_unix = std::chrono::system_clock::now().time_since_epoch();
  return std::chrono::duration_cast<std::chrono::microseconds>(since_unix).count() - kPgEpochUnixMicros;
}

}  // namespace farmdb::sql
