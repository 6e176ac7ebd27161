#include "server/connection.h"

#include <cctype>
#include <cstdio>

#include "server/protocol/backend.h"

namespace farmdb::server {
namespace {

constexpr size_t kReadChunk = 1 << 20;  // bodies grow as bytes arrive, not as claimed
constexpr size_t kKeptBodyBytes = 64 << 10;

sql::Error Fatal(std::string sqlstate, std::string message) {
  sql::Error e;
  e.severity = sql::Error::Severity::kFatal;
  e.sqlstate = std::move(sqlstate);
  e.message = std::move(message);
  return e;
}

std::string UnsupportedProtocol(uint32_t major, uint32_t minor) {
  return "unsupported frontend protocol " + std::to_string(major) + "." + std::to_string(minor) +
         ": server supports 3.0 to 3.0";
}

// Splits the startup `options` parameter like pg_split_opts (whitespace separates, backslash
// escapes) and keeps `-c name=value` / `--name=value` settings.
std::expected<void, std::string> SplitOptions(
    std::string_view options, std::vector<std::pair<std::string, std::string>>& settings) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  for (size_t i = 0; i < options.size(); ++i) {
    char c = options[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
      continue;
    }
    if (c == '\\' && i + 1 < options.size()) c = options[++i];
    word.push_back(c);
    in_word = true;
  }
  if (in_word) words.push_back(std::move(word));
  for (size_t i = 0; i < words.size(); ++i) {
    std::string setting;
    if (words[i] == "-c" && i + 1 < words.size()) {
      setting = words[++i];
    } else if (words[i].starts_with("-c") && words[i].size() > 2) {
      setting = words[i].substr(2);
    } else if (words[i].starts_with("--")) {
      setting = words[i].substr(2);
    } else {
      return std::unexpected(words[i]);
    }
    size_t eq = setting.find('=');
    if (eq == std::string::npos || eq == 0) return std::unexpected(words[i]);
    std::string name = setting.substr(0, eq);
    for (char& ch : name) {
      if (ch == '-') ch = '_';  // --work-mem=64MB names work_mem, as ParseLongOption does
    }
    settings.emplace_back(std::move(name), setting.substr(eq + 1));
  }
  return {};
}

}  // namespace

Connection::Connection(ConnectionEnv env, Channel& channel, int32_t id, std::optional<IpAddress> peer,
                       std::string peer_text)
    : env_(env), channel_(channel), id_(id), peer_(peer), peer_text_(std::move(peer_text)) {}

Connection::~Connection() {
  // Portals and statements go before the session that made them.
  portals_.clear();
  statements_.clear();
  session_.reset();
  if (registered_) env_.registry->Unregister(id_);
}

void Connection::Run() {
  if (Startup()) Serve();
  Flush();
}

void Connection::Flush() {
  if (out_.empty()) return;
  if (!broken_ && !channel_.WriteAll(out_)) broken_ = true;
  out_.clear();
}

void Connection::SendFatal(sql::Error error) {
  error.severity = sql::Error::Severity::kFatal;
  env_.log->debug("conn={} event=fatal sqlstate={} message=\"{}\"", id_, error.sqlstate,
                  error.message);
  PutError(out_, error);
  Flush();
}

void Connection::SendFatal(std::string sqlstate, std::string message) {
  SendFatal(Fatal(std::move(sqlstate), std::move(message)));
}

void Connection::EndWith(const ReadFailure& failure) {
  switch (failure.status) {
    case ReadStatus::kClosed:
      return;
    case ReadStatus::kStopping:
      SendFatal("57P01", "terminating connection due to administrator command");
      return;
    case ReadStatus::kOk:
      SendFatal(failure.error.sqlstate, failure.error.message);
      return;
  }
}

bool Connection::ReadBytes(char* out, size_t n, ReadFailure& failure) {
  ReadStatus status = channel_.ReadExact(out, n);
  if (status == ReadStatus::kOk) return true;
  failure.status = status;
  return false;
}

