// farmdb: the single-node server executable. Owns the Server, the data directory lock and
// signal handling; everything else lives in farmdb_server and farmdb_sql.
// The command line and ready line are a contract with regress/ (notes/server_contract.md).
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <expected>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "server/config.h"
#include "server/server.h"
#include "sql/node.h"
#include "sql/session.h"
#include "sql/settings/setting_defs.h"

namespace {

constexpr const char* kVersion = "farmdb 0.1 (PostgreSQL 15 protocol v3)";

constexpr const char* kHelp = R"(farmdb: a PostgreSQL-compatible in-memory OLTP database server.

Usage: farmdb [OPTION]...

Options (PostgreSQL's names where one exists):
  -p, --port N                TCP port (default 5432); 0 picks a free port, shown on the
                              ready line
  -h, --listen-addresses A    comma-separated addresses to listen on (default 127.0.0.1;
                              * = all)
  -D, --data-dir DIR          data directory (default ./data), created if missing; holds
                              farmdb.pid, locked so two servers cannot share it
  -c, --config FILE           config file (default DIR/farmdb.conf if present, else the
                              embedded defaults)
  -o, --set NAME=VALUE        override one config setting (repeatable)
      --log-level LEVEL       trace|debug|info|warn|error (default info); logs go to stderr
      --help                  show this help and exit
      --version               show the version and exit

Precedence: embedded defaults < config file < -o NAME=VALUE < -p / -h.

When it accepts connections, farmdb prints exactly one line on stdout:
  farmdb ready to accept connections on ADDRESS:PORT (pid PID)
SIGTERM or SIGINT: stop accepting, end sessions (FATAL 57P01), remove farmdb.pid, exit 0.

Config file (postgresql.conf-style settings; '#' starts a comment; 'quoted values'):
  port = 5432                      TCP port, as -p
  listen_addresses = '127.0.0.1'   as -h
  unix_socket_directories = '/var/run/postgresql'
                                   directories for a Unix-domain socket each,
                                   DIR/.s.PGSQL.PORT with a lock file beside it ('' = none;
                                   one that cannot be used is logged and skipped)
  max_message_size = 67108864      largest client message in bytes (kB/MB/GB allowed;
                                   1kB..1GB); a larger one gets FATAL 08P01 and a close
  farmdb.machines = 1               in-process machines holding the data (1..64); more than
                                   one replicates every region on min(2, N-1) backups. Fixed
                                   when DIR/cluster is made: a restart keeps every commit
  synchronous_commit = on          on: a commit returns once it is on stable storage (group
                                   commit); off: once in the mapped log, which a crash of the
                                   process keeps but a power loss may not (the newest commits,
                                   in timestamp order). Also SET, SET LOCAL, per transaction
  Any other session setting (default_transaction_isolation, ...) sets every session's default.
  farmdb.connection_workers        threads that run the sessions, each many as fibers;
                                   0 = a thread per session. Default: one per core with one
                                   machine, 0 with more (their commits' waits block a thread)
  farmdb.pin_workers = on          each connection worker runs on a CPU of its own, when
                                   there are no more workers than CPUs the process may use
  farmdb.verify_images = off       check every region image's checksums at start (always
                                   done after a reboot); a damaged file refuses the start
  password_encryption = scram-sha-256
                                   how role passwords are stored: scram-sha-256 or md5.
                                   As in PostgreSQL, an md5 rule runs SCRAM for a SCRAM-stored
                                   role, and a scram-sha-256 rule fails for an md5-stored one
Roles:
  role NAME [password 'TEXT'] [superuser]
Access rules, first match wins (pg_hba.conf columns):
  host DATABASE USER ADDRESS/CIDR METHOD     (also hostnossl; hostssl never matches: there
                                              is no TLS)
  local DATABASE USER METHOD                 (connections over a Unix-domain socket)
  DATABASE: all | sameuser | NAME[,NAME...]   USER: all | NAME[,NAME...]   ADDRESS: CIDR | all
  METHOD: trust | reject | password | md5 | scram-sha-256
Databases that exist (postgres and template1 always do):
  database NAME
Without a config file: role postgres superuser; local all all trust, host all all
127.0.0.1/32 trust and host all all ::1/128 trust. A file without role lines gets role
postgres superuser; one without rules gets those three trust rules.
)";

struct Flags {
  std::optional<int> port;
  std::optional<std::string> listen_addresses;
  std::string data_dir = "./data";
  std::optional<std::string> config_file;
  std::vector<std::string> overrides;
  std::string log_level = "info";
};

int Usage(const std::string& message) {
  std::fprintf(stderr, "farmdb: %s\nTry \"farmdb --help\" for more information.\n",
               message.c_str());
  return 2;
}

// The config file's and -o's session settings, checked against the SQL layer's table.
std::expected<std::optional<std::pair<std::string, std::string>>, std::string> SessionSetting(std::string_view name,
                                                                                             std::string_view value) {
  const farmdb::sql::SettingDef* def = farmdb::sql::FindSetting(name);
  if (def == nullptr || def->read_only) return std::nullopt;
  auto normalized = farmdb::sql::NormalizeSetting(*def, value, def->default_value, def->default_value);
  if (!normalized) return std::unexpected(normalized.error().message);
  return std::pair{std::string(def->name), std::move(*normalized)};
}

std::expected<std::string, std::string> ReadFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return std::unexpected("could not read config file \"" + path + "\"");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The data directory's farmdb.pid, flock'ed for the server's lifetime.
class PidFile {
 public:
  ~PidFile() {
    if (fd_ >= 0) {
      ::unlink(path_.c_str());
      ::close(fd_);
    }
  }
  std::expected<void, std::string> Acquire(const std::string& dir) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) return std::unexpected("could not create data directory \"" + dir + "\": " + ec.message());
    path_ = dir + "/farmdb.pid";
    fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd_ < 0) return std::unexpected("could not open \"" + path_ + "\": " + std::strerror(errno));
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      ::close(fd_);
      fd_ = -1;
      return std::unexpected("data directory \"" + dir + "\" is in use by another farmdb");
    }
    std::string pid = std::to_string(::getpid()) + "\n";
    if (::ftruncate(fd_, 0) != 0 || ::pwrite(fd_, pid.data(), pid.size(), 0) < 0) {
      return std::unexpected("could not write \"" + path_ + "\"");
    }
    return {};
  }

 private:
  std::string path_;
  int fd_ = -1;
};

}  // namespace

