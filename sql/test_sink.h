// RecordingSink: a ResultSink for tests that records everything the engine sends, as text.
#pragma once

#include <string>
#include <vector>

#include "sql/session.h"

namespace farmdb::sql {

// One row of a table-driven error test: a statement and the error PostgreSQL 15 gives for it
// (position: 1-based character offset, 0 when PostgreSQL reports none).
struct ErrorCase {
  const char* sql;
  const char* sqlstate;
  const char* message;
  int position;
};

class RecordingSink : public ResultSink {
 public:
  void RowDescription(std::span<const Column> columns) override { this->columns.assign(columns.begin(), columns.end()); }
  void DataRow(std::span<const WireValue> values) override {
    std::vector<std::string> row;
    for (const WireValue& v : values) row.push_back(v ? std::string(*v) : "<NULL>");
    rows.push_back(std::move(row));
  }
  void CommandComplete(std::string_view tag) override { tags.emplace_back(tag); }
  void EmptyQuery() override { ++empty_queries; }
  void Notice(const sql::Notice& notice) override { notices.push_back(notice); }
  void ParameterStatus(std::string_view name, std::string_view value) override {
    parameter_status.emplace_back(std::string(name), std::string(value));
  }
  void CopyOutBegin(const CopyFormat& format) override { copy_columns = format.columns.size(); }
  void CopyData(std::string_view bytes) override { copy_data += bytes; }
  void CopyOutEnd() override { ++copy_ends; }
  void CopyInBegin(const CopyFormat&) override {}
  std::expected<std::optional<std::string>, Error> CopyInRead() override { return std::nullopt; }

  std::vector<Column> columns;
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> tags;
  int empty_queries = 0;
  std::vector<sql::Notice> notices;
  std::vector<std::pair<std::string, std::string>> parameter_status;
  size_t copy_columns = 0;
  std::string copy_data;
  int copy_ends = 0;
};

}  // namespace farmdb::sql
