// Test helpers for cursor tests: constant input plans, column and constant expressions, and a
// context to run a plan to completion without a session. Test-only.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sql/bind/binder.h"
#include "sql/exec/evaluate.h"
#include "sql/plan/plan.h"
#include "sql/settings/settings.h"

namespace farmdb::sql {

inline BoundExprPtr ConstExpr(Value v) {
  BoundExprPtr e = MakeBound(BoundKind::kConst, v.type, -1);
  e->value = std::move(v);
  return e;
}

inline BoundExprPtr ColumnRef(int slot, TypeId type) {
  BoundExprPtr e = MakeBound(BoundKind::kColumn, type, -1);
  e->column = slot;
  return e;
}

// A VALUES plan over constant rows.
inline PlanPtr ConstantRows(const std::vector<std::vector<Value>>& rows, size_t width) {
  std::vector<std::vector<BoundExprPtr>> exprs;
  for (const auto& row : rows) {
    std::vector<BoundExprPtr> r;
    for (const Value& v : row) r.push_back(ConstExpr(v));
    exprs.push_back(std::move(r));
  }
  return std::make_shared<ValuesNode>(width, std::move(exprs));
}

class CursorTest : public ::testing::Test {
 protected:
  // Every row of `plan`, each value as text ("NULL" for NULL), or the error.
  std::vector<std::vector<std::string>> RunPlan(const PlanNode& plan) {
    ExecContext ctx{{}, settings_, nullptr, std::chrono::steady_clock::time_point::max(), options_};
    std::vector<std::vector<std::string>> out;
    auto cursor = plan.Open(ctx);
    if (!cursor) return {{"ERROR " + cursor.error().message}};
    Row row;
    while (true) {
      auto more = (*cursor)->Next(row);
      if (!more) return {{"ERROR " + more.error().message}};
      if (!*more) return out;
      std::vector<std::string> text;
      for (const Value& v : row) text.push_back(v.IsNull() ? "NULL" : FormatText(v, options_));
      out.push_back(std::move(text));
    }
  }

  TextOptions options_;
  Settings settings_ = *Settings::Create(SessionOptions{});
};

}  // namespace farmdb::sql
