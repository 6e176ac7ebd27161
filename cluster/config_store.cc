#include "cluster/config_store.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace farmdb::cluster {

namespace {
constexpr std::string_view kMagic = "farmdb-config 1";
}  // namespace

std::string EncodeConfiguration(const Configuration& c) {
  std::ostringstream s;
  s << kMagic << "\nid " << c.id << "\ncm " << c.cm << "\n";
  for (auto& m : c.members) {
    s << "member " << m.machine << " " << m.failure_domain;
    if (!m.node.empty()) s << " " << m.node;
    s << "\n";
  }
  s << "end\n";
  return s.str();
}

std::expected<Configuration, std::string> DecodeConfiguration(std::string_view text) {
  std::istringstream in{std::string(text)};
  std::string line;
  if (!std::getline(in, line) || line != kMagic) return std::unexpected("bad config header");
  Configuration c;
  bool ended = false;
  while (std::getline(in, line)) {
    std::istringstream f(line);
    std::string key;
    f >> key;
    if (key == "id") {
      f >> c.id;
    } else if (key == "cm") {
      f >> c.cm;
    } else if (key == "member") {
      Configuration::Member m{};
      f >> m.machine >> m.failure_domain;
      if (f.fail()) return std::unexpected("malformed config line: " + line);
      if (!(f >> m.node)) f.clear();  // optional: a single process's members have none
      c.members.push_back(m);
    } else if (key == "end") {
      ended = true;
      break;
    } else {
      return std::unexpected("unknown config line: " + line);
    }
    if (f.fail()) return std::unexpected("malformed config line: " + line);
  }
  // A file without "end" was cut short; the atomic rename should make that impossible.
  if (!ended || c.id == 0) return std::unexpected("truncated config");
  return c;
}

std::expected<std::optional<Configuration>, std::string> EmbeddedConfigStore::Read() {
  std::lock_guard l(mu_);
  return ReadLocked();
}

std::expected<std::optional<Configuration>, std::string> EmbeddedConfigStore::ReadLocked() {
  std::ifstream in(file_);
  if (!in) {
    if (!std::filesystem::exists(file_)) return std::optional<Configuration>{};
    return std::unexpected("cannot open " + file_.string());
  }
  std::stringstream buf;
  buf << in.rdbuf();
  auto c = DecodeConfiguration(buf.str());
  if (!c) return std::unexpected(file_.string() + ": " + c.error());
  return std::optional<Configuration>(*c);
}

std::expected<bool, std::string> EmbeddedConfigStore::CompareAndSwap(uint64_t expected_id,
                                                                     const Configuration& next) {
  std::lock_guard l(mu_);
  auto cur = ReadLocked();
  if (!cur) return std::unexpected(cur.error());
  if ((*cur ? (*cur)->id : 0) != expected_id) return false;
  if (next.id <= expected_id) return std::unexpected("configuration ids must increase");
  std::filesystem::path tmp = file_;
  tmp += ".tmp";
  std::string text = EncodeConfiguration(next);
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return std::unexpected("open " + tmp.string() + ": " + std::strerror(errno));
  bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()) &&
            ::fsync(fd) == 0;
  ::close(fd);
  if (!ok || ::rename(tmp.c_str(), file_.c_str()) != 0) {
    return std::unexpected("write " + file_.string() + ": " + std::strerror(errno));
  }
  return true;
}

}  // namespace farmdb::cluster
