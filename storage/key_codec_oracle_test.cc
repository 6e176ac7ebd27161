// Oracle test (label oracle, not unit): random tuples of every type ordered by PostgreSQL 15 and
// by their encoded keys must agree. The test starts its own scratch cluster (initdb --locale=C,
// so text sorts by bytes like farmdb) listening only on a Unix socket in a temporary directory,
// and stops it at the end. PostgreSQL's dense_rank() over the ORDER BY gives both its order and
// its ties; for every pair of rows, memcmp of the keys must have the sign of the rank difference.
#include <gtest/gtest.h>
#include <fmt/format.h>
#include <libpq-fe.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <cmath>
#include <limits>
#include <memory>
#include <random>

#include "storage/key_codec.h"
#include "storage/value_test_util.h"

namespace farmdb::storage {
namespace {

constexpr const char* kPgBin = "/usr/lib/postgresql/15/bin";

// Runs `command` (a shell line) as the postgres OS user when we are root (initdb refuses root).
int RunAsPostgres(const std::string& command) {
  std::string line = geteuid() == 0 ? "runuser -u postgres -- " + command : command;
  return std::system((line + " >/dev/null 2>&1").c_str());
}

class ScratchPostgres {
 public:
  ScratchPostgres() {
    char pattern[] = "/tmp/farmdb-key-oracle-XXXXXX";
    dir_ = mkdtemp(pattern);
    if (geteuid() == 0 && std::system(("chown postgres:postgres " + dir_).c_str()) != 0) return;
    if (RunAsPostgres(fmt::format("{}/initdb -D {}/data -U postgres -A trust -E UTF8 --locale=C --no-sync",
                                  kPgBin, dir_)) != 0) {
      return;
    }
    started_ = RunAsPostgres(fmt::format("{}/pg_ctl -D {}/data -l {}/log -w start -o \"-k {} -c "
                                         "listen_addresses='' -c fsync=off\"",
                                         kPgBin, dir_, dir_, dir_)) == 0;
  }
  ~ScratchPostgres() {
    if (started_) RunAsPostgres(fmt::format("{}/pg_ctl -D {}/data -m immediate -w stop", kPgBin, dir_));
    std::filesystem::remove_all(dir_);
  }
  bool started() const { return started_; }
  std::string conninfo() const { return fmt::format("host={} user=postgres dbname=postgres", dir_); }