std::expected<char, Connection::ReadFailure> Connection::ReadBody(Phase phase) {
  // The failure is built only on the way out: a ProtocolError costs a string per message.
  auto failed = [](ReadStatus status) { return std::unexpected(ReadFailure{status, {}}); };
  char header[5];
  if (ReadStatus s = channel_.ReadExact(header, sizeof header); s != ReadStatus::kOk) return failed(s);
  auto body_length = CheckMessageHeader(header[0], GetInt32({header, sizeof header}, 1), phase,
                                        env_.config->max_message_size);
  if (!body_length) return std::unexpected(ReadFailure{ReadStatus::kOk, body_length.error()});
  if (body_.capacity() > kKeptBodyBytes) std::string().swap(body_);
  body_.clear();
  while (body_.size() < *body_length) {
    size_t have = body_.size();
    body_.resize(std::min<size_t>(*body_length, have + kReadChunk));
    if (ReadStatus s = channel_.ReadExact(body_.data() + have, body_.size() - have); s != ReadStatus::kOk) {
      // A message cut off by EOF: the client may still read (half-close), so say why.
      if (s == ReadStatus::kClosed) {
        return std::unexpected(ReadFailure{ReadStatus::kOk, ProtocolError{"08P01", "unexpected EOF within message"}});
      }
      return failed(s);
    }
  }
  return header[0];
}

std::expected<FrontendMessage, Connection::ReadFailure> Connection::ReadMessage(Phase phase) {
  auto type = ReadBody(phase);
  if (!type) return std::unexpected(std::move(type.error()));
  auto message = DecodeMessage(*type, body_);
  if (!message) return std::unexpected(ReadFailure{ReadStatus::kOk, message.error()});
  return std::move(*message);
}

bool Connection::Startup() {
  bool ssl_done = false;
  bool gss_done = false;
  while (true) {
    ReadFailure failure{ReadStatus::kOk, {}};
    char length[4];
    if (!ReadBytes(length, sizeof length, failure)) return false;
    auto body_length = CheckStartupLength(GetInt32({length, sizeof length}, 0));
    if (!body_length) {
      SendFatal(body_length.error().sqlstate, body_length.error().message);
      return false;
    }
    std::string body(*body_length, '\0');
    if (!ReadBytes(body.data(), body.size(), failure)) {
      EndWith(failure);
      return false;
    }
    auto packet = DecodeStartupPacket(body);
    if (!packet) {
      SendFatal(packet.error().sqlstate, packet.error().message);
      return false;
    }
    if (std::holds_alternative<SslRequest>(*packet) ||
        std::holds_alternative<GssEncRequest>(*packet)) {
      // No TLS or GSSAPI encryption: answer 'N' and the client continues in plain text. A
      // repeated request is read as a protocol version, as the postmaster does.
      bool ssl = std::holds_alternative<SslRequest>(*packet);
      bool& done = ssl ? ssl_done : gss_done;
      if (done) {
        uint32_t code = ssl ? kSslRequestCode : kGssEncRequestCode;
        SendFatal("0A000", UnsupportedProtocol(code >> 16, code & 0xffff));
        return false;
      }
      done = true;
      out_.push_back('N');
      Flush();
      continue;
    }
    if (const auto* cancel = std::get_if<CancelRequest>(&*packet)) {
      bool hit = env_.registry->Cancel(cancel->pid, cancel->secret);
      env_.log->debug("conn={} event=cancel_request target={} matched={}", id_, cancel->pid, hit);
      return false;
    }
    return HandleStartupMessage(std::get<StartupMessage>(*packet));
  }
}

