// Deparse (deparse.h): a small parse analysis (types of literals, columns, operators and
// common functions) feeding a printer that follows ruleutils.c's get_rule_expr.
#include "sql/parse/deparse.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>

namespace farmdb::sql {
namespace {

std::string Quote(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += '\'';
    out += c;
  }
  return out + "'";
}

// format_type_with_typemod(type, -1) for a constant's label: bpchar keeps its internal name.
std::string_view ConstTypeName(TypeId type) {
  return type == TypeId::kBpchar ? std::string_view("bpchar") : Info(type).sql_name;
}

// One analysed node: its text, its type (nullopt: unknown to this analysis) and, for an
// undecorated string literal, the literal (its type comes from the context).
struct Node {
  Node(std::string t, std::optional<TypeId> ty, std::optional<std::string> u = std::nullopt,
       std::optional<Value> c = std::nullopt)
      : text(std::move(t)), type(ty), unknown(std::move(u)), constant(std::move(c)) {}
  std::string text;
  std::optional<TypeId> type;
  std::optional<std::string> unknown;  // a string literal not resolved yet
  std::optional<Value> constant;       // a literal's value (int, numeric, bool, resolved string)
};

// The type an operator over `t` works in: varchar and name use text's operators.
TypeId OperatorType(TypeId t) {
  return t == TypeId::kVarchar || t == TypeId::kName ? TypeId::kText : t;
}

bool IsFloat(TypeId t) { return t == TypeId::kFloat4 || t == TypeId::kFloat8; }
bool IsDateTime(TypeId t) { return t == TypeId::kDate || t == TypeId::kTimestamp || t == TypeId::kTimestampTz; }

// The operand types an operator on (l, r) takes, as operator resolution over PostgreSQL's
// built-in operators picks them: cross-type integer, float and date/time operators exist, so
// those pairs keep their types; other numeric pairs meet in numeric or float8.
std::pair<TypeId, TypeId> OperandTypes(TypeId l, TypeId r) {
  l = OperatorType(l);
  r = OperatorType(r);
  if (l == r) return {l, r};
  if (IsInteger(l) && IsInteger(r)) return {l, r};
  if (IsFloat(l) && IsFloat(r)) return {l, r};
  if (IsDateTime(l) && IsDateTime(r)) return {l, r};
  if (IsNumeric(l) && IsNumeric(r)) {
    TypeId common = IsFloat(l) || IsFloat(r) ? TypeId::kFloat8 : TypeId::kNumeric;
    return {common, common};
  }
  if (IsString(l) && IsString(r)) return {TypeId::kText, TypeId::kText};
  return {l, r};
}

TypeId Wider(TypeId l, TypeId r) {
  auto rank = [](TypeId t) {
    constexpr std::array kOrder{TypeId::kInt2, TypeId::kInt4, TypeId::kInt8, TypeId::kNumeric, TypeId::kFloat4,
                                TypeId::kFloat8};
    return std::ranges::find(kOrder, t) - kOrder.begin();
  };
  return rank(l) >= rank(r) ? l : r;
}

struct FunctionSig {
  std::string_view name;
  std::optional<TypeId> arg;     // every argument's type; nullopt: as the first argument's
  std::optional<TypeId> result;  // nullopt: the first argument's type
  bool is_volatile = false;
};

// Common built-ins (pg_proc) whose argument and result types decide how calls print.
constexpr std::array kFunctions{
    FunctionSig{"length", TypeId::kText, TypeId::kInt4},      FunctionSig{"char_length", TypeId::kText, TypeId::kInt4},
    FunctionSig{"octet_length", TypeId::kText, TypeId::kInt4}, FunctionSig{"lower", TypeId::kText, TypeId::kText},
    FunctionSig{"upper", TypeId::kText, TypeId::kText},        FunctionSig{"btrim", TypeId::kText, TypeId::kText},
    FunctionSig{"ltrim", TypeId::kText, TypeId::kText},        FunctionSig{"rtrim", TypeId::kText, TypeId::kText},
    FunctionSig{"md5", TypeId::kText, TypeId::kText},          FunctionSig{"abs", std::nullopt, std::nullopt},
    FunctionSig{"now", std::nullopt, TypeId::kTimestampTz},    FunctionSig{"random", std::nullopt, TypeId::kFloat8, true},
    FunctionSig{"clock_timestamp", std::nullopt, TypeId::kTimestampTz, true},
};

// CURRENT_TIMESTAMP and friends (SQLValueFunction) print as keywords.
constexpr std::array<std::pair<std::string_view, TypeId>, 5> kSqlValueFunctions{{
    {"current_timestamp", TypeId::kTimestampTz},
    {"current_date", TypeId::kDate},
    {"localtimestamp", TypeId::kTimestamp},
    {"current_time", TypeId::kUnknown},
    {"localtime", TypeId::kUnknown},
}};

class Deparser {
 public:
  explicit Deparser(const DeparseOptions& options) : options_(options) {}

