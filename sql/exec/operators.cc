// Arithmetic and comparison with PostgreSQL semantics: overflow checks per integer width
// (int.c, int8.c), IEEE floats with overflow/underflow errors (float.c), exact numeric.
#include <cmath>
#include <fmt/format.h>

#include "sql/exec/evaluate.h"
#include "sql/types/cast.h"
#include "sql/types/datetime.h"

namespace farmdb::sql {
namespace {

Error DivisionByZero() { return MakeError("22012", "division by zero"); }

std::expected<Value, Error> IntArith(ArithOp op, TypeId type, int64_t a, int64_t b) {
  int64_t r = 0;
  switch (op) {
    case ArithOp::kAdd:
      if (__builtin_add_overflow(a, b, &r)) return std::unexpected(IntOutOfRange(type));
      break;
    case ArithOp::kSub:
      if (__builtin_sub_overflow(a, b, &r)) return std::unexpected(IntOutOfRange(type));
      break;
    case ArithOp::kMul:
      if (__builtin_mul_overflow(a, b, &r)) return std::unexpected(IntOutOfRange(type));
      break;
    case ArithOp::kDiv:
      if (b == 0) return std::unexpected(DivisionByZero());
      if (b == -1) {
        if (__builtin_sub_overflow(int64_t{0}, a, &r)) return std::unexpected(IntOutOfRange(type));
      } else {
        r = a / b;
      }
      break;
    case ArithOp::kMod:
      if (b == 0) return std::unexpected(DivisionByZero());
      r = b == -1 ? 0 : a % b;  // INT_MIN % -1 is 0, not a trap
      break;
  }
  return CheckedInt(type, r);
}

std::expected<Value, Error> FloatArith(ArithOp op, TypeId type, double a, double b) {
  double r = 0;
  switch (op) {
    case ArithOp::kAdd: r = a + b; break;
    case ArithOp::kSub: r = a - b; break;
    case ArithOp::kMul: r = a * b; break;
    case ArithOp::kDiv:
      if (b == 0) return std::unexpected(DivisionByZero());
      r = a / b;
      break;
    case ArithOp::kMod:
      return std::unexpected(MakeError("42883", "operator does not exist"));
  }
  if (type == TypeId::kFloat4) r = static_cast<float>(r);
  if (std::isinf(r) && !std::isinf(a) && !std::isinf(b)) return std::unexpected(MakeError("22003", "value out of range: overflow"));
  if (r == 0 && (op == ArithOp::kMul || op == ArithOp::kDiv) && a != 0 && !std::isinf(b) && (op == ArithOp::kDiv || b != 0)) {
    return std::unexpected(MakeError("22003", "value out of range: underflow"));
  }
  return Value::Float(type, r);
}

std::expected<Value, Error> DateArith(ArithOp op, TypeId result, const Value& l, const Value& r) {
  if (result == TypeId::kInt4) {  // date - date
    int64_t a = l.AsInt(), b = r.AsInt();
    if (a == kDatePosInfinity || a == kDateNegInfinity || b == kDatePosInfinity || b == kDateNegInfinity) {
      return std::unexpected(MakeError("22008", "cannot subtract infinite dates"));
    }
    return Value::Int(result, a - b);
  }
  bool date_left = l.type == TypeId::kDate;
  int64_t days = date_left ? l.AsInt() : r.AsInt();
  int64_t delta = date_left ? r.AsInt() : l.AsInt();
  if (days == kDatePosInfinity || days == kDateNegInfinity) return Value::Int(result, days);
  int64_t out = op == ArithOp::kSub ? days - delta : days + delta;
  if (!IsValidDate(out)) return std::unexpected(MakeError("22008", "date out of range"));
  return Value::Int(result, out);
}

}  // namespace

std::expected<Value, Error> EvalArith(ArithOp op, TypeId result, const Value& l, const Value& r) {
  if (l.type == TypeId::kDate || r.type == TypeId::kDate) return DateArith(op, result, l, r);
  switch (result) {
    case TypeId::kInt2:
    case TypeId::kInt4:
    case TypeId::kInt8:
      return IntArith(op, result, l.AsInt(), r.AsInt());
    case TypeId::kFloat4:
    case TypeId::kFloat8:
      return FloatArith(op, result, l.AsFloat(), r.AsFloat());
    case TypeId::kNumeric: {
      const Numeric& a = l.AsNumeric();
      const Numeric& b = r.AsNumeric();
      switch (op) {
        case ArithOp::kAdd: return Value::Num(a.Add(b));
        case ArithOp::kSub: return Value::Num(a.Sub(b));
        case ArithOp::kMul: return Value::Num(a.Mul(b));
        case ArithOp::kDiv: {
          auto q = a.Div(b);
          if (!q) return std::unexpected(q.error());
          return Value::Num(std::move(*q));
        }
        case ArithOp::kMod: {
          auto m = a.Mod(b);
          if (!m) return std::unexpected(m.error());
          return Value::Num(std::move(*m));
        }
      }
      break;
    }
    default:
      break;
  }
  return std::unexpected(MakeError("XX000", "arithmetic on an unsupported type"));
}

std::expected<Value, Error> EvalNegate(const Value& v) {
  switch (v.type) {
    case TypeId::kInt2:
    case TypeId::kInt4:
    case TypeId::kInt8:
      return IntArith(ArithOp::kSub, v.type, 0, v.AsInt());
    case TypeId::kFloat4:
    case TypeId::kFloat8:
      return Value::Float(v.type, -v.AsFloat());
    case TypeId::kNumeric:
      return Value::Num(v.AsNumeric().Negate());
    default:
      return std::unexpected(MakeError("XX000", "negation of an unsupported type"));
  }
}

namespace {

// array_cmp / record_cmp: element by element, a NULL after every non-NULL; then the shorter
// array first, then the lower lower bound.
int CompareElements(const std::vector<Value>& a, const std::vector<Value>& b) {
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    if (a[i].IsNull() || b[i].IsNull()) {
      if (a[i].IsNull() != b[i].IsNull()) return a[i].IsNull() ? 1 : -1;
      continue;
    }
    if (int c = CompareValues(a[i], b[i]); c != 0) return c;
  }
  return a.size() == b.size() ? 0 : (a.size() < b.size() ? -1 : 1);
}

}  // namespace

