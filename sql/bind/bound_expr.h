// Bound expressions: every node typed, every name resolved, implicit casts made explicit.
// Produced by the Binder from the AST, evaluated by sql/exec.
//
// Thread-safety: immutable once bound; a prepared statement's tree is shared by its portals.
#pragma once

#include <memory>
#include <vector>

#include "types/value.h"

namespace farmdb::sql {

enum class BoundKind {
  kConst,     // value
  kParam,     // param_index (0-based)
  kCast,      // args[0] converted to type
  kArith,     // arith over args[0], args[1] (both already of the operator's input type)
  kNegate,
  kCompare,   // compare over args[0], args[1] (same type); type bool
  kConcat,    // text || text, bytea || bytea
  kAnd,
  kOr,
  kNot,
  kIsNull,
  kIsNotNull,
  kCase,      // [operand] (when, then)* [else]
  kCoalesce,
  kNullIf,
  kFunction,  // function
  kColumn,    // the input row's slot `column`; `levels_up` > 0: an enclosing query's row
  kAggregate, // the result of the query's aggregate number `column` (set by the aggregation)
  kSubquery,  // subquery (a scalar: its one column of at most one row)
  kExists,    // EXISTS (subquery)
  kInSubquery,  // args[0] IN (subquery's one column); compare is the operator (=)
  kBuiltin,   // builtin->eval over args (sql/exec/builtins.h)
  kInList,    // args[0] IN (args[1..]), all of one type; NOT IN is kNot over it
  kIsDistinct,     // args[0] IS DISTINCT FROM args[1] (same type)
  kIsNotDistinct,
  kIsTrue,    // boolean tests on args[0]; IS [NOT] UNKNOWN binds as kIsNull/kIsNotNull
  kIsNotTrue,
  kIsFalse,
  kIsNotFalse,
};

enum class ArithOp { kAdd, kSub, kMul, kDiv, kMod };
enum class CompareOp { kEq, kNe, kLt, kLe, kGt, kGe };
enum class Function { kVersion, kCurrentSetting, kSetConfig, kPgSleep };

struct BoundExpr;
struct Builtin;
using BoundExprPtr = std::unique_ptr<BoundExpr>;
class PlanNode;  // sql/plan/plan.h

struct BoundExpr {
  BoundKind kind;
  TypeId type;
  int32_t typmod = -1;  // kCast to numeric(p, s) / varchar(n): PostgreSQL's atttypmod encoding
  bool assignment = false;  // kCast: applies typmod as a store into a column does (22001)
  int location = -1;
  Value value;
  int param_index = 0;
  ArithOp arith = ArithOp::kAdd;
  CompareOp compare = CompareOp::kEq;
  Function function = Function::kVersion;
  const Builtin* builtin = nullptr;  // kBuiltin
  bool has_operand = false;
  bool has_else = false;
  int column = 0;     // kColumn: slot in the row; kAggregate: aggregate number
  int levels_up = 0;  // kColumn: 0 the current query's row, 1 the enclosing one, ...
  std::vector<BoundExprPtr> args;
  std::shared_ptr<const PlanNode> subplan;  // kSubquery, kExists, kInSubquery
};

// Whether two bound expressions compute the same thing (GROUP BY matching, ORDER BY reuse).
bool SameExpr(const BoundExpr& a, const BoundExpr& b);
// A deep copy (subplans are shared: they are immutable).
BoundExprPtr CloneExpr(const BoundExpr& e);

}  // namespace farmdb::sql
