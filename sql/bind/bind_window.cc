// Window function calls, as PostgreSQL's transformWindowFuncCall and transformWindowDefinitions
// type them: the call goes to the query block's WindowScope and its place in the expression
// becomes a kWindow reference, computed by a WindowNode below the projection (bind_srf.cc).
#include <fmt/format.h>

#include <algorithm>

#include "sql/bind/block.h"
#include "sql/exec/builtins.h"

namespace farmdb::sql {
namespace {

struct WindowOnly {
  std::string_view name;
  WindowFunction function;
  size_t min_args, max_args;
};

constexpr WindowOnly kWindowFunctions[] = {
    {"row_number", WindowFunction::kRowNumber, 0, 0},   {"rank", WindowFunction::kRank, 0, 0},
    {"dense_rank", WindowFunction::kDenseRank, 0, 0},   {"percent_rank", WindowFunction::kPercentRank, 0, 0},
    {"cume_dist", WindowFunction::kCumeDist, 0, 0},     {"ntile", WindowFunction::kNtile, 1, 1},
    {"lag", WindowFunction::kLag, 1, 3},                {"lead", WindowFunction::kLead, 1, 3},
    {"first_value", WindowFunction::kFirstValue, 1, 1}, {"last_value", WindowFunction::kLastValue, 1, 1},
};

bool IsBuiltinName(std::string_view name) {
  for (auto table : {StringFunctions(), MathFunctions(), DateTimeFunctions(), FormattingFunctions(), CatalogFunctions(),
                     SequenceFunctions(), ArrayFunctions(), SetReturningFunctions(), SizeFunctions()}) {
    if (std::ranges::any_of(table, [&](const Builtin& b) { return b.name == name; })) return true;
  }
  return false;
}

}  // namespace

std::expected<BoundExprPtr, Error> Binder::BindWindowFunction(const Expr& expr) {
  const std::string& name = expr.text;
  if (windows_ == nullptr) {
    if (clause_ == "aggregate function calls") {
      return std::unexpected(ErrorAt("42803", "aggregate function calls cannot contain window function calls", expr.location));
    }
    if (clause_ == "window function calls") {
      return std::unexpected(ErrorAt("42P20", "window function calls cannot be nested", expr.location));
    }
    return std::unexpected(ErrorAt("42P20", fmt::format("window functions are not allowed in {}", clause_), expr.location));
  }
  WindowScope* scope = windows_;
  const WindowSpec& over = *expr.over;
  WindowCall call;
  if (IsAggregateName(name)) {
    auto aggregate = BindAggregateCall(expr, true);
    if (!aggregate) return std::unexpected(aggregate.error());
    call.function = WindowFunction::kAggregate;
    call.call = std::move(*aggregate);
  } else {
    auto known = std::ranges::find(kWindowFunctions, name, &WindowOnly::name);
    if (expr.agg_star || expr.distinct) {
      return std::unexpected(ErrorAt("42809", fmt::format("{} specified, but {} is not an aggregate function",
                                                          expr.agg_star ? name + "(*)" : std::string("DISTINCT"), name),
                                     expr.location));
    }
    std::vector<BoundExprPtr> args;
    windows_ = nullptr;
    std::string_view saved_clause = clause_;
    clause_ = "window function calls";
    for (const ExprPtr& a : expr.args) {
      auto bound = BindExpr(*a);
      if (!bound) {
        windows_ = scope, clause_ = saved_clause;
        return bound;
      }
      args.push_back(std::move(*bound));
    }
    windows_ = scope, clause_ = saved_clause;
    for (const BoundExprPtr& a : args) {
      if (auto refused = RefuseSetReturning(*a, "window function"); !refused) return std::unexpected(refused.error());
    }
    auto no_function = [&] {
      std::string types;
      for (const BoundExprPtr& a : args) types += (types.empty() ? "" : ", ") + std::string(Info(a->type).sql_name);
      if (known == std::end(kWindowFunctions) && IsBuiltinName(name)) {
        return ErrorAt("42809", fmt::format("OVER specified, but {} is not a window function nor an aggregate function", name),
                       expr.location);
      }
      Error e = ErrorAt("42883", fmt::format("function {}({}) does not exist", name, types), expr.location);
      e.hint = "No function matches the given name and argument types. You might need to add explicit type casts.";
      return e;
    };
    if (known == std::end(kWindowFunctions) || args.size() < known->min_args || args.size() > known->max_args) {
      return std::unexpected(no_function());
    }
    call.function = known->function;
    switch (call.function) {
      case WindowFunction::kRowNumber:
      case WindowFunction::kRank:
      case WindowFunction::kDenseRank:
        call.call.type = TypeId::kInt8;
        break;
      case WindowFunction::kPercentRank:
      case WindowFunction::kCumeDist:
        call.call.type = TypeId::kFloat8;
        break;
      case WindowFunction::kNtile: {
        auto n = Coerce(std::move(args[0]), TypeId::kInt4);
        if (!n) return n;
        if (!*n) return std::unexpected(no_function());
        args[0] = std::move(*n);
        call.call.type = TypeId::kInt4;
        break;
      }
      default: {
        // lag/lead(value [, offset [, default]]): the value and default meet at a common type
        // (anycompatible); first_value and last_value return their argument's type.
        if (args.size() >= 2) {
          auto offset = Coerce(std::move(args[1]), TypeId::kInt4);
          if (!offset) return offset;
          if (!*offset) return std::unexpected(no_function());
          args[1] = std::move(*offset);
        }
        std::vector<BoundExprPtr*> values = {&args[0]};
        if (args.size() == 3) values.push_back(&args[2]);
        auto type = CommonType(values, name);
        if (!type) return std::unexpected(type.error());
        call.call.type = *type;
        break;
      }
    }
    call.call.args = std::move(args);
  }

  // PARTITION BY and ORDER BY: expressions over the same row, without window calls or
  // set-returning functions of their own.
  WindowScope* saved_windows = windows_;
  bool saved_sets = set_returning_allowed_;
  std::string_view saved_clause = clause_;
  windows_ = nullptr, set_returning_allowed_ = false, clause_ = "window definitions";
  auto restore = [&] { windows_ = saved_windows, set_returning_allowed_ = saved_sets, clause_ = saved_clause; };
  auto bind_key = [&](const Expr& e) -> std::expected<BoundExprPtr, Error> {
    auto bound = BindExpr(e);
    if (!bound) return bound;
    return ResolveUnknown(std::move(*bound));
  };
  for (const ExprPtr& p : over.partition_by) {
    auto key = bind_key(*p);
    if (!key) {
      restore();
      return key;
    }
    call.partition_by.push_back(std::move(*key));
  }
  for (const OrderItem& item : over.order_by) {
    auto key = bind_key(*item.expr);
    if (!key) {
      restore();
      return key;
    }
    bool nulls_first = item.nulls == OrderItem::Nulls::kFirst || (item.nulls == OrderItem::Nulls::kDefault && item.descending);
    call.order.push_back(SortKey{call.order_by.size(), item.descending, nulls_first});
    call.order_by.push_back(std::move(*key));
  }
  restore();
  call.rows = over.rows;
  call.from_current = over.start == WindowSpec::Bound::kCurrentRow;
  call.to_end = over.end == WindowSpec::Bound::kUnboundedFollowing;

  BoundExprPtr e = MakeBound(BoundKind::kWindow, call.call.type, expr.location);
  e->column = static_cast<int>(scope->calls.size());
  scope->calls.push_back(std::move(call));
  return e;
}

}  // namespace farmdb::sql
