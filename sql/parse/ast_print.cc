#include "sql/parse/ast_print.h"

#include <fmt/format.h>

namespace farmdb::sql {
namespace {

std::string Quote(std::string_view s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

template <typename T, typename F>
std::string Join(const std::vector<T>& items, F&& print, std::string_view sep = ", ") {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += sep;
    out += print(items[i]);
  }
  return out;
}

std::string Names(const std::vector<std::string>& names, std::string_view sep = ", ") {
  return Join(names, [](const std::string& s) { return s; }, sep);
}

std::string Exprs(const std::vector<ExprPtr>& exprs, size_t from = 0) {
  std::string out;
  for (size_t i = from; i < exprs.size(); ++i) out += (i > from ? ", " : "") + ToString(*exprs[i]);
  return out;
}

std::string Name(const QualifiedName& name) { return name.schema.empty() ? name.name : name.schema + "." + name.name; }

std::string Targets(const std::vector<SelectTarget>& targets) {
  return Join(targets, [](const SelectTarget& t) {
    return t.expr->kind == ExprKind::kStar ? ToString(*t.expr) : ToString(*t.expr) + " AS " + t.name;
  });
}

std::string Nulls(OrderItem::Nulls nulls) {
  return nulls == OrderItem::Nulls::kFirst ? " NULLS FIRST" : nulls == OrderItem::Nulls::kLast ? " NULLS LAST" : "";
}

std::string Alias(const std::string& alias, const std::vector<std::string>& columns) {
  if (alias.empty()) return "";
  return " AS " + alias + (columns.empty() ? "" : "(" + Names(columns) + ")");
}

std::string From(const TableRef& ref) {
  switch (ref.kind) {
    case TableRef::Kind::kRelation:
      return Name(ref.relation) + Alias(ref.alias, ref.column_aliases);
    case TableRef::Kind::kSubquery:
      return "(" + ToString(*ref.subquery) + ")" + Alias(ref.alias, ref.column_aliases);
    case TableRef::Kind::kFunction:
      return ToString(*ref.function) + Alias(ref.alias, ref.column_aliases);
    case TableRef::Kind::kJoin: {
      std::string type = ref.join_type == TableRef::JoinType::kLeft    ? " LEFT JOIN "
                         : ref.join_type == TableRef::JoinType::kCross ? " CROSS JOIN "
                                                                       : " JOIN ";
      std::string out = "(" + From(*ref.left) + type + From(*ref.right);
      if (ref.on) out += " ON " + ToString(*ref.on);
      if (!ref.using_columns.empty()) out += " USING (" + Names(ref.using_columns) + ")";
      return out + ")" + Alias(ref.alias, ref.column_aliases);
    }
  }
  return "";
}

std::string OrderItems(const std::vector<OrderItem>& items) {
  return Join(items, [](const OrderItem& o) { return ToString(*o.expr) + (o.descending ? " DESC" : "") + Nulls(o.nulls); });
}

std::string Window(const WindowSpec& w) {
  static constexpr std::string_view kBound[] = {"UNBOUNDED PRECEDING", "CURRENT ROW", "UNBOUNDED FOLLOWING"};
  std::string out;
  if (!w.partition_by.empty()) out += "PARTITION BY " + Exprs(w.partition_by);
  if (!w.order_by.empty()) out += std::string(out.empty() ? "" : " ") + "ORDER BY " + OrderItems(w.order_by);
  bool default_frame = !w.rows && w.start == WindowSpec::Bound::kUnboundedPreceding && w.end == WindowSpec::Bound::kCurrentRow;
  if (!default_frame) {
    out += fmt::format("{}{} BETWEEN {} AND {}", out.empty() ? "" : " ", w.rows ? "ROWS" : "RANGE",
                       kBound[static_cast<int>(w.start)], kBound[static_cast<int>(w.end)]);
  }
  return out;
}

std::string Locking(const LockingClause& lock) {
  std::string out(ToString(lock.strength));
  if (!lock.tables.empty()) out += " OF " + Join(lock.tables, Name);
  if (lock.wait == LockingClause::Wait::kNoWait) out += " NOWAIT";
  if (lock.wait == LockingClause::Wait::kSkipLocked) out += " SKIP LOCKED";
  return out;
}

std::string Type(const TypeName& type) {
  std::string out = Names(type.names, ".");
  if (!type.typmods.empty()) out += "(" + Join(type.typmods, [](int64_t m) { return std::to_string(m); }) + ")";
  return out;
}

std::string ConstraintText(const Constraint& c) {
  std::string out = c.name.empty() ? "" : "CONSTRAINT " + c.name + " ";
  std::string columns = c.columns.empty() ? "" : " (" + Names(c.columns) + ")";
  switch (c.kind) {
    case Constraint::Kind::kNotNull:
      return out + "NOT NULL";
    case Constraint::Kind::kNull:
      return out + "NULL";
    case Constraint::Kind::kDefault:
      return out + "DEFAULT " + ToString(*c.expr);
    case Constraint::Kind::kCheck:
      return out + "CHECK (" + ToString(*c.expr) + ")";
    case Constraint::Kind::kPrimaryKey:
      return out + "PRIMARY KEY" + columns;
    case Constraint::Kind::kUnique:
      return out + "UNIQUE" + columns;
    case Constraint::Kind::kForeignKey:
      return out + (columns.empty() ? "" : "FOREIGN KEY" + columns + " ") + "REFERENCES " + Name(c.ref_table) +
             (c.ref_columns.empty() ? "" : " (" + Names(c.ref_columns) + ")") +
             (c.fk_match != 's' ? fmt::format(" MATCH {}", c.fk_match) : "") +
             (c.fk_on_update != 'a' ? fmt::format(" ON UPDATE {}", c.fk_on_update) : "") +
             (c.fk_on_delete != 'a' ? fmt::format(" ON DELETE {}", c.fk_on_delete) : "");
  }
  return out;
}

std::string Column(const ColumnDef& column) {
  std::string out = column.name + " " + Type(column.type);
  for (const Constraint& c : column.constraints) out += " " + ConstraintText(c);
  return out;
}

std::string Sets(const std::vector<UpdateSet>& set) {
  return Join(set, [](const UpdateSet& s) { return s.column + " = " + ToString(*s.value); });
}

std::string Returning(const std::vector<SelectTarget>& targets) {
  return targets.empty() ? "" : " RETURNING " + Targets(targets);
}

std::string Where(const ExprPtr& where) { return where ? " WHERE " + ToString(*where) : ""; }

std::string WithAlias(const QualifiedName& table, const std::string& alias) {
  return Name(table) + (alias.empty() ? "" : " AS " + alias);
}

std::string Optional(std::string_view keyword, const std::optional<int64_t>& v) {
  return v ? fmt::format(" {} {}", keyword, *v) : "";
}

struct StatementPrinter {
  std::string operator()(const SelectStmt& s) const { return ToString(s); }
  std::string operator()(const SetStmt& s) const {
    static constexpr std::string_view kKinds[] = {"SET", "SET DEFAULT", "RESET", "RESET ALL", "SET TRANSACTION",
                                                  "SET SESSION CHARACTERISTICS"};
    std::string out(kKinds[static_cast<int>(s.kind)]);
    if (s.is_local) out += " LOCAL";
    if (!s.name.empty()) out += " " + s.name;
    if (!s.args.empty()) out += " = " + Join(s.args, [](const SetArg& a) { return a.quoted ? Quote(a.text) : a.text; });
    if (s.isolation) out += " ISOLATION LEVEL " + *s.isolation;
    if (s.read_only) out += *s.read_only ? " READ ONLY" : " READ WRITE";
    return out;
  }
  std::string operator()(const ShowStmt& s) const { return "SHOW " + s.name; }
  std::string operator()(const TransactionStmt& s) const {
    static constexpr std::string_view kKinds[] = {"BEGIN", "START TRANSACTION", "COMMIT", "ROLLBACK",
                                                  "SAVEPOINT", "RELEASE SAVEPOINT", "ROLLBACK TO SAVEPOINT"};
    std::string out(kKinds[static_cast<int>(s.kind)]);
    if (!s.savepoint.empty()) out += " " + s.savepoint;
    if (s.isolation) out += " ISOLATION LEVEL " + *s.isolation;
    if (s.read_only) out += *s.read_only ? " READ ONLY" : " READ WRITE";
    return out;
  }
  std::string operator()(const CopyStmt& s) const {
    std::string out = "COPY ";
    if (s.query) out += "(" + ToString(*s.query) + ")";
    else out += Name(s.relation) + (s.columns.empty() ? "" : " (" + Names(s.columns) + ")");
    out += s.is_from ? " FROM STDIN" : " TO STDOUT";
    out += fmt::format(" (FORMAT {}, HEADER {}, DELIMITER {}, NULL {})", s.csv ? "csv" : "text", s.header,
                       Quote(s.delimiter), Quote(s.null_string));
    return out;
  }
  std::string operator()(const CreateTableStmt& s) const {
    std::vector<std::string> elements;
    for (const ColumnDef& c : s.columns) elements.push_back(Column(c));
    for (const Constraint& c : s.constraints) elements.push_back(ConstraintText(c));
    return "CREATE TABLE " + std::string(s.if_not_exists ? "IF NOT EXISTS " : "") + Name(s.table) + " (" +
           Names(elements) + ")";
  }
  std::string operator()(const DropStmt& s) const {
    static constexpr std::string_view kObjects[] = {"TABLE", "INDEX", "SEQUENCE"};
    return fmt::format("DROP {} {}{}{}", kObjects[static_cast<int>(s.object)], s.if_exists ? "IF EXISTS " : "",
                       Join(s.names, Name), s.cascade ? " CASCADE" : "");
  }
  std::string operator()(const CreateIndexStmt& s) const {
    return fmt::format("CREATE {}INDEX {}{}ON {} USING {} ({})", s.unique ? "UNIQUE " : "",
                       s.if_not_exists ? "IF NOT EXISTS " : "", s.name.empty() ? "" : s.name + " ", Name(s.table),
                       s.method, Join(s.columns, [](const IndexColumn& c) {
                         return c.name + (c.descending ? " DESC" : "") + Nulls(c.nulls);
                       }));
  }
  std::string operator()(const AlterTableStmt& s) const {
    return "ALTER TABLE " + std::string(s.if_exists ? "IF EXISTS " : "") + Name(s.table) + " " +
           Join(s.cmds, [](const AlterTableCmd& c) -> std::string {
             switch (c.kind) {
               case AlterTableCmd::Kind::kAddColumn:
                 return std::string("ADD COLUMN ") + (c.if_exists ? "IF NOT EXISTS " : "") + Column(c.column);
               case AlterTableCmd::Kind::kDropColumn:
                 return std::string("DROP COLUMN ") + (c.if_exists ? "IF EXISTS " : "") + c.column_name +
                        (c.cascade ? " CASCADE" : "");
               case AlterTableCmd::Kind::kAddConstraint:
                 return "ADD " + ConstraintText(c.constraint);
               case AlterTableCmd::Kind::kDropConstraint:
                 return std::string("DROP CONSTRAINT ") + (c.if_exists ? "IF EXISTS " : "") + c.column_name +
                        (c.cascade ? " CASCADE" : "");
             }
             return "";
           });
  }
  std::string operator()(const TruncateStmt& s) const {
    return "TRUNCATE " + Join(s.tables, Name) + (s.restart_identity ? " RESTART IDENTITY" : "") +
           (s.cascade ? " CASCADE" : "");
  }
  std::string operator()(const CreateSequenceStmt& s) const {
    return "CREATE SEQUENCE " + std::string(s.if_not_exists ? "IF NOT EXISTS " : "") + Name(s.sequence) +
           (s.as_type ? " AS " + Names(s.as_type->names, ".") : "") + Optional("START", s.start) + Optional("INCREMENT", s.increment) + Optional("MINVALUE", s.min_value) +
           Optional("MAXVALUE", s.max_value) + Optional("CACHE", s.cache) + (s.cycle ? " CYCLE" : "") +
           (s.owned_by.empty() ? "" : " OWNED BY " + Names(s.owned_by, "."));
  }
  std::string operator()(const InsertStmt& s) const {
    std::string out = "INSERT INTO " + WithAlias(s.table, s.alias);
    if (!s.columns.empty()) out += " (" + Names(s.columns) + ")";
    out += s.source ? " " + ToString(*s.source) : " DEFAULT VALUES";
    if (s.on_conflict) {
      const OnConflict& oc = *s.on_conflict;
      out += " ON CONFLICT";
      if (!oc.columns.empty()) out += " (" + Names(oc.columns) + ")";
      if (!oc.constraint.empty()) out += " ON CONSTRAINT " + oc.constraint;
      out += oc.action == OnConflict::Action::kNothing ? " DO NOTHING" : " DO UPDATE SET " + Sets(oc.set);
      out += Where(oc.where);
    }
    return out + Returning(s.returning);
  }
  std::string operator()(const UpdateStmt& s) const {
    return "UPDATE " + WithAlias(s.table, s.alias) + " SET " + Sets(s.set) + Where(s.where) + Returning(s.returning);
  }
  std::string operator()(const DeleteStmt& s) const {
    return "DELETE FROM " + WithAlias(s.table, s.alias) + Where(s.where) + Returning(s.returning);
  }
  std::string operator()(const ExplainStmt& s) const {
    return std::string("EXPLAIN ") + (s.analyze ? "ANALYZE " : "") + ToString(s.statement->node);
  }
  std::string operator()(const VacuumStmt& s) const {
    std::string out = s.is_vacuum ? "VACUUM" : "ANALYZE";
    for (size_t i = 0; i < s.relations.size(); ++i) out += (i ? ", " : " ") + Name(s.relations[i]);
    return out;
  }
  std::string operator()(const CheckpointStmt&) const { return "CHECKPOINT"; }
  std::string operator()(const UnsupportedStmt& s) const { return "UNSUPPORTED " + s.error.sqlstate + ": " + s.error.message; }
};

}  // namespace

std::string ToString(const Expr& e) {
  switch (e.kind) {
    case ExprKind::kInteger:
      return std::to_string(e.int_value);
    case ExprKind::kNumeric:
      return e.text;
    case ExprKind::kString:
      return Quote(e.text);
    case ExprKind::kBool:
      return e.bool_value ? "true" : "false";
    case ExprKind::kNull:
      return "NULL";
    case ExprKind::kParam:
      return fmt::format("${}", e.param_number);
    case ExprKind::kColumnRef:
      return Names(e.names, ".");
    case ExprKind::kStar:
      return e.names.empty() ? "*" : Names(e.names, ".") + ".*";
    case ExprKind::kDefault:
      return "DEFAULT";
    case ExprKind::kCast:
      return fmt::format("({})::{}{}", ToString(*e.args[0]), Info(e.cast_type).name,
                         e.typmod >= 0 ? fmt::format("[typmod {}]", e.typmod) : "");
    case ExprKind::kOperator:
      return e.args.size() == 1 ? fmt::format("({} {})", e.text, ToString(*e.args[0]))
                                : fmt::format("({} {} {})", ToString(*e.args[0]), e.text, ToString(*e.args[1]));
    case ExprKind::kAnd:
    case ExprKind::kOr:
      return "(" + Join(e.args, [](const ExprPtr& a) { return ToString(*a); }, e.kind == ExprKind::kAnd ? " AND " : " OR ") + ")";
    case ExprKind::kNot:
      return "(NOT " + ToString(*e.args[0]) + ")";
    case ExprKind::kIsNull:
    case ExprKind::kIsNotNull:
      return "(" + ToString(*e.args[0]) + (e.kind == ExprKind::kIsNull ? " IS NULL)" : " IS NOT NULL)");
    case ExprKind::kCase: {
      std::string out = "CASE";
      size_t i = 0;
      if (e.has_operand) out += " " + ToString(*e.args[i++]);
      size_t end = e.args.size() - (e.has_else ? 1 : 0);
      for (; i < end; i += 2) out += " WHEN " + ToString(*e.args[i]) + " THEN " + ToString(*e.args[i + 1]);
      if (e.has_else) out += " ELSE " + ToString(*e.args.back());
      return out + " END";
    }
    case ExprKind::kCoalesce:
      return "coalesce(" + Exprs(e.args) + ")";
    case ExprKind::kNullIf:
      return "nullif(" + Exprs(e.args) + ")";
    case ExprKind::kFunction:
      return (e.names.empty() ? "" : e.names[0] + ".") + e.text + "(" +
             (e.agg_star ? "*" : std::string(e.distinct ? "DISTINCT " : "") + Exprs(e.args)) + ")" +
             (e.over ? " OVER (" + Window(*e.over) + ")" : "");
    case ExprKind::kInList:
      return "(" + ToString(*e.args[0]) + (e.negated ? " NOT IN (" : " IN (") + Exprs(e.args, 1) + "))";
    case ExprKind::kBetween:
      return fmt::format("({}{} BETWEEN {}{} AND {})", ToString(*e.args[0]), e.negated ? " NOT" : "",
                         e.symmetric ? "SYMMETRIC " : "", ToString(*e.args[1]), ToString(*e.args[2]));
    case ExprKind::kLike:
      return fmt::format("({}{} {} {})", ToString(*e.args[0]), e.negated ? " NOT" : "", e.case_insensitive ? "ILIKE" : "LIKE",
                         ToString(*e.args[1]));
    case ExprKind::kExists:
      return "EXISTS (" + ToString(*e.subquery) + ")";
    case ExprKind::kSubquery:
      return "(" + ToString(*e.subquery) + ")";
    case ExprKind::kInSubquery:
      return "(" + ToString(*e.args[0]) + " IN (" + ToString(*e.subquery) + "))";
    case ExprKind::kError:
      return "ERROR(" + e.error->sqlstate + ": " + e.error->message + ")";
    case ExprKind::kDistinct:
      return fmt::format("({} IS {}DISTINCT FROM {})", ToString(*e.args[0]), e.negated ? "NOT " : "", ToString(*e.args[1]));
    case ExprKind::kBooleanTest:
      return fmt::format("({} IS {}{})", ToString(*e.args[0]), e.negated ? "NOT " : "", e.text);
    case ExprKind::kArray:
      return "ARRAY[" + Exprs(e.args) + "]";
    case ExprKind::kArraySubquery:
      return "ARRAY(" + ToString(*e.subquery) + ")";
    case ExprKind::kSubscript:
      return ToString(*e.args[0]) + "[" + ToString(*e.args[1]) + "]";
    case ExprKind::kFieldSelect:
      return "(" + ToString(*e.args[0]) + ")." + e.text;
    case ExprKind::kAnyAll:
      return fmt::format("({} {} {}({}))", ToString(*e.args[0]), e.text, e.all ? "ALL" : "ANY", ToString(*e.args[1]));
  }
  return "?";
}

std::string ToString(const SelectStmt& s) {
  std::string out;
  if (!s.with.empty()) {
    out += "WITH " + Join(s.with, [](const CommonTableExpr& cte) {
      return cte.name + (cte.column_names.empty() ? "" : "(" + Names(cte.column_names) + ")") + " AS (" +
             ToString(*cte.query) + ")";
    }) + " ";
  }
  if (s.op != SelectStmt::SetOp::kNone) {
    static constexpr std::string_view kOps[] = {"", "UNION", "INTERSECT", "EXCEPT"};
    out += fmt::format("({}) {}{} ({})", ToString(*s.left), kOps[static_cast<int>(s.op)], s.all ? " ALL" : "",
                       ToString(*s.right));
  } else if (!s.values.empty()) {
    out += "VALUES " + Join(s.values, [](const std::vector<ExprPtr>& row) { return "(" + Exprs(row) + ")"; });
  } else {
    out += std::string("SELECT ") + (s.distinct ? "DISTINCT " : "") + Targets(s.targets);
    if (!s.from.empty()) out += " FROM " + Join(s.from, [](const TableRefPtr& r) { return From(*r); });
    out += Where(s.where);
    if (!s.group_by.empty()) out += " GROUP BY " + Exprs(s.group_by);
    if (s.having) out += " HAVING " + ToString(*s.having);
  }
  if (!s.order_by.empty()) out += " ORDER BY " + OrderItems(s.order_by);
  if (s.limit) out += " LIMIT " + ToString(*s.limit);
  if (s.offset) out += " OFFSET " + ToString(*s.offset);
  for (const LockingClause& lock : s.locking) out += " " + Locking(lock);
  return out;
}

std::string ToString(const StatementNode& node) { return std::visit(StatementPrinter{}, node); }

std::string_view ToString(LockingClause::Strength strength) {
  static constexpr std::string_view kNames[] = {"FOR UPDATE", "FOR NO KEY UPDATE", "FOR SHARE", "FOR KEY SHARE"};
  return kNames[static_cast<int>(strength)];
}

}  // namespace farmdb::sql
