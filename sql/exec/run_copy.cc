// COPY (SELECT ...) and COPY table TO STDOUT in PostgreSQL's text and CSV formats (copyto.c).
#include <fmt/format.h>

#include "sql/exec/run_statement.h"

namespace farmdb::sql {
namespace {

std::string TextEscape(std::string_view s, char delimiter) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\v': out += "\\v"; break;
      default:
        if (c == delimiter) out.push_back('\\');
        out.push_back(c);
    }
  }
  return out;
}

// CSV quotes a value holding the delimiter, a quote, CR or LF, or one equal to the NULL string.
std::string CsvQuote(std::string_view s, const CopyStmt& stmt) {
  bool quote = s == stmt.null_string || s.find_first_of(stmt.delimiter + "\"\r\n") != std::string_view::npos;
  if (!quote) return std::string(s);
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  return out + "\"";
}

std::string Field(std::string_view s, const CopyStmt& stmt) {
  return stmt.csv ? CsvQuote(s, stmt) : TextEscape(s, stmt.delimiter[0]);
}

}  // namespace

std::expected<StatementOutput, Error> RunCopy(const CopyStmt& stmt, const BoundQuery& query, ExecContext& ctx,
                                              ResultSink& sink) {
  auto result = RunSelect(query, ctx);
  if (!result) return result;
  std::vector<std::string> names;
  for (const OutputColumn& c : query.columns) names.push_back(c.name);
  CopyFormat format;
  format.columns.assign(names.size(), Format::kText);
  sink.CopyOutBegin(format);
  if (stmt.header) {
    std::string line;
    for (size_t i = 0; i < names.size(); ++i) line += (i ? stmt.delimiter : "") + Field(names[i], stmt);
    sink.CopyData(line + "\n");
  }
  for (const std::vector<Value>& row : result->rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      if (i) line += stmt.delimiter;
      line += row[i].IsNull() ? stmt.null_string : Field(FormatText(row[i], ctx.output), stmt);
    }
    sink.CopyData(line + "\n");
  }
  sink.CopyOutEnd();
  StatementOutput out;
  out.tag = fmt::format("COPY {}", result->rows.size());
  return out;
}

}  // namespace farmdb::sql
