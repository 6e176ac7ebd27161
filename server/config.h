// The server's configuration: settings, roles, access (pg_hba-style) rules and databases, parsed
// from farmdb.conf (see /work/notes/server_contract.md and `farmdb --help`).
//
// Precedence (main.cc): embedded defaults < config file < -o NAME=VALUE < -p / -h flags.
// A file that declares no role gets `role postgres superuser`; no rule gets the default trust
// rules for local (Unix-domain socket) connections, 127.0.0.1/32 and ::1/128; the databases
// postgres and template1 always exist.
//
// Thread-safety: a Config is immutable once the Server owns it; MatchHba only reads.
#pragma once

#include <array>
#include <cstdint>
#include <expected>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/lease.h"

namespace farmdb::server {

enum class AuthMethod { kTrust, kReject, kPassword, kMd5, kScramSha256 };
enum class PasswordEncryption { kMd5, kScramSha256 };

struct Role {
  std::string name;
  std::optional<std::string> password;  // plaintext as configured; secrets derive from it
  bool superuser = false;
};

// An IPv4 or IPv6 address (IPv4 kept as 4 bytes).
struct IpAddress {
  bool v6 = false;
  std::array<uint8_t, 16> bytes{};
  static std::optional<IpAddress> Parse(std::string_view text);
};

struct HbaRule {
  enum class Connection { kHost, kHostSsl, kHostNoSsl, kLocal };
  Connection connection = Connection::kHost;
  std::vector<std::string> databases;  // names, or the keywords all / sameuser / replication
  std::vector<std::string> users;      // names, or all
  bool any_address = false;            // ADDRESS was `all`
  IpAddress address;
  int prefix_length = 0;
  AuthMethod method = AuthMethod::kTrust;
  int line = 0;  // in the config file, for logs
};

struct Config {
  int port = 5432;
  std::vector<std::string> listen_addresses = {"127.0.0.1"};
  // Directories for a Unix-domain socket each (PostgreSQL's unix_socket_directories; empty:
  // none). Debian's libpq looks in /var/run/postgresql, so `psql` there needs no -h.
  std::vector<std::string> unix_socket_directories = {"/var/run/postgresql"};
  uint32_t max_message_size = 64u << 20;
  PasswordEncryption password_encryption = PasswordEncryption::kScramSha256;
  std::vector<Role> roles;
  std::vector<HbaRule> hba;
  std::vector<std::string> databases;
  // farmdb.machines: in-process machines of the node's LocalCluster (sql/node.h), with
  // min(2, machines - 1) backups per region.
  int machines = 1;
  // A member of a multi-process cluster (sql/node.h ClusterMembership) when farmdb.zookeeper is
  // set: farmdb.zookeeper, farmdb.cluster, farmdb.fabric_address, farmdb.replicas (f + 1),
  // farmdb.cluster_secret, and farmdb.test_clock_offset_ns (tests: an offset added to this
  // process's clock).
  std::string zookeeper;
  std::string cluster_name;
  std::string fabric_address;
  int replicas = 3;
  std::string cluster_secret;
  int64_t test_clock_offset_ns = 0;
  // farmdb.lease_ms: how long a machine's lease lasts (cluster/lease.h); on a cluster, the
  // creator's value holds and a joiner asking for another is refused.
  std::chrono::milliseconds lease = cluster::kDefaultLease;
  // farmdb.connection_workers: threads that run the connections as fibers (cluster/fibers.h);
  // 0: a thread per connection. Unset: one per core on one machine, and 0 on several, whose
  // commits wait for the other machines in ways that still block a worker's other sessions.
  std::optional<int> connection_workers;
  // farmdb.pin_workers: each connection worker runs on a CPU of its own (cluster/fibers.h), when
  // there are no more workers than CPUs the process may use.
  bool pin_workers = true;
  // farmdb.verify_images: check the data checksums of every region image at start, not only
  // after a reboot (cluster/FORMATS.md "Region images").
  bool verify_images = false;
  // Session settings (synchronous_commit, default_transaction_isolation, ...): every session's
  // defaults, before what its startup packet asks for, as postgresql.conf's are.
  std::vector<std::pair<std::string, std::string>> session_settings;
};

// Recognises a session setting (the SQL layer's table, which this layer does not link; main.cc
// passes it): its canonical name and value, nullopt if `name` is none, or why the value is bad.
using SessionSettingCheck = std::function<std::expected<std::optional<std::pair<std::string, std::string>>, std::string>(
    std::string_view name, std::string_view value)>;

// The embedded defaults (no config file).
Config DefaultConfig();
// Parses a farmdb.conf; errors name the line. Without `session`, no session settings are known.
std::expected<Config, std::string> ParseConfig(std::string_view text, const SessionSettingCheck& session = {});
// Sets one setting (config file line or -o NAME=VALUE).
std::expected<void, std::string> SetConfigValue(Config& config, std::string_view name, std::string_view value,
                                                const SessionSettingCheck& session = {});
// The first rule that matches a connection without TLS, or nullptr. `client` is the TCP peer's
// address, or nullopt for a Unix-domain socket (which only `local` rules match).
const HbaRule* MatchHba(const Config& config, const std::optional<IpAddress>& client,
                        std::string_view user, std::string_view database);
const Role* FindRole(const Config& config, std::string_view name);
std::string_view AuthMethodName(AuthMethod method);

}  // namespace farmdb::server
