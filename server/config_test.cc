#include "server/config.h"

#include <sys/stat.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace farmdb::server {
namespace {

constexpr const char* kContractExample = R"(# comment
port = 5432
listen_addresses = '127.0.0.1'
max_message_size = 67108864        # bytes; a larger message gets 08P01 and a clean close
password_encryption = scram-sha-256
role postgres superuser
role alice password 'alicepw'
host all postgres 127.0.0.1/32 trust
host all alice    127.0.0.1/32 scram-sha-256
host all all      127.0.0.1/32 md5
database app
)";

IpAddress Ip(const char* text) { return *IpAddress::Parse(text); }

TEST(ConfigTest, ParsesTheContractExample) {
  auto config = ParseConfig(kContractExample);
  ASSERT_TRUE(config) << config.error();
  EXPECT_EQ(config->port, 5432);
  EXPECT_EQ(config->listen_addresses, std::vector<std::string>{"127.0.0.1"});
  EXPECT_EQ(config->max_message_size, 67108864u);
  EXPECT_EQ(config->password_encryption, PasswordEncryption::kScramSha256);
  ASSERT_EQ(config->roles.size(), 2u);
  EXPECT_TRUE(config->roles[0].superuser);
  EXPECT_FALSE(config->roles[0].password);
  EXPECT_EQ(*config->roles[1].password, "alicepw");
  EXPECT_FALSE(config->roles[1].superuser);
  EXPECT_EQ(config->hba.size(), 3u);
  EXPECT_EQ(config->databases, (std::vector<std::string>{"app", "postgres", "template1"}));
}

TEST(ConfigTest, FirstMatchingRuleWins) {
  auto config = *ParseConfig(kContractExample);
  auto method = [&](const char* ip, const char* user, const char* db) -> std::string {
    const HbaRule* rule = MatchHba(config, Ip(ip), user, db);
    return rule ? std::string(AuthMethodName(rule->method)) : "none";
  };
  EXPECT_EQ(method("127.0.0.1", "postgres", "app"), "trust");
  EXPECT_EQ(method("127.0.0.1", "alice", "app"), "scram-sha-256");
  EXPECT_EQ(method("127.0.0.1", "bob", "postgres"), "md5");
  EXPECT_EQ(method("10.0.0.1", "postgres", "app"), "none");
  EXPECT_EQ(method("::1", "postgres", "app"), "none");
  EXPECT_EQ(method("::ffff:127.0.0.1", "postgres", "app"), "trust");  // IPv4-mapped
}

TEST(ConfigTest, HbaListsKeywordsAndPrefixes) {
  auto config = ParseConfig(
      "host sameuser all 10.1.0.0/16 trust\n"
      "host db1,db2 u1 10.2.0.0/15 password\n"
      "host db1 'all' 10.2.0.0/15 md5\n"
      "hostssl all all all reject\n"
      "local all all trust\n"
      "hostnossl all all fe80::/10 scram-sha-256\n"
      "host all all all reject\n");
  ASSERT_TRUE(config) << config.error();
  auto method = [&](const char* ip, const char* user, const char* db) -> std::string {
    const HbaRule* rule = MatchHba(*config, Ip(ip), user, db);
    return rule ? std::string(AuthMethodName(rule->method)) : "none";
  };
  EXPECT_EQ(method("10.1.200.3", "bob", "bob"), "trust");
  EXPECT_EQ(method("10.1.200.3", "bob", "other"), "reject");
  EXPECT_EQ(method("10.3.0.1", "u1", "db2"), "password");      // /15 covers 10.2-10.3
  EXPECT_EQ(method("10.4.0.1", "u1", "db2"), "reject");
  EXPECT_EQ(method("10.2.0.1", "all", "db1"), "md5");          // quoted: the role named all
  EXPECT_EQ(method("10.2.0.1", "u2", "db1"), "reject");
  EXPECT_EQ(method("fe80::1", "x", "y"), "scram-sha-256");     // hostssl/local skipped
  // A Unix-domain socket skips every host rule and meets the local one.
  const HbaRule* local = MatchHba(*config, std::nullopt, "bob", "bob");
  ASSERT_TRUE(local);
  EXPECT_EQ(local->connection, HbaRule::Connection::kLocal);
  EXPECT_FALSE(MatchHba(*ParseConfig("host all all all trust\n"), std::nullopt, "x", "y"));
}

TEST(ConfigTest, DefaultsFillWhatTheFileLeavesOut) {
  auto config = ParseConfig("port = 6000\n");
  ASSERT_TRUE(config);
  ASSERT_EQ(config->roles.size(), 1u);
  EXPECT_EQ(config->roles[0].name, "postgres");
  EXPECT_TRUE(config->roles[0].superuser);
  EXPECT_EQ(config->hba.size(), 3u);
  EXPECT_TRUE(MatchHba(*config, std::nullopt, "x", "y"));  // a Unix-domain socket
  EXPECT_TRUE(MatchHba(*config, Ip("127.0.0.1"), "x", "y"));
  EXPECT_TRUE(MatchHba(*config, Ip("::1"), "x", "y"));
  EXPECT_FALSE(MatchHba(*config, Ip("127.0.0.2"), "x", "y"));
  Config defaults = DefaultConfig();
  EXPECT_EQ(defaults.unix_socket_directories, std::vector<std::string>{"/var/run/postgresql"});
  EXPECT_TRUE(MatchHba(defaults, std::nullopt, "x", "y"));
  EXPECT_EQ(defaults.port, 5432);
  EXPECT_EQ(defaults.databases, (std::vector<std::string>{"postgres", "template1"}));
  EXPECT_EQ(defaults.max_message_size, 64u << 20);
}

