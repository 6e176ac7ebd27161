// A small scriptable sql::Engine for the server's tests: enough SQL-shaped behaviour to drive
// every protocol path without the real SQL layer.
//
// Statements (whole text, case-sensitive):
//   SELECT 1            one int4 column "?column?", one row "1", tag SELECT 1
//   ROWS n              one int4 column "n", rows 1..n (honours Execute's row limit)
//   SELECT $1           echoes the parameter (text) as column "echo"
//   (empty)             EmptyQueryResponse
//   BEGIN / COMMIT      transaction block status T / I; ERROR inside a block -> status E
//   ERROR               fails with 42601 syntax error
//   FATAL               fails with severity FATAL (57P01-like ending of the session)
//   NOTICE              a NoticeResponse, then tag DO
//   SLEEP               waits until cancelled: 57014 "canceling statement due to user request"
//   COPY IN             CopyInResponse, reads to CopyDone, tag "COPY <bytes received>"
//   COPY OUT            CopyOutResponse, two rows "a\n" "b\n", CopyDone, tag COPY 2
//   FAIL AT SYNC        tag DO; the next Sync sends a notice and fails with 40001 (a commit
//                       that fails at Sync)
// Anything else fails with 42601. Multiple statements per message are split on ';'.
//
// Thread-safety: the engine is thread-safe; a session belongs to one thread. `copied` and
// `sleeping` are observable from the test thread.
#pragma once

#include <atomic>
#include <mutex>
#include <string>
#include <vector>

#include "sql/session.h"

namespace farmdb::server::testing {

class FakeEngine : public sql::Engine {
 public:
  std::expected<std::unique_ptr<sql::Session>, sql::Error> NewSession(
      sql::SessionOptions options) override;

  // What COPY IN sessions received, concatenated (for assertions).
  std::string Copied();
  // Number of sessions currently inside SLEEP.
  std::atomic<int> sleeping{0};
  // The options of the last session created.
  sql::SessionOptions LastOptions();
  // What the server asked of every session's extended protocol, in order: each Execute's
  // statement (with " (sync follows)" when it said so), "Sync", "MessageFailed".
  std::vector<std::string> Events();

 private:
  friend class FakeSession;
  void Record(std::string event);
  std::mutex mu_;
  std::string copied_;
  sql::SessionOptions last_options_;
  std::vector<std::string> events_;
};

}  // namespace farmdb::server::testing
