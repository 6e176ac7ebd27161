// Deparse: prints an AST expression of a CHECK constraint or a column DEFAULT the way
// PostgreSQL 15 stores and prints it (ruleutils.c: pg_get_constraintdef's CHECK body and
// pg_get_expr of pg_attrdef.adbin), so farmdb's catalog holds the same text PostgreSQL shows
// (`(a > 0)`, `((c >= 1.5) AND (c < (100)::numeric))`, `lower('ABC'::text)`,
// `nextval('t_id_seq'::regclass)`) and the INSERT executor can parse it back.
//
// PostgreSQL prints the analysed tree: operands carry the implicit casts parse analysis added
// (`(n)::text` for a varchar column under a text operator, `(100)::numeric` beside a numeric),
// unknown literals carry the type they resolved to (`'x'::text`), and only the outermost
// implicit cast is hidden. Deparse runs a small version of that analysis over the bound-free
// AST: the types of literals, of the table's columns, of the operators over the built-in
// types (cross-type integer, float and date/time operators need no casts) and of a few common
// functions. Expressions outside that (unknown functions) print with their arguments as
// written, literals as text.
//
// Thread-safety: plain functions.
#pragma once

#include <expected>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sql/parse/ast.h"
#include "sql/types/type_io.h"

namespace farmdb::sql {

struct DeparseOptions {
  enum class Context { kCheck, kDefault };
  Context context = Context::kCheck;
  // The type of a column of the table (CHECK); nullopt: no such column (42703).
  std::function<std::optional<TypeId>(std::string_view column)> column_type;
  std::string_view source;  // the statement text, for error positions
  const TextOptions* text = nullptr;  // how literals of typed constants are read and printed
  // pg_get_constraintdef(oid, true)'s PRETTYFLAG_PAREN: no parentheses of a node's own, and a
  // child's only where ruleutils' isSimpleNode says its parent needs them (`a > 0 AND b`,
  // `(a + b) * c`, `n::text`). Off: the stored form, every operator parenthesized.
  bool pretty = false;
};

struct Deparsed {
  std::string text;
  std::optional<TypeId> type;        // the expression's type when known
  std::vector<std::string> columns;  // columns referenced, in order of first mention
  bool is_volatile = false;          // calls nextval(), random(), ...
  // Relations named by nextval('name') / currval('name') literals (a regclass PostgreSQL
  // resolves when it analyses the expression), with the literal's location.
  std::vector<std::pair<std::string, int>> sequences;
};

// Errors as PostgreSQL words them: 42703 unknown column, 0A000 subqueries ("cannot use
// subquery in check constraint") and column references in DEFAULT, 42804 a CHECK that is not
// boolean, 42P02 parameters, and the kError node's own error.
std::expected<Deparsed, Error> Deparse(const Expr& e, const DeparseOptions& options);

// pg_get_constraintdef(oid, true)'s body of a CHECK whose stored (non-pretty) text is `stored`:
// the text parsed and deparsed again in pretty mode; nullopt if that fails (the caller shows
// the stored text).
std::optional<std::string> PrettyCheck(std::string_view stored,
                                       const std::function<std::optional<TypeId>(std::string_view)>& column_type,
                                       const TextOptions& text);

// A constant of `type` as get_const_expr prints it with showtype 0: non-negative int4 and
// decimal numerics bare, booleans as true/false, anything else 'text'::type.
std::string ConstantText(const Value& value, const TextOptions& text);

}  // namespace farmdb::sql
