// Array functions of PostgreSQL 15 (array_to_string, array_upper, array_lower, array_length,
// array_ndims, array_dims, cardinality) and array_cat, array_append, array_prepend, which the
// array forms of || call. farmdb's arrays have one dimension (or none, when empty).
#include <fmt/format.h>

#include "sql/exec/builtins.h"

namespace farmdb::sql {
namespace {

using enum TypeId;
using Args = std::span<const Value>;
using Result = std::expected<Value, Error>;

bool FirstDimension(const Value& array, const Value& dimension) {
  return dimension.AsInt() == 1 && !array.AsArray().elements.empty();
}

// array_to_string(array, delimiter [, null_string]): NULL elements are skipped unless a
// null_string stands in for them. Not strict: a NULL null_string means "skip".
Result ArrayToString(Args a, const BoundExpr&, ExecContext& ctx) {
  if (a[0].IsNull() || a[1].IsNull()) return Value::Null(kText);
  std::string out;
  bool first = true;
  for (const Value& e : a[0].AsArray().elements) {
    if (e.IsNull() && (a.size() < 3 || a[2].IsNull())) continue;
    if (!first) out += a[1].AsString();
    out += e.IsNull() ? a[2].AsString() : FormatText(e, ctx.output);
    first = false;
  }
  return Value::Str(kText, std::move(out));
}

Result ArrayUpper(Args a, const BoundExpr&, ExecContext&) {
  if (!FirstDimension(a[0], a[1])) return Value::Null(kInt4);
  const ArrayValue& array = a[0].AsArray();
  return Value::Int(kInt4, array.lower_bound + static_cast<int64_t>(array.elements.size()) - 1);
}

Result ArrayLower(Args a, const BoundExpr&, ExecContext&) {
  if (!FirstDimension(a[0], a[1])) return Value::Null(kInt4);
  return Value::Int(kInt4, a[0].AsArray().lower_bound);
}

Result ArrayLength(Args a, const BoundExpr&, ExecContext&) {
  if (!FirstDimension(a[0], a[1])) return Value::Null(kInt4);
  return Value::Int(kInt4, static_cast<int64_t>(a[0].AsArray().elements.size()));
}

Result ArrayNdims(Args a, const BoundExpr&, ExecContext&) {
  return a[0].AsArray().elements.empty() ? Value::Null(kInt4) : Value::Int(kInt4, 1);
}

Result ArrayDims(Args a, const BoundExpr&, ExecContext&) {
  const ArrayValue& array = a[0].AsArray();
  if (array.elements.empty()) return Value::Null(kText);
  return Value::Str(kText, fmt::format("[{}:{}]", array.lower_bound, array.lower_bound + static_cast<int64_t>(array.elements.size()) - 1));
}

Result Cardinality(Args a, const BoundExpr&, ExecContext&) {
  return Value::Int(kInt4, static_cast<int64_t>(a[0].AsArray().elements.size()));
}

// array_cat: a NULL side is ignored; the result keeps the first non-empty side's lower bound.
Result ArrayCat(Args a, const BoundExpr& e, ExecContext&) {
  if (a[0].IsNull()) return a[1];
  if (a[1].IsNull()) return a[0];
  const ArrayValue& l = a[0].AsArray();
  const ArrayValue& r = a[1].AsArray();
  ArrayValue out{.lower_bound = l.elements.empty() ? r.lower_bound : l.lower_bound, .elements = l.elements};
  out.elements.insert(out.elements.end(), r.elements.begin(), r.elements.end());
  if (out.elements.empty()) out.lower_bound = 1;
  return Value::Array(e.type, std::move(out));
}

Result ArrayAppend(Args a, const BoundExpr& e, ExecContext&) {
  ArrayValue out = a[0].IsNull() ? ArrayValue{} : a[0].AsArray();
  if (out.elements.empty()) out.lower_bound = 1;
  out.elements.push_back(a[1]);
  return Value::Array(e.type, std::move(out));
}

// array_prepend: the result keeps the array's lower bound (PostgreSQL 15 readjusts it after
// setting the element before the first), so every old element moves up one subscript.
Result ArrayPrepend(Args a, const BoundExpr& e, ExecContext&) {
  ArrayValue out{.lower_bound = 1, .elements = {a[0]}};
  if (!a[1].IsNull() && !a[1].AsArray().elements.empty()) {
    const ArrayValue& in = a[1].AsArray();
    out.lower_bound = in.lower_bound;
    out.elements.insert(out.elements.end(), in.elements.begin(), in.elements.end());
  }
  return Value::Array(e.type, std::move(out));
}

}  // namespace

std::span<const Builtin> ArrayFunctions() {
  static const std::vector<Builtin> kFunctions = {
      {"array_to_string", {kAnyArray, kText}, kText, ArrayToString},
      {"array_to_string", {kAnyArray, kText, kText}, kText, ArrayToString, /*strict=*/false},
      {"array_upper", {kAnyArray, kInt4}, kInt4, ArrayUpper},
      {"array_lower", {kAnyArray, kInt4}, kInt4, ArrayLower},
      {"array_length", {kAnyArray, kInt4}, kInt4, ArrayLength},
      {"array_ndims", {kAnyArray}, kInt4, ArrayNdims},
      {"array_dims", {kAnyArray}, kText, ArrayDims},
      {"cardinality", {kAnyArray}, kInt4, Cardinality},
      {"array_cat", {kAnyArray, kAnyArray}, kAnyArray, ArrayCat, /*strict=*/false},
      {"array_append", {kAnyArray, kAnyElement}, kAnyArray, ArrayAppend, /*strict=*/false},
      {"array_prepend", {kAnyElement, kAnyArray}, kAnyArray, ArrayPrepend, /*strict=*/false},
  };
  return kFunctions;
}

}  // namespace farmdb::sql
