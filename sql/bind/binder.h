// Binder: resolves an AST expression or statement into bound form (types, operators,
// functions, implicit casts), inferring parameter types from context as PostgreSQL's
// parse analysis does ($1::int4, $1 + 1 -> int4, comparisons), leaving the rest to the caller.
//
// Thread-safety: one Binder per statement analysis, one thread.
#pragma once

#include <expected>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sql/bind/bound_expr.h"
#include "sql/bind/scope.h"
#include "sql/parse/ast.h"
#include "sql/plan/dml_plan.h"
#include "sql/plan/plan.h"
#include "sql/types/type_io.h"
#include "storage/catalog_snapshot.h"

namespace farmdb::sql {

// What relation names resolve against: the catalog snapshot the statement runs under and the
// session's search path.
struct QueryCatalog {
  storage::SnapshotPtr snapshot;
  std::vector<std::string> search_path;
};

// A result column as RowDescription describes it.
struct OutputColumn {
  std::string name;
  TypeId type = TypeId::kUnknown;
  int32_t typmod = -1;
  Oid table_oid = 0;  // set when the column is a table's column, as PostgreSQL reports it
  int16_t attnum = 0;
  bool from_unknown = false;  // an untyped literal resolved to text (a UNION's other side may type it)
  RecordTypePtr record = nullptr;  // type kRecord: its fields
};

// A bound query: its plan and the plan's row as result columns.
struct BoundQuery {
  PlanPtr plan;
  std::vector<OutputColumn> columns;
};

struct AggregateCall;
struct AggregateScope;  // the aggregate calls of the query block being bound (bind_query.cc)
struct WindowScope;     // its window function calls (bind_window.cc)

class Binder {
 public:
  // `param_types` holds the client's types (kUnknown where unspecified); binding fills in
  // inferred ones and grows it to the highest $n referenced.
  // `max_params`: 0 for the simple query protocol, where $n has no value.
  // `text_options`: the session's settings when the statement is analysed, with which
  // literals are read ('01/02/2024'::date follows DateStyle then, as in PostgreSQL).
  Binder(std::string_view source, std::vector<TypeId>& param_types, int max_params, const TextOptions& text_options)
      : source_(source), param_types_(param_types), max_params_(max_params), text_options_(text_options) {}

  // Relations resolve against the catalog `load` returns, called the first time a name needs
  // it (so constant SELECTs never read the catalog); without a loader no relation exists.
  using CatalogLoader = std::function<std::expected<const QueryCatalog*, Error>()>;
  void set_catalog_loader(CatalogLoader load) { load_catalog_ = std::move(load); }
  // The catalog, loading it if needed (nullptr without a loader).
  std::expected<const QueryCatalog*, Error> LoadCatalog();

  // A whole query (SELECT, VALUES, set operations) as a plan (bind_query.cc). `outer`: the
  // enclosing query's scope for a subquery.
  std::expected<BoundQuery, Error> BindQuery(const SelectStmt& select, const Scope* outer = nullptr);
  // After binding: "SELECT FOR UPDATE" (the strength of the statement's first row lock, as
  // PostgreSQL's CreateCommandName) when the statement locks rows of a table or system view
  // anywhere, which a READ ONLY transaction refuses with 25006 (ExecCheckXactReadOnly).
  std::optional<std::string> RowLockCommand() const;
  // The table a DML statement names: 42P01 when missing, 42809 when not a table.
  std::expected<const storage::TableDesc*, Error> ResolveTable(const QualifiedName& name);
  // A scope over one table's row (slot = attnum - 1), for DML's WHERE, SET and RETURNING.
  static Scope TableScope(const storage::TableDesc& table, std::string_view qualifier);
  // Binds `expr` with `scope`'s names visible (aggregates are refused with 42803 naming
  // `clause`, e.g. "WHERE" or "RETURNING").
  std::expected<BoundExprPtr, Error> BindExprIn(const Expr& expr, const Scope& scope, std::string_view clause);
  // Output columns of a target list over `scope` (RETURNING), with * expanded.
  std::expected<std::pair<std::vector<BoundExprPtr>, std::vector<OutputColumn>>, Error> BindTargetList(
      const std::vector<SelectTarget>& targets, const Scope& scope, std::string_view clause);

