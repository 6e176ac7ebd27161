// Functions that reach the session: version(), current_setting(), set_config(), pg_sleep().
// The others are data-described built-ins (builtins.h).
#include <algorithm>
#include <cmath>

#include "cluster/fibers.h"
#include "sql/exec/evaluate.h"
#include "sql/exec/transaction_block.h"
#include "sql/types/cast.h"

namespace farmdb::sql {
namespace {

constexpr std::string_view kVersion = "PostgreSQL 15.0 (farmdb 0.1.0) on x86_64-pc-linux-gnu, 64-bit";

std::expected<Value, Error> Sleep(double seconds, ExecContext& ctx) {
  // Poll every few milliseconds so a cancel request or statement_timeout ends the sleep. On a
  // fiber the worker runs other sessions meanwhile.
  auto until = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                      std::chrono::duration<double>(std::isfinite(seconds) ? seconds : 0));
  while (true) {
    if (auto ok = ctx.CheckInterrupts(); !ok) return std::unexpected(ok.error());
    auto now = std::chrono::steady_clock::now();
    if (now >= until) return Value::Str(TypeId::kVoid, "");
    cluster::FiberPool::SleepFor(std::min<std::chrono::steady_clock::duration>(until - now, std::chrono::milliseconds(5)));
  }
}

}  // namespace

std::expected<Value, Error> EvalFunction(const BoundExpr& e, std::span<const Value> args, ExecContext& ctx) {
  switch (e.function) {
    case Function::kVersion:
      return Value::Str(TypeId::kText, std::string(kVersion));
    case Function::kCurrentSetting: {
      bool missing_ok = args.size() > 1 && args[1].AsBool();
      auto v = ctx.settings.Get(args[0].AsString(), missing_ok);
      if (!v) return std::unexpected(v.error());
      if (!*v) return Value::Null(TypeId::kText);
      return Value::Str(TypeId::kText, std::move(**v));
    }
    case Function::kSetConfig: {
      if (args[0].IsNull()) return std::unexpected(MakeError("22004", "SET requires parameter name"));
      std::optional<std::string> value;
      if (!args[1].IsNull()) value = args[1].AsString();
      bool is_local = !args[2].IsNull() && args[2].AsBool();
      if (auto ok = ctx.settings.Set(args[0].AsString(), value, is_local); !ok) return std::unexpected(ok.error());
      auto now = ctx.settings.Get(args[0].AsString(), false);
      if (!now) return std::unexpected(now.error());
      return Value::Str(TypeId::kText, std::move(**now));
    }
    case Function::kPgSleep:
      return Sleep(args[0].AsFloat(), ctx);
    case Function::kPgExportSnapshot: {
      if (ctx.transaction == nullptr) return std::unexpected(MakeError("0A000", "pg_export_snapshot() needs a session transaction"));
      auto id = ctx.transaction->ExportSnapshot();
      if (!id) return std::unexpected(id.error());
      return Value::Str(TypeId::kText, std::move(*id));
    }
  }
  return std::unexpected(MakeError("XX000", "unhandled function"));
}

}  // namespace farmdb::sql