  std::expected<Node, Error> Analyse(const Expr& e) {
    switch (e.kind) {
      case ExprKind::kInteger: {
        bool int4 = e.int_value >= INT32_MIN && e.int_value <= INT32_MAX;
        Value v = Value::Int(int4 ? TypeId::kInt4 : TypeId::kInt8, e.int_value);
        return Node{ConstantText(v, Text()), v.type, std::nullopt, v};
      }
      case ExprKind::kNumeric: {
        auto v = ParseText(TypeId::kNumeric, e.text, Text());
        if (!v) return std::unexpected(Positioned(v.error(), e.location));
        return Node{ConstantText(*v, Text()), TypeId::kNumeric, std::nullopt, *v};
      }
      case ExprKind::kString:
        return Node{Quote(e.text), std::nullopt, e.text, std::nullopt};
      case ExprKind::kBool:
        return Node{e.bool_value ? "true" : "false", TypeId::kBool, std::nullopt, Value::Bool(e.bool_value)};
      case ExprKind::kNull:
        return Node{"NULL", std::nullopt, std::nullopt, std::nullopt};
      case ExprKind::kParam:
        return std::unexpected(At("42P02", fmt::format("there is no parameter ${}", e.param_number), e.location));
      case ExprKind::kColumnRef:
        return Column(e);
      case ExprKind::kCast:
        return Cast(e);
      case ExprKind::kOperator:
        return Operator(e);
      case ExprKind::kAnd:
      case ExprKind::kOr:
        return Bool(e, e.kind == ExprKind::kAnd ? " AND " : " OR ");
      case ExprKind::kNot: {
        auto arg = Typed(*e.args[0], TypeId::kBool);
        if (!arg) return arg;
        return Node{"(NOT " + arg->text + ")", TypeId::kBool};
      }
      case ExprKind::kIsNull:
      case ExprKind::kIsNotNull: {
        auto arg = Analyse(*e.args[0]);
        if (!arg) return arg;
        std::string text = arg->unknown ? Resolve(*arg, TypeId::kText) : arg->text;
        return Node{"(" + text + (e.kind == ExprKind::kIsNull ? " IS NULL)" : " IS NOT NULL)"), TypeId::kBool};
      }
      case ExprKind::kBetween:
        return Between(e);
      case ExprKind::kLike:
        return Like(e);
      case ExprKind::kInList:
        return InList(e);
      case ExprKind::kCase:
        return Case(e);
      case ExprKind::kCoalesce:
      case ExprKind::kNullIf:
        return Common(e, e.kind == ExprKind::kCoalesce ? "COALESCE" : "NULLIF");
      case ExprKind::kFunction:
        return Function(e);
      case ExprKind::kExists:
      case ExprKind::kSubquery:
      case ExprKind::kInSubquery:
        return std::unexpected(At("0A000", fmt::format("cannot use subquery in {}", ContextName()), e.location));
      case ExprKind::kError:
        return std::unexpected(*e.error);
      default:
        return std::unexpected(
            At("0A000", fmt::format("this expression is not supported yet in {}", ContextName()), e.location));
    }
  }

