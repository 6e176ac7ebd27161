#include "server/testing/fake_engine.h"

#include <chrono>

#include "cluster/fibers.h"

namespace farmdb::server::testing {
namespace {

constexpr sql::Oid kInt4 = 23;
constexpr sql::Oid kText = 25;

sql::Error Err(std::string sqlstate, std::string message) {
  sql::Error e;
  e.sqlstate = std::move(sqlstate);
  e.message = std::move(message);
  return e;
}

std::string Trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return std::string(s);
}

sql::Column IntColumn(std::string name) {
  sql::Column c;
  c.name = std::move(name);
  c.type_oid = kInt4;
  c.type_size = 4;
  return c;
}

class FakePrepared : public sql::PreparedStatement {
 public:
  explicit FakePrepared(std::string text) : text_(std::move(text)) {
    if (text_ == "SELECT 1") columns_.push_back(IntColumn("?column?"));
    if (text_.starts_with("ROWS ")) columns_.push_back(IntColumn("n"));
    if (text_ == "SELECT $1") {
      params_.push_back(kText);
      sql::Column c;
      c.name = "echo";
      c.type_oid = kText;
      columns_.push_back(c);
    }
  }
  std::span<const sql::Oid> ParameterTypes() const override { return params_; }
  std::span<const sql::Column> ResultColumns() const override { return columns_; }
  const std::string& text() const { return text_; }

 private:
  std::string text_;
  std::vector<sql::Oid> params_;
  std::vector<sql::Column> columns_;
};

class FakePortal : public sql::Portal {
 public:
  FakePortal(std::shared_ptr<const FakePrepared> statement, std::vector<std::optional<std::string>> values,
             std::vector<sql::Column> columns)
      : statement_(std::move(statement)), values_(std::move(values)), columns_(std::move(columns)) {}
  std::span<const sql::Column> ResultColumns() const override { return columns_; }

  std::shared_ptr<const FakePrepared> statement_;
  std::vector<std::optional<std::string>> values_;
  std::vector<sql::Column> columns_;
  int64_t position_ = 0;  // ROWS: rows already sent
};

}  // namespace

class FakeSession : public sql::Session {
 public:
  FakeSession(FakeEngine& engine, sql::SessionOptions options)
      : engine_(engine), options_(std::move(options)) {}

  std::vector<std::pair<std::string, std::string>> ReportedSettings() const override {
    std::vector<std::pair<std::string, std::string>> settings = {
        {"server_version", "15.0"}, {"client_encoding", "UTF8"}};
    for (const auto& [name, value] : options_.startup_settings) {
      if (name == "application_name") settings.emplace_back(name, value);
    }
    return settings;
  }

  std::expected<void, sql::Error> SimpleQuery(std::string_view text, sql::ResultSink& sink) override {
    size_t start = 0;
    bool any = false;
    while (start <= text.size()) {
      size_t semi = text.find(';', start);
      if (semi == std::string_view::npos) semi = text.size();
      std::string statement = Trim(text.substr(start, semi - start));
      start = semi + 1;
      if (statement.empty()) continue;
      any = true;
      FakePrepared prepared(statement);
      if (!prepared.ResultColumns().empty()) sink.RowDescription(prepared.ResultColumns());
      int64_t position = 0;
      auto result = Run(statement, {}, 0, position, sink);
      if (!result) return std::unexpected(result.error());
      sink.CommandComplete(result->command_tag);
    }
    if (!any) sink.EmptyQuery();
    return {};
  }

  std::expected<std::shared_ptr<const sql::PreparedStatement>, sql::Error> Prepare(
      std::string_view text, std::span<const sql::Oid>) override {
    std::string statement = Trim(text);
    if (statement == "ERROR") return std::unexpected(Err("42601", "syntax error at or near \"ERROR\""));
    return std::make_shared<FakePrepared>(statement);
  }

  std::expected<std::unique_ptr<sql::Portal>, sql::Error> Bind(
      std::shared_ptr<const sql::PreparedStatement> statement, const sql::BindParameters& params,
      std::unique_ptr<sql::Portal> /*replaced*/) override {
    auto prepared = std::static_pointer_cast<const FakePrepared>(statement);
    std::vector<std::optional<std::string>> values;
    for (const auto& v : params.values) {
      values.push_back(v ? std::optional<std::string>(*v) : std::nullopt);
    }
    std::vector<sql::Column> columns(prepared->ResultColumns().begin(), prepared->ResultColumns().end());
    for (size_t i = 0; i < columns.size(); ++i) {
      if (params.result_formats.size() == 1) columns[i].format = params.result_formats[0];
      if (params.result_formats.size() > 1) columns[i].format = params.result_formats[i];
    }
    return std::make_unique<FakePortal>(prepared, std::move(values), std::move(columns));
  }

  std::expected<sql::ExecuteResult, sql::Error> Execute(sql::Portal& portal, int64_t max_rows, bool sync_follows,
                                                        sql::ResultSink& sink) override {
    auto& p = static_cast<FakePortal&>(portal);
    engine_.Record(p.statement_->text() + (sync_follows ? " (sync follows)" : ""));
    return Run(p.statement_->text(), p.values_, max_rows, p.position_, sink);
  }

