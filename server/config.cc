#include "server/config.h"

#include <arpa/inet.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>

namespace farmdb::server {
namespace {

// farmdb.cluster_secret_file: the secret is the file's first line. Like PostgreSQL's key files,
// it may not be readable by group or others, so a secret on disk stays the owner's.
std::expected<std::string, std::string> ReadSecretFile(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    return std::unexpected("farmdb.cluster_secret_file: could not read \"" + path + "\": " + std::strerror(errno));
  }
  if (st.st_mode & (S_IRWXG | S_IRWXO)) {
    return std::unexpected("farmdb.cluster_secret_file \"" + path +
                           "\" has group or world access; permissions should be u=rw (0600) or less");
  }
  std::ifstream in(path);
  std::string secret;
  if (!in || !std::getline(in, secret)) {
    return std::unexpected("farmdb.cluster_secret_file: could not read \"" + path + "\"");
  }
  while (!secret.empty() && std::isspace(static_cast<unsigned char>(secret.back()))) secret.pop_back();
  if (secret.empty()) return std::unexpected("farmdb.cluster_secret_file \"" + path + "\" is empty");
  return secret;
}

// Splits a line into tokens: '...' quoted strings ('' is a quote), '=' alone, bare words; '#'
// outside quotes starts a comment. Quoted tokens are flagged so that a quoted "all" is a name,
// not a keyword (as with double quotes in pg_hba.conf).
struct Token {
  std::string text;
  bool quoted = false;
};

std::expected<std::vector<Token>, std::string> Tokenize(std::string_view line) {
  std::vector<Token> tokens;
  size_t i = 0;
  while (i < line.size()) {
    char c = line[i];
    if (c == ' ' || c == '\t' || c == '\r') {
      ++i;
    } else if (c == '#') {
      break;
    } else if (c == '=') {
      tokens.push_back({"=", false});
      ++i;
    } else if (c == '\'') {
      Token t{"", true};
      ++i;
      while (true) {
        if (i >= line.size()) return std::unexpected("unterminated quoted string");
        if (line[i] == '\'') {
          if (i + 1 < line.size() && line[i + 1] == '\'') {
            t.text.push_back('\'');
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        t.text.push_back(line[i++]);
      }
      tokens.push_back(std::move(t));
    } else {
      Token t;
      while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '=' &&
             line[i] != '#' && line[i] != '\r') {
        t.text.push_back(line[i++]);
      }
      tokens.push_back(std::move(t));
    }
  }
  return tokens;
}

std::vector<std::string> SplitList(std::string_view text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string_view::npos) comma = text.size();
    std::string_view item = text.substr(start, comma - start);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (!item.empty()) out.emplace_back(item);
    start = comma + 1;
  }
  return out;
}

std::expected<int64_t, std::string> ParseInteger(std::string_view text) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end == text.data()) return std::unexpected("not an integer");
  // Memory units as in postgresql.conf.
  std::string_view unit(end, text.data() + text.size() - end);
  int64_t scale = unit.empty() ? 1
                  : unit == "B"  ? 1
                  : unit == "kB" ? 1 << 10
                  : unit == "MB" ? 1 << 20
                  : unit == "GB" ? int64_t{1} << 30
                                 : 0;
  if (scale == 0) return std::unexpected("invalid unit \"" + std::string(unit) + "\"");
  return v * scale;
}

// The spellings of a boolean postgresql.conf takes in full (it also takes unique prefixes).
std::optional<bool> ParseOnOff(std::string_view text) {
  std::string word(text);
  for (char& c : word) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (word == "on" || word == "true" || word == "yes" || word == "1") return true;
  if (word == "off" || word == "false" || word == "no" || word == "0") return false;
  return std::nullopt;
}

std::optional<AuthMethod> ParseMethod(std::string_view text) {
  if (text == "trust") return AuthMethod::kTrust;
  if (text == "reject") return AuthMethod::kReject;
  if (text == "password") return AuthMethod::kPassword;
  if (text == "md5") return AuthMethod::kMd5;
  if (text == "scram-sha-256") return AuthMethod::kScramSha256;
  return std::nullopt;
}