  // `n` shown as type `target`: a literal becomes a constant of it; another expression gets the
  // cast PostgreSQL's analysis adds (shown, as ruleutils shows implicit casts of operands).
  std::string Resolve(const Node& n, TypeId target) {
    if (n.unknown) {
      auto v = ParseText(target, *n.unknown, Text());
      if (v) return ConstantText(*v, Text());
      return Quote(*n.unknown) + "::" + std::string(ConstTypeName(target));
    }
    if (n.text == "NULL") return "NULL::" + std::string(Info(target).sql_name);
    if (!n.type || *n.type == target) return n.text;
    return "(" + n.text + ")::" + std::string(Info(target).sql_name);
  }

  const std::vector<std::string>& columns() const { return columns_; }
  const std::vector<std::pair<std::string, int>>& sequences() const { return sequences_; }
  bool is_volatile() const { return volatile_; }

 private:
  const TextOptions& Text() const { return *options_.text; }
  std::string_view ContextName() const {
    return options_.context == DeparseOptions::Context::kCheck ? "check constraint" : "DEFAULT expression";
  }
  Error Positioned(Error e, int location) const {
    if (e.position == 0) e.position = CharPosition(options_.source, location);
    return e;
  }
  Error At(std::string sqlstate, std::string message, int location) const {
    return Positioned(MakeError(std::move(sqlstate), std::move(message)), location);
  }

  std::expected<Node, Error> Typed(const Expr& e, TypeId target) {
    auto n = Analyse(e);
    if (!n) return n;
    n->text = Resolve(*n, target);
    n->type = target;
    n->unknown.reset();
    return n;
  }

  std::expected<Node, Error> Column(const Expr& e) {
    if (options_.context == DeparseOptions::Context::kDefault) {
      return std::unexpected(At("0A000", "cannot use column reference in DEFAULT expression", e.location));
    }
    auto type = options_.column_type(e.text);
    if (!type) {
      std::string name;
      for (const std::string& part : e.names) name += (name.empty() ? "" : ".") + part;
      return std::unexpected(At("42703", fmt::format("column \"{}\" does not exist", name), e.location));
    }
    if (std::ranges::find(columns_, e.text) == columns_.end()) columns_.push_back(e.text);
    return Node{QuoteIdentifier(e.text), *type};
  }

  // quote_identifier: lower-case letters, digits and underscores need no quotes.
  static std::string QuoteIdentifier(std::string_view name) {
    bool plain = !name.empty() && (std::islower(static_cast<unsigned char>(name[0])) || name[0] == '_');
    for (char c : name) {
      plain = plain && (std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) ||
                        c == '_');
    }
    if (plain) return std::string(name);
    std::string out = "\"";
    for (char c : name) {
      if (c == '"') out += '"';
      out += c;
    }
    return out + "\"";
  }

  std::expected<Node, Error> Cast(const Expr& e) {
    auto arg = Analyse(*e.args[0]);
    if (!arg) return arg;
    // A cast literal is folded into a constant of the type at parse time.
    if (arg->unknown && e.typmod < 0) return Node{Resolve(*arg, e.cast_type), e.cast_type};
    std::string type(Info(e.cast_type).sql_name);
    if (e.typmod >= 0) {
      if (e.cast_type == TypeId::kVarchar || e.cast_type == TypeId::kBpchar) {
        type += fmt::format("({})", e.typmod - 4);
      } else if (e.cast_type == TypeId::kNumeric) {
        int32_t m = e.typmod - 4;
        type += fmt::format("({},{})", (m >> 16) & 0xffff, m & 0xffff);
      }
    }
    std::string text = arg->unknown ? Quote(*arg->unknown) : arg->text;
    if (arg->unknown || arg->constant) return Node{text + "::" + type, e.cast_type};
    return Node{"(" + text + ")::" + type, e.cast_type};
  }

