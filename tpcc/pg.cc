#include "tpcc/pg.h"

#include <charconv>
#include <algorithm>
#include <cstdlib>
#include <optional>

namespace farmdb::tpcc {
namespace {

std::string Field(const PGresult* res, int field) {
  const char* v = PQresultErrorField(res, field);
  return v ? v : "";
}

PgError ErrorOf(const PGresult* res) {
  return PgError{Field(res, PG_DIAG_SQLSTATE), Field(res, PG_DIAG_MESSAGE_PRIMARY), Field(res, PG_DIAG_MESSAGE_DETAIL)};
}

}  // namespace

std::string PgError::ToString() const {
  std::string s = sqlstate.empty() ? message : sqlstate + " " + message;
  if (!detail.empty()) s += " (" + detail + ")";
  return s;
}

std::string_view Rows::Text(int row, int col) const {
  return {PQgetvalue(res_.get(), row, col), static_cast<size_t>(PQgetlength(res_.get(), row, col))};
}

int64_t Rows::Int(int row, int col) const {
  std::string_view t = Text(row, col);
  int64_t v = 0;
  std::from_chars(t.data(), t.data() + t.size(), v);
  return v;
}

int64_t Rows::Cents(int row, int col) const {
  std::string_view t = Text(row, col);
  bool negative = !t.empty() && t.front() == '-';
  if (negative) t.remove_prefix(1);
  int64_t units = 0, hundredths = 0;
  size_t dot = t.find('.');
  std::from_chars(t.data(), t.data() + std::min(dot, t.size()), units);
  if (dot != std::string_view::npos) {
    std::string_view frac = t.substr(dot + 1);
    for (size_t i = 0; i < 2; ++i) hundredths = hundredths * 10 + (i < frac.size() ? frac[i] - '0' : 0);
  }
  int64_t cents = units * 100 + hundredths;
  return negative ? -cents : cents;
}

int64_t Rows::Affected() const {
  const char* n = PQcmdTuples(res_.get());
  return n && *n ? std::strtoll(n, nullptr, 10) : 0;
}

Params& Params::Add(int64_t v) {
  char digits[24];
  auto [end, ec] = std::to_chars(digits, digits + sizeof digits, v);
  return Add(std::string_view(digits, end));
}

Params& Params::Add(std::string_view v) {
  if (text_.empty()) text_.reserve(128);
  starts_.push_back(static_cast<int32_t>(text_.size()));
  text_.append(v);
  text_.push_back('\0');
  return *this;
}

Params& Params::AddNull() {
  starts_.push_back(-1);
  return *this;
}

void Params::Pointers(std::vector<const char*>& out) const {
  out.clear();
  for (int32_t start : starts_) out.push_back(start < 0 ? nullptr : text_.data() + start);
}

PgResult<Connection> Connection::Open(const std::string& conninfo, bool pipeline) {
  PGconn* raw = PQconnectdb(conninfo.c_str());
  Connection c(raw, pipeline);
  if (raw == nullptr || PQstatus(raw) != CONNECTION_OK) return std::unexpected(c.ConnectionError());
  // Notices (DROP TABLE IF EXISTS skipping, ROLLBACK outside a block after a failed COMMIT)
  // are expected and would only clutter the report.
  PQsetNoticeProcessor(raw, [](void*, const char*) {}, nullptr);
  return c;
}

PgError Connection::ConnectionError() const {
  std::string message = conn_ ? PQerrorMessage(conn_.get()) : "out of memory";
  while (!message.empty() && message.back() == '\n') message.pop_back();
  return PgError{"", message, ""};
}

// Rows from a finished statement, or its error; takes ownership of res.
PgResult<Rows> Connection::Take(PGresult* res) const {
  if (res == nullptr) return std::unexpected(ConnectionError());
  Rows rows(res);
  ExecStatusType s = PQresultStatus(res);
  if (s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK) return rows;
  if (s == PGRES_FATAL_ERROR || s == PGRES_NONFATAL_ERROR) return std::unexpected(ErrorOf(res));
  return std::unexpected(PgError{"", std::string("unexpected result ") + PQresStatus(s), ""});
}

PgResult<void> Connection::Prepare(const std::string& name, const std::string& sql) {
  auto r = Take(PQprepare(conn_.get(), name.c_str(), sql.c_str(), 0, nullptr));
  if (!r) return std::unexpected(r.error());
  return {};
}

PgResult<Rows> Connection::Exec(const std::string& sql) {
  // PQexec keeps only the last statement's result, and an error stops the message there.
  return Take(PQexec(conn_.get(), sql.c_str()));
}

PgResult<void> Connection::CopyIn(const std::string& table, std::string_view data) {
  Rows start(PQexec(conn_.get(), ("COPY " + table + " FROM STDIN").c_str()));
  if (PQresultStatus(start.raw()) != PGRES_COPY_IN) {
    auto r = Take(start.release());
    return std::unexpected(r ? PgError{"", "COPY did not start", ""} : r.error());
  }
  constexpr size_t kChunk = 1 << 16;
  for (size_t at = 0; at < data.size(); at += kChunk) {
    size_t n = std::min(kChunk, data.size() - at);
    if (PQputCopyData(conn_.get(), data.data() + at, static_cast<int>(n)) != 1) return std::unexpected(ConnectionError());
  }
  if (PQputCopyEnd(conn_.get(), nullptr) != 1) return std::unexpected(ConnectionError());
  auto done = Take(PQgetResult(conn_.get()));
  while (PGresult* extra = PQgetResult(conn_.get())) PQclear(extra);
  if (!done) return std::unexpected(done.error());
  return {};
}

void Connection::Queue(const std::string& name, Params params) { queued_.push_back({name, std::move(params)}); }

PgResult<std::vector<Rows>> Connection::RunBatch() {
  auto out = pipeline_ ? RunPipelined() : RunOneByOne();
  queued_.clear();
  return out;
}

PgResult<std::vector<Rows>> Connection::RunOneByOne() {
  std::vector<Rows> out;
  out.reserve(queued_.size());
  for (const Queued& q : queued_) {
    q.params.Pointers(values_);
    auto r = Take(PQexecPrepared(conn_.get(), q.name.c_str(), q.params.size(), values_.data(), nullptr, nullptr, 0));
    if (!r) return std::unexpected(r.error());
    out.push_back(std::move(*r));
  }
  return out;
}

// Every statement queued, one Sync, then the results in order: after a failed statement the
// server skips the rest up to the Sync (PGRES_PIPELINE_ABORTED), so the first error is the one.
PgResult<std::vector<Rows>> Connection::RunPipelined() {
  PGconn* c = conn_.get();
  if (PQenterPipelineMode(c) != 1) return std::unexpected(ConnectionError());
  for (const Queued& q : queued_) {
    q.params.Pointers(values_);
    if (PQsendQueryPrepared(c, q.name.c_str(), q.params.size(), values_.data(), nullptr, nullptr, 0) != 1) {
      return std::unexpected(ConnectionError());
    }
  }
  if (PQpipelineSync(c) != 1) return std::unexpected(ConnectionError());
  std::vector<Rows> out;
  out.reserve(queued_.size());
  std::optional<PgError> first_error;
  for (size_t i = 0; i < queued_.size(); ++i) {
    PGresult* res = PQgetResult(c);
    if (res == nullptr) return std::unexpected(ConnectionError());
    if (PQresultStatus(res) == PGRES_PIPELINE_ABORTED) {
      PQclear(res);
    } else if (auto r = Take(res); r) {
      out.push_back(std::move(*r));
    } else if (!first_error) {
      first_error = r.error();
    }
    while (PGresult* rest = PQgetResult(c)) PQclear(rest);  // the NULL that ends this statement
  }
  PGresult* sync = PQgetResult(c);
  bool synced = sync != nullptr && PQresultStatus(sync) == PGRES_PIPELINE_SYNC;
  if (sync) PQclear(sync);
  if (!synced || PQexitPipelineMode(c) != 1) return std::unexpected(ConnectionError());
  if (first_error) return std::unexpected(*first_error);
  return out;
}

}  // namespace farmdb::tpcc
