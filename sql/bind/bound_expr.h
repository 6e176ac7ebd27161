// Bound expressions: every node typed, every name resolved, implicit casts made explicit.
// Produced by the Binder from the AST, evaluated by sql/exec.
//
// Thread-safety: immutable once bound; a prepared statement's tree is shared by its portals.
#pragma once

#include <memory>
#include <string>
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
  kArrayCtor,       // ARRAY[args...] of type (an array type)
  kArraySubquery,   // ARRAY(subquery): the subplan's one column, every row
  kSubscript,       // args[0][args[1]]: NULL when out of bounds
  kFieldSelect,     // field `column` of the record args[0]
  kScalarArrayOp,   // args[0] op ANY (args[1]), or ALL when `all`; element_op is the operator
  kWindow,          // the result of the block's window function call number `column`
};

enum class ArithOp { kAdd, kSub, kMul, kDiv, kMod };
enum class CompareOp { kEq, kNe, kLt, kLe, kGt, kGe };
enum class Function { kVersion, kCurrentSetting, kSetConfig, kPgSleep, kPgExportSnapshot };

struct BoundExpr;
struct Builtin;

// The fields of a record-typed expression (a record-returning function's OUT parameters),
// known when it is bound so (expr).field can be resolved.
struct RecordField {
  std::string name;
  TypeId type = TypeId::kUnknown;
  int32_t typmod = -1;
};
using RecordType = std::vector<RecordField>;
using RecordTypePtr = std::shared_ptr<const RecordType>;
using BoundExprPtr = std::unique_ptr<BoundExpr>;
class PlanNode;  // sql/plan/plan.h

// A correlated reference a subquery makes (at any depth) to a column of the query block it is
// bound in: that block's row slot and the reference's location.
struct OuterColumnRead {
  int slot = 0;
  int location = -1;
};

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
  bool all = false;   // kScalarArrayOp: ALL rather than ANY
  std::vector<BoundExprPtr> args;
  std::shared_ptr<const PlanNode> subplan;  // kSubquery, kExists, kInSubquery, kArraySubquery
  RecordTypePtr record;                     // type kRecord: its fields
  // kScalarArrayOp: the operator applied to each element, over a two-slot row (slot 0 the left
  // operand's value, slot 1 the element). Kept out of `args`: it reads no row of the query.
  std::shared_ptr<const BoundExpr> element_op;
  // kSubquery, kExists, kInSubquery, kArraySubquery: the columns of the enclosing block the
  // subplan reads, which that block's GROUP BY check needs (bind_block.cc); nothing else reads it.
  std::vector<OuterColumnRead> outer_reads;
  // The same kinds above the enclosing block's aggregation: the block row the subplan's
  // correlated references read, rebuilt from the grouped row (slot i is row[grouped_outer[i]],
  // NULL where -1). Empty: the current row is the outer row as it is.
  std::vector<int> grouped_outer;
};

// Whether `e` is a call of a set-returning function (Builtin::rows).
bool IsSetReturning(const BoundExpr& e);
// The first set-returning call in `e` (not looking into subqueries), or nullptr.
const BoundExpr* FindSetReturning(const BoundExpr& e);

// Whether `e` reads nothing but the current row, parameters and constants, through operators,
// casts and conditionals: no function call (some read the clock, a sequence or the catalog), no
// subquery, no outer row. Evaluated again later over the same row it gives the same value
// (READ COMMITTED's UPDATE re-applied at commit, UpdatePlan::reapplicable).
bool ReadsOnlyRowAndParameters(const BoundExpr& e);

// Whether two bound expressions compute the same thing (GROUP BY matching, ORDER BY reuse).
bool SameExpr(const BoundExpr& a, const BoundExpr& b);
// A deep copy (subplans are shared: they are immutable).
BoundExprPtr CloneExpr(const BoundExpr& e);

}  // namespace farmdb::sql
