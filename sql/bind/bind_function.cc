// Function calls and the operators kept as data (sql/exec/builtins.h): candidates by name,
// PostgreSQL's overload resolution (overload.cc), implicit casts of the arguments.
#include <algorithm>

#include <fmt/format.h>

#include "sql/bind/binder.h"
#include "sql/bind/overload.h"
#include "sql/exec/builtins.h"

namespace farmdb::sql {
namespace {

using enum TypeId;

// Functions evaluated in exec/functions.cc because they reach the session (settings, sleep).
struct Signature {
  std::string_view name;
  Function function;
  std::vector<TypeId> args;
  TypeId result;
};

const std::vector<Signature>& SessionFunctions() {
  static const std::vector<Signature> kCatalog = {
      {"version", Function::kVersion, {}, kText},
      {"current_setting", Function::kCurrentSetting, {kText}, kText},
      {"current_setting", Function::kCurrentSetting, {kText, kBool}, kText},
      {"set_config", Function::kSetConfig, {kText, kText, kBool}, kText},
      {"pg_sleep", Function::kPgSleep, {kFloat8}, kVoid},
      {"pg_export_snapshot", Function::kPgExportSnapshot, {}, kText},
  };
  return kCatalog;
}

std::string TypeList(const std::vector<BoundExprPtr>& args) {
  std::string out;
  for (const BoundExprPtr& a : args) out += (out.empty() ? "" : ", ") + std::string(Info(a->type).sql_name);
  return out;
}

std::vector<TypeId> TypesOf(const std::vector<BoundExprPtr>& args) {
  std::vector<TypeId> types;
  for (const BoundExprPtr& a : args) types.push_back(a->type);
  return types;
}

constexpr std::string_view kNoFunctionHint =
    "No function matches the given name and argument types. You might need to add explicit type casts.";
constexpr std::string_view kNotUniqueFunctionHint =
    "Could not choose a best candidate function. You might need to add explicit type casts.";

}  // namespace

std::expected<BoundExprPtr, Error> Binder::BindFunction(const Expr& expr) {
  if (!expr.agg_order.empty() || expr.agg_filter) {
    return std::unexpected(ErrorAt("42809", fmt::format("{} specified, but {} is not an aggregate function",
                                                        expr.agg_filter ? "FILTER" : "ORDER BY", expr.text),
                                   expr.location));
  }
  std::vector<BoundExprPtr> args;
  for (const ExprPtr& arg : expr.args) {
    auto bound = BindExpr(*arg);
    if (!bound) return bound;
    args.push_back(std::move(*bound));
  }
  if (expr.text == "greatest" || expr.text == "least") return BindMinMax(expr.text, std::move(args), expr.location);
  std::vector<OverloadCandidate> candidates;
  std::vector<const Signature*> session_sigs;
  std::vector<const Builtin*> builtins;
  // Unqualified names search pg_catalog only (information_schema is on no search path).
  std::string_view schema = expr.names.empty() ? "pg_catalog" : std::string_view(expr.names[0]);
  for (const Signature& sig : SessionFunctions()) {
    if (sig.name != expr.text || schema != "pg_catalog") continue;
    candidates.push_back({sig.args, false});
    session_sigs.push_back(&sig);
    builtins.push_back(nullptr);
  }
  for (auto table : {StringFunctions(), MathFunctions(), DateTimeFunctions(), FormattingFunctions(), CatalogFunctions(),
                     SequenceFunctions(), ArrayFunctions(), SetReturningFunctions(), SizeFunctions()}) {
    for (const Builtin& b : table) {
      if (b.name != expr.text || b.schema != schema) continue;
      candidates.push_back({b.args, b.variadic_any});
      session_sigs.push_back(nullptr);
      builtins.push_back(&b);
    }
  }
  OverloadChoice choice = SelectOverload(candidates, TypesOf(args));
  if (choice.index < 0) {
    bool ambiguous = choice.ambiguous;
    std::string name = expr.names.empty() ? expr.text : expr.names[0] + "." + expr.text;
    Error e = ErrorAt(ambiguous ? "42725" : "42883",
                      fmt::format("function {}({}) {}", name, TypeList(args), ambiguous ? "is not unique" : "does not exist"),
                      expr.location);
    e.hint = ambiguous ? kNotUniqueFunctionHint : kNoFunctionHint;
    return std::unexpected(e);
  }
  if (const Builtin* b = builtins[choice.index]) {
    auto in = [&](std::span<const Builtin> table) { return std::ranges::any_of(table, [&](const Builtin& c) { return &c == b; }); };
    if (in(CatalogFunctions()) || in(SequenceFunctions()) || in(SizeFunctions())) {
      // Catalog functions read the statement's catalog snapshot (ExecContext::db), which a
      // statement has when its binding loaded it.
      if (auto loaded = LoadCatalog(); !loaded) return std::unexpected(loaded.error());
    }
    return BindBuiltinCall(*b, std::move(args), expr.location);
  }
  const Signature& sig = *session_sigs[choice.index];
  BoundExprPtr e = MakeBound(BoundKind::kFunction, sig.result, expr.location);
  e->function = sig.function;
  for (size_t i = 0; i < args.size(); ++i) {
    auto c = Coerce(std::move(args[i]), sig.args[i]);
    if (!c) return c;
    e->args.push_back(std::move(*c));
  }
  return e;
}

std::expected<Binder::CallTypes, Error> Binder::ResolveCallTypes(const Builtin& b, const std::vector<BoundExprPtr>& args,
                                                                 int location) {
  // enforce_generic_type_consistency: every anyarray argument has one array type, every
  // anyelement argument its element type; an untyped literal takes what the others say.
  std::optional<TypeId> array, element;
  auto no_function = [&] {
    Error e = ErrorAt("42883", fmt::format("function {}({}) does not exist", b.name, TypeList(args)), location);
    e.hint = kNoFunctionHint;
    return std::unexpected(e);
  };
  for (size_t i = 0; i < b.args.size() && i < args.size(); ++i) {
    TypeId actual = args[i]->type;
    if (actual == TypeId::kUnknown) continue;
    if (b.args[i] == TypeId::kAnyArray) {
      if (array && *array != actual) return no_function();
      array = actual;
    } else if (b.args[i] == TypeId::kAnyElement) {
      if (element && *element != actual) return no_function();
      element = actual;
    }
  }
  if (array) {
    if (element && *element != Info(*array).element && !ImplicitlyCastable(*element, Info(*array).element)) return no_function();
    element = Info(*array).element;
  } else if (element) {
    array = ArrayOf(*element);
  }
  bool polymorphic = std::ranges::any_of(b.args, [](TypeId t) { return t == TypeId::kAnyArray || t == TypeId::kAnyElement; });
  if (polymorphic && (!array || !element)) {
    // enforce_generic_type_consistency reports these without a position.
    return std::unexpected(MakeError("42804", element ? fmt::format("could not find array type for data type {}", Info(*element).sql_name)
                                                      : "could not determine polymorphic type because input has type unknown"));
  }
  auto concrete = [&](TypeId t) { return t == TypeId::kAnyArray ? *array : t == TypeId::kAnyElement ? *element : t; };
  CallTypes types;
  for (TypeId t : b.args) types.arg_types.push_back(concrete(t));
  types.result = concrete(b.result);
  if (b.result == TypeId::kRecord) {
    auto fields = std::make_shared<RecordType>();
    for (const OutField& f : b.out_fields) fields->push_back(RecordField{std::string(f.name), concrete(f.type)});
    types.record = std::move(fields);
  }
  return types;
}

std::expected<BoundExprPtr, Error> Binder::BindBuiltinCall(const Builtin& b, std::vector<BoundExprPtr> args, int location) {
  auto types = ResolveCallTypes(b, args, location);
  if (!types) return std::unexpected(types.error());
  BoundExprPtr e = MakeBound(BoundKind::kBuiltin, types->result, location);
  e->builtin = &b;
  e->record = types->record;
  for (size_t i = 0; i < args.size(); ++i) {
    // VARIADIC "any": unknown literals become text, the rest keep their types; a parameter
    // has nothing to take its type from.
    if (i >= b.args.size() && args[i]->kind == BoundKind::kParam && args[i]->type == TypeId::kUnknown) {
      return std::unexpected(ErrorAt("42P18", fmt::format("could not determine data type of parameter ${}",
                                                          args[i]->param_index + 1), args[i]->location));
    }
    TypeId from = args[i]->type;
    auto c = i < b.args.size() ? Coerce(std::move(args[i]), types->arg_types[i]) : ResolveUnknown(std::move(args[i]));
    if (!c) return c;
    if (!*c) {  // a polymorphic argument that does not cast to the type the others chose
      Error err = ErrorAt("42883", fmt::format("function {}({}) does not exist", b.name, Info(from).sql_name), location);
      err.hint = kNoFunctionHint;
      return std::unexpected(err);
    }
    e->args.push_back(std::move(*c));
  }
  if (b.rows != nullptr) {
    if (!set_returning_allowed_) return std::unexpected(SetReturningError(*e, {}));
    for (const BoundExprPtr& a : e->args) {
      if (auto refused = RefuseSetReturning(*a, "set-returning function"); !refused) return std::unexpected(refused.error());
    }
  }
  return e;
}

Error Binder::SetReturningError(const BoundExpr& call, std::string_view container) const {
  // check_srf_call_placement's messages, all 0A000; where PostgreSQL runs a set-returning
  // call that farmdb does not, the message says so.
  constexpr std::string_view kLateralHint = "You might be able to move the set-returning function into a LATERAL FROM item.";
  std::string message;
  std::string_view hint;
  if (container == "set-returning function") {
    message = clause_ == "FROM" ? "set-returning functions must appear at top level of FROM"
                                : "set-returning functions in the arguments of set-returning functions are not supported yet";
  } else if (container == "aggregate function" || container == "window function") {
    message = fmt::format("{} calls cannot contain set-returning function calls", container);
    hint = kLateralHint;
  } else if (!container.empty()) {
    message = fmt::format("set-returning functions are not allowed in {}", container);
    hint = container == "CASE" || container == "COALESCE" ? kLateralHint : "";
  } else if (clause_ == "GROUP BY" || clause_ == "window definitions") {
    message = fmt::format("set-returning functions in {} are not supported yet", clause_);
  } else {
    message = fmt::format("set-returning functions are not allowed in {}", clause_);
  }
  Error e = ErrorAt("0A000", std::move(message), call.location);
  e.hint = hint;
  return e;
}

std::expected<void, Error> Binder::RefuseSetReturning(const BoundExpr& e, std::string_view container) const {
  if (const BoundExpr* call = FindSetReturning(e)) return std::unexpected(SetReturningError(*call, container));
  return {};
}

std::expected<BoundExprPtr, Error> Binder::BindExtraOperator(std::string_view op, std::vector<BoundExprPtr> args, int location) {
  std::vector<OverloadCandidate> candidates;
  std::vector<const Builtin*> builtins;
  for (auto table : {MathOperators(), StringOperators(), RegexOperators()}) {
    for (const Builtin& b : table) {
      if (b.name != op || b.args.size() != args.size()) continue;
      candidates.push_back({b.args, false});
      builtins.push_back(&b);
    }
  }
  OverloadChoice choice = SelectOverload(candidates, TypesOf(args));
  if (choice.index >= 0) return BindBuiltinCall(*builtins[choice.index], std::move(args), location);
  std::string operands = args.size() == 1 ? fmt::format("{} {}", op, Info(args[0]->type).sql_name)
                                          : fmt::format("{} {} {}", Info(args[0]->type).sql_name, op, Info(args[1]->type).sql_name);
  if (choice.ambiguous) {
    Error e = ErrorAt("42725", fmt::format("operator is not unique: {}", operands), location);
    e.hint = "Could not choose a best candidate operator. You might need to add explicit type casts.";
    return std::unexpected(e);
  }
  Error e = ErrorAt("42883", fmt::format("operator does not exist: {}", operands), location);
  e.hint = args.size() == 1 ? "No operator matches the given name and argument type. You might need to add an explicit type cast."
                            : "No operator matches the given name and argument types. You might need to add explicit type casts.";
  return std::unexpected(e);
}

}  // namespace farmdb::sql