std::expected<void, std::string> ParseRole(const std::vector<Token>& t, Config& config) {
  if (t.size() < 2) return std::unexpected("role needs a name");
  Role role{t[1].text, std::nullopt, false};
  for (size_t i = 2; i < t.size(); ++i) {
    if (t[i].text == "superuser" && !t[i].quoted) {
      role.superuser = true;
    } else if (t[i].text == "password" && !t[i].quoted && i + 1 < t.size()) {
      role.password = t[++i].text;
    } else {
      return std::unexpected("unexpected \"" + t[i].text + "\" in role line");
    }
  }
  if (FindRole(config, role.name)) return std::unexpected("role \"" + role.name + "\" repeated");
  config.roles.push_back(std::move(role));
  return {};
}

std::expected<void, std::string> ParseHba(const std::vector<Token>& t, int line, Config& config) {
  HbaRule rule;
  rule.line = line;
  const std::string& kind = t[0].text;
  rule.connection = kind == "host"        ? HbaRule::Connection::kHost
                    : kind == "hostssl"   ? HbaRule::Connection::kHostSsl
                    : kind == "hostnossl" ? HbaRule::Connection::kHostNoSsl
                                          : HbaRule::Connection::kLocal;
  // local DATABASE USER METHOD; host* DATABASE USER ADDRESS METHOD
  size_t want = rule.connection == HbaRule::Connection::kLocal ? 4 : 5;
  if (t.size() != want) {
    return std::unexpected(kind + " line needs " + std::to_string(want - 1) + " fields");
  }
  // A quoted keyword is a plain name; mark keywords so MatchHba can tell.
  auto list = [](const Token& token) {
    std::vector<std::string> items = SplitList(token.text);
    if (token.quoted) {
      for (auto& item : items) item = "\"" + item;
    }
    return items;
  };
  rule.databases = list(t[1]);
  rule.users = list(t[2]);
  if (want == 5) {
    const std::string& addr = t[3].text;
    if (addr == "all") {
      rule.any_address = true;
    } else {
      size_t slash = addr.find('/');
      if (slash == std::string::npos) return std::unexpected("address needs /prefix: " + addr);
      auto ip = IpAddress::Parse(std::string_view(addr).substr(0, slash));
      auto prefix = ParseInteger(std::string_view(addr).substr(slash + 1));
      int max_prefix = ip && ip->v6 ? 128 : 32;
      if (!ip || !prefix || *prefix < 0 || *prefix > max_prefix) {
        return std::unexpected("invalid address " + addr);
      }
      rule.address = *ip;
      rule.prefix_length = static_cast<int>(*prefix);
    }
  }
  auto method = ParseMethod(t[want - 1].text);
  if (!method) return std::unexpected("invalid authentication method \"" + t[want - 1].text + "\"");
  rule.method = *method;
  config.hba.push_back(std::move(rule));
  return {};
}

bool ListMatches(const std::vector<std::string>& items, std::string_view value,
                 std::string_view user, bool is_database) {
  for (const auto& item : items) {
    if (item.starts_with('"')) {
      if (std::string_view(item).substr(1) == value) return true;
    } else if (item == "all") {
      return true;
    } else if (is_database && item == "sameuser") {
      if (value == user) return true;
    } else if (is_database && item == "replication") {
      continue;  // replication connections are refused before rules are consulted
    } else if (item == value) {
      return true;
    }
  }
  return false;
}

bool AddressMatches(const HbaRule& rule, const IpAddress& client) {
  if (rule.any_address) return true;
  if (rule.address.v6 != client.v6) return false;
  int bits = rule.prefix_length;
  for (size_t i = 0; bits > 0; ++i, bits -= 8) {
    uint8_t mask = bits >= 8 ? 0xff : static_cast<uint8_t>(0xff << (8 - bits));
    if ((rule.address.bytes[i] & mask) != (client.bytes[i] & mask)) return false;
  }
  return true;
}

}  // namespace