int main(int argc, char** argv) {
  using namespace farmdb;
  enum { kLogLevel = 1000, kHelpFlag, kVersionFlag };
  static const option kOptions[] = {
      {"port", required_argument, nullptr, 'p'},
      {"listen-addresses", required_argument, nullptr, 'h'},
      {"data-dir", required_argument, nullptr, 'D'},
      {"config", required_argument, nullptr, 'c'},
      {"set", required_argument, nullptr, 'o'},
      {"log-level", required_argument, nullptr, kLogLevel},
      {"help", no_argument, nullptr, kHelpFlag},
      {"version", no_argument, nullptr, kVersionFlag},
      {nullptr, 0, nullptr, 0},
  };
  Flags flags;
  opterr = 0;
  int opt;
  while ((opt = getopt_long(argc, argv, ":p:h:D:c:o:", kOptions, nullptr)) != -1) {
    switch (opt) {
      case 'p': {
        char* end = nullptr;
        long port = std::strtol(optarg, &end, 10);
        if (*optarg == '\0' || *end != '\0' || port < 0 || port > 65535) {
          return Usage(std::string("invalid port \"") + optarg + "\"");
        }
        flags.port = static_cast<int>(port);
        break;
      }
      case 'h': flags.listen_addresses = optarg; break;
      case 'D': flags.data_dir = optarg; break;
      case 'c': flags.config_file = optarg; break;
      case 'o': flags.overrides.push_back(optarg); break;
      case kLogLevel: flags.log_level = optarg; break;
      case kHelpFlag: std::fputs(kHelp, stdout); return 0;
      case kVersionFlag: std::puts(kVersion); return 0;
      case ':': return Usage(std::string("option requires an argument: ") + argv[optind - 1]);
      default: return Usage(std::string("unrecognized option: ") + argv[optind - 1]);
    }
  }
  if (optind < argc) return Usage(std::string("unexpected argument: ") + argv[optind]);

  auto log = std::make_shared<spdlog::logger>("server",
                                              std::make_shared<spdlog::sinks::stderr_sink_mt>());
  auto level = spdlog::level::from_str(flags.log_level);
  if (level == spdlog::level::off && flags.log_level != "off") {
    return Usage("invalid log level \"" + flags.log_level + "\"");
  }
  log->set_level(level);

  // Configuration: defaults < file < -o < -p/-h.
  std::string config_path = flags.config_file.value_or(flags.data_dir + "/farmdb.conf");
  server::Config config = server::DefaultConfig();
  if (flags.config_file || std::filesystem::exists(config_path)) {
    auto text = ReadFile(config_path);
    if (!text) return Usage(text.error());
    auto parsed = server::ParseConfig(*text, SessionSetting);
    if (!parsed) return Usage(config_path + ": " + parsed.error());
    config = std::move(*parsed);
  }
  for (const std::string& item : flags.overrides) {
    size_t eq = item.find('=');
    if (eq == std::string::npos) return Usage("-o needs NAME=VALUE, got \"" + item + "\"");
    auto status = server::SetConfigValue(config, item.substr(0, eq), item.substr(eq + 1), SessionSetting);
    if (!status) return Usage(status.error());
  }
  if (flags.port) config.port = *flags.port;
  if (flags.listen_addresses) {
    auto status = server::SetConfigValue(config, "listen_addresses", *flags.listen_addresses);
    if (!status) return Usage(status.error());
  }

  PidFile pid_file;
  if (auto status = pid_file.Acquire(flags.data_dir); !status) {
    log->error("event=startup_failed error=\"{}\"", status.error());
    return 1;
  }

  // Block the stop signals before any thread starts, so only the signalfd sees them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  int signal_fd = signalfd(-1, &stop_signals, SFD_CLOEXEC);
  if (signal_fd < 0) {
    log->error("event=startup_failed error=\"signalfd: {}\"", std::strerror(errno));
    return 1;
  }

  sql::NodeOptions node_options;
  node_options.machines = config.machines;
  node_options.data_dir = flags.data_dir;
  node_options.verify_images = config.verify_images;
  node_options.log = [log](const std::string& line) { log->info("{}", line); };
  // The catalog lists the configured roles (passwords stay in the config's secrets).
  for (const server::Role& role : config.roles) {
    storage::RoleDef def;
    def.rolname = role.name;
    def.rolsuper = role.superuser;
    node_options.roles.push_back(std::move(def));
  }
  auto node = sql::Node::Start(node_options);
  if (!node) {
    log->error("event=startup_failed error=\"{}\"", node.error());
    return 1;
  }
  log->info("event=node_started machines={}", config.machines);

  sql::EngineOptions engine_options;
  engine_options.databases = config.databases;
  engine_options.settings = config.session_settings;
  engine_options.node = std::move(*node);
  std::unique_ptr<sql::Engine> engine = sql::NewEngine(std::move(engine_options));
  auto server = server::Server::Start(std::move(config), *engine, *log);
  if (!server) {
    log->error("event=startup_failed error=\"{}\"", server.error());
    return 1;
  }
  std::printf("farmdb ready to accept connections on %s (pid %d)\n",
              (*server)->ListenAddress().c_str(), static_cast<int>(::getpid()));
  std::fflush(stdout);

  signalfd_siginfo info{};
  while (::read(signal_fd, &info, sizeof info) < 0 && errno == EINTR) {
  }
  log->info("event=shutdown signal={}", info.ssi_signo);
  // Sessions first (each holds a Worker and a share of the Node), then the engine, whose
  // share is the Node's last: engines and the cluster stop after every worker is gone.
  (*server)->Stop();
  server->reset();
  engine.reset();
  ::close(signal_fd);
  return 0;
}
