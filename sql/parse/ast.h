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
struct SelectStmt;
struct Statement;
using ExprPtr = std::unique_ptr<Expr>;

enum class ExprKind {
  kInteger,   // text holds the digits (fits int64), int_value the value
  kNumeric,   // text: a decimal literal
  kString,    // text: an undecorated string literal (type unknown)
  kBool,
  kNull,
  kParam,     // param_number ($n)
  kColumnRef, // names: [[schema.]table.]column as written; text: the column name
  kStar,      // * or t.* (names: the qualifier, empty for a bare *)
  kDefault,   // DEFAULT in INSERT ... VALUES or UPDATE ... SET
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
  kFunction,  // text: function name (lower case); agg_star for f(*), distinct for f(DISTINCT ...)
  kInList,    // args[0] [NOT] IN (args[1..]); negated for NOT IN
  kBetween,   // args[0] [NOT] BETWEEN [SYMMETRIC] args[1] AND args[2]
  kLike,      // args[0] [NOT] LIKE|ILIKE args[1] (case_insensitive for ILIKE; ESCAPE is like_escape())
  kExists,    // EXISTS (subquery)
  kSubquery,  // (subquery) as a scalar
  kInSubquery,  // args[0] [NOT] IN (subquery); NOT IN arrives as kNot over it, as PostgreSQL parses it
  // A clause expression whose transform failed (a construct farmdb does not model, an unknown
  // type in a cast, ...): `error` is raised when the statement is analysed and reaches it, so
  // errors PostgreSQL raises earlier in analysis (a missing FROM relation) come first.
  kError,
  kDistinct,     // args[0] IS [NOT] DISTINCT FROM args[1]; negated for IS NOT DISTINCT FROM
  kBooleanTest,  // args[0] IS [NOT] TRUE|FALSE|UNKNOWN: text "true", "false" or "unknown"; negated
  kArray,          // ARRAY[args...]
  kArraySubquery,  // ARRAY(subquery)
  kSubscript,      // args[0][args[1]]
  kFieldSelect,    // (args[0]).text
  kAnyAll,         // args[0] <text> ANY (args[1]), or ALL when `all`: an operator over an array's elements
};

// OVER (PARTITION BY ... ORDER BY ... [frame]) of a window function call.
struct WindowSpec;
struct OrderItem;

struct Expr {
  ExprKind kind;
  int location = -1;
  std::string text;
  std::vector<std::string> names;  // kColumnRef, kStar
  int64_t int_value = 0;
  bool bool_value = false;
  int param_number = 0;
  TypeId cast_type = TypeId::kUnknown;
  int32_t typmod = -1;  // kCast to numeric(p, s) / varchar(n), in PostgreSQL's encoding
  bool has_operand = false;
  bool has_else = false;
  bool negated = false;           // kInList, kBetween, kLike, kDistinct, kBooleanTest
  bool symmetric = false;         // kBetween
  bool case_insensitive = false;  // kLike
  bool agg_star = false;          // kFunction: count(*)
  bool distinct = false;          // kFunction: count(DISTINCT x)
  bool all = false;               // kAnyAll: ALL rather than ANY
  // kFunction: names holds the schema when the name was qualified by another than pg_catalog
  // (information_schema); `over` is set for a window function call.
  std::unique_ptr<WindowSpec> over;
  std::vector<OrderItem> agg_order;  // kFunction: f(x ORDER BY y)
  ExprPtr agg_filter;                // kFunction: f(x) FILTER (WHERE c)
  std::vector<ExprPtr> args;
  std::unique_ptr<SelectStmt> subquery;  // kExists, kSubquery, kInSubquery
  std::optional<Error> error;            // kError
};

// A possibly schema-qualified name (relation, index, sequence).
struct QualifiedName {
  std::string schema;  // empty when not written
  std::string name;
  int location = -1;
};

struct SelectTarget {
  ExprPtr expr;
  std::string name;  // the alias or the name PostgreSQL's FigureColname gives
  bool has_alias = false;
};

struct TableRef;
using TableRefPtr = std::unique_ptr<TableRef>;

// An item of FROM: a relation, a subquery, a function call, or a join of two items.
struct TableRef {
  enum class Kind { kRelation, kSubquery, kFunction, kJoin };
  enum class JoinType { kInner, kLeft, kCross };
  Kind kind = Kind::kRelation;
  int location = -1;
  QualifiedName relation;                 // kRelation
  std::unique_ptr<SelectStmt> subquery;   // kSubquery
  ExprPtr function;                       // kFunction: the call (a kFunction Expr)
  std::string alias;                      // empty when none
  std::vector<std::string> column_aliases;
  JoinType join_type = JoinType::kInner;  // kJoin: left JOIN right ON on | USING (using_columns)
  TableRefPtr left;
  TableRefPtr right;
  ExprPtr on;
  std::vector<std::string> using_columns;
};