bool Connection::HandleStartupMessage(const StartupMessage& startup) {
  if (startup.major != 3) {
    SendFatal("0A000", UnsupportedProtocol(startup.major, startup.minor));
    return false;
  }
  std::vector<std::pair<std::string, std::string>> settings;
  std::vector<std::string> unrecognized;  // `_pq_.` protocol options: none are known
  std::optional<std::string> database;
  std::string replication;
  for (const auto& [name, value] : startup.parameters) {
    if (name == "user") {
      user_ = value;
    } else if (name == "database") {
      database = value;
    } else if (name == "replication") {
      replication = value;
    } else if (name.starts_with("_pq_.")) {
      unrecognized.push_back(name);
    } else if (name == "options") {
      if (auto status = SplitOptions(value, settings); !status) {
        SendFatal("42601",
                  "invalid command-line argument for server process: " + status.error());
        return false;
      }
    } else {
      settings.emplace_back(name, value);
    }
  }
  // As PostgreSQL 15: a newer 3.x minor or unknown protocol options get NegotiateProtocolVersion
  // and the connection continues with 3.0.
  if (startup.minor > 0 || !unrecognized.empty()) {
    PutNegotiateProtocolVersion(out_, 0, unrecognized);
  }
  if (!replication.empty() && replication != "false" && replication != "off" &&
      replication != "no" && replication != "0") {
    if (replication == "true" || replication == "on" || replication == "yes" ||
        replication == "1" || replication == "database") {
      SendFatal("0A000", "replication connections are not supported");
    } else {
      SendFatal("22023", "invalid value for parameter \"replication\": \"" + replication + "\"");
    }
    return false;
  }
  if (user_.empty()) {
    SendFatal("28000", "no PostgreSQL user name specified in startup packet");
    return false;
  }
  database_ = database && !database->empty() ? *database : user_;
  if (!Authenticate(user_, database_)) return false;
  return StartSession(std::move(settings));
}

bool Connection::StartSession(std::vector<std::pair<std::string, std::string>> settings) {
  PutAuthentication(out_, AuthCode::kOk);
  const Role* role = FindRole(*env_.config, user_);
  if (!role) {
    SendFatal("28000", "role \"" + user_ + "\" does not exist");
    return false;
  }
  sql::SessionOptions options;
  options.user = user_;
  options.database = database_;
  options.is_superuser = role->superuser;
  options.startup_settings = std::move(settings);
  options.cancel = &cancel_.flag;
  auto session = env_.engine->NewSession(std::move(options));
  if (!session) {
    SendFatal(session.error());
    return false;
  }
  session_ = std::move(*session);
  cancel_.secret = GetInt32(RandomBytes(sizeof cancel_.secret), 0);
  env_.registry->Register(id_, &cancel_);
  registered_ = true;
  for (const auto& [name, value] : session_->ReportedSettings()) {
    PutParameterStatus(out_, name, value);
  }
  PutBackendKeyData(out_, id_, cancel_.secret);
  PutReadyForQuery(out_, session_->Status());
  Flush();
  env_.log->info("conn={} event=session_start user={} database={}", id_, user_, database_);
  return !broken_;
}

void Connection::Serve() {
  while (!broken_) {
    auto type = ReadBody(Phase::kReady);
    if (!type) return EndWith(type.error());
    // postgres.c: after an extended-protocol error, everything up to Sync is skipped unread.
    if (ignore_till_sync_ && *type != 'S') continue;
    bool terminate = false;
    if (*type == 'B') {
      // On every statement's path: decoded into bind_, with no allocation once it has grown.
      if (auto violation = DecodeBind(body_, bind_)) return EndWith({ReadStatus::kOk, std::move(*violation)});
      HandleBind(bind_);
    } else {
      auto message = DecodeMessage(*type, body_);
      if (!message) return EndWith({ReadStatus::kOk, message.error()});
      std::visit(
          [&](const auto& m) {
            using T = std::decay_t<decltype(m)>;
            if constexpr (std::is_same_v<T, Query>) {
              SimpleQuery(m);
            } else if constexpr (std::is_same_v<T, Parse>) {
              HandleParse(m);
            } else if constexpr (std::is_same_v<T, Describe>) {
              HandleDescribe(m);
            } else if constexpr (std::is_same_v<T, Execute>) {
              HandleExecute(m);
            } else if constexpr (std::is_same_v<T, Close>) {
              HandleClose(m);
            } else if constexpr (std::is_same_v<T, Sync>) {
              HandleSync();
            } else if constexpr (std::is_same_v<T, server::Flush>) {
              Flush();
            } else if constexpr (std::is_same_v<T, Terminate>) {
              terminate = true;
            } else if constexpr (std::is_same_v<T, FunctionCall>) {
              sql::Error error;
              error.sqlstate = "0A000";
              error.message = "fastpath function calls are not supported";
              PutError(out_, error);
              PutReadyForQuery(out_, session_->Status());
              Flush();
            }
            // CopyData/CopyDone/CopyFail outside COPY are ignored, per the protocol spec (a COPY
            // that failed early leaves the client still sending them). Bind went to bind_ above.
          },
          *message);
    }
    if (fatal_) {
      SendFatal(*fatal_);
      return;
    }
    if (terminate) {
      env_.log->info("conn={} event=terminate", id_);
      return;
    }
    if (out_.size() >= kFlushThreshold) Flush();
  }
}

