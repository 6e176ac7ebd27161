// Unix-domain sockets: libpq reaches the server through DIR/.s.PGSQL.PORT, `local` access rules
// (and only they) govern those connections, the lock file beside the socket keeps two servers
// apart, and a dead server's leftovers are taken over.
#include "server/unix_socket.h"

#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "cluster/temp_dir.h"
#include "server/testing/test_server.h"

namespace farmdb::server::testing {
namespace {

namespace fs = std::filesystem;
using cluster::TempDir;

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void WriteText(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

// libpq's connection string for the socket in `dir`.
std::string SocketConninfo(const std::string& dir, int port, const std::string& user) {
  return "host=" + dir + " port=" + std::to_string(port) + " user=" + user + " dbname=app";
}

// Runs `sql` over the socket in `dir`; returns its first value, or "error: " and libpq's message.
std::string QueryOverSocket(const std::string& dir, int port, const std::string& user, const char* sql) {
  PGconn* conn = PQconnectdb(SocketConninfo(dir, port, user).c_str());
  std::string out;
  if (PQstatus(conn) != CONNECTION_OK) {
    out = std::string("error: ") + PQerrorMessage(conn);
  } else {
    PGresult* r = PQexec(conn, sql);
    out = PQresultStatus(r) == PGRES_TUPLES_OK ? PQgetvalue(r, 0, 0)
                                               : std::string("error: ") + PQresultErrorMessage(r);
    PQclear(r);
  }
  PQfinish(conn);
  return out;
}

// The pid of a process that has exited and been reaped: no live process has it (until reused).
pid_t DeadPid() {
  pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ::waitpid(child, nullptr, 0);
  return child;
}

TEST(UnixSocketTest, LibpqConnectsAndLocalRulesDecide) {
  TempDir dir("unix");
  TestServer ts(std::string(kTestConfig) + "unix_socket_directories = '" + dir.path.string() + "'\n" +
                "local all blocked reject\nlocal all all trust\n");
  const std::string socket = dir.path.string() + "/.s.PGSQL." + std::to_string(ts.port());
  ASSERT_TRUE(fs::exists(socket));
  EXPECT_EQ(ReadText(socket + ".lock"), std::to_string(::getpid()) + "\n");

  EXPECT_EQ(QueryOverSocket(dir.path.string(), ts.port(), "postgres", "SELECT 1"), "1");
  // alice has a password rule over TCP; over the socket the trust rule decides.
  EXPECT_EQ(QueryOverSocket(dir.path.string(), ts.port(), "alice", "SELECT 1"), "1");
  EXPECT_NE(QueryOverSocket(dir.path.string(), ts.port(), "blocked", "SELECT 1")
                .find("pg_hba.conf rejects connection for host \"[local]\", user \"blocked\", database \"app\""),
            std::string::npos);

  // A server stopping ends a session on the socket as it does one over TCP.
  PGconn* idle = PQconnectdb(SocketConninfo(dir.path.string(), ts.port(), "postgres").c_str());
  ASSERT_EQ(PQstatus(idle), CONNECTION_OK) << PQerrorMessage(idle);
  ts.server().Stop();
  PGresult* r = PQexec(idle, "SELECT 1");
  EXPECT_NE(PQresultStatus(r), PGRES_TUPLES_OK);
  EXPECT_NE(std::string(PQerrorMessage(idle)).find("terminating connection due to administrator command"),
            std::string::npos)
      << PQerrorMessage(idle);
  PQclear(r);
  PQfinish(idle);
  EXPECT_FALSE(fs::exists(socket));
  EXPECT_FALSE(fs::exists(socket + ".lock"));
}

TEST(UnixSocketTest, OnlyLocalRulesMatchTheSocket) {
  TempDir dir("unix");
  // kTestConfig's rules are all `host` rules: none admits a socket connection.
  TestServer ts(std::string(kTestConfig) + "unix_socket_directories = '" + dir.path.string() + "'\n");
  EXPECT_NE(QueryOverSocket(dir.path.string(), ts.port(), "postgres", "SELECT 1")
                .find("no pg_hba.conf entry for host \"[local]\", user \"postgres\", database \"app\""),
            std::string::npos);
}

TEST(UnixSocketTest, AnUnusableDirectoryIsSkipped) {
  TempDir dir("unix");
  TestServer ts(std::string(kTestConfig) + "unix_socket_directories = '" + dir.path.string() + "/missing, " +
                dir.path.string() + "'\n" + "local all all trust\n");
  EXPECT_EQ(QueryOverSocket(dir.path.string(), ts.port(), "postgres", "SELECT 1"), "1");
  EXPECT_FALSE(fs::exists(dir.path.string() + "/missing"));
}

TEST(UnixSocketTest, LeftoversOfADeadServerAreTakenOver) {
  TempDir dir("unix");
  const std::string socket = dir.path.string() + "/.s.PGSQL.6001";
  WriteText(socket, "not a socket");
  WriteText(socket + ".lock", std::to_string(DeadPid()) + "\n/some/data/dir\n");
  auto listening = UnixSocket::Listen(dir.path.string(), 6001);
  ASSERT_TRUE(listening) << listening.error();
  EXPECT_EQ(ReadText(socket + ".lock"), std::to_string(::getpid()) + "\n");
  EXPECT_TRUE(fs::is_socket(socket));
}

TEST(UnixSocketTest, ALiveOwnersSocketIsLeftAlone) {
  TempDir dir("unix");
  const std::string socket = dir.path.string() + "/.s.PGSQL.6002";
  // pid 1 is always alive; an empty lock file is one its owner is still writing.
  for (const std::string& lock : {std::string("1\n"), std::string()}) {
    WriteText(socket, "theirs");
    WriteText(socket + ".lock", lock);
    auto listening = UnixSocket::Listen(dir.path.string(), 6002);
    ASSERT_FALSE(listening);
    EXPECT_EQ(listening.error(), "lock file \"" + socket + ".lock\" already exists: another server uses this socket");
    EXPECT_EQ(ReadText(socket), "theirs");
    EXPECT_EQ(ReadText(socket + ".lock"), lock);
  }
}

TEST(UnixSocketTest, APathTooLongIsRefused) {
  auto listening = UnixSocket::Listen("/tmp/" + std::string(120, 'd'), 5432);
  ASSERT_FALSE(listening);
  EXPECT_NE(listening.error().find("is too long (maximum 107 bytes)"), std::string::npos) << listening.error();
}

}  // namespace
}  // namespace farmdb::server::testing
