// COPY table FROM STDIN in PostgreSQL's text and CSV formats (copyfromparse.c): CopyData chunks
// are split into lines, lines into fields (text: backslash escapes and \N; CSV: quotes, and NULL
// as an unquoted empty field), each field read by its column type's input function, and every
// row inserted through the same RowInserter as INSERT (defaults, constraints). PostgreSQL's
// CONTEXT line ("COPY t, line 3") is not sent: Error has no context field yet.
#include <fmt/format.h>

#include "cluster/crash_point.h"
#include "sql/exec/run_dml.h"
#include "sql/exec/run_statement.h"
#include "sql/types/cast.h"

namespace farmdb::sql {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// One line of the text format into fields; nullopt marks a NULL (the unescaped null string).
std::vector<std::optional<std::string>> TextFields(std::string_view line, char delimiter, std::string_view null_string) {
  std::vector<std::optional<std::string>> fields;
  size_t i = 0;
  while (true) {
    std::string field;
    size_t start = i;
    while (i < line.size() && line[i] != delimiter) {
      char c = line[i++];
      if (c != '\\' || i >= line.size()) {
        field += c;
        continue;
      }
      char e = line[i++];
      switch (e) {
        case 'b': field += '\b'; break;
        case 'f': field += '\f'; break;
        case 'n': field += '\n'; break;
        case 'r': field += '\r'; break;
        case 't': field += '\t'; break;
        case 'v': field += '\v'; break;
        case 'x': {
          int v = i < line.size() ? HexValue(line[i]) : -1;
          if (v < 0) {
            field += 'x';
            break;
          }
          ++i;
          if (i < line.size() && HexValue(line[i]) >= 0) v = v * 16 + HexValue(line[i++]);
          field += static_cast<char>(v);
          break;
        }
        default:
          if (e >= '0' && e <= '7') {
            int v = e - '0';
            for (int k = 0; k < 2 && i < line.size() && line[i] >= '0' && line[i] <= '7'; ++k) v = v * 8 + (line[i++] - '0');
            field += static_cast<char>(v);
          } else {
            field += e;  // \\, \<delimiter> and any other character stand for themselves
          }
      }
    }
    // The null string is compared with the raw field, before de-escaping (as PostgreSQL does).
    std::string_view raw = line.substr(start, i - start);
    if (raw == null_string) fields.emplace_back(std::nullopt);
    else fields.emplace_back(std::move(field));
    if (i >= line.size()) break;
    ++i;  // the delimiter
  }
  return fields;
}

// CSV: a record may span lines inside quotes, so the parser keeps state across lines.
class CsvReader {
 public:
  CsvReader(char delimiter, std::string null_string) : delimiter_(delimiter), null_string_(std::move(null_string)) {}
  // Feeds one line (without its newline); true when a record is complete.
  bool Feed(std::string_view line) {
    if (in_quotes_) field_ += '\n';
    for (size_t i = 0; i < line.size(); ++i) {
      char c = line[i];
      if (in_quotes_) {
        if (c == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            field_ += '"';
            ++i;
          } else {
            in_quotes_ = false;
          }
        } else {
          field_ += c;
        }
      } else if (c == '"') {
        in_quotes_ = quoted_ = true;
      } else if (c == delimiter_) {
        EndField();
      } else {
        field_ += c;
      }
    }
    if (in_quotes_) return false;
    EndField();
    return true;
  }
  std::vector<std::optional<std::string>> Take() { return std::exchange(fields_, {}); }

 private:
  void EndField() {
    if (!quoted_ && field_ == null_string_) fields_.emplace_back(std::nullopt);
    else fields_.emplace_back(std::move(field_));
    field_.clear();
    quoted_ = false;
  }
  char delimiter_;
  std::string null_string_;
  std::string field_;
  bool in_quotes_ = false, quoted_ = false;
  std::vector<std::optional<std::string>> fields_;
};

}  // namespace

std::expected<StatementOutput, Error> RunCopyFrom(const CopyStmt& stmt, const InsertPlan& plan, ExecContext& ctx,
                                                  ResultSink& sink) {
  const storage::TableDesc& table = *plan.table;
  CopyFormat format;
  format.columns.assign(plan.targets.size(), Format::kText);
  sink.CopyInBegin(format);
  RowInserter inserter(plan, ctx);
  CsvReader csv(stmt.delimiter[0], stmt.null_string);
  uint64_t rows = 0;
  std::string pending;  // bytes of an unfinished line
  bool header_skipped = !stmt.header, done = false;
  std::optional<Error> failed;  // after an error the rest of the data is read and dropped
  auto row_of = [&](std::vector<std::optional<std::string>> fields) -> std::expected<void, Error> {
    if (fields.size() > plan.targets.size()) return std::unexpected(MakeError("22P04", "extra data after last expected column"));
    if (fields.size() < plan.targets.size()) {
      return std::unexpected(
          MakeError("22P04", fmt::format("missing data for column \"{}\"", table.columns[plan.targets[fields.size()]].attname)));
    }
    Row input;
    input.reserve(fields.size());
    for (size_t i = 0; i < fields.size(); ++i) {
      const storage::ColumnDesc& column = table.columns[plan.targets[i]];
      if (!fields[i]) {
        input.push_back(Value::Null(column.type));
        continue;
      }
      auto v = ParseText(column.type, *fields[i], ctx.output);
      if (!v) return std::unexpected(v.error());
      auto fitted = ApplyTypmod(std::move(*v), column.atttypmod, /*assignment=*/true);
      if (!fitted) return std::unexpected(fitted.error());
      input.push_back(std::move(*fitted));
    }
    auto inserted = inserter.Insert(input);
    if (!inserted) return std::unexpected(inserted.error());
    rows += *inserted ? 1 : 0;
    return {};
  };
  auto line_of = [&](std::string_view line) -> std::expected<void, Error> {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!header_skipped) {
      header_skipped = true;
      return {};
    }
    if (line == "\\.") {
      done = true;
      return {};
    }
    if (stmt.csv) {
      if (!csv.Feed(line)) return {};
      return row_of(csv.Take());
    }
    return row_of(TextFields(line, stmt.delimiter[0], stmt.null_string));
  };
  while (true) {
    auto chunk = sink.CopyInRead();
    if (!chunk) return std::unexpected(chunk.error());
    if (!*chunk) break;
    if (failed || done) continue;
    pending += **chunk;
    size_t start = 0;
    for (size_t nl; !failed && !done && (nl = pending.find('\n', start)) != std::string::npos; start = nl + 1) {
      if (auto r = line_of(std::string_view(pending).substr(start, nl - start)); !r) failed = r.error();
    }
    pending.erase(0, start);
    if (rows % 1024 == 0) cluster::CrashPoint("copy.rows");
    if (rows % 1024 == 0) {
      if (auto interrupted = ctx.CheckInterrupts(); !interrupted && !failed) failed = interrupted.error();
    }
  }
  if (!failed && !done && !pending.empty()) {
    if (auto r = line_of(pending); !r) failed = r.error();
  }
  if (failed) return std::unexpected(*failed);
  StatementOutput out;
  out.tag = fmt::format("COPY {}", rows);
  return out;
}

}  // namespace farmdb::sql