struct OrderItem {
  enum class Nulls { kDefault, kFirst, kLast };
  ExprPtr expr;  // an integer literal is an output column position, as in PostgreSQL
  bool descending = false;
  Nulls nulls = Nulls::kDefault;
};

struct WindowSpec {
  // The frame: RANGE (peers of the current row count as one) or ROWS, from UNBOUNDED PRECEDING
  // or CURRENT ROW to CURRENT ROW or UNBOUNDED FOLLOWING. The default frame is RANGE from
  // UNBOUNDED PRECEDING to CURRENT ROW (the whole partition when there is no ORDER BY).
  enum class Bound { kUnboundedPreceding, kCurrentRow, kUnboundedFollowing };
  std::vector<ExprPtr> partition_by;
  std::vector<OrderItem> order_by;
  bool rows = false;
  Bound start = Bound::kUnboundedPreceding;
  Bound end = Bound::kCurrentRow;
  int location = -1;
};

struct LockingClause {
  enum class Strength { kUpdate, kNoKeyUpdate, kShare, kKeyShare };
  enum class Wait { kBlock, kNoWait, kSkipLocked };
  Strength strength = Strength::kUpdate;
  Wait wait = Wait::kBlock;
  std::vector<QualifiedName> tables;  // FOR UPDATE OF ...; empty: every table
};

struct CommonTableExpr {
  std::string name;
  std::vector<std::string> column_names;
  std::unique_ptr<SelectStmt> query;
  int location = -1;
};

// SELECT, VALUES, or a set operation over two of them. ORDER BY, LIMIT/OFFSET, locking and
// WITH belong to the outermost node, as in PostgreSQL's grammar.
struct SelectStmt {
  enum class SetOp { kNone, kUnion, kIntersect, kExcept };
  std::vector<CommonTableExpr> with;
  SetOp op = SetOp::kNone;
  bool all = false;  // UNION ALL
  std::unique_ptr<SelectStmt> left;
  std::unique_ptr<SelectStmt> right;
  std::vector<std::vector<ExprPtr>> values;  // VALUES (...), (...): no targets, no FROM
  bool distinct = false;
  std::vector<SelectTarget> targets;
  std::vector<TableRefPtr> from;
  ExprPtr where;
  std::vector<ExprPtr> group_by;
  ExprPtr having;
  std::vector<OrderItem> order_by;
  ExprPtr limit;   // null: no LIMIT (LIMIT ALL is a null constant)
  ExprPtr offset;
  std::vector<LockingClause> locking;
};

// A type as written: pg_catalog.int4 for INTEGER (the grammar's SystemTypeName), timestamptz,
// serial, varchar with typmods {16}. Resolved to a TypeId by the binder, not here.
struct TypeName {
  std::vector<std::string> names;
  std::vector<int64_t> typmods;
  int location = -1;
};

// A column or table constraint. Column constraints name no columns; table constraints list
// theirs in `columns`.
struct Constraint {
  enum class Kind { kNotNull, kNull, kDefault, kCheck, kPrimaryKey, kUnique, kForeignKey };
  Kind kind = Kind::kNotNull;
  std::string name;  // CONSTRAINT name, empty when unnamed
  int location = -1;
  ExprPtr expr;                      // kDefault, kCheck
  std::vector<std::string> columns;  // kPrimaryKey, kUnique, kForeignKey (table level)
  QualifiedName ref_table;           // kForeignKey: REFERENCES ref_table (ref_columns)
  std::vector<std::string> ref_columns;
  // kForeignKey, in pg_constraint's codes: MATCH f(ull)/p(artial)/s(imple); ON UPDATE/DELETE
  // a (no action), r (restrict), c (cascade), n (set null), d (set default).
  char fk_match = 's';
  char fk_on_update = 'a';
  char fk_on_delete = 'a';
};

struct ColumnDef {
  std::string name;
  TypeName type;
  std::vector<Constraint> constraints;
  int location = -1;
};

struct CreateTableStmt {
  QualifiedName table;
  bool if_not_exists = false;
  std::vector<ColumnDef> columns;
  std::vector<Constraint> constraints;  // table-level
};

struct DropStmt {
  enum class Object { kTable, kIndex, kSequence };
  Object object = Object::kTable;
  std::vector<QualifiedName> names;
  bool if_exists = false;
  bool cascade = false;
};

struct IndexColumn {
  std::string name;
  bool descending = false;
  OrderItem::Nulls nulls = OrderItem::Nulls::kDefault;
};

struct CreateIndexStmt {
  std::string name;  // empty: PostgreSQL chooses one
  QualifiedName table;
  bool unique = false;
  bool if_not_exists = false;
  std::string method;  // "btree" or "hash"
  std::vector<IndexColumn> columns;
};