 private:
  std::string dir_;
  bool started_ = false;
};

std::string SqlType(TypeId t) {
  return t == TypeId::kTimestamp ? "timestamp" : std::string(Info(t).name);
}

// A literal PostgreSQL reads back as exactly this value.
std::string Literal(const Value& v) {
  if (v.IsNull()) return "NULL";
  switch (v.type) {
    case TypeId::kBool: return v.AsBool() ? "true" : "false";
    case TypeId::kFloat4:
    case TypeId::kFloat8: {
      double d = v.AsFloat();
      std::string text = std::isnan(d) ? "NaN" : std::isinf(d) ? (d > 0 ? "Infinity" : "-Infinity")
                                                                : fmt::format("{:.17g}", d);
      return fmt::format("'{}'::{}", text, SqlType(v.type));
    }
    case TypeId::kNumeric: return fmt::format("'{}'::numeric", v.AsNumeric().ToString());
    case TypeId::kBytea: {
      std::string hex = "'\\x";
      for (unsigned char c : v.AsString()) hex += fmt::format("{:02x}", c);
      return hex + "'::bytea";
    }
    case TypeId::kText:
    case TypeId::kVarchar:
    case TypeId::kBpchar:
    case TypeId::kName: return fmt::format("'{}'::{}", v.AsString(), SqlType(v.type));
    case TypeId::kDate:
      if (v.AsInt() == std::numeric_limits<int32_t>::max()) return "'infinity'::date";
      if (v.AsInt() == std::numeric_limits<int32_t>::min()) return "'-infinity'::date";
      return fmt::format("('2000-01-01'::date + {})", v.AsInt());
    case TypeId::kTimestamp:
      if (v.AsInt() == std::numeric_limits<int64_t>::max()) return "'infinity'::timestamp";
      if (v.AsInt() == std::numeric_limits<int64_t>::min()) return "'-infinity'::timestamp";
      return fmt::format("('2000-01-01'::timestamp + {} * interval '1 microsecond')", v.AsInt());
    case TypeId::kTimestampTz:
      if (v.AsInt() == std::numeric_limits<int64_t>::max()) return "'infinity'::timestamptz";
      if (v.AsInt() == std::numeric_limits<int64_t>::min()) return "'-infinity'::timestamptz";
      return fmt::format("('2000-01-01 00:00+00'::timestamptz + {} * interval '1 microsecond')", v.AsInt());
    default: return fmt::format("'{}'::{}", v.AsInt(), SqlType(v.type));  // quoted: -32768::int2 is -(32768::int2)
  }
}

// Values PostgreSQL can hold: text is valid UTF-8 without NUL (including a two-byte character
// and case pairs, whose byte order differs from a linguistic one); dates and timestamps within
// range or infinite.
Value OracleValue(std::mt19937_64& rng, TypeId type) {
  static const char* kPieces[] = {"a", "b", "B", "\xC3\xA9", " ", "z"};
  switch (type) {
    case TypeId::kText:
    case TypeId::kVarchar:
    case TypeId::kBpchar:
    case TypeId::kName: {
      std::string s;
      for (size_t n = rng() % 4; n > 0; --n) s += kPieces[rng() % std::size(kPieces)];
      return Value::Str(type, s);
    }
    case TypeId::kDate:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz: {
      const bool date = type == TypeId::kDate;
      switch (rng() % 4) {
        case 0: return Value::Int(type, date ? std::numeric_limits<int32_t>::max() : std::numeric_limits<int64_t>::max());
        case 1: return Value::Int(type, date ? std::numeric_limits<int32_t>::min() : std::numeric_limits<int64_t>::min());
        case 2: return Value::Int(type, static_cast<int64_t>(rng() % 5) - 2);
        default: return Value::Int(type, static_cast<int64_t>(rng() % 2000001) - 1000000);
      }
    }
    default: return testing::RandomValue(rng, type);
  }
}

PGresult* Exec(PGconn* conn, const std::string& sql) {
  PGresult* r = PQexec(conn, sql.c_str());
  EXPECT_TRUE(PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK)
      << PQerrorMessage(conn) << "\n" << sql.substr(0, 2000);
  return r;
}

TEST(KeyCodecOracleTest, KeyOrderMatchesPostgres15) {
  ScratchPostgres pg;
  ASSERT_TRUE(pg.started()) << "could not start a scratch PostgreSQL 15 (package postgresql-15)";
  std::unique_ptr<PGconn, decltype(&PQfinish)> owned(PQconnectdb(pg.conninfo().c_str()), &PQfinish);
  PGconn* conn = owned.get();
  ASSERT_EQ(PQstatus(conn), CONNECTION_OK) << PQerrorMessage(conn);
  std::mt19937_64 rng(2026);
  PQclear(Exec(conn, "SET client_min_messages = warning"));
  for (int iter = 0; iter < 100; ++iter) {
    std::vector<KeyColumn> cols(1 + rng() % 4);
    std::string create = "CREATE TEMP TABLE t (id int", order_by;
    for (size_t c = 0; c < cols.size(); ++c) {
      const auto& types = testing::StorableTypes();
      cols[c] = KeyColumn{types[rng() % types.size()], static_cast<bool>(rng() % 2), static_cast<bool>(rng() % 2)};
      create += fmt::format(", c{} {}", c, SqlType(cols[c].type));
      order_by += fmt::format("{}c{} {} NULLS {}", c ? ", " : "", c, cols[c].descending ? "DESC" : "ASC",
                              cols[c].nulls_first ? "FIRST" : "LAST");
    }
    PQclear(Exec(conn, "DROP TABLE IF EXISTS t"));
    PQclear(Exec(conn, create + ")"));
    std::vector<std::string> keys;
    std::string insert = "INSERT INTO t VALUES ";
    for (int id = 0; id < 150; ++id) {
      std::vector<Value> tuple;
      insert += fmt::format("{}({}", id ? ", " : "", id);
      for (const KeyColumn& c : cols) {
        tuple.push_back(rng() % 5 == 0 ? Value::Null(c.type) : OracleValue(rng, c.type));
        insert += ", " + Literal(tuple.back());
      }
      insert += ")";
      keys.push_back(EncodeKey(tuple, cols));
    }
    PQclear(Exec(conn, insert));
    std::unique_ptr<PGresult, decltype(&PQclear)> r(
        Exec(conn, "SELECT id, dense_rank() OVER (ORDER BY " + order_by + ") FROM t"), &PQclear);
    ASSERT_EQ(PQntuples(r.get()), 150);
    std::vector<long> rank(150);
    for (int row = 0; row < 150; ++row) {
      rank[std::atoi(PQgetvalue(r.get(), row, 0))] = std::atol(PQgetvalue(r.get(), row, 1));
    }
    for (size_t i = 0; i < keys.size(); ++i) {
      for (size_t j = 0; j < keys.size(); ++j) {
        int by_key = keys[i] < keys[j] ? -1 : (keys[i] > keys[j] ? 1 : 0);
        int by_pg = rank[i] < rank[j] ? -1 : (rank[i] > rank[j] ? 1 : 0);
        ASSERT_EQ(by_key, by_pg) << "iter " << iter << " ORDER BY " << order_by << " rows " << i << " " << j;
      }
    }
  }
}

}  // namespace
}  // namespace farmdb::storage