  // Both operands resolved to the operator's input types; result type of the operator.
  std::expected<std::pair<std::string, std::string>, Error> Operands(Node& l, Node& r, TypeId& lt, TypeId& rt) {
    if (l.unknown && r.unknown) {
      lt = rt = TypeId::kText;
    } else if (l.unknown || r.unknown) {
      const Node& known = l.unknown ? r : l;
      TypeId t = known.type ? OperatorType(*known.type) : TypeId::kText;
      lt = rt = t;
    } else if (l.type && r.type) {
      std::tie(lt, rt) = OperandTypes(*l.type, *r.type);
    } else {
      lt = l.type.value_or(r.type.value_or(TypeId::kText));
      rt = r.type.value_or(lt);
    }
    return std::pair{Resolve(l, lt), Resolve(r, rt)};
  }

  std::expected<Node, Error> Operator(const Expr& e) {
    const std::string& op = e.text;
    if (e.args.size() == 1) {
      auto arg = Analyse(*e.args[0]);
      if (!arg) return arg;
      TypeId t = arg->type.value_or(TypeId::kInt4);
      return Node{"(" + op + " " + Resolve(*arg, t) + ")", t};
    }
    auto l = Analyse(*e.args[0]);
    if (!l) return l;
    auto r = Analyse(*e.args[1]);
    if (!r) return r;
    TypeId lt, rt;
    if (op == "||") {
      lt = rt = TypeId::kText;
      return Node{"(" + Resolve(*l, lt) + " || " + Resolve(*r, rt) + ")", TypeId::kText};
    }
    auto texts = Operands(*l, *r, lt, rt);
    if (!texts) return std::unexpected(texts.error());
    bool comparison = op == "=" || op == "<>" || op == "!=" || op == "<" || op == ">" || op == "<=" || op == ">=";
    std::optional<TypeId> result;
    if (comparison) {
      result = TypeId::kBool;
    } else if (IsNumeric(lt) && IsNumeric(rt)) {
      result = Wider(lt, rt);
    } else if (l->type || r->type) {
      result = lt;
    }
    std::string shown = op == "!=" ? "<>" : op;
    return Node{"(" + texts->first + " " + shown + " " + texts->second + ")", result};
  }

  std::expected<Node, Error> Bool(const Expr& e, std::string_view sep) {
    std::string text = "(";
    for (size_t i = 0; i < e.args.size(); ++i) {
      auto arg = Typed(*e.args[i], TypeId::kBool);
      if (!arg) return arg;
      text += (i ? std::string(sep) : "") + arg->text;
    }
    return Node{text + ")", TypeId::kBool};
  }

  // x BETWEEN a AND b is (x >= a AND x <= b); NOT BETWEEN is (x < a OR x > b); SYMMETRIC ORs
  // both orders (transformAExprBetween).
  std::expected<Node, Error> Between(const Expr& e) {
    auto pair = [&](size_t lo, size_t hi) -> std::expected<std::string, Error> {
      std::array<std::string, 2> parts;
      std::array<size_t, 2> bounds{lo, hi};
      for (size_t i = 0; i < 2; ++i) {
        auto x = Analyse(*e.args[0]);
        if (!x) return std::unexpected(x.error());
        auto b = Analyse(*e.args[bounds[i]]);
        if (!b) return std::unexpected(b.error());
        TypeId lt, rt;
        auto texts = Operands(*x, *b, lt, rt);
        if (!texts) return std::unexpected(texts.error());
        std::string_view op = e.negated ? (i == 0 ? "<" : ">") : (i == 0 ? ">=" : "<=");
        parts[i] = "(" + texts->first + " " + std::string(op) + " " + texts->second + ")";
      }
      return "(" + parts[0] + (e.negated ? " OR " : " AND ") + parts[1] + ")";
    };
    auto first = pair(1, 2);
    if (!first) return std::unexpected(first.error());
    if (!e.symmetric) return Node{*first, TypeId::kBool};
    auto second = pair(2, 1);
    if (!second) return std::unexpected(second.error());
    return Node{"(" + *first + (e.negated ? " AND " : " OR ") + *second + ")", TypeId::kBool};
  }