std::optional<IpAddress> IpAddress::Parse(std::string_view text) {
  std::string s(text);
  IpAddress a;
  if (inet_pton(AF_INET, s.c_str(), a.bytes.data()) == 1) return a;
  a.v6 = true;
  if (inet_pton(AF_INET6, s.c_str(), a.bytes.data()) == 1) {
    // An IPv4-mapped IPv6 address matches IPv4 rules.
    static constexpr uint8_t kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    if (std::equal(kMapped, kMapped + 12, a.bytes.begin())) {
      IpAddress v4;
      std::copy(a.bytes.begin() + 12, a.bytes.end(), v4.bytes.begin());
      return v4;
    }
    return a;
  }
  return std::nullopt;
}

Config DefaultConfig() {
  // An empty file gets every default: the postgres role and the local and loopback trust rules.
  return *ParseConfig("");
}

std::expected<void, std::string> SetConfigValue(Config& config, std::string_view name,
                                                std::string_view value, const SessionSettingCheck& session) {
  if (name == "port") {
    auto v = ParseInteger(value);
    if (!v || *v < 0 || *v > 65535) return std::unexpected("invalid port \"" + std::string(value) + "\"");
    config.port = static_cast<int>(*v);
  } else if (name == "listen_addresses") {
    auto list = SplitList(value);
    if (list.empty()) return std::unexpected("listen_addresses is empty");
    config.listen_addresses = std::move(list);
  } else if (name == "unix_socket_directories") {
    config.unix_socket_directories = SplitList(value);
  } else if (name == "max_message_size") {
    auto v = ParseInteger(value);
    if (!v || *v < 1024 || *v > (int64_t{1} << 30)) {
      return std::unexpected("max_message_size must be between 1kB and 1GB");
    }
    config.max_message_size = static_cast<uint32_t>(*v);
  } else if (name == "password_encryption") {
    if (value == "md5") {
      config.password_encryption = PasswordEncryption::kMd5;
    } else if (value == "scram-sha-256") {
      config.password_encryption = PasswordEncryption::kScramSha256;
    } else {
      return std::unexpected("password_encryption must be md5 or scram-sha-256");
    }
  } else if (name == "farmdb.machines") {
    auto v = ParseInteger(value);
    if (!v || *v < 1 || *v > 64) return std::unexpected("farmdb.machines must be between 1 and 64");
    config.machines = static_cast<int>(*v);
  } else if (name == "farmdb.zookeeper") {
    config.zookeeper = value;
  } else if (name == "farmdb.cluster") {
    config.cluster_name = value;
  } else if (name == "farmdb.fabric_address") {
    config.fabric_address = value;
  } else if (name == "farmdb.replicas") {
    auto v = ParseInteger(value);
    if (!v || *v < 1 || *v > 16) return std::unexpected("farmdb.replicas must be between 1 and 16");
    config.replicas = static_cast<int>(*v);
  } else if (name == "farmdb.cluster_secret") {
    config.cluster_secret = value;
  } else if (name == "farmdb.cluster_secret_file") {
    auto secret = ReadSecretFile(std::string(value));
    if (!secret) return std::unexpected(secret.error());
    config.cluster_secret = std::move(*secret);
  } else if (name == "farmdb.lease_ms") {
    auto v = ParseInteger(value);
    if (!v || *v < 1 || *v > 600'000) return std::unexpected("farmdb.lease_ms must be between 1 and 600000");
    config.lease = std::chrono::milliseconds(*v);
  } else if (name == "farmdb.test_clock_offset_ns") {
    auto v = ParseInteger(value);
    if (!v) return std::unexpected("farmdb.test_clock_offset_ns must be an integer");
    config.test_clock_offset_ns = *v;
  } else if (name == "farmdb.connection_workers") {
    auto v = ParseInteger(value);
    if (!v || *v < 0 || *v > 1024) {
      return std::unexpected("farmdb.connection_workers must be between 0 and 1024");
    }
    config.connection_workers = static_cast<int>(*v);
  } else if (name == "farmdb.pin_workers") {
    auto v = ParseOnOff(value);
    if (!v) return std::unexpected("farmdb.pin_workers must be on or off");
    config.pin_workers = *v;
  } else if (name == "farmdb.verify_images") {
    auto v = ParseOnOff(value);
    if (!v) return std::unexpected("farmdb.verify_images must be on or off");
    config.verify_images = *v;
  } else if (auto setting = session ? session(name, value) : std::optional<std::pair<std::string, std::string>>{};
             !setting || *setting) {
    if (!setting) return std::unexpected(setting.error());
    std::erase_if(config.session_settings, [&](auto& s) { return s.first == (*setting)->first; });
    config.session_settings.push_back(std::move(**setting));
  } else {
    return std::unexpected("unrecognized configuration parameter \"" + std::string(name) + "\"");
  }
  return {};
}

std::expected<Config, std::string> ParseConfig(std::string_view text, const SessionSettingCheck& session) {
  Config config;
  int line_number = 0;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++line_number;
    auto where = [&](const std::string& what) {
      return std::unexpected("line " + std::to_string(line_number) + ": " + what);
    };
    auto tokens = Tokenize(line);
    if (!tokens) return where(tokens.error());
    const auto& t = *tokens;
    if (t.empty()) continue;
    std::expected<void, std::string> status;
    bool is_setting = (t.size() == 3 && t[1].text == "=" && !t[1].quoted) ||
                      (t.size() == 2 && t[1].text != "=");
    const std::string& word = t[0].text;
    bool is_directive = word == "role" || word == "database" || word == "host" ||
                        word == "hostssl" || word == "hostnossl" || word == "local";
    if (is_directive && !(t.size() == 3 && t[1].text == "=")) {
      if (word == "role") {
        status = ParseRole(t, config);
      } else if (word == "database") {
        if (t.size() != 2) return where("database line needs one name");
        config.databases.push_back(t[1].text);
      } else {
        status = ParseHba(t, line_number, config);
      }
    } else if (is_setting) {
      status = SetConfigValue(config, word, t.back().text, session);
    } else {
      return where("syntax error");
    }
    if (!status) return where(status.error());
  }
  if (config.roles.empty()) config.roles.push_back({"postgres", std::nullopt, true});
  if (config.hba.empty()) {
    HbaRule local;
    local.connection = HbaRule::Connection::kLocal;
    local.databases = {"all"};
    local.users = {"all"};
    config.hba.push_back(std::move(local));
    for (const char* addr : {"127.0.0.1", "::1"}) {
      HbaRule rule;
      rule.databases = {"all"};
      rule.users = {"all"};
      rule.address = *IpAddress::Parse(addr);
      rule.prefix_length = rule.address.v6 ? 128 : 32;
      config.hba.push_back(std::move(rule));
    }
  }
  for (const char* db : {"postgres", "template1"}) {
    if (std::find(config.databases.begin(), config.databases.end(), db) == config.databases.end()) {
      config.databases.emplace_back(db);
    }
  }
  return config;
}