struct AlterTableCmd {
  enum class Kind { kAddColumn, kDropColumn, kAddConstraint, kDropConstraint };
  Kind kind = Kind::kAddColumn;
  ColumnDef column;         // kAddColumn
  std::string column_name;  // kDropColumn; kDropConstraint: the constraint's name
  Constraint constraint;    // kAddConstraint
  bool if_exists = false;   // ADD COLUMN IF NOT EXISTS / DROP COLUMN|CONSTRAINT IF EXISTS
  bool cascade = false;     // kDropColumn, kDropConstraint
};

struct AlterTableStmt {
  QualifiedName table;
  bool if_exists = false;
  std::vector<AlterTableCmd> cmds;
};

struct TruncateStmt {
  std::vector<QualifiedName> tables;
  bool restart_identity = false;
  bool cascade = false;
};

struct CreateSequenceStmt {
  QualifiedName sequence;
  bool if_not_exists = false;
  std::optional<TypeName> as_type;  // AS smallint|integer|bigint
  std::optional<int64_t> start, increment, min_value, max_value, cache;  // nullopt: default
  bool cycle = false;
  std::vector<std::string> owned_by;  // table.column, or {"none"}; empty when not given
};

struct UpdateSet {
  std::string column;
  ExprPtr value;
  int location = -1;
};

struct OnConflict {
  enum class Action { kNothing, kUpdate };
  Action action = Action::kNothing;
  std::vector<std::string> columns;  // the conflict target; empty when none given
  std::string constraint;            // ON CONFLICT ON CONSTRAINT name
  std::vector<UpdateSet> set;        // DO UPDATE SET; EXCLUDED.col is a column reference
  ExprPtr where;
  int location = -1;
};

struct InsertStmt {
  QualifiedName table;
  std::string alias;
  std::vector<std::string> columns;  // empty: all, in order
  std::vector<int> column_locations;  // of each listed column
  std::unique_ptr<SelectStmt> source;  // VALUES lists or a query; null for DEFAULT VALUES
  std::optional<OnConflict> on_conflict;
  std::vector<SelectTarget> returning;
};

struct UpdateStmt {
  QualifiedName table;
  std::string alias;
  std::vector<UpdateSet> set;
  ExprPtr where;
  std::vector<SelectTarget> returning;
};

struct DeleteStmt {
  QualifiedName table;
  std::string alias;
  ExprPtr where;
  std::vector<SelectTarget> returning;
};

struct SetStmt {
  enum class Kind { kValue, kDefault, kReset, kResetAll, kTransaction, kSessionCharacteristics, kTransactionSnapshot };
  Kind kind = Kind::kValue;
  std::string name;
  std::vector<SetArg> args;  // kTransactionSnapshot: one, the snapshot identifier
  bool is_local = false;
  // kTransaction / kSessionCharacteristics:
  std::optional<std::string> isolation;
  std::optional<bool> read_only;
};

struct ShowStmt {
  std::string name;  // "all" for SHOW ALL
};

struct TransactionStmt {
  enum class Kind { kBegin, kStart, kCommit, kRollback, kSavepoint, kRelease, kRollbackTo };
  Kind kind;
  std::optional<std::string> isolation;
  std::optional<bool> read_only;
  std::string savepoint;  // kSavepoint, kRelease, kRollbackTo
};

struct CopyStmt {
  std::unique_ptr<SelectStmt> query;  // COPY (SELECT ...) TO STDOUT
  QualifiedName relation;             // COPY name [(columns)] FROM STDIN | TO STDOUT
  std::vector<std::string> columns;
  bool is_from = false;
  bool csv = false;
  bool header = false;
  std::string delimiter;    // one character
  std::string null_string;  // how NULL is written
};

struct ExplainStmt {
  bool analyze = false;
  std::unique_ptr<Statement> statement;  // the explained statement (same source; warnings on the outer one)
};

// VACUUM / ANALYZE [tables]: farmdb keeps no dead row versions for VACUUM to reclaim (old
// versions are garbage-collected by the transaction layer, FaRMv2 §5) and no planner statistics
// for ANALYZE, so both only check their tables exist.
struct VacuumStmt {
  bool is_vacuum = true;  // false: ANALYZE
  std::vector<QualifiedName> relations;
};

// CHECKPOINT: every machine writes a checkpoint now (txn/FORMATS.md "Checkpoints"), as
// PostgreSQL's writes one; a later restart replays only what comes after.
struct CheckpointStmt {};

// A statement that parsed but cannot run (not supported yet, or its analysis failed); running
// it fails with `error`, so earlier statements of the same message still run first.
struct UnsupportedStmt {
  Error error;
};

using StatementNode =
    std::variant<SelectStmt, SetStmt, ShowStmt, TransactionStmt, CopyStmt, CreateTableStmt, DropStmt, CreateIndexStmt,
                 AlterTableStmt, TruncateStmt, CreateSequenceStmt, InsertStmt, UpdateStmt, DeleteStmt, ExplainStmt,
                 VacuumStmt, CheckpointStmt, UnsupportedStmt>;

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