  std::expected<Node, Error> Like(const Expr& e) {
    auto l = Analyse(*e.args[0]);
    if (!l) return l;
    auto r = Analyse(*e.args[1]);
    if (!r) return r;
    TypeId t = l->type && *l->type == TypeId::kBpchar ? TypeId::kBpchar : TypeId::kText;
    std::string op = std::string(e.negated ? "!" : "") + (e.case_insensitive ? "~~*" : "~~");
    return Node{"(" + Resolve(*l, t) + " " + op + " " + Resolve(*r, TypeId::kText) + ")", TypeId::kBool};
  }

  // x IN (a, b) is x = ANY (ARRAY[a, b]) when the list has one type (transformAExprIn).
  std::expected<Node, Error> InList(const Expr& e) {
    auto x = Analyse(*e.args[0]);
    if (!x) return x;
    std::vector<Node> items;
    std::optional<TypeId> common = x->unknown ? std::nullopt : x->type;
    for (size_t i = 1; i < e.args.size(); ++i) {
      auto item = Analyse(*e.args[i]);
      if (!item) return item;
      if (!common && item->type) common = item->type;
      if (common && item->type && *item->type != *common) common = OperandTypes(*common, *item->type).first;
      items.push_back(std::move(*item));
    }
    TypeId t = OperatorType(common.value_or(TypeId::kText));
    if (items.size() == 1) {  // a one-element list is the plain comparison
      return Node{"(" + Resolve(*x, t) + (e.negated ? " <> " : " = ") + Resolve(items[0], t) + ")", TypeId::kBool};
    }
    std::string array = "ARRAY[";
    for (size_t i = 0; i < items.size(); ++i) array += (i ? ", " : "") + Resolve(items[i], t);
    return Node{"(" + Resolve(*x, t) + (e.negated ? " <> ALL (" : " = ANY (") + array + "]))", TypeId::kBool};
  }

  // get_rule_expr's CASE with PRETTYFLAG_INDENT, as pg_get_constraintdef and pg_get_expr use.
  std::expected<Node, Error> Case(const Expr& e) {
    size_t i = 0;
    std::optional<Node> operand;
    if (e.has_operand) {
      auto o = Analyse(*e.args[i++]);
      if (!o) return o;
      operand = std::move(*o);
    }
    size_t end = e.args.size() - (e.has_else ? 1 : 0);
    std::vector<std::pair<std::string, Node>> whens;
    for (; i + 1 < end; i += 2) {
      auto when = operand ? Analyse(*e.args[i]) : Typed(*e.args[i], TypeId::kBool);
      if (!when) return when;
      std::string when_text = when->text;
      if (operand) {
        Node op_copy = *operand;
        TypeId lt, rt;
        auto texts = Operands(op_copy, *when, lt, rt);
        if (!texts) return std::unexpected(texts.error());
        when_text = texts->second;
      }
      auto then = Analyse(*e.args[i + 1]);
      if (!then) return then;
      whens.emplace_back(std::move(when_text), std::move(*then));
    }
    std::optional<Node> otherwise;
    if (e.has_else) {
      auto o = Analyse(*e.args.back());
      if (!o) return o;
      otherwise = std::move(*o);
    }
    std::optional<TypeId> type;
    for (auto& [w, then] : whens) type = type ? type : then.type;
    if (!type && otherwise) type = otherwise->type;
    TypeId t = type.value_or(TypeId::kText);
    std::string text = "\nCASE";
    if (operand) text += " " + operand->text;
    for (auto& [w, then] : whens) text += "\n    WHEN " + w + " THEN " + Resolve(then, t);
    if (otherwise) text += "\n    ELSE " + Resolve(*otherwise, t);
    return Node{text + "\nEND", t};
  }

  std::expected<Node, Error> Common(const Expr& e, std::string_view name) {
    std::vector<Node> args;
    std::optional<TypeId> common;
    for (const ExprPtr& a : e.args) {
      auto n = Analyse(*a);
      if (!n) return n;
      if (n->type) common = common ? (IsNumeric(*common) && IsNumeric(*n->type) ? Wider(*common, *n->type) : *common)
                                   : *n->type;
      args.push_back(std::move(*n));
    }
    TypeId t = common.value_or(TypeId::kText);
    std::string text = std::string(name) + "(";
    for (size_t i = 0; i < args.size(); ++i) text += (i ? ", " : "") + Resolve(args[i], t);
    return Node{text + ")", t};
  }