  std::expected<void, sql::Error> Sync(sql::ResultSink& sink) override {
    engine_.Record("Sync");
    if (!fail_at_sync_) return {};
    fail_at_sync_ = false;
    sql::Notice notice;
    notice.message = "before the commit error";
    sink.Notice(notice);
    return std::unexpected(Err("40001", "could not serialize access due to concurrent update"));
  }
  void MessageFailed() override {
    engine_.Record("MessageFailed");
    if (status_ == sql::TxnStatus::kInBlock) status_ = sql::TxnStatus::kFailed;
  }
  sql::TxnStatus Status() const override { return status_; }

 private:
  std::expected<sql::ExecuteResult, sql::Error> Fail(sql::Error error) {
    if (status_ == sql::TxnStatus::kInBlock) status_ = sql::TxnStatus::kFailed;
    return std::unexpected(std::move(error));
  }

  std::expected<sql::ExecuteResult, sql::Error> Run(const std::string& statement,
                                                    const std::vector<std::optional<std::string>>& values,
                                                    int64_t max_rows, int64_t& position,
                                                    sql::ResultSink& sink) {
    options_.cancel->Clear();  // a statement starts: an earlier cancel does not apply
    sql::ExecuteResult result;
    if (statement.empty()) {
      result.empty_query = true;
      return result;
    }
    if (status_ == sql::TxnStatus::kFailed && statement != "COMMIT" && statement != "ROLLBACK") {
      return Fail(Err("25P02", "current transaction is aborted, commands ignored until end of transaction block"));
    }
    if (statement == "SELECT 1") {
      sql::WireValue v = "1";
      sink.DataRow({&v, 1});
      result.command_tag = "SELECT 1";
    } else if (statement.starts_with("ROWS ")) {
      int64_t n = std::stoll(statement.substr(5));
      int64_t sent = 0;
      while (position < n) {
        if (max_rows > 0 && sent == max_rows) {
          result.suspended = true;
          return result;
        }
        std::string text = std::to_string(++position);
        sql::WireValue v = text;
        sink.DataRow({&v, 1});
        ++sent;
      }
      result.command_tag = "SELECT " + std::to_string(sent);
    } else if (statement == "SELECT $1") {
      sql::WireValue v = values.empty() || !values[0] ? sql::WireValue() : sql::WireValue(*values[0]);
      sink.DataRow({&v, 1});
      result.command_tag = "SELECT 1";
    } else if (statement == "BEGIN") {
      status_ = sql::TxnStatus::kInBlock;
      result.command_tag = "BEGIN";
    } else if (statement == "COMMIT" || statement == "ROLLBACK") {
      result.command_tag = status_ == sql::TxnStatus::kFailed ? "ROLLBACK" : statement;
      status_ = sql::TxnStatus::kIdle;
    } else if (statement == "FAIL AT SYNC") {
      fail_at_sync_ = true;
      result.command_tag = "DO";
    } else if (statement == "NOTICE") {
      sql::Notice notice;
      notice.message = "hello";
      sink.Notice(notice);
      result.command_tag = "DO";
    } else if (statement == "FATAL") {
      sql::Error e = Err("57P01", "terminating connection");
      e.severity = sql::Error::Severity::kFatal;
      return Fail(e);
    } else if (statement == "SLEEP") {
      ++engine_.sleeping;
      auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
      while (!options_.cancel->IsRequested() && std::chrono::steady_clock::now() < deadline) {
        cluster::FiberPool::SleepFor(std::chrono::milliseconds(5));
      }
      --engine_.sleeping;
      return Fail(Err("57014", "canceling statement due to user request"));
    } else if (statement == "COPY IN") {
      sink.CopyInBegin({sql::Format::kText, {sql::Format::kText}});
      size_t bytes = 0;
      while (true) {
        auto chunk = sink.CopyInRead();
        if (!chunk) return Fail(chunk.error());
        if (!*chunk) break;
        bytes += (*chunk)->size();
        std::lock_guard lock(engine_.mu_);
        engine_.copied_ += **chunk;
      }
      result.command_tag = "COPY " + std::to_string(bytes);
    } else if (statement == "COPY OUT") {
      sink.CopyOutBegin({sql::Format::kText, {sql::Format::kText}});
      sink.CopyData("a\n");
      sink.CopyData("b\n");
      sink.CopyOutEnd();
      result.command_tag = "COPY 2";
    } else {
      sql::Error e = Err("42601", "syntax error at or near \"" + statement + "\"");
      e.position = 1;
      e.hint = "fake engine";
      return Fail(e);
    }
    return result;
  }

  FakeEngine& engine_;
  sql::SessionOptions options_;
  sql::TxnStatus status_ = sql::TxnStatus::kIdle;
  bool fail_at_sync_ = false;
};

std::expected<std::unique_ptr<sql::Session>, sql::Error> FakeEngine::NewSession(
    sql::SessionOptions options) {
  {
    std::lock_guard lock(mu_);
    last_options_ = options;
  }
  if (options.database != "postgres" && options.database != "template1" && options.database != "app") {
    sql::Error e = Err("3D000", "database \"" + options.database + "\" does not exist");
    e.severity = sql::Error::Severity::kFatal;
    return std::unexpected(e);
  }
  return std::make_unique<FakeSession>(*this, std::move(options));
}

std::string FakeEngine::Copied() {
  std::lock_guard lock(mu_);
  return copied_;
}

sql::SessionOptions FakeEngine::LastOptions() {
  std::lock_guard lock(mu_);
  return last_options_;
}

void FakeEngine::Record(std::string event) {
  std::lock_guard lock(mu_);
  events_.push_back(std::move(event));
}

std::vector<std::string> FakeEngine::Events() {
  std::lock_guard lock(mu_);
  return events_;
}

}  // namespace farmdb::server::testing