  // INSERT, UPDATE, DELETE (bind_dml.cc) and their RETURNING columns.
  struct BoundDml {
    DmlPlan plan;
    std::vector<OutputColumn> returning;
  };
  std::expected<BoundDml, Error> BindInsert(const InsertStmt& stmt);
  std::expected<BoundDml, Error> BindUpdate(const UpdateStmt& stmt);
  std::expected<BoundDml, Error> BindDelete(const DeleteStmt& stmt);
  // COPY table [(columns)] FROM STDIN: the insert its rows go through (no source plan).
  std::expected<InsertPlan, Error> BindCopyFrom(const CopyStmt& stmt);
  // COPY table [(columns)] TO STDOUT: the query it runs.
  std::expected<BoundQuery, Error> BindCopyTo(const CopyStmt& stmt);
  // Makes `e` storable in `column`: PostgreSQL's assignment coercion, 42804 when there is none;
  // a typmod is applied as an assignment (22001 for a too long string).
  std::expected<BoundExprPtr, Error> CoerceToColumn(BoundExprPtr e, const storage::ColumnDesc& column);

  std::expected<BoundExprPtr, Error> BindExpr(const Expr& expr);
  // Makes `e` of type `target`: literals and unknown parameters take the type, other types
  // need an implicit cast. A null result means no implicit cast exists (the caller words that
  // error); an error is a literal that does not parse as `target`.
  std::expected<BoundExprPtr, Error> Coerce(BoundExprPtr e, TypeId target);
  // Resolves a still-unknown expression to text (output columns, || operands).
  std::expected<BoundExprPtr, Error> ResolveUnknown(BoundExprPtr e);

 private:
  std::expected<BoundExprPtr, Error> BindConst(const Expr& expr);
  std::expected<BoundExprPtr, Error> BindCast(const Expr& expr);
  std::expected<BoundExprPtr, Error> BindPlainCast(const Expr& expr);  // ignoring type modifiers
  std::expected<BoundExprPtr, Error> BindOperator(const Expr& expr);
  // Operator `op` over bound operands (one: prefix, two: infix).
  std::expected<BoundExprPtr, Error> BindOperatorArgs(const std::string& op, std::vector<BoundExprPtr> args, int location);
  std::expected<BoundExprPtr, Error> BindArith(std::string_view op, BoundExprPtr l, BoundExprPtr r, int location);
  std::expected<BoundExprPtr, Error> BindCompare(std::string_view op, BoundExprPtr l, BoundExprPtr r, int location);
  std::expected<BoundExprPtr, Error> BindConcat(BoundExprPtr l, BoundExprPtr r, int location);
  // 'name'::regclass and 'name'::regnamespace resolved against the statement's catalog at
  // bind time, as PostgreSQL's parse analysis does (bind_catalog_function.cc).
  std::expected<Value, Error> ParseCatalogNameLiteral(TypeId type, std::string_view text);
  std::expected<BoundExprPtr, Error> BindBool(const Expr& expr);
  std::expected<BoundExprPtr, Error> BindCase(const Expr& expr);
  std::expected<BoundExprPtr, Error> BindCoalesce(const Expr& expr);
  std::expected<BoundExprPtr, Error> BindNullIf(const Expr& expr);
  std::expected<BoundExprPtr, Error> BindFunction(const Expr& expr);
  // Built-in functions and operators as data (bind_function.cc, sql/exec/builtins.h).
  std::expected<BoundExprPtr, Error> BindBuiltinCall(const Builtin& b, std::vector<BoundExprPtr> args, int location);
  // anyarray/anyelement of `b` bound to the call's argument types: the type each argument
  // takes (`arg_types`), the result type and a record result's fields (bind_function.cc).
  struct CallTypes {
    std::vector<TypeId> arg_types;
    TypeId result = TypeId::kUnknown;
    RecordTypePtr record;
  };
  std::expected<CallTypes, Error> ResolveCallTypes(const Builtin& b, const std::vector<BoundExprPtr>& args, int location);
  // The 0A000 of a set-returning call where the binder does not allow one (clause_, or the
  // CASE, COALESCE or call `container` it sits in).
  Error SetReturningError(const BoundExpr& call, std::string_view container) const;
  // 0A000 when `e` contains a set-returning call (CASE, COALESCE, aggregate arguments, ...).
  std::expected<void, Error> RefuseSetReturning(const BoundExpr& e, std::string_view container) const;
  // Arrays and records (bind_array.cc).
  std::expected<BoundExprPtr, Error> BindArrayConstructor(const Expr& expr);
  std::expected<BoundExprPtr, Error> BindSubscript(const Expr& expr);
  std::expected<BoundExprPtr, Error> BindFieldSelect(const Expr& expr);
  std::expected<BoundExprPtr, Error> BindAnyAll(const Expr& expr);
  std::expected<BoundExprPtr, Error> BindArrayConcat(BoundExprPtr l, BoundExprPtr r, int location);
  // Window function calls (bind_window.cc).
  std::expected<BoundExprPtr, Error> BindWindowFunction(const Expr& expr);
  std::expected<BoundExprPtr, Error> BindExtraOperator(std::string_view op, std::vector<BoundExprPtr> args, int location);
  // Predicates (bind_predicate.cc).
  std::expected<BoundExprPtr, Error> BindInList(const Expr& expr);
  std::expected<BoundExprPtr, Error> BindBetween(const Expr& expr);
  std::expected<BoundExprPtr, Error> BindLike(const Expr& expr);
  std::expected<BoundExprPtr, Error> BindDistinct(const Expr& expr);
  std::expected<BoundExprPtr, Error> BindBooleanTest(const Expr& expr);
  std::expected<BoundExprPtr, Error> BindMinMax(std::string_view name, std::vector<BoundExprPtr> args, int location);
  // Coerces to bool or fails with 42804 "argument of <context> must be type boolean, ...".
  std::expected<BoundExprPtr, Error> RequireBool(BoundExprPtr e, std::string_view context);
  // select_common_type + coercion of every expression to it (CASE, COALESCE).
  std::expected<TypeId, Error> CommonType(const std::vector<BoundExprPtr*>& exprs, std::string_view context);
  std::expected<BoundExprPtr, Error> CoerceOrFail(BoundExprPtr e, TypeId target);

