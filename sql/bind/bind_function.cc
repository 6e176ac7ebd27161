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
  for (const Signature& sig : SessionFunctions()) {
    if (sig.name != expr.text) continue;
    candidates.push_back({sig.args, false});
    session_sigs.push_back(&sig);
    builtins.push_back(nullptr);
  }
  for (auto table : {StringFunctions(), MathFunctions(), DateTimeFunctions(), FormattingFunctions(), CatalogFunctions(),
                     SequenceFunctions()}) {
    for (const Builtin& b : table) {
      if (b.name != expr.text) continue;
      candidates.push_back({b.args, b.variadic_any});
      session_sigs.push_back(nullptr);
      builtins.push_back(&b);
    }
  }
  OverloadChoice choice = SelectOverload(candidates, TypesOf(args));
  if (choice.index < 0) {
    bool ambiguous = choice.ambiguous;
    Error e = ErrorAt(ambiguous ? "42725" : "42883",
                      fmt::format("function {}({}) {}", expr.text, TypeList(args), ambiguous ? "is not unique" : "does not exist"),
                      expr.location);
    e.hint = ambiguous ? kNotUniqueFunctionHint : kNoFunctionHint;
    return std::unexpected(e);
  }
  if (const Builtin* b = builtins[choice.index]) {
    auto in = [&](std::span<const Builtin> table) { return std::ranges::any_of(table, [&](const Builtin& c) { return &c == b; }); };
    if (in(CatalogFunctions()) || in(SequenceFunctions())) {
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

std::expected<BoundExprPtr, Error> Binder::BindBuiltinCall(const Builtin& b, std::vector<BoundExprPtr> args, int location) {
  BoundExprPtr e = MakeBound(BoundKind::kBuiltin, b.result, location);
  e->builtin = &b;
  for (size_t i = 0; i < args.size(); ++i) {
    // VARIADIC "any": unknown literals become text, the rest keep their types; a parameter
    // has nothing to take its type from.
    if (i >= b.args.size() && args[i]->kind == BoundKind::kParam && args[i]->type == TypeId::kUnknown) {
      return std::unexpected(ErrorAt("42P18", fmt::format("could not determine data type of parameter ${}",
                                                          args[i]->param_index + 1), args[i]->location));
    }
    auto c = i < b.args.size() ? Coerce(std::move(args[i]), b.args[i]) : ResolveUnknown(std::move(args[i]));
    if (!c) return c;
    e->args.push_back(std::move(*c));
  }
  return e;
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
