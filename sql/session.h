// The seam between server/ and sql/: what a client session can ask of the SQL engine.
//
// The server speaks the PostgreSQL wire protocol and never looks inside SQL text; the SQL layer
// never sees a socket. Everything that crosses is in this header: statement text in, column
// descriptions and rows (already encoded in the client's requested wire format) out, errors as
// PostgreSQL ErrorResponse fields.
//
// Thread-safety: a Session is used by one thread at a time (the connection's). The only
// cross-thread entry point is CancelFlag, which a cancel request on another connection sets.
#pragma once

#include <atomic>
#include <cstdint>
#include <expected>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "types/error.h"

namespace farmdb::sql {

// Oid, Error and MakeError live in types/ (value decoding raises errors below this layer).
using farmdb::Error;
using farmdb::MakeError;
using farmdb::Oid;

// Wire format of one value, as in Bind and RowDescription.
enum class Format : int16_t { kText = 0, kBinary = 1 };

// A NoticeResponse (WARNING, NOTICE, ...).
struct Notice {
  std::string severity = "NOTICE";
  std::string sqlstate = "00000";
  std::string message;
  std::string detail;
  std::string hint;
};

// One column of a result (RowDescription field).
struct Column {
  std::string name;
  Oid type_oid = 0;
  int16_t type_size = -1;      // pg_type.typlen
  int32_t type_modifier = -1;  // atttypmod
  Oid table_oid = 0;
  int16_t column_number = 0;
  Format format = Format::kText;
};

// Transaction status as ReadyForQuery reports it.
enum class TxnStatus : char { kIdle = 'I', kInBlock = 'T', kFailed = 'E' };

// One value in wire form; std::nullopt is SQL NULL.
using WireValue = std::optional<std::string_view>;

// The COPY sub-protocol's overall and per-column formats (CopyInResponse / CopyOutResponse).
struct CopyFormat {
  Format overall = Format::kText;
  std::vector<Format> columns;
};

// Set by a cancel request (from another thread); the engine polls it at safe points while a
// statement runs and fails the statement with 57014. The session clears it when a statement
// starts, so a cancel that arrives while idle does nothing, as in PostgreSQL.
class CancelFlag {
 public:
  void Request() { requested_.store(true, std::memory_order_relaxed); }
  bool IsRequested() const { return requested_.load(std::memory_order_relaxed); }
  void Clear() { requested_.store(false, std::memory_order_relaxed); }

 private:
  std::atomic<bool> requested_{false};
};

// Implemented by the server; the engine calls it on the session's thread while a statement runs.
class ResultSink {
 public:
  virtual ~ResultSink() = default;
  // Simple query only: the extended protocol describes results through Describe.
  virtual void RowDescription(std::span<const Column> columns) = 0;
  virtual void DataRow(std::span<const WireValue> values) = 0;
  // Simple query only: each statement of the message ends with one of these.
  virtual void CommandComplete(std::string_view tag) = 0;
  virtual void EmptyQuery() = 0;
  virtual void Notice(const sql::Notice& notice) = 0;
  // A reported setting (GUC_REPORT in PostgreSQL) changed.
  virtual void ParameterStatus(std::string_view name, std::string_view value) = 0;

  // COPY ... TO STDOUT: Begin sends CopyOutResponse, then CopyData per row, End sends CopyDone.
  virtual void CopyOutBegin(const CopyFormat& format) = 0;
  virtual void CopyData(std::string_view bytes) = 0;
  virtual void CopyOutEnd() = 0;

  // COPY ... FROM STDIN: Begin sends CopyInResponse; each Read returns the next CopyData payload,
  // std::nullopt at CopyDone, or an error (CopyFail from the client: 57014; a lost connection or
  // an unexpected message: 08P01).
  virtual void CopyInBegin(const CopyFormat& format) = 0;
  virtual std::expected<std::optional<std::string>, Error> CopyInRead() = 0;
};

// A parsed and analysed statement (extended protocol Parse).
class PreparedStatement {
 public:
  virtual ~PreparedStatement() = default;
  virtual std::span<const Oid> ParameterTypes() const = 0;
  // Result columns with text format; empty when the statement returns no rows (NoData).
  virtual std::span<const Column> ResultColumns() const = 0;
};

// A prepared statement bound to parameter values and result formats (extended protocol Bind).
class Portal {
 public:
  virtual ~Portal() = default;
  // Result columns in the bound result formats; empty for NoData.
  virtual std::span<const Column> ResultColumns() const = 0;
};

struct ExecuteResult {
  bool suspended = false;    // the row limit was reached: PortalSuspended, more rows remain
  bool empty_query = false;  // the statement was empty: EmptyQueryResponse
  std::string command_tag;   // CommandComplete tag when neither of the above
};

// Parameter values of a Bind message, still in wire form.
struct BindParameters {
  std::span<const WireValue> values;
  std::span<const Format> formats;         // empty: all text; one: applies to all; else per value
  std::span<const Format> result_formats;  // same convention, per result column
  std::string_view statement_name = {};    // the prepared statement's name ("" unnamed), for errors
};

// One client session: its settings, its transaction state, its statements.
class Session {
 public:
  virtual ~Session() = default;