  Error ErrorAt(std::string sqlstate, std::string message, int location) const;

  // bind_dml.cc: a column's default (null when it has none), the row checks of a table, SET
  // lists, ON CONFLICT.
  std::expected<BoundExprPtr, Error> BindDefault(const storage::ColumnDesc& column);
  std::expected<RowChecks, Error> BindRowChecks(const storage::TableDesc& table);
  std::expected<std::vector<Assignment>, Error> BindAssignments(const std::vector<UpdateSet>& set,
                                                                const storage::TableDesc& table, const Scope& scope);
  std::expected<const storage::TableDesc*, Error> ResolveCopyTable(const CopyStmt& stmt);
  // `reads` and `also_read` (columns): what the statement reads of each row besides WHERE and
  // RETURNING (PlanTableScan).
  template <typename Plan>
  std::expected<void, Error> BindRowSelection(const storage::TableDesc& table, const std::string& alias, const Expr* where,
                                              const std::vector<SelectTarget>& returning, const Scope& scope,
                                              std::vector<const BoundExpr*> reads, std::span<const int> also_read,
                                              Plan& plan, BoundDml& out);
  // The columns an INSERT or COPY lists (every live one when `names` is empty); 42703/42701 at
  // `locations` (none given: no position, as COPY).
  std::expected<std::vector<const storage::ColumnDesc*>, Error> TargetColumns(const storage::TableDesc& table,
                                                                             const std::vector<std::string>& names,
                                                                             std::span<const int> locations);
  // The plan's target columns, the defaults of the others, and the table's row checks.
  std::expected<void, Error> BindInsertTargets(const storage::TableDesc& table,
                                               const std::vector<const storage::ColumnDesc*>& targets, InsertPlan& plan);
  std::expected<OnConflictPlan, Error> BindOnConflict(const OnConflict& on_conflict, const storage::TableDesc& table,
                                                      const Scope& scope);
  // A binder for a subquery: same parameters, catalog and visible WITH queries.
  Binder SubBinder() const;
  // bind_query.cc: column references, aggregates, subqueries and the parts of a query block.
  std::expected<BoundExprPtr, Error> BindColumnRef(const Expr& expr);
  std::expected<BoundExprPtr, Error> BindAggregate(const Expr& expr);
  // An aggregate call's arguments and result type; `window`: as a window aggregate, whose
  // arguments may hold plain aggregates of a grouped query.
  std::expected<AggregateCall, Error> BindAggregateCall(const Expr& expr, bool window);
  std::expected<BoundExprPtr, Error> BindSubquery(const Expr& expr);
  struct Block;
  // `pushed_lock`: FOR UPDATE/SHARE of an enclosing query that reaches this one, a subquery in
  // its FROM (PostgreSQL's pushed-down row marks).
  std::expected<Block, Error> BindBlock(const SelectStmt& select, const Scope* outer,
                                        std::optional<LockingClause::Strength> pushed_lock);
  std::expected<void, Error> BindFromItem(const TableRef& ref, Block& block);
  // A function call in FROM: its plan and columns (bind_srf.cc).
  std::expected<std::pair<PlanPtr, std::vector<OutputColumn>>, Error> BindFunctionScan(const TableRef& ref, const Scope* outer);
  // Window calls and set-returning calls of a bound block become WindowNode and
  // ProjectSetNode columns (bind_srf.cc); `width` is the row the targets are over.
  PlanPtr PlanWindowsAndSets(PlanPtr plan, Block& block, size_t width);
  std::expected<BoundQuery, Error> BindSetOperation(const SelectStmt& select, const Scope* outer);
  std::expected<BoundQuery, Error> FinishQuery(Block block, const SelectStmt& select);
  std::expected<PlanPtr, Error> AddLimit(PlanPtr plan, const SelectStmt& select);
  // FOR UPDATE / FOR SHARE (bind_locking.cc): PostgreSQL's transformLockingClause,
  // CheckSelectLocking and the planner's outer-join check. FinishRowLocks runs at the end of a
  // block: the errors, then the hidden targets with each locked relation's Addr (its
  // LockRowsNode goes in FinishQuery). LockError raises an error of a query only an enclosing
  // query's clause reached after that query's own errors, as PostgreSQL transforms the clause
  // there: recorded for it (deferred_lock_error_), the query binding on without locks.
  std::expected<void, Error> FinishRowLocks(const SelectStmt& select, Block& block);
  std::expected<void, Error> LockError(Error e, bool pushed_only);
  // A subquery in FROM that a clause reaches binds with this binder's pushed lock.
  Binder LockedSubBinder(std::optional<LockingClause::Strength> lock, Block& block) const;

