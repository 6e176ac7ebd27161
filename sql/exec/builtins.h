// Built-in functions and operators as data: a name, PostgreSQL's argument and result types
// (pg_proc / pg_operator of PG 15) and the evaluator. The binder resolves a call or operator
// against these tables (bind/overload.cc) and records the chosen entry in
// BoundExpr::builtin; Evaluate calls its evaluator (BoundKind::kBuiltin).
//
// Thread-safety: the tables are immutable function-local statics; evaluators are pure apart
// from the ExecContext they are given (clock reads, random()).
#pragma once

#include <expected>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "sql/exec/evaluate.h"

namespace farmdb::sql {

// `args` are the values of the call's arguments, already of the entry's types; for a strict
// entry none is NULL. `e` is the bound call (its result type, typmod, location).
using BuiltinEval = std::expected<Value, Error> (*)(std::span<const Value> args, const BoundExpr& e, ExecContext& ctx);

// The values a set-returning function call produces, one per Next (nullopt after the last).
class RowSource {
 public:
  virtual ~RowSource() = default;
  virtual std::expected<std::optional<Value>, Error> Next() = 0;
};
using RowSourcePtr = std::unique_ptr<RowSource>;
using SetEval = std::expected<RowSourcePtr, Error> (*)(std::span<const Value> args, const BoundExpr& e, ExecContext& ctx);

// A record-returning function's OUT parameter (anyelement resolves as the call does).
struct OutField {
  std::string_view name;
  TypeId type;
};

// anyarray and anyelement in `args` and `result` are PostgreSQL's polymorphic pseudo-types: a
// call binds them to one array type and its element type (bind_function.cc).
struct Builtin {
  std::string_view name;       // function name (lower case) or operator symbol
  std::vector<TypeId> args;    // fixed arguments
  TypeId result;
  BuiltinEval eval;
  bool strict = true;          // NULL in any argument gives NULL without calling eval
  bool variadic_any = false;   // VARIADIC "any" after `args`: any types, any count (concat)
  // A set-returning function: `rows` instead of `eval`, run by the ProjectSet and function
  // scan cursors; a strict one returns no rows for a NULL argument.
  SetEval rows = nullptr;
  std::vector<OutField> out_fields = {};  // result kRecord: its fields
  std::string_view schema = "pg_catalog";
};

// Functions callable by name, per area (functions_string.cc, functions_math.cc,
// functions_datetime.cc, to_char.cc).
std::span<const Builtin> StringFunctions();
std::span<const Builtin> MathFunctions();
std::span<const Builtin> DateTimeFunctions();
std::span<const Builtin> FormattingFunctions();  // to_char (to_char.cc)
// The catalog functions psql and pgjdbc call: format_type, pg_get_indexdef, current_user, ...
// (functions_catalog.cc). The binder loads the statement's catalog for a call of one of these.
std::span<const Builtin> CatalogFunctions();
// nextval, currval, setval (functions_sequence.cc); like the catalog functions, the binder
// loads the statement's catalog for a call of one of these.
std::span<const Builtin> SequenceFunctions();
// Array functions (array_to_string, array_upper, cardinality, ...) and the array operators
// || (array_cat, array_append, array_prepend) by their function names (functions_array.cc).
std::span<const Builtin> ArrayFunctions();
// Set-returning functions: generate_series, unnest, information_schema._pg_expandarray
// (functions_set.cc).
std::span<const Builtin> SetReturningFunctions();
// Relation sizes (pg_relation_size, pg_table_size, ...) and pg_size_pretty (functions_size.cc);
// the binder loads the statement's catalog for these too.
std::span<const Builtin> SizeFunctions();
// Operators beyond + - * / % comparisons and ||: ^ @ |/ ||/ and the integer bit operators
// (functions_math.cc), the LIKE family ~~ !~~ ~~* !~~* (functions_string.cc). Prefix
// operators have one argument.
std::span<const Builtin> MathOperators();
std::span<const Builtin> StringOperators();
// The regular expression matches ~ !~ ~* !~* (functions_catalog.cc).
std::span<const Builtin> RegexOperators();

// Calls e.builtin; NULL in an argument of a strict one gives NULL (predicates.cc).
std::expected<Value, Error> CallBuiltin(const BoundExpr& e, std::span<const Value> args, ExecContext& ctx);
// kInList, kIsDistinct, kIsNotDistinct, kIsTrue, kIsNotTrue, kIsFalse, kIsNotFalse over the
// evaluated arguments, with SQL's NULL rules (predicates.cc).
Value EvalPredicate(const BoundExpr& e, std::span<const Value> args);

// The current time as timestamptz (microseconds since 2000-01-01 UTC).
int64_t ClockNow();

// LIKE matching (like.cc), as PostgreSQL's like_match.c: `%` any run, `_` one character,
// backslash escapes the next character. `case_insensitive`: ILIKE (ASCII case folding).
// 22025 when the pattern ends with the escape character.
std::expected<bool, Error> LikeMatch(std::string_view text, std::string_view pattern, bool case_insensitive,
                                     bool bytes);

}  // namespace farmdb::sql