TEST(ConfigTest, SettingForms) {
  auto config = ParseConfig("port 7000\nmax_message_size=2MB\nlisten_addresses = '127.0.0.1, ::1'\n"
                            "password_encryption = md5\n");
  ASSERT_TRUE(config) << config.error();
  EXPECT_EQ(config->port, 7000);
  EXPECT_EQ(config->max_message_size, 2u << 20);
  EXPECT_EQ(config->listen_addresses, (std::vector<std::string>{"127.0.0.1", "::1"}));
  EXPECT_EQ(config->password_encryption, PasswordEncryption::kMd5);
  ASSERT_TRUE(SetConfigValue(*config, "port", "0"));
  EXPECT_EQ(config->port, 0);
  ASSERT_TRUE(SetConfigValue(*config, "unix_socket_directories", "/tmp, /run/a"));
  EXPECT_EQ(config->unix_socket_directories, (std::vector<std::string>{"/tmp", "/run/a"}));
  ASSERT_TRUE(SetConfigValue(*config, "unix_socket_directories", ""));
  EXPECT_TRUE(config->unix_socket_directories.empty());
  EXPECT_FALSE(config->connection_workers) << "unset: the server picks by the machines";
  ASSERT_TRUE(SetConfigValue(*config, "farmdb.connection_workers", "0"));
  EXPECT_EQ(config->connection_workers, 0);
  EXPECT_TRUE(config->pin_workers);
  ASSERT_TRUE(SetConfigValue(*config, "farmdb.pin_workers", "OFF"));
  EXPECT_FALSE(config->pin_workers);
  ASSERT_TRUE(SetConfigValue(*config, "farmdb.pin_workers", "true"));
  EXPECT_TRUE(config->pin_workers);
  auto role = ParseConfig("role bob password 'it''s' superuser\n");
  ASSERT_TRUE(role);
  EXPECT_EQ(*role->roles[0].password, "it's");
}

// The cluster secret from a file only its owner may read: its first line, trailing blanks cut.
TEST(ConfigTest, ClusterSecretFileIsReadAndMustBePrivate) {
  char dir_template[] = "/tmp/farmdb-config-test-XXXXXX";
  ASSERT_NE(::mkdtemp(dir_template), nullptr);
  const std::string dir = dir_template, path = dir + "/secret";
  std::ofstream(path) << "s3cret value  \nignored\n";
  ::chmod(path.c_str(), 0600);
  auto config = ParseConfig("");
  ASSERT_TRUE(config);
  ASSERT_TRUE(SetConfigValue(*config, "farmdb.cluster_secret_file", path));
  EXPECT_EQ(config->cluster_secret, "s3cret value");
  ::chmod(path.c_str(), 0640);
  auto loose = SetConfigValue(*config, "farmdb.cluster_secret_file", path);
  ASSERT_FALSE(loose);
  EXPECT_EQ(loose.error(), "farmdb.cluster_secret_file \"" + path +
                               "\" has group or world access; permissions should be u=rw (0600) or less");
  auto missing = SetConfigValue(*config, "farmdb.cluster_secret_file", dir + "/none");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error(),
            "farmdb.cluster_secret_file: could not read \"" + dir + "/none\": No such file or directory");
  std::ofstream(path, std::ios::trunc) << "\n";
  ::chmod(path.c_str(), 0600);
  auto empty = SetConfigValue(*config, "farmdb.cluster_secret_file", path);
  ASSERT_FALSE(empty);
  EXPECT_EQ(empty.error(), "farmdb.cluster_secret_file \"" + path + "\" is empty");
  std::filesystem::remove_all(dir);
}

TEST(ConfigTest, ErrorsNameTheLine) {
  struct Case {
    const char* text;
    const char* error;
  };
  for (Case c : {Case{"port = x\n", "line 1: invalid port \"x\""},
                 Case{"\nport = 70000\n", "line 2: invalid port \"70000\""},
                 Case{"work_mem = 4MB\n", "line 1: unrecognized configuration parameter \"work_mem\""},
                 Case{"host all all 127.0.0.1/32 ident\n",
                      "line 1: invalid authentication method \"ident\""},
                 Case{"host all all 127.0.0.1 trust\n", "line 1: address needs /prefix: 127.0.0.1"},
                 Case{"host all all 127.0.0.1/33 trust\n", "line 1: invalid address 127.0.0.1/33"},
                 Case{"host all all trust\n", "line 1: host line needs 4 fields"},
                 Case{"role\n", "line 1: role needs a name"},
                 Case{"role a\nrole a\n", "line 2: role \"a\" repeated"},
                 Case{"role a password\n", "line 1: unexpected \"password\" in role line"},
                 Case{"listen_addresses = '127.0.0.1\n", "line 1: unterminated quoted string"},
                 Case{"max_message_size = 10\n", "line 1: max_message_size must be between 1kB and 1GB"},
                 Case{"password_encryption = plain\n",
                      "line 1: password_encryption must be md5 or scram-sha-256"},
                 Case{"farmdb.connection_workers = -1\n",
                      "line 1: farmdb.connection_workers must be between 0 and 1024"},
                 Case{"farmdb.pin_workers = maybe\n", "line 1: farmdb.pin_workers must be on or off"},
                 Case{"a b c\n", "line 1: syntax error"}}) {
    auto config = ParseConfig(c.text);
    ASSERT_FALSE(config) << c.text;
    EXPECT_EQ(config.error(), c.error);
  }
}

}  // namespace
}  // namespace farmdb::server