  std::expected<Node, Error> Function(const Expr& e) {
    for (const auto& [name, type] : kSqlValueFunctions) {
      if (e.text == name && e.args.empty()) {
        std::string upper;
        for (char c : name) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        return Node{upper, type == TypeId::kUnknown ? std::nullopt : std::optional<TypeId>(type)};
      }
    }
    if (e.agg_star || e.distinct) {
      return std::unexpected(At("42803", fmt::format("aggregate functions are not allowed in {}s",
                                                     options_.context == DeparseOptions::Context::kCheck
                                                         ? "check constraint"
                                                         : "DEFAULT expression"),
                                e.location));
    }
    // nextval('seq') and currval take a regclass; the literal shows as 'seq'::regclass.
    if ((e.text == "nextval" || e.text == "currval") && e.args.size() == 1 && e.args[0]->kind == ExprKind::kString) {
      volatile_ = volatile_ || e.text == "nextval";
      sequences_.emplace_back(e.args[0]->text, e.args[0]->location);
      return Node{e.text + "(" + Quote(e.args[0]->text) + "::regclass)", TypeId::kInt8};
    }
    const FunctionSig* sig = nullptr;
    for (const FunctionSig& f : kFunctions) {
      if (f.name == e.text) sig = &f;
    }
    std::vector<Node> args;
    for (const ExprPtr& a : e.args) {
      auto n = Analyse(*a);
      if (!n) return n;
      args.push_back(std::move(*n));
    }
    std::optional<TypeId> arg_type = sig ? sig->arg : std::nullopt;
    if (sig && !arg_type && !args.empty()) arg_type = args[0].type;
    std::string text = e.text + "(";
    for (size_t i = 0; i < args.size(); ++i) {
      text += (i ? ", " : "") + Resolve(args[i], arg_type.value_or(args[i].type.value_or(TypeId::kText)));
    }
    std::optional<TypeId> result;
    if (sig) result = sig->result ? sig->result : arg_type;
    volatile_ = volatile_ || (sig && sig->is_volatile);
    return Node{text + ")", result};
  }

  const DeparseOptions& options_;
  std::vector<std::string> columns_;
  std::vector<std::pair<std::string, int>> sequences_;
  bool volatile_ = false;
};

}  // namespace

std::string ConstantText(const Value& value, const TextOptions& text) {
  if (value.IsNull()) return "NULL";
  std::string out = FormatText(value, text);
  switch (value.type) {
    case TypeId::kInt4:
      if (!out.starts_with('-')) return out;
      break;
    case TypeId::kNumeric:
      if (!out.empty() && std::isdigit(static_cast<unsigned char>(out[0])) &&
          out.find_first_of("eE.") != std::string::npos) {
        return out;
      }
      break;
    case TypeId::kBool:
      return value.AsBool() ? "true" : "false";
    default:
      break;
  }
  return Quote(out) + "::" + std::string(ConstTypeName(value.type));
}

std::expected<Deparsed, Error> Deparse(const Expr& e, const DeparseOptions& options) {
  Deparser d(options);
  auto n = d.Analyse(e);
  if (!n) return std::unexpected(n.error());
  Deparsed out;
  if (options.context == DeparseOptions::Context::kCheck) {
    if (n->unknown) {
      n->text = d.Resolve(*n, TypeId::kBool);
      n->type = TypeId::kBool;
    }
    if (n->type && *n->type != TypeId::kBool) {
      Error err = MakeError("42804", fmt::format("argument of CHECK must be type boolean, not type {}",
                                                 Info(*n->type).sql_name));
      err.position = CharPosition(options.source, e.location);
      return std::unexpected(std::move(err));
    }
  }
  out.text = std::move(n->text);
  out.type = n->unknown ? std::optional<TypeId>() : n->type;
  out.columns = d.columns();
  out.is_volatile = d.is_volatile();
  out.sequences = d.sequences();
  return out;
}

}  // namespace farmdb::sql
