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

// What a node is, for the parentheses pretty mode gives it as an operand (isSimpleNode):
// constants, columns, calls and casts need none.
enum class Shape { kSimple, kOperator, kAnd, kOr, kNot, kNullTest, kOther };

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
  Shape shape = Shape::kSimple;
  std::string op;  // kOperator: a binary operator's symbol (empty for a prefix operator)
};

// A node of `shape`: pretty mode checks it against its parent.
Node Shaped(Node n, Shape shape, std::string op = {}) {
  n.shape = shape;
  n.op = std::move(op);
  return n;
}

// Whether `child` needs parentheses as an operand of `parent` (a binary operator `parent_op`,
// `left` for its left operand) in pretty mode: ruleutils.c's isSimpleNode with
// PRETTYFLAG_PAREN. Casts are Shape::kOperator-free parents of shape kSimple's own.
bool NeedsParens(const Node& child, Shape parent, std::string_view parent_op, bool left) {
  auto priority = [](std::string_view op) {  // 1: + -, 2: * / %, 0: any other operator
    if (op == "+" || op == "-") return 1;
    if (op == "*" || op == "/" || op == "%") return 2;
    return 0;
  };
  bool bool_parent = parent == Shape::kAnd || parent == Shape::kOr || parent == Shape::kNot;
  switch (child.shape) {
    case Shape::kSimple:
      return false;
    case Shape::kOperator:
      if (parent == Shape::kOperator) {
        int mine = priority(child.op), theirs = priority(parent_op);
        if (mine == 0 || theirs == 0) return true;
        if (mine != theirs) return mine < theirs;
        return !left;  // (a - b) - c, but a - (b - c)
      }
      return !bool_parent;
    case Shape::kNullTest:
      return !bool_parent;
    case Shape::kAnd:
    case Shape::kNot:
      return parent != Shape::kAnd && parent != Shape::kOr;
    case Shape::kOr:
      return parent != Shape::kOr;
    case Shape::kOther:
      return true;
  }
  return true;
}

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
        return Shaped(Node{Own("NOT " + Sub(*arg, Shape::kNot)), TypeId::kBool}, Shape::kNot);
      }
      case ExprKind::kIsNull:
      case ExprKind::kIsNotNull: {
        auto arg = Analyse(*e.args[0]);
        if (!arg) return arg;
        std::string text = Sub(arg->unknown ? As(*arg, TypeId::kText) : *arg, Shape::kNullTest);
        return Shaped(Node{Own(text + (e.kind == ExprKind::kIsNull ? " IS NULL" : " IS NOT NULL")), TypeId::kBool},
                      Shape::kNullTest);
      }
      case ExprKind::kBetween:
        return Between(e);
      case ExprKind::kLike:
        return Like(e);
      case ExprKind::kInList:
        return InList(e);
      case ExprKind::kAnyAll:
        return AnyAll(e);
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
  std::string Resolve(const Node& n, TypeId target) { return As(n, target).text; }

  // The same as a node: a cast or constant is simple, anything else keeps its shape.
  Node As(const Node& n, TypeId target) {
    auto simple = [&](std::string text) { return Node{std::move(text), target}; };
    if (n.unknown) {
      auto v = ParseText(target, *n.unknown, Text());
      if (v) return simple(ConstantText(*v, Text()));
      return simple(Quote(*n.unknown) + "::" + std::string(ConstTypeName(target)));
    }
    if (n.text == "NULL") return simple("NULL::" + std::string(Info(target).sql_name));
    if (!n.type || *n.type == target) return n;
    return CastNode(n, Info(target).sql_name, target);
  }

  // `n`'s text as an operand of `parent`: parenthesized where pretty mode needs it (the
  // non-pretty text has its own parentheses already).
  std::string Sub(const Node& n, Shape parent, std::string_view parent_op = {}, bool left = false) const {
    return options_.pretty && NeedsParens(n, parent, parent_op, left) ? "(" + n.text + ")" : n.text;
  }
  // A node's own parentheses, which pretty mode leaves out.
  std::string Own(const std::string& text) const { return options_.pretty ? text : "(" + text + ")"; }
  // `n`::type: get_coercion_expression parenthesizes the argument unless pretty and simple.
  // The cast is simple as an operand when its argument is, or when it is a function
  // (FuncExpr: numeric conversions); a cast to or from a string type (RelabelType,
  // CoerceViaIO) is as simple as its argument.
  Node CastNode(const Node& n, std::string_view type, TypeId target) const {
    bool paren = !options_.pretty || NeedsParens(n, Shape::kOther, {}, false);
    Node cast{(paren ? "(" + n.text + ")" : n.text) + "::" + std::string(type), target};
    bool via_string = IsString(target) || (n.type && IsString(*n.type));
    if (options_.pretty && paren && via_string) cast.shape = Shape::kOther;
    return cast;
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
    Node typed = As(*n, target);
    typed.type = target;
    typed.unknown.reset();
    return typed;
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
    if (arg->unknown) return Node{Quote(*arg->unknown) + "::" + type, e.cast_type};
    if (arg->constant) return Node{arg->text + "::" + type, e.cast_type};
    return CastNode(*arg, type, e.cast_type);
  }

  // Both operands resolved to the operator's input types; result type of the operator.
  std::expected<std::pair<Node, Node>, Error> Operands(Node& l, Node& r, TypeId& lt, TypeId& rt) {
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
    return std::pair{As(l, lt), As(r, rt)};
  }

  std::expected<Node, Error> Operator(const Expr& e) {
    const std::string& op = e.text;
    if (e.args.size() == 1) {
      auto arg = Analyse(*e.args[0]);
      if (!arg) return arg;
      TypeId t = arg->type.value_or(TypeId::kInt4);
      return Shaped(Node{Own(op + " " + Sub(As(*arg, t), Shape::kOperator)), t}, Shape::kOperator);
    }
    auto l = Analyse(*e.args[0]);
    if (!l) return l;
    auto r = Analyse(*e.args[1]);
    if (!r) return r;
    TypeId lt, rt;
    if (op == "||") {
      lt = rt = TypeId::kText;
      return Shaped(Node{Binary(As(*l, lt), "||", As(*r, rt)), TypeId::kText}, Shape::kOperator, "||");
    }
    auto texts = Operands(*l, *r, lt, rt);
    if (!texts) return std::unexpected(texts.error());
    bool comparison = op == "=" || op == "<>" || op == "!=" || op == "<" || op == ">" || op == "<=" || op == ">=" ||
                      op == "~~" || op == "!~~" || op == "~~*" || op == "!~~*";  // LIKE as stored
    std::optional<TypeId> result;
    if (comparison) {
      result = TypeId::kBool;
    } else if (IsNumeric(lt) && IsNumeric(rt)) {
      result = Wider(lt, rt);
    } else if (l->type || r->type) {
      result = lt;
    }
    std::string shown = op == "!=" ? "<>" : op;
    return Shaped(Node{Binary(texts->first, shown, texts->second), result}, Shape::kOperator, shown);
  }

  std::expected<Node, Error> Bool(const Expr& e, std::string_view sep) {
    Shape shape = sep == " AND " ? Shape::kAnd : Shape::kOr;
    std::string text;
    for (size_t i = 0; i < e.args.size(); ++i) {
      auto arg = Typed(*e.args[i], TypeId::kBool);
      if (!arg) return arg;
      text += (i ? std::string(sep) : "") + Sub(*arg, shape);
    }
    return Shaped(Node{Own(text), TypeId::kBool}, shape);
  }

  // l op r, each operand parenthesized as its shape needs.
  std::string Binary(const Node& l, std::string_view op, const Node& r) const {
    return Own(Sub(l, Shape::kOperator, op, true) + " " + std::string(op) + " " + Sub(r, Shape::kOperator, op, false));
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
        parts[i] = Binary(texts->first, op, texts->second);  // a comparison under AND/OR: no parentheses
      }
      return Own(parts[0] + (e.negated ? " OR " : " AND ") + parts[1]);
    };
    Shape inner = e.negated ? Shape::kOr : Shape::kAnd;
    auto first = pair(1, 2);
    if (!first) return std::unexpected(first.error());
    if (!e.symmetric) return Shaped(Node{*first, TypeId::kBool}, inner);
    auto second = pair(2, 1);
    if (!second) return std::unexpected(second.error());
    Shape outer = e.negated ? Shape::kAnd : Shape::kOr;
    Node a = Shaped(Node{*first, TypeId::kBool}, inner), b = Shaped(Node{*second, TypeId::kBool}, inner);
    return Shaped(Node{Own(Sub(a, outer) + (e.negated ? " AND " : " OR ") + Sub(b, outer)), TypeId::kBool}, outer);
  }

  std::expected<Node, Error> Like(const Expr& e) {
    auto l = Analyse(*e.args[0]);
    if (!l) return l;
    auto r = Analyse(*e.args[1]);
    if (!r) return r;
    TypeId t = l->type && *l->type == TypeId::kBpchar ? TypeId::kBpchar : TypeId::kText;
    std::string op = std::string(e.negated ? "!" : "") + (e.case_insensitive ? "~~*" : "~~");
    return Shaped(Node{Binary(As(*l, t), op, As(*r, TypeId::kText)), TypeId::kBool}, Shape::kOperator, op);
  }

  // x IN (a, b) is x = ANY (ARRAY[a, b]) when the list has one type (transformAExprIn).
  std::expected<Node, Error> InList(const Expr& e) {
    std::vector<const Expr*> items;
    for (size_t i = 1; i < e.args.size(); ++i) items.push_back(e.args[i].get());
    return ArrayCompare(*e.args[0], items, e.negated ? "<>" : "=", e.negated, items.size() == 1);
  }

  // x op ANY|ALL (ARRAY[...]), the form the stored text of an IN list has (read back by
  // PrettyCheck); other arrays are not modelled here.
  std::expected<Node, Error> AnyAll(const Expr& e) {
    if (e.args[1]->kind != ExprKind::kArray || e.args[1]->args.empty()) {
      return std::unexpected(At("0A000", fmt::format("this expression is not supported yet in {}", ContextName()), e.location));
    }
    std::vector<const Expr*> items;
    for (const ExprPtr& a : e.args[1]->args) items.push_back(a.get());
    return ArrayCompare(*e.args[0], items, e.text, e.all, false);
  }

  // x op ANY/ALL (ARRAY[items]) with x and the items at their common type; `single`: the plain
  // comparison x op item (a one-element IN list).
  std::expected<Node, Error> ArrayCompare(const Expr& left, const std::vector<const Expr*>& exprs, std::string op,
                                          bool all, bool single) {
    auto x = Analyse(left);
    if (!x) return x;
    std::vector<Node> items;
    std::optional<TypeId> common = x->unknown ? std::nullopt : x->type;
    for (const Expr* i : exprs) {
      auto item = Analyse(*i);
      if (!item) return item;
      if (!common && item->type) common = item->type;
      if (common && item->type && *item->type != *common) common = OperandTypes(*common, *item->type).first;
      items.push_back(std::move(*item));
    }
    TypeId t = OperatorType(common.value_or(TypeId::kText));
    if (single) return Shaped(Node{Binary(As(*x, t), op, As(items[0], t)), TypeId::kBool}, Shape::kOperator, op);
    std::string array = "ARRAY[";
    for (size_t i = 0; i < items.size(); ++i) array += (i ? ", " : "") + Resolve(items[i], t);
    // ScalarArrayOpExpr: an operand that is not simple keeps its parentheses in pretty mode.
    std::string shown = Sub(As(*x, t), Shape::kOther);
    return Shaped(Node{Own(shown + " " + op + (all ? " ALL (" : " ANY (") + array + "])"), TypeId::kBool}, Shape::kOther);
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
        when_text = texts->second.text;
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

std::optional<std::string> PrettyCheck(std::string_view stored,
                                       const std::function<std::optional<TypeId>(std::string_view)>& column_type,
                                       const TextOptions& text) {
  std::string sql = "SELECT " + std::string(stored);
  auto parsed = Parse(sql);
  if (!parsed || parsed->size() != 1) return std::nullopt;
  const auto* select = std::get_if<SelectStmt>(&parsed->front().node);
  if (select == nullptr || select->targets.size() != 1) return std::nullopt;
  DeparseOptions options;
  options.column_type = column_type;
  options.source = sql;
  options.text = &text;
  options.pretty = true;
  auto d = Deparse(*select->targets[0].expr, options);
  if (!d) return std::nullopt;
  return std::move(d->text);
}

}  // namespace farmdb::sql