const HbaRule* MatchHba(const Config& config, const std::optional<IpAddress>& client,
                        std::string_view user, std::string_view database) {
  for (const auto& rule : config.hba) {
    // No TLS: a TCP connection matches host and hostnossl rules, a Unix-domain one local rules.
    bool kind_matches = client ? rule.connection == HbaRule::Connection::kHost ||
                                     rule.connection == HbaRule::Connection::kHostNoSsl
                               : rule.connection == HbaRule::Connection::kLocal;
    if (!kind_matches) continue;
    if (!ListMatches(rule.databases, database, user, true)) continue;
    if (!ListMatches(rule.users, user, user, false)) continue;
    if (client && !AddressMatches(rule, *client)) continue;
    return &rule;
  }
  return nullptr;
}

const Role* FindRole(const Config& config, std::string_view name) {
  for (const auto& role : config.roles) {
    if (role.name == name) return &role;
  }
  return nullptr;
}

std::string_view AuthMethodName(AuthMethod method) {
  switch (method) {
    case AuthMethod::kTrust: return "trust";
    case AuthMethod::kReject: return "reject";
    case AuthMethod::kPassword: return "password";
    case AuthMethod::kMd5: return "md5";
    case AuthMethod::kScramSha256: return "scram-sha-256";
  }
  return "?";
}

}  // namespace farmdb::server
