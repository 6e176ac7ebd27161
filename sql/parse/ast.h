// farmdb's own syntax tree: what the transform stage makes of libpg_query's parse tree.
// Nothing here refers to protobuf-c; later stages (bind, exec) see only these types.
//
// Locations are 0-based byte offsets into the text given to Parse (-1 when unknown).
// Thread-safety: plain data.
#pragma once

#include <cstdint>
#include <expected>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "sql/session.h"
#include "sql/settings/settings.h"
#include "types/type.h"

namespace farmdb::sql {

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

enum class ExprKind {
  kInteger,   // text holds the digits (fits int64), int_value the value
  kNumeric,   // text: a decimal literal
  kString,    // text: an undecorated string literal (type unknown)
  kBool,
  kNull,
  kParam,     // param_number ($n)
  kColumnRef, // text: the column name
  kCast,      // args[0]::cast_type
  kOperator,  // text: operator name; args: one (prefix) or two operands
  kAnd,
  kOr,
  kNot,
  kIsNull,
  kIsNotNull,
  kCase,      // args: [operand?] then when/then pairs, then else (has_operand/has_else)
  kCoalesce,
  kNullIf,
  kFunction,  // text: function name (lower case)
};

struct Expr {
  ExprKind kind;
  int location = -1;
  std::string text;
  int64_t int_value = 0;
  bool bool_value = false;
  int param_number = 0;
  TypeId cast_type = TypeId::kUnknown;
  int32_t typmod = -1;  // kCast to numeric(p, s) / varchar(n), in PostgreSQL's encoding
  bool has_operand = false;
  bool has_else = false;
  std::vector<ExprPtr> args;
};

struct SelectTarget {
  ExprPtr expr;
  std::string name;  // the alias or the name PostgreSQL's FigureColname gives
};

struct SelectStmt {
  std::vector<SelectTarget> targets;
  ExprPtr where;
};

struct SetStmt {
  enum class Kind { kValue, kDefault, kReset, kResetAll, kTransaction, kSessionCharacteristics };
  Kind kind = Kind::kValue;
  std::string name;
  std::vector<SetArg> args;
  bool is_local = false;
  // kTransaction / kSessionCharacteristics:
  std::optional<std::string> isolation;
  std::optional<bool> read_only;
};

struct ShowStmt {
  std::string name;  // "all" for SHOW ALL
};

struct TransactionStmt {
  enum class Kind { kBegin, kStart, kCommit, kRollback };
  Kind kind;
  std::optional<std::string> isolation;
  std::optional<bool> read_only;
};

struct CopyStmt {
  std::unique_ptr<SelectStmt> query;  // COPY (SELECT ...) TO STDOUT
  std::string relation;               // COPY name ...: no relation exists yet
  bool csv = false;
  bool header = false;
  std::string delimiter;    // one character
  std::string null_string;  // how NULL is written
};

// A statement that parsed but cannot run (not supported yet, or its analysis failed); running
// it fails with `error`, so earlier statements of the same message still run first.
struct UnsupportedStmt {
  Error error;
};

using StatementNode = std::variant<SelectStmt, SetStmt, ShowStmt, TransactionStmt, CopyStmt, UnsupportedStmt>;

struct Statement {
  StatementNode node;
  // The whole text given to Parse (locations and error positions refer to it).
  std::shared_ptr<const std::string> source;
  // WARNINGs of parse analysis (TIMESTAMP(7) precision reduced ...), sent before it runs.
  std::vector<Notice> warnings;
};

// Parses `text` into statements (none for an empty or ';'-only text). A syntax error fails the
// whole text with 42601 and its position, as PostgreSQL does before running anything.
std::expected<std::vector<Statement>, Error> Parse(std::string_view text);

// 1-based character position of byte offset `location` in `text` (0 when unknown).
int CharPosition(std::string_view text, int location);

}  // namespace farmdb::sql
