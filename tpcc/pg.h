// pg: the little of libpq that TPC-C needs, with errors as values. A Connection prepares named
// statements once and runs them in batches: with pipelining, a batch is one round trip (libpq
// pipeline mode, every statement queued and then one Sync); without it, the statements run one
// PQexecPrepared at a time. Either way a batch stops at its first error, whose SQLSTATE and
// DETAIL the driver uses to decide between retrying (40001, 40P01) and giving up.
//
// Parameters and results travel in text format, so the same code reads numeric, timestamp and
// char(n) columns from farmdb and PostgreSQL alike.
//
// Thread-safety: a Connection belongs to one thread at a time.
#pragma once

#include <libpq-fe.h>

#include <cstdint>
#include <expected>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace farmdb::tpcc {

struct PgError {
  std::string sqlstate;  // "" when the failure is not an error response (a lost connection)
  std::string message;
  std::string detail;

  // Serialization failure or deadlock: the transaction may succeed if run again.
  bool Retryable() const { return sqlstate == "40001" || sqlstate == "40P01"; }
  std::string ToString() const;
};

template <typename T>
using PgResult = std::expected<T, PgError>;

// One statement's rows, text format. Columns are addressed by position.
class Rows {
 public:
  Rows() = default;
  explicit Rows(PGresult* res) : res_(res) {}

  int size() const { return res_ ? PQntuples(res_.get()) : 0; }
  bool empty() const { return size() == 0; }
  bool IsNull(int row, int col) const { return PQgetisnull(res_.get(), row, col) != 0; }
  std::string_view Text(int row, int col) const;
  int64_t Int(int row, int col) const;
  // A numeric(p, 2) column as an exact count of hundredths ("-10.00" -> -1000).
  int64_t Cents(int row, int col) const;
  // Rows changed by an INSERT/UPDATE/DELETE (its command tag).
  int64_t Affected() const;

  const PGresult* raw() const { return res_.get(); }
  PGresult* release() { return res_.release(); }

 private:
  struct Clear {
    void operator()(PGresult* r) const { PQclear(r); }
  };
  std::unique_ptr<PGresult, Clear> res_;
};

// Text parameters for one statement, built with Add(...) in $1, $2, ... order. The values share
// one buffer, each ending in NUL: a statement's parameters cost two allocations, not one each.
class Params {
 public:
  // Params::Of(w_id, d_id, "text"): integers and strings, in order.
  template <typename... T>
  static Params Of(T&&... values) {
    Params p;
    p.starts_.reserve(sizeof...(T));
    (p.Add(std::forward<T>(values)), ...);
    return p;
  }
  Params& Add(int64_t v);
  Params& Add(std::string_view v);
  Params& AddNull();
  int size() const { return static_cast<int>(starts_.size()); }
  // Pointers into this object for PQsendQueryPrepared, written over `out`; valid while this
  // object lives unchanged.
  void Pointers(std::vector<const char*>& out) const;

 private:
  std::string text_;
  std::vector<int32_t> starts_;  // each value's offset in text_; -1: NULL
};

class Connection {
 public:
  // conninfo as libpq takes it ("" reads PGHOST, PGPORT, ...). pipeline: batches as one round trip.
  static PgResult<Connection> Open(const std::string& conninfo, bool pipeline);

  Connection(Connection&&) = default;
  Connection& operator=(Connection&&) = default;

  PgResult<void> Prepare(const std::string& name, const std::string& sql);
  // A simple-protocol query (DDL, SET, the checks); the last statement's rows.
  PgResult<Rows> Exec(const std::string& sql);
  // COPY table FROM STDIN with `data` in text format (tab-separated lines).
  PgResult<void> CopyIn(const std::string& table, std::string_view data);

  // Queues a prepared statement into the current batch; RunBatch returns one Rows per queued
  // statement in order, or the first statement's error (the rest did not run).
  void Queue(const std::string& name, Params params);
  PgResult<std::vector<Rows>> RunBatch();

  PGconn* raw() const { return conn_.get(); }

 private:
  struct Finish {
    void operator()(PGconn* c) const { PQfinish(c); }
  };
  struct Queued {
    std::string name;
    Params params;
  };
  Connection(PGconn* conn, bool pipeline) : conn_(conn), pipeline_(pipeline) {}
  PgResult<Rows> Take(PGresult* res) const;
  PgResult<std::vector<Rows>> RunPipelined();
  PgResult<std::vector<Rows>> RunOneByOne();
  PgError ConnectionError() const;

  std::unique_ptr<PGconn, Finish> conn_;
  bool pipeline_ = false;
  std::vector<Queued> queued_;
  std::vector<const char*> values_;  // the statement being sent's parameters (Params::Pointers)
};

}  // namespace farmdb::tpcc
