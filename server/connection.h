// One client connection: the protocol v3 state machine from the startup packet to Terminate.
//
// Reads frontend messages through a Channel (a socket in the server, memory in tests), decodes
// them with the pure codec, drives one sql::Session and encodes replies into an output buffer
// that is flushed at Sync, Flush, ReadyForQuery, before waiting for COPY data, and whenever it
// grows past kFlushThreshold, so pipelined extended-protocol batches cost one write.
//
// States: startup (SSL/GSS negotiation answered 'N', CancelRequest, StartupMessage) ->
// authenticating (only 'p' messages) -> ready (simple and extended query, COPY sub-protocol).
// After an error in extended mode every message up to Sync is discarded (postgres.c's
// ignore_till_sync). Framing violations end the connection with FATAL 08P01.
//
// Thread-safety: a Connection runs on one thread; only its CancelTarget is touched by others
// (through the CancelRegistry).
#pragma once

#include <spdlog/logger.h>

#include <cstdint>
#include <expected>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "server/auth/secrets.h"
#include "server/cancel_registry.h"
#include "server/config.h"
#include "server/protocol/codec.h"
#include "sql/session.h"

namespace farmdb::server {

enum class ReadStatus { kOk, kClosed, kStopping };

// A byte stream to one client.
class Channel {
 public:
  virtual ~Channel() = default;
  // Fills all of `out`; kClosed when the peer is gone, kStopping when the server shuts down.
  virtual ReadStatus ReadExact(char* out, size_t n) = 0;
  // False when the peer is gone (or will not read while the server stops).
  virtual bool WriteAll(std::string_view bytes) = 0;
  // Bytes already received and not read yet, without waiting (possibly none): whether a Sync
  // follows an Execute (Connection::SyncIsNext).
  virtual std::string_view Buffered() const = 0;
};

// What every connection of one server shares; all of it outlives the connections.
struct ConnectionEnv {
  const Config* config;
  const std::unordered_map<std::string, RoleSecret>* secrets;
  sql::Engine* engine;
  CancelRegistry* registry;
  spdlog::logger* log;
};

class Connection : private sql::ResultSink {
 public:
  static constexpr size_t kFlushThreshold = 64 << 10;

  // `peer`: the TCP client's address, nullopt for a Unix-domain socket; `peer_text` names it
  // in logs and errors ("[local]" for a Unix-domain socket, as PostgreSQL's logs do).
  Connection(ConnectionEnv env, Channel& channel, int32_t id, std::optional<IpAddress> peer,
             std::string peer_text);
  ~Connection() override;

  // Serves the client until it leaves, a FATAL error, or the server stops.
  void Run();

 private:
  struct ReadFailure {
    ReadStatus status;  // kOk here means a protocol violation, described by `error`
    ProtocolError error;
  };

  // connection.cc: framing, startup, the main loop, simple query, the result sink.
  bool Startup();
  bool HandleStartupMessage(const StartupMessage& startup);
  bool StartSession(std::vector<std::pair<std::string, std::string>> settings);
  void Serve();
  bool ReadBytes(char* out, size_t n, ReadFailure& failure);
  // The next message's body into body_; returns its type.
  std::expected<char, ReadFailure> ReadBody(Phase phase);
  std::expected<FrontendMessage, ReadFailure> ReadMessage(Phase phase);
  void EndWith(const ReadFailure& failure);
  void SendFatal(std::string sqlstate, std::string message);
  void SendFatal(sql::Error error);
  void Flush();
  void SimpleQuery(const Query& query);
  void DropPortalsOutsideBlock();

  // connection_auth.cc
  bool Authenticate(const std::string& user, const std::string& database);
  bool AuthenticatePassword(const std::string& user, const RoleSecret* secret);
  bool AuthenticateMd5(const std::string& user, const RoleSecret* secret);
  bool AuthenticateScram(const std::string& user, const RoleSecret* secret);
  std::optional<std::string> ReadAuthPayload();
  bool AuthFailed(const std::string& user);

  // connection_extended.cc
  void HandleParse(const Parse& parse);
  void HandleBind(const Bind& bind);
  void HandleDescribe(const Describe& describe);
  void HandleExecute(const Execute& execute);
  void HandleClose(const Close& close);
  void HandleSync();
  void ExtendedError(sql::Error error);
  // The next message, already received, is a Sync (sql::Session::Execute's `sync_follows`).
  bool SyncIsNext() const;

  // sql::ResultSink
  void RowDescription(std::span<const sql::Column> columns) override;
  void DataRow(std::span<const sql::WireValue> values) override;
  void CommandComplete(std::string_view tag) override;
  void EmptyQuery() override;
  void Notice(const sql::Notice& notice) override;
  void ParameterStatus(std::string_view name, std::string_view value) override;
  void CopyOutBegin(const sql::CopyFormat& format) override;
  void CopyData(std::string_view bytes) override;
  void CopyOutEnd() override;
  void CopyInBegin(const sql::CopyFormat& format) override;
  std::expected<std::optional<std::string>, sql::Error> CopyInRead() override;

  ConnectionEnv env_;
  Channel& channel_;
  const int32_t id_;
  const std::optional<IpAddress> peer_;
  const std::string peer_text_;

  std::string out_;
  // ReadBody's buffer, kept across messages so a Bind or Execute allocates none; one grown past
  // kKeptBodyBytes is given back when the next message is read (the decoded message points into
  // it until then).
  std::string body_;
  // Every Bind is decoded into this one, so that its vectors keep their capacity.
  Bind bind_;
  bool broken_ = false;         // a write failed: the client is gone
  bool registered_ = false;     // cancel_ is in the registry
  bool extended_mode_ = false;  // the statement running came from Execute, not Query
  bool ignore_till_sync_ = false;
  std::optional<sql::Error> fatal_;  // ends the connection once the running statement returns

  std::string user_;
  std::string database_;
  CancelTarget cancel_;
  std::unique_ptr<sql::Session> session_;
  // Looked up by the messages' string_views, without making a string of each name.
  struct NameHash {
    using is_transparent = void;
    size_t operator()(std::string_view name) const { return std::hash<std::string_view>{}(name); }
  };
  template <class T>
  using ByName = std::unordered_map<std::string, T, NameHash, std::equal_to<>>;
  ByName<std::shared_ptr<const sql::PreparedStatement>> statements_;
  ByName<std::unique_ptr<sql::Portal>> portals_;
  // Bind's format codes as the session takes them; members so that each Bind reuses them.
  std::vector<sql::Format> param_formats_;
  std::vector<sql::Format> result_formats_;
};

}  // namespace farmdb::server