  // Settings reported to the client at startup (ParameterStatus), in a stable order.
  virtual std::vector<std::pair<std::string, std::string>> ReportedSettings() const = 0;

  // Simple query protocol: runs every statement of `text` with PostgreSQL's semantics (one
  // implicit transaction for the message unless statements open their own block), reporting
  // each through `sink`. On error the remaining statements are skipped and the error returned.
  virtual std::expected<void, Error> SimpleQuery(std::string_view text, ResultSink& sink) = 0;

  // Extended protocol. Parse: `param_types` may leave types unspecified (0) to be inferred.
  virtual std::expected<std::shared_ptr<const PreparedStatement>, Error> Prepare(
      std::string_view text, std::span<const Oid> param_types) = 0;
  // `replaced`: the portal the new one replaces (the unnamed portal), or null. It must be one this
  // session's Bind returned; the new portal may reuse its storage.
  virtual std::expected<std::unique_ptr<Portal>, Error> Bind(
      std::shared_ptr<const PreparedStatement> statement, const BindParameters& params,
      std::unique_ptr<Portal> replaced) = 0;
  // Runs the portal until it is done or `max_rows` rows were sent (0: no limit). The Executes
  // up to a Sync are one implicit transaction unless they open a block. `sync_follows`: the
  // server already received the Sync that comes right after this Execute, so a first statement
  // is the whole transaction: it commits before its rows go out and stays retryable
  // (sql/exec/transaction_block.h).
  virtual std::expected<ExecuteResult, Error> Execute(Portal& portal, int64_t max_rows, bool sync_follows,
                                                       ResultSink& sink) = 0;
  // Sync: ends the implicit transaction of an extended-protocol batch by committing it. The
  // error is the commit's failure (40001), which the server sends before ReadyForQuery; the
  // transaction is over either way. Settings reported to the client that changed go to `sink`.
  virtual std::expected<void, Error> Sync(ResultSink& sink) = 0;
  // An extended-protocol message failed in the server itself (an unknown statement or portal, a
  // Bind of the wrong shape): the transaction fails as after a failed statement, as any error
  // fails it in PostgreSQL (an implicit one rolls back, a block becomes failed).
  virtual void MessageFailed() = 0;

  virtual TxnStatus Status() const = 0;
};

// Who is connecting, as established by the server's authentication.
struct SessionOptions {
  std::string user;
  std::string database;
  bool is_superuser = false;
  // StartupMessage parameters other than user/database (application_name, DateStyle, the
  // settings in `options=-c name=value`, ...), applied as session defaults.
  std::vector<std::pair<std::string, std::string>> startup_settings;
  CancelFlag* cancel = nullptr;  // owned by the connection; outlives the session
};

// The SQL engine of one node: creates sessions.
class Engine {
 public:
  virtual ~Engine() = default;
  // Fails with 3D000 for an unknown database, 22023/42704 for a bad startup setting (FATAL).
  virtual std::expected<std::unique_ptr<Session>, Error> NewSession(SessionOptions options) = 0;
};

class Node;  // sql/node.h

struct EngineOptions {
  std::vector<std::string> databases = {"postgres", "template1"};
  // Every session's setting defaults (the config file's session settings), applied before the
  // startup packet's.
  std::vector<std::pair<std::string, std::string>> settings;
  // The storage every session runs its transactions on. The caller creates it (Node::Start can
  // fail, and its options are the process's, not the SQL engine's) and the engine and its
  // sessions share it, so it outlives every session's Worker. Null: no tables (statements that
  // need the database fail with 0A000); the protocol and expression tests run so.
  std::shared_ptr<Node> node;
};

std::unique_ptr<Engine> NewEngine(EngineOptions options);

}  // namespace farmdb::sql
