// Set-returning functions: generate_series over integers and numeric, unnest, and
// information_schema._pg_expandarray (the (element, position) records pgjdbc's metadata
// queries expand index keys with).
#include <fmt/format.h>

#include "sql/exec/builtins.h"

namespace farmdb::sql {
namespace {

using enum TypeId;
using Args = std::span<const Value>;
using Rows = std::expected<RowSourcePtr, Error>;

Error InvalidArgument(std::string message) { return MakeError("22023", std::move(message)); }

// generate_series over int4/int8: stops before passing `stop` or overflowing the type.
class IntegerSeries final : public RowSource {
 public:
  IntegerSeries(TypeId type, int64_t next, int64_t stop, int64_t step) : type_(type), next_(next), stop_(stop), step_(step) {}
  std::expected<std::optional<Value>, Error> Next() override {
    if (done_ || (step_ > 0 ? next_ > stop_ : next_ < stop_)) return std::nullopt;
    int64_t current = next_;
    int64_t following;
    bool overflow = __builtin_add_overflow(next_, step_, &following) ||
                    (type_ == kInt4 && (following > INT32_MAX || following < INT32_MIN));
    if (overflow) done_ = true;
    else next_ = following;
    return Value::Int(type_, current);
  }

 private:
  TypeId type_;
  int64_t next_, stop_, step_;
  bool done_ = false;
};

Rows GenerateIntegers(Args a, const BoundExpr& e, ExecContext&) {
  int64_t step = a.size() > 2 ? a[2].AsInt() : 1;
  if (step == 0) return std::unexpected(InvalidArgument("step size cannot equal zero"));
  return std::make_unique<IntegerSeries>(e.type, a[0].AsInt(), a[1].AsInt(), step);
}

class NumericSeries final : public RowSource {
 public:
  NumericSeries(Numeric next, Numeric stop, Numeric step) : next_(std::move(next)), stop_(std::move(stop)), step_(std::move(step)) {}
  std::expected<std::optional<Value>, Error> Next() override {
    bool ascending = step_.Compare(Numeric::FromInt(0)) > 0;
    if (ascending ? next_.Compare(stop_) > 0 : next_.Compare(stop_) < 0) return std::nullopt;
    Numeric current = next_;
    next_ = next_.Add(step_);
    return Value::Num(std::move(current));
  }

 private:
  Numeric next_, stop_, step_;
};

Rows GenerateNumerics(Args a, const BoundExpr&, ExecContext&) {
  Numeric step = a.size() > 2 ? a[2].AsNumeric() : Numeric::FromInt(1);
  if (a[0].AsNumeric().IsNaN()) return std::unexpected(InvalidArgument("start value cannot be NaN"));
  if (a[1].AsNumeric().IsNaN()) return std::unexpected(InvalidArgument("stop value cannot be NaN"));
  if (step.IsNaN()) return std::unexpected(InvalidArgument("step size cannot be NaN"));
  if (step.IsZero()) return std::unexpected(InvalidArgument("step size cannot equal zero"));
  return std::make_unique<NumericSeries>(a[0].AsNumeric(), a[1].AsNumeric(), std::move(step));
}

// unnest(array): its elements; _pg_expandarray(array): (element, 1-based position) records.
class Elements final : public RowSource {
 public:
  Elements(Value array, bool with_position) : array_(std::move(array)), with_position_(with_position) {}
  std::expected<std::optional<Value>, Error> Next() override {
    const std::vector<Value>& elements = array_.AsArray().elements;
    if (next_ >= elements.size()) return std::nullopt;
    const Value& element = elements[next_++];
    if (!with_position_) return element;
    return Value::Record(RecordValue{{element, Value::Int(kInt4, static_cast<int64_t>(next_))}});
  }

 private:
  Value array_;
  bool with_position_;
  size_t next_ = 0;
};

Rows Unnest(Args a, const BoundExpr&, ExecContext&) { return std::make_unique<Elements>(a[0], false); }
Rows ExpandArray(Args a, const BoundExpr&, ExecContext&) { return std::make_unique<Elements>(a[0], true); }

}  // namespace

std::span<const Builtin> SetReturningFunctions() {
  static const std::vector<Builtin> kFunctions = {
      {.name = "generate_series", .args = {kInt4, kInt4}, .result = kInt4, .eval = nullptr, .rows = GenerateIntegers},
      {.name = "generate_series", .args = {kInt4, kInt4, kInt4}, .result = kInt4, .eval = nullptr, .rows = GenerateIntegers},
      {.name = "generate_series", .args = {kInt8, kInt8}, .result = kInt8, .eval = nullptr, .rows = GenerateIntegers},
      {.name = "generate_series", .args = {kInt8, kInt8, kInt8}, .result = kInt8, .eval = nullptr, .rows = GenerateIntegers},
      {.name = "generate_series", .args = {kNumeric, kNumeric}, .result = kNumeric, .eval = nullptr, .rows = GenerateNumerics},
      {.name = "generate_series", .args = {kNumeric, kNumeric, kNumeric}, .result = kNumeric, .eval = nullptr,
       .rows = GenerateNumerics},
      {.name = "unnest", .args = {kAnyArray}, .result = kAnyElement, .eval = nullptr, .rows = Unnest},
      {.name = "_pg_expandarray", .args = {kAnyArray}, .result = kRecord, .eval = nullptr, .rows = ExpandArray,
       .out_fields = {{"x", kAnyElement}, {"n", kInt4}}, .schema = "information_schema"},
  };
  return kFunctions;
}

}  // namespace farmdb::sql