int CompareValues(const Value& l, const Value& r) {
  auto sign = [](auto a, auto b) { return a < b ? -1 : (a > b ? 1 : 0); };
  if (IsArray(l.type)) {
    const ArrayValue& a = l.AsArray();
    const ArrayValue& b = r.AsArray();
    if (int c = CompareElements(a.elements, b.elements); c != 0 || a.elements.empty()) return c;
    return sign(a.lower_bound, b.lower_bound);
  }
  if (l.type == TypeId::kRecord) return CompareElements(l.AsRecord().fields, r.AsRecord().fields);
  switch (l.type) {
    case TypeId::kBool:
      return sign(l.AsBool(), r.AsBool());
    case TypeId::kInt2:
    case TypeId::kInt4:
    case TypeId::kInt8:
    case TypeId::kDate:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kOid:
    case TypeId::kRegclass:
    case TypeId::kRegtype:
    case TypeId::kRegproc:
    case TypeId::kRegnamespace:
      return sign(l.AsInt(), r.AsInt());
    case TypeId::kFloat4:
    case TypeId::kFloat8: {
      double a = l.AsFloat(), b = r.AsFloat();
      if (std::isnan(a) || std::isnan(b)) return std::isnan(a) ? (std::isnan(b) ? 0 : 1) : -1;
      return sign(a, b);
    }
    case TypeId::kNumeric: {
      auto c = l.AsNumeric().Compare(r.AsNumeric());
      return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    case TypeId::kBpchar: {
      // bpcharcmp: trailing blanks are insignificant.
      int c = TrimTrailingBlanks(l.AsString()).compare(TrimTrailingBlanks(r.AsString()));
      return sign(c, 0);
    }
    default: {
      int c = l.AsString().compare(r.AsString());
      return sign(c, 0);
    }
  }
}

}  // namespace farmdb::sql
