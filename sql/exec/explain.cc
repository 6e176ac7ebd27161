// EXPLAIN lines of each plan node, in PostgreSQL's shape ("->" children, node names such as
// "Index Scan using t_pkey on t"), without costs (farmdb has no cost model) and, for now,
// without the conditions (bound expressions have no deparser yet).
#include <fmt/format.h>

#include "sql/exec/builtins.h"
#include "sql/plan/plan.h"
#include "sql/system/system_view.h"

namespace farmdb::sql {
namespace {

void Line(std::vector<std::string>& lines, int depth, std::string text) {
  std::string indent = depth == 0 ? std::string() : std::string(static_cast<size_t>(depth - 1) * 6 + 2, ' ') + "->  ";
  lines.push_back(indent + text);
}

}  // namespace

void TableScanNode::Explain(std::vector<std::string>& lines, int depth) const {
  const storage::IndexDesc* index = table->IndexAt(access.index);
  bool bounded = !access.equal.empty() || !access.points.empty() || access.lower || access.upper;
  std::string name = alias == table->relname ? table->relname : fmt::format("{} {}", table->relname, alias);
  if (index == nullptr || (!bounded && access.index == 0 && !access.backward)) {
    Line(lines, depth, fmt::format("Seq Scan on {}", name));
  } else {
    Line(lines, depth, fmt::format("Index Scan{} using {} on {}", access.backward ? " Backward" : "", index->relname, name));
  }
}

void SystemViewScanNode::Explain(std::vector<std::string>& lines, int depth) const {
  Line(lines, depth, fmt::format("System View Scan on {}.{}", view->schema(), view->name()));
}

void ValuesNode::Explain(std::vector<std::string>& lines, int depth) const {
  Line(lines, depth, width == 0 && rows.size() == 1 ? std::string("Result") : "Values Scan");
}

void FilterNode::Explain(std::vector<std::string>& lines, int depth) const {
  Line(lines, depth, "Filter");
  child->Explain(lines, depth + 1);
}

void ProjectNode::Explain(std::vector<std::string>& lines, int depth) const {
  // A projection is part of its input node in PostgreSQL's EXPLAIN; it shows no line.
  child->Explain(lines, depth);
}

void NestedLoopJoinNode::Explain(std::vector<std::string>& lines, int depth) const {
  Line(lines, depth, type == JoinType::kLeft ? "Nested Loop Left Join" : "Nested Loop");
  left->Explain(lines, depth + 1);
  right->Explain(lines, depth + 1);
}

void HashJoinNode::Explain(std::vector<std::string>& lines, int depth) const {
  Line(lines, depth, type == JoinType::kLeft ? "Hash Left Join" : "Hash Join");
  left->Explain(lines, depth + 1);
  Line(lines, depth + 1, "Hash");
  right->Explain(lines, depth + 2);
}

void AggregateNode::Explain(std::vector<std::string>& lines, int depth) const {
  Line(lines, depth, groups.empty() ? "Aggregate" : "HashAggregate");
  child->Explain(lines, depth + 1);
}

void SortNode::Explain(std::vector<std::string>& lines, int depth) const {
  Line(lines, depth, "Sort");
  child->Explain(lines, depth + 1);
}

void DistinctNode::Explain(std::vector<std::string>& lines, int depth) const {
  Line(lines, depth, "HashAggregate (distinct)");
  child->Explain(lines, depth + 1);
}

void LimitNode::Explain(std::vector<std::string>& lines, int depth) const {
  Line(lines, depth, "Limit");
  child->Explain(lines, depth + 1);
}

void LockRowsNode::Explain(std::vector<std::string>& lines, int depth) const {
  Line(lines, depth, "LockRows");
  child->Explain(lines, depth + 1);
}

void WindowNode::Explain(std::vector<std::string>& lines, int depth) const {
  Line(lines, depth, "WindowAgg");
  child->Explain(lines, depth + 1);
}

void ProjectSetNode::Explain(std::vector<std::string>& lines, int depth) const {
  Line(lines, depth, "ProjectSet");
  child->Explain(lines, depth + 1);
}

void FunctionScanNode::Explain(std::vector<std::string>& lines, int depth) const {
  Line(lines, depth, call->kind == BoundKind::kBuiltin ? fmt::format("Function Scan on {}", call->builtin->name)
                                                       : std::string("Result"));
}

void AppendNode::Explain(std::vector<std::string>& lines, int depth) const {
  Line(lines, depth, "Append");
  for (const PlanPtr& input : inputs) input->Explain(lines, depth + 1);
}

}  // namespace farmdb::sql