void Connection::DropPortalsOutsideBlock() {
  // Portals live as long as their transaction (PostgreSQL closes them at transaction end).
  if (session_->Status() != sql::TxnStatus::kInBlock) portals_.clear();
}

void Connection::SimpleQuery(const Query& query) {
  // exec_simple_query drops the unnamed statement and portal.
  portals_.erase("");
  statements_.erase("");
  extended_mode_ = false;
  std::expected<void, sql::Error> result;
  {
    RunningScope running(cancel_);
    result = session_->SimpleQuery(query.text, *this);
  }
  if (!result) {
    if (result.error().severity == sql::Error::Severity::kFatal) {
      fatal_ = result.error();
      return;
    }
    PutError(out_, result.error());
  }
  if (fatal_) return;
  DropPortalsOutsideBlock();
  PutReadyForQuery(out_, session_->Status());
  Flush();
}

// sql::ResultSink. RowDescription, CommandComplete and EmptyQuery belong to the simple protocol;
// in extended mode Describe and Execute's result carry them.
void Connection::RowDescription(std::span<const sql::Column> columns) {
  if (!extended_mode_) PutRowDescription(out_, columns);
}

void Connection::DataRow(std::span<const sql::WireValue> values) {
  PutDataRow(out_, values);
  if (out_.size() >= kFlushThreshold) Flush();
}

void Connection::CommandComplete(std::string_view tag) {
  if (!extended_mode_) PutCommandComplete(out_, tag);
}

void Connection::EmptyQuery() {
  if (!extended_mode_) PutEmpty(out_, 'I');
}

void Connection::Notice(const sql::Notice& notice) { PutNotice(out_, notice); }

void Connection::ParameterStatus(std::string_view name, std::string_view value) {
  PutParameterStatus(out_, name, value);
}

void Connection::CopyOutBegin(const sql::CopyFormat& format) { PutCopyResponse(out_, 'H', format); }

void Connection::CopyData(std::string_view bytes) {
  PutCopyData(out_, bytes);
  if (out_.size() >= kFlushThreshold) Flush();
}

void Connection::CopyOutEnd() { PutEmpty(out_, 'c'); }

void Connection::CopyInBegin(const sql::CopyFormat& format) {
  PutCopyResponse(out_, 'G', format);
  Flush();  // the client sends nothing until it sees CopyInResponse
}

std::expected<std::optional<std::string>, sql::Error> Connection::CopyInRead() {
  auto failed = [](std::string sqlstate, std::string message) {
    sql::Error e;
    e.sqlstate = std::move(sqlstate);
    e.message = std::move(message);
    return std::unexpected(std::move(e));
  };
  if (fatal_) return std::unexpected(*fatal_);
  while (true) {
    auto message = ReadMessage(Phase::kReady);
    if (!message) {
      // The connection cannot continue: record why, fail the COPY, end after it returns.
      const ReadFailure& f = message.error();
      fatal_ = f.status == ReadStatus::kStopping
                   ? Fatal("57P01", "terminating connection due to administrator command")
               : f.status == ReadStatus::kClosed
                   ? Fatal("08P01", "unexpected EOF on client connection with an open transaction")
                   : Fatal(f.error.sqlstate, f.error.message);
      if (f.status == ReadStatus::kClosed) broken_ = true;
      return std::unexpected(*fatal_);
    }
    if (auto* data = std::get_if<server::CopyData>(&*message)) return std::move(data->data);
    if (std::holds_alternative<CopyDone>(*message)) return std::optional<std::string>();
    if (auto* fail = std::get_if<CopyFail>(&*message)) {
      return failed("57014", "COPY from stdin failed: " + fail->message);
    }
    // Flush and Sync during COPY are ignored, as PostgreSQL does (some clients send them).
    if (std::holds_alternative<server::Flush>(*message) || std::holds_alternative<Sync>(*message)) {
      continue;
    }
    char type = MessageType(*message);
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned char>(type));
    return failed("08P01", std::string("unexpected message type ") + hex +
                               " during COPY from stdin");
  }
}

}  // namespace farmdb::server
