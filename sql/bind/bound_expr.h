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
};

enum class ArithOp { kAdd, kSub, kMul, kDiv, kMod };
enum class CompareOp { kEq, kNe, kLt, kLe, kGt, kGe };
enum class Function {
  kVersion, kCurrentSetting, kSetConfig, kPgSleep, kUpper, kLower, kLength, kAbs, kRound,
  // Catalog functions (bind_catalog_function.cc, functions_catalog.cc):
  kFormatType, kPgGetUserById, kPgTableIsVisible, kPgGetIndexdef, kPgGetConstraintdef, kPgGetExpr,
  kObjDescription, kColDescription, kShobjDescription, kPgEncodingToChar, kCurrentDatabase, kCurrentSchema,
  kQuoteIdent, kPgRelationIsPublishable, kPgGetStatisticsobjdefColumns,
  kRegexMatch, kRegexNotMatch, kRegexIMatch, kRegexNotIMatch,  // ~, !~, ~*, !~*
};

struct BoundExpr;
using BoundExprPtr = std::unique_ptr<BoundExpr>;

struct BoundExpr {
  BoundKind kind;
  TypeId type;
  int32_t typmod = -1;  // kCast to numeric(p, s) / varchar(n): PostgreSQL's atttypmod encoding
  int location = -1;
  Value value;
  int param_index = 0;
  ArithOp arith = ArithOp::kAdd;
  CompareOp compare = CompareOp::kEq;
  Function function = Function::kVersion;
  bool has_operand = false;
  bool has_else = false;
  std::vector<BoundExprPtr> args;
};

}  // namespace farmdb::sql
