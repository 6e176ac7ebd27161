// The extended query protocol of a Connection: Parse, Bind, Describe, Execute, Close, Sync.
// Named statements and portals follow PostgreSQL's rules: the unnamed ones are replaced
// silently, a named one must not exist yet and must exist when used.
#include "server/connection.h"
#include "server/protocol/backend.h"

namespace farmdb::server {
namespace {

sql::Error MakeError(std::string sqlstate, std::string message) {
  sql::Error e;
  e.sqlstate = std::move(sqlstate);
  e.message = std::move(message);
  return e;
}

std::string StatementNotFound(std::string_view name) {
  return name.empty() ? "unnamed prepared statement does not exist"
                      : "prepared statement \"" + std::string(name) + "\" does not exist";
}

std::string PortalNotFound(std::string_view name) {
  return "portal \"" + std::string(name) + "\" does not exist";
}

// Bind's format-code lists, written over `formats`: each code must be text or binary.
std::expected<void, sql::Error> ToFormats(const std::vector<int16_t>& codes, std::vector<sql::Format>& formats) {
  formats.clear();
  for (int16_t code : codes) {
    if (code != 0 && code != 1) {
      return std::unexpected(MakeError("22023", "unsupported format code: " + std::to_string(code)));
    }
    formats.push_back(static_cast<sql::Format>(code));
  }
  return {};
}

}  // namespace

void Connection::ExtendedError(sql::Error error) {
  if (error.severity == sql::Error::Severity::kFatal) {
    fatal_ = std::move(error);
    return;
  }
  PutError(out_, error);
  ignore_till_sync_ = true;
  // Any error fails the transaction (postgres.c aborts it): the Executes before it in the
  // implicit transaction roll back, a block fails. The session already knows its own errors.
  session_->MessageFailed();
}

bool Connection::SyncIsNext() const {
  std::string_view next = channel_.Buffered();
  return next.size() >= 5 && next[0] == 'S' && GetInt32(next, 1) == 4;
}

void Connection::HandleParse(const Parse& parse) {
  auto statement = session_->Prepare(parse.query, parse.param_types);
  if (!statement) return ExtendedError(statement.error());
  if (!parse.name.empty() && statements_.contains(parse.name)) {
    return ExtendedError(
        MakeError("42P05", "prepared statement \"" + parse.name + "\" already exists"));
  }
  statements_[parse.name] = std::move(*statement);
  PutEmpty(out_, '1');
}

void Connection::HandleBind(const Bind& bind) {
  auto it = statements_.find(bind.statement);
  if (it == statements_.end()) return ExtendedError(MakeError("26000", StatementNotFound(bind.statement)));
  auto existing = portals_.find(bind.portal);
  if (!bind.portal.empty() && existing != portals_.end()) {
    return ExtendedError(MakeError("42P03", "portal \"" + std::string(bind.portal) + "\" already exists"));
  }
  const auto& statement = it->second;
  size_t wanted = statement->ParameterTypes().size();
  if (bind.values.size() != wanted) {
    return ExtendedError(MakeError(
        "08P01", "bind message supplies " + std::to_string(bind.values.size()) +
                     " parameters, but prepared statement \"" + std::string(bind.statement) +
                     "\" requires " + std::to_string(wanted)));
  }
  size_t columns = statement->ResultColumns().size();
  if (bind.result_formats.size() > 1 && bind.result_formats.size() != columns) {
    return ExtendedError(MakeError(
        "08P01", "bind message has " + std::to_string(bind.result_formats.size()) +
                     " result formats but query has " + std::to_string(columns) + " columns"));
  }
  if (auto ok = ToFormats(bind.param_formats, param_formats_); !ok) return ExtendedError(ok.error());
  if (auto ok = ToFormats(bind.result_formats, result_formats_); !ok) return ExtendedError(ok.error());
  sql::BindParameters params{bind.values, param_formats_, result_formats_, bind.statement};
  // The unnamed portal is replaced silently, and the session may reuse its storage. PostgreSQL
  // drops it as Bind creates the new one, before reading the parameters, so a Bind whose
  // parameters fail leaves none; here any Bind the session fails does. (PostgreSQL keeps it when
  // Bind fails in an aborted block, which only a client executing that old portal later sees.)
  std::unique_ptr<sql::Portal> replaced;
  if (existing != portals_.end()) replaced = std::move(existing->second);
  auto portal = session_->Bind(statement, params, std::move(replaced));
  if (!portal) {
    if (existing != portals_.end()) portals_.erase(existing);
    return ExtendedError(portal.error());
  }
  if (existing != portals_.end()) {
    existing->second = std::move(*portal);
  } else {
    portals_.emplace(bind.portal, std::move(*portal));
  }
  PutEmpty(out_, '2');
}

void Connection::HandleDescribe(const Describe& describe) {
  std::span<const sql::Column> columns;
  if (describe.kind == 'S') {
    auto it = statements_.find(describe.name);
    if (it == statements_.end()) {
      return ExtendedError(MakeError("26000", StatementNotFound(describe.name)));
    }
    PutParameterDescription(out_, it->second->ParameterTypes());
    columns = it->second->ResultColumns();
  } else {
    auto it = portals_.find(describe.name);
    if (it == portals_.end()) {
      return ExtendedError(MakeError("34000", PortalNotFound(describe.name)));
    }
    columns = it->second->ResultColumns();
  }
  if (columns.empty()) {
    PutEmpty(out_, 'n');
  } else {
    PutRowDescription(out_, columns);
  }
}

void Connection::HandleExecute(const Execute& execute) {
  auto it = portals_.find(execute.portal);
  if (it == portals_.end()) {
    return ExtendedError(MakeError("34000", PortalNotFound(execute.portal)));
  }
  extended_mode_ = true;
  std::expected<sql::ExecuteResult, sql::Error> result;
  {
    RunningScope running(cancel_);
    result = session_->Execute(*it->second, execute.max_rows > 0 ? execute.max_rows : 0, SyncIsNext(), *this);
  }
  extended_mode_ = false;
  if (fatal_) return;
  if (!result) return ExtendedError(result.error());
  if (result->suspended) {
    PutEmpty(out_, 's');
  } else if (result->empty_query) {
    PutEmpty(out_, 'I');
  } else {
    PutCommandComplete(out_, result->command_tag);
  }
}

void Connection::HandleClose(const Close& close) {
  // Closing a name that does not exist is not an error.
  if (close.kind == 'S') {
    if (auto it = statements_.find(close.name); it != statements_.end()) statements_.erase(it);
  } else {
    if (auto it = portals_.find(close.name); it != portals_.end()) portals_.erase(it);
  }
  PutEmpty(out_, '3');
}

void Connection::HandleSync() {
  ignore_till_sync_ = false;
  // The implicit transaction commits here; its failure (40001) precedes ReadyForQuery, as
  // postgres.c's finish_xact_command at Sync reports it.
  if (auto synced = session_->Sync(*this); !synced) PutError(out_, synced.error());
  DropPortalsOutsideBlock();
  PutReadyForQuery(out_, session_->Status());
  Flush();
}

}  // namespace farmdb::server