  CatalogLoader load_catalog_;
  const QueryCatalog* catalog_ = nullptr;  // once loaded
  const Scope* scope_ = nullptr;          // names visible to BindExpr (null: none)
  AggregateScope* aggregates_ = nullptr;  // where aggregate calls go (null: not allowed here)
  std::string_view no_aggregates_clause_ = "WHERE";  // what 42803 names when aggregates_ is null
  WindowScope* windows_ = nullptr;  // where window calls go (null: not allowed here)
  bool set_returning_allowed_ = false;  // a SELECT's targets and ORDER BY, FROM
  std::string_view clause_ = "WHERE";  // the clause being bound, for window and set-returning errors
  std::vector<const CommonTableExpr*> ctes_;  // WITH queries visible, innermost last
  // Row locks (bind_locking.cc): a lock pushed into this binder's query by the enclosing one;
  // where its errors go; what the statement locks, shared by all its binders; the query nesting
  // depth (the statement's outermost query names the command).
  std::optional<LockingClause::Strength> pushed_lock_;
  std::optional<Error>* deferred_lock_error_ = nullptr;
  struct RowLockSummary {
    bool relation = false;
    std::optional<LockingClause::Strength> command;
  };
  std::shared_ptr<RowLockSummary> row_locks_ = std::make_shared<RowLockSummary>();
  int depth_ = 0;

  std::string_view source_;
  std::vector<TypeId>& param_types_;
  int max_params_;
  const TextOptions& text_options_;
};

// Whether `name` is an aggregate function (count, sum, avg, min, max, ...).
bool IsAggregateName(std::string_view name);
// Whether PostgreSQL casts `from` to `to` implicitly (pg_cast castcontext 'i').
bool ImplicitlyCastable(TypeId from, TypeId to);
// The type two numeric types are promoted to for an operator (int4 + int8 -> int8, ...).
TypeId PromoteNumeric(TypeId a, TypeId b);
BoundExprPtr MakeCast(BoundExprPtr e, TypeId target);
// A node of `kind` with its result type and source location; the caller fills in the rest.
BoundExprPtr MakeBound(BoundKind kind, TypeId type, int location);

}  // namespace farmdb::sql
