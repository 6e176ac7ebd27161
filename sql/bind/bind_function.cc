// Function calls: a small catalog of built-in functions and PostgreSQL's overload resolution
// (exact matches first, then implicit casts, ties broken by the category's preferred type).
#include <array>
#include <fmt/format.h>

#include "sql/bind/binder.h"
#include "sql/bind/function_signature.h"

namespace farmdb::sql {
namespace {

using enum TypeId;

using Signature = FunctionSignature;

const std::vector<Signature>& Catalog() {
  static const std::vector<Signature> kCatalog = {
      {"version", Function::kVersion, {}, kText},
      {"current_setting", Function::kCurrentSetting, {kText}, kText},
      {"current_setting", Function::kCurrentSetting, {kText, kBool}, kText},
      {"set_config", Function::kSetConfig, {kText, kText, kBool}, kText},
      {"pg_sleep", Function::kPgSleep, {kFloat8}, kVoid},
      {"upper", Function::kUpper, {kText}, kText},
      {"lower", Function::kLower, {kText}, kText},
      {"length", Function::kLength, {kText}, kInt4},
      {"length", Function::kLength, {kBytea}, kInt4},
      {"abs", Function::kAbs, {kInt2}, kInt2},
      {"abs", Function::kAbs, {kInt4}, kInt4},
      {"abs", Function::kAbs, {kInt8}, kInt8},
      {"abs", Function::kAbs, {kFloat4}, kFloat4},
      {"abs", Function::kAbs, {kFloat8}, kFloat8},
      {"abs", Function::kAbs, {kNumeric}, kNumeric},
      {"round", Function::kRound, {kFloat8}, kFloat8},
      {"round", Function::kRound, {kNumeric}, kNumeric},
      {"round", Function::kRound, {kNumeric, kInt4}, kNumeric},
  };
  return kCatalog;
}

// The built-ins above and the catalog functions (bind_catalog_function.cc).
const std::vector<Signature>& AllSignatures() {
  static const std::vector<Signature> kAll = [] {
    std::vector<Signature> all = Catalog();
    auto catalog = CatalogFunctionSignatures();
    all.insert(all.end(), catalog.begin(), catalog.end());
    return all;
  }();
  return kAll;
}

bool IsPreferred(TypeId t) { return t == kFloat8 || t == kText; }

}  // namespace

std::expected<BoundExprPtr, Error> Binder::BindFunction(const Expr& expr) {
  std::vector<BoundExprPtr> args;
  for (const ExprPtr& arg : expr.args) {
    auto bound = BindExpr(*arg);
    if (!bound) return bound;
    args.push_back(std::move(*bound));
  }
  const Signature* best = nullptr;
  int best_exact = -1, best_preferred = -1;
  bool tie = false;
  for (const Signature& sig : AllSignatures()) {
    if (sig.name != expr.text || sig.args.size() != args.size()) continue;
    int exact = 0, preferred = 0;
    bool ok = true;
    for (size_t i = 0; i < args.size(); ++i) {
      TypeId have = args[i]->type;
      if (have == sig.args[i]) ++exact;
      else if (have != kUnknown && !ImplicitlyCastable(have, sig.args[i])) ok = false;
      if (IsPreferred(sig.args[i])) ++preferred;
    }
    if (!ok) continue;
    if (exact > best_exact || (exact == best_exact && preferred > best_preferred)) {
      best = &sig, best_exact = exact, best_preferred = preferred, tie = false;
    } else if (exact == best_exact && preferred == best_preferred) {
      tie = true;
    }
  }
  std::string arg_types;
  for (const BoundExprPtr& a : args) arg_types += (arg_types.empty() ? "" : ", ") + std::string(Info(a->type).sql_name);
  if (best == nullptr) {
    Error e = ErrorAt("42883", fmt::format("function {}({}) does not exist", expr.text, arg_types), expr.location);
    e.hint = "No function matches the given name and argument types. You might need to add explicit type casts.";
    return std::unexpected(e);
  }
  if (tie) {
    Error e = ErrorAt("42725", fmt::format("function {}({}) is not unique", expr.text, arg_types), expr.location);
    e.hint = "Could not choose a best candidate function. You might need to add explicit type casts.";
    return std::unexpected(e);
  }
  auto e = std::make_unique<BoundExpr>();
  e->kind = BoundKind::kFunction;
  e->function = best->function;
  e->type = best->result;
  e->location = expr.location;
  for (size_t i = 0; i < args.size(); ++i) {
    auto c = Coerce(std::move(args[i]), best->args[i]);
    if (!c) return c;
    e->args.push_back(std::move(*c));
  }
  return e;
}

}  // namespace farmdb::sql
