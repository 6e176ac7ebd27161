// libpq pipeline mode (libpq_pipeline.h) against farmdb or PostgreSQL 15: a batch's results,
// an error skipping the rest of its batch, and each batch as one implicit transaction between
// two Syncs (postgres.c): an error rolls back the statements before it, the statements commit
// together at Sync, and a commit that fails there (a serialization failure) is reported after
// the batch's results.

#include "regress/protocol/libpq_pipeline.h"

#include <libpq-fe.h>

#include <string>

#include "regress/protocol/libpq_support.h"

namespace farmdb::regress {
namespace {

// Reads the next result of a pipeline and checks its status (and SQLSTATE for errors).
void ExpectPipelineResult(PGconn* conn, ExecStatusType want, const std::string& label,
                          const char* want_value = nullptr, const char* want_sqlstate = nullptr) {
  Result res(PQgetResult(conn));
  ExecStatusType got = res ? PQresultStatus(res.get()) : PGRES_EMPTY_QUERY;
  Check(res != nullptr && got == want, label + ": status " +
                                           (res ? PQresStatus(got) : std::string("no result")) +
                                           " want " + PQresStatus(want) + " " +
                                           (res ? PQresultErrorMessage(res.get()) : ""));
  if (res && want_value && got == want)
    Check(PQntuples(res.get()) == 1 && std::string(PQgetvalue(res.get(), 0, 0)) == want_value,
          label + ": value");
  if (res && want_sqlstate)
    Check(Field(res.get(), PG_DIAG_SQLSTATE) == want_sqlstate,
          label + ": sqlstate " + Field(res.get(), PG_DIAG_SQLSTATE));
  if (want != PGRES_PIPELINE_SYNC) {
    Result end(PQgetResult(conn));  // each query's results end with a null
    Check(end == nullptr, label + ": null after the query's result");
  }
}

}  // namespace

void TestPipeline() {
  Conn conn = ConnectOk(Env("E2E_TRUST_USER"), "");
  PGconn* c = conn.get();
  if (!Check(PQenterPipelineMode(c) == 1, "enter pipeline mode")) return;
  const Oid int4 = kInt4;
  auto send = [&](const char* sql, const char* value) {
    const char* values[] = {value};
    Check(PQsendQueryParams(c, sql, value ? 1 : 0, value ? &int4 : nullptr,
                            value ? values : nullptr, nullptr, nullptr, 0) == 1,
          std::string("send ") + sql + ": " + PQerrorMessage(c));
  };
  auto send_prepared = [&](const char* name, const char* value) {
    const char* values[] = {value};
    Check(PQsendQueryPrepared(c, name, 1, values, nullptr, nullptr, 0) == 1,
          std::string("send prepared ") + name + ": " + PQerrorMessage(c));
  };
  send("SELECT $1::int4 * 2", "21");
  send("SELECT 10 / $1::int4", "0");  // division by zero aborts the rest of the batch
  send("SELECT 'skipped'", nullptr);
  send("SET application_name = 'not_applied'", nullptr);
  Check(PQsendPrepare(c, "skipped_stmt", "SELECT $1::int4", 1, &int4) == 1, "send prepare");
  Check(PQpipelineSync(c) == 1, "first sync");
  Check(PQsendPrepare(c, "doubler", "SELECT $1::int8 * 2", 0, nullptr) == 1, "send prepare 2");
  send_prepared("doubler", "21");
  send("SELECT $1::int4 + 1", "99");
  send("SHOW application_name", nullptr);
  Check(PQpipelineSync(c) == 1, "second sync");
  send_prepared("skipped_stmt", "1");  // its Parse was skipped with the aborted batch
  Check(PQpipelineSync(c) == 1, "third sync");

  ExpectPipelineResult(c, PGRES_TUPLES_OK, "batch 1 query 1", "42");
  ExpectPipelineResult(c, PGRES_FATAL_ERROR, "batch 1 division by zero", nullptr, "22012");
  ExpectPipelineResult(c, PGRES_PIPELINE_ABORTED, "batch 1 query 3 aborted");
  ExpectPipelineResult(c, PGRES_PIPELINE_ABORTED, "batch 1 SET aborted");
  ExpectPipelineResult(c, PGRES_PIPELINE_ABORTED, "batch 1 prepare aborted");
  ExpectPipelineResult(c, PGRES_PIPELINE_SYNC, "batch 1 sync");
  ExpectPipelineResult(c, PGRES_COMMAND_OK, "batch 2 prepare");
  ExpectPipelineResult(c, PGRES_TUPLES_OK, "batch 2 prepared statement", "42");
  ExpectPipelineResult(c, PGRES_TUPLES_OK, "batch 2 query", "100");
  ExpectPipelineResult(c, PGRES_TUPLES_OK, "batch 2 SHOW: the aborted SET never ran",
                       "libpq_test");
  ExpectPipelineResult(c, PGRES_PIPELINE_SYNC, "batch 2 sync");
  ExpectPipelineResult(c, PGRES_FATAL_ERROR, "batch 3: the aborted prepare never ran", nullptr,
                       "26000");
  ExpectPipelineResult(c, PGRES_PIPELINE_SYNC, "batch 3 sync");
  Check(PQexitPipelineMode(c) == 1, std::string("exit pipeline mode: ") + PQerrorMessage(c));
  Result after(PQexec(c, "SELECT 'after pipeline'"));
  Check(PQresultStatus(after.get()) == PGRES_TUPLES_OK, "simple query after pipeline mode");
}


namespace {

// Runs `sql` outside a pipeline; its single value ("" for none, the error for a failure).
std::string Value(PGconn* c, const char* sql) {
  Result r(PQexec(c, sql));
  ExecStatusType status = PQresultStatus(r.get());
  if (status == PGRES_TUPLES_OK && PQntuples(r.get()) == 1) return PQgetvalue(r.get(), 0, 0);
  if (status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK) return "";
  return std::string("error: ") + PQresultErrorMessage(r.get());
}

void Send(PGconn* c, const char* sql) {
  Check(PQsendQueryParams(c, sql, 0, nullptr, nullptr, nullptr, nullptr, 0) == 1,
        std::string("send ") + sql + ": " + PQerrorMessage(c));
}

}  // namespace

void TestPipelineTransactions() {
  Conn setup = ConnectOk(Env("E2E_TRUST_USER"), "");
  Conn conn = ConnectOk(Env("E2E_TRUST_USER"), "");
  Conn other = ConnectOk(Env("E2E_TRUST_USER"), "");
  PGconn* c = conn.get();
  PGconn* o = other.get();
  for (const char* sql : {"DROP TABLE IF EXISTS pipe_t", "CREATE TABLE pipe_t (k int PRIMARY KEY, v int)"}) {
    Check(Value(setup.get(), sql).empty(), sql);
  }
  for (PGconn* session : {c, o}) {
    Check(Value(session, "SET default_transaction_isolation = serializable").empty(), "serializable");
    Check(PQenterPipelineMode(session) == 1, "enter pipeline mode");
  }

  // A failing second statement rolls back the first.
  Send(c, "INSERT INTO pipe_t VALUES (1, 1)");
  Send(c, "INSERT INTO pipe_t VALUES (1, 2)");
  Send(c, "INSERT INTO pipe_t VALUES (2, 2)");
  Check(PQpipelineSync(c) == 1, "sync");
  ExpectPipelineResult(c, PGRES_COMMAND_OK, "first insert");
  ExpectPipelineResult(c, PGRES_FATAL_ERROR, "duplicate key", nullptr, "23505");
  ExpectPipelineResult(c, PGRES_PIPELINE_ABORTED, "third insert skipped");
  ExpectPipelineResult(c, PGRES_PIPELINE_SYNC, "sync after the error");
  Check(Value(setup.get(), "SELECT count(*) FROM pipe_t") == "0", "the first insert was rolled back");

  // Without an error they commit together, at Sync: before it, another session sees none.
  Send(c, "INSERT INTO pipe_t VALUES (1, 1)");
  Send(c, "INSERT INTO pipe_t VALUES (2, 2)");
  Check(PQsendFlushRequest(c) == 1 && PQflush(c) == 0, "flush request");
  ExpectPipelineResult(c, PGRES_COMMAND_OK, "insert 1");
  ExpectPipelineResult(c, PGRES_COMMAND_OK, "insert 2");
  Check(Value(setup.get(), "SELECT count(*) FROM pipe_t") == "0", "nothing visible before Sync");
  Check(PQpipelineSync(c) == 1, "sync");
  ExpectPipelineResult(c, PGRES_PIPELINE_SYNC, "sync commits");
  Check(Value(setup.get(), "SELECT count(*) FROM pipe_t") == "2", "both visible after Sync");

  // The commit at Sync fails: two SERIALIZABLE batches each read both rows and change one
  // (write skew). Their results come back before either Syncs (a flush request); the first
  // Sync commits, the second fails with 40001 after its batch's results, which the server
  // must not retry (they reached the client).
  for (auto [session, k] : {std::pair{c, 1}, std::pair{o, 2}}) {
    Send(session, "SELECT sum(v) FROM pipe_t");
    Send(session, k == 1 ? "UPDATE pipe_t SET v = 0 WHERE k = 1" : "UPDATE pipe_t SET v = 0 WHERE k = 2");
    Check(PQsendFlushRequest(session) == 1 && PQflush(session) == 0, "flush request");
    ExpectPipelineResult(session, PGRES_TUPLES_OK, "sum", "3");
    ExpectPipelineResult(session, PGRES_COMMAND_OK, "update");
  }
  Check(PQpipelineSync(c) == 1, "first sync");
  ExpectPipelineResult(c, PGRES_PIPELINE_SYNC, "the first commits");
  Check(PQpipelineSync(o) == 1, "second sync");
  ExpectPipelineResult(o, PGRES_FATAL_ERROR, "the second fails at its commit", nullptr, "40001");
  ExpectPipelineResult(o, PGRES_PIPELINE_SYNC, "then the sync");
  for (PGconn* session : {c, o}) {
    Check(PQexitPipelineMode(session) == 1, std::string("exit pipeline mode: ") + PQerrorMessage(session));
  }
  Check(Value(setup.get(), "SELECT v FROM pipe_t WHERE k = 1") == "0", "the first update committed");
  Check(Value(setup.get(), "SELECT v FROM pipe_t WHERE k = 2") == "2", "the second did not");
  Check(Value(setup.get(), "DROP TABLE pipe_t").empty(), "drop");
}

}  // namespace farmdb::regress
