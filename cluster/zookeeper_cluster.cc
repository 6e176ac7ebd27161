#include "cluster/zookeeper_cluster.h"

#include <openssl/rand.h>

#include <algorithm>
#include <charconv>
#include <sstream>
#include <thread>

namespace farmdb::cluster {

namespace {

constexpr std::string_view kSettingsMagic = "farmdb-cluster 1";

std::string RandomSecret() {
  unsigned char bytes[32];
  if (RAND_bytes(bytes, sizeof bytes) != 1) return "";
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned char b : bytes) {
    hex += kHex[b >> 4];
    hex += kHex[b & 15];
  }
  return hex;
}

// A registration znode's text: "fabric HOST:PORT\n".
std::optional<std::string> FabricAddressOf(const std::string& data) {
  std::istringstream in(data);
  std::string key, address;
  if (!(in >> key >> address) || key != "fabric") return std::nullopt;
  return address;
}

// Calls `attempt` every `poll` until it returns a value or an error, at most `timeout`; then
// the error says what it waited for (`what`).
template <typename T, typename Attempt>
std::expected<T, std::string> PollFor(std::chrono::milliseconds timeout, std::chrono::milliseconds poll,
                                      const std::string& what, Attempt attempt) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    std::expected<std::optional<T>, std::string> got = attempt();
    if (!got) return std::unexpected(got.error());
    if (*got) return std::move(**got);
    if (std::chrono::steady_clock::now() >= deadline) {
      return std::unexpected("gave up after " + std::to_string(timeout.count()) + " ms waiting for " + what);
    }
    std::this_thread::sleep_for(poll);
  }
}

// Creates `path` (its ancestors too) with `data`, or replaces the data that is there.
std::expected<void, std::string> Put(ZooKeeperSession& session, const std::string& path, const std::string& data) {
  if (auto made = session.CreatePath(path.substr(0, path.rfind('/'))); !made) return std::unexpected(made.error().message);
  auto created = session.Create(path, data);
  if (!created) return std::unexpected(created.error().message);
  if (!*created) {
    if (auto set = session.Set(path, data, -1); !set) return std::unexpected(set.error().message);
  }
  return {};
}

}  // namespace

std::string EncodeClusterSettings(const ClusterSettings& s) {
  std::ostringstream out;
  out << kSettingsMagic << "\nreplicas " << s.replicas << "\nregion_size " << s.region_size
      << "\nlog_size " << s.log_size << "\nlease_ms " << s.lease.count() << "\nsecret " << s.secret << "\nend\n";
  return out.str();
}

std::expected<ClusterSettings, std::string> DecodeClusterSettings(std::string_view text) {
  std::istringstream in{std::string(text)};
  std::string line;
  if (!std::getline(in, line) || line != kSettingsMagic) return std::unexpected("bad cluster settings header");
  ClusterSettings s;
  s.secret.clear();
  bool ended = false;
  while (!ended && std::getline(in, line)) {
    std::istringstream f(line);
    std::string key;
    f >> key;
    if (key == "replicas") f >> s.replicas;
    else if (key == "region_size") f >> s.region_size;
    else if (key == "log_size") f >> s.log_size;
    else if (key == "lease_ms") {
      int64_t ms = 0;
      f >> ms;
      s.lease = std::chrono::milliseconds(ms);
      if (ms < 1) return std::unexpected("malformed cluster settings line: " + line);
    }
    else if (key == "secret") f >> s.secret;
    else if (key == "end") ended = true;
    else return std::unexpected("unknown cluster settings line: " + line);
    if (f.fail()) return std::unexpected("malformed cluster settings line: " + line);
  }
  if (!ended || s.secret.empty() || s.replicas < 1) return std::unexpected("truncated cluster settings");
  return s;
}

ZooKeeperCluster::ZooKeeperCluster(ZooKeeperSession* session, std::string name)
    : session_(session), name_(std::move(name)), config_(session, Path() + "/configuration") {}

std::expected<ClusterSettings, std::string> ZooKeeperCluster::CreateOrJoin(const ClusterSettings& wanted) {
  if (name_.empty() || name_.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") !=
                           std::string::npos) {
    return std::unexpected("farmdb.cluster \"" + name_ + "\": use letters, digits, '-', '_' and '.'");
  }
  if (auto made = session_->CreatePath("/farmdb"); !made) return std::unexpected(made.error().message);
  ClusterSettings mine = wanted;
  if (mine.secret.empty()) mine.secret = RandomSecret();
  if (mine.secret.empty()) return std::unexpected("could not generate the cluster secret (RAND_bytes)");
  auto created = session_->Create(Path(), EncodeClusterSettings(mine));
  if (!created) return std::unexpected(created.error().message);
  if (*created) return mine;
  auto znode = session_->Get(Path());
  if (!znode) return std::unexpected(znode.error().message);
  if (!*znode) return std::unexpected("cluster \"" + name_ + "\" vanished from ZooKeeper while joining it");
  auto theirs = DecodeClusterSettings((*znode)->data);
  if (!theirs) return std::unexpected("zookeeper znode " + Path() + ": " + theirs.error());
  auto differs = [&](const char* setting, auto have, auto asked) -> std::expected<void, std::string> {
    if (have == asked) return {};
    return std::unexpected(std::string(setting) + " is " + std::to_string(have) + " in cluster \"" + name_ +
                           "\"; this node asks for " + std::to_string(asked));
  };
  if (auto d = differs("farmdb.replicas", theirs->replicas, wanted.replicas); !d) return std::unexpected(d.error());
  if (auto d = differs("the region size", theirs->region_size, wanted.region_size); !d) return std::unexpected(d.error());
  if (auto d = differs("the log size", theirs->log_size, wanted.log_size); !d) return std::unexpected(d.error());
  if (auto d = differs("farmdb.lease_ms", theirs->lease.count(), wanted.lease.count()); !d) {
    return std::unexpected(d.error());
  }
  if (!wanted.secret.empty() && wanted.secret != theirs->secret) {
    return std::unexpected("farmdb.cluster_secret differs from cluster \"" + name_ + "\"'s");
  }
  return *theirs;
}

std::expected<std::string, std::string> ZooKeeperCluster::Register(const std::string& fabric_address) {
  std::string nodes = Path() + "/nodes";
  if (auto made = session_->CreatePath(nodes); !made) return std::unexpected(made.error().message);
  std::string created;
  auto ok = session_->Create(nodes + "/n", "fabric " + fabric_address + "\n", /*sequential=*/true, &created);
  if (!ok) return std::unexpected(ok.error().message);
  return created.substr(created.rfind('/') + 1);
}

std::expected<std::vector<ZooKeeperCluster::Registration>, std::string> ZooKeeperCluster::Registrations() {
  std::string nodes = Path() + "/nodes";
  auto names = session_->Children(nodes);
  if (!names) return std::unexpected(names.error().message);
  std::vector<Registration> out;
  for (const std::string& node : *names) {
    auto znode = session_->Get(nodes + "/" + node);
    if (!znode) return std::unexpected(znode.error().message);
    if (!*znode) continue;  // deleted meanwhile (by hand: farmdb deletes none)
    auto address = FabricAddressOf((*znode)->data);
    if (!address) return std::unexpected("zookeeper znode " + nodes + "/" + node + ": no fabric address");
    out.push_back({node, *address});
  }
  return out;
}

std::expected<Configuration, std::string> ZooKeeperCluster::FormOrRead(
    int replicas, std::chrono::milliseconds timeout, const std::function<void(const std::string&)>& waiting,
    std::chrono::milliseconds poll) {
  auto last_report = std::chrono::steady_clock::now() - std::chrono::seconds(1);
  return PollFor<Configuration>(timeout, poll, "the cluster to form", [&]() -> std::expected<std::optional<Configuration>, std::string> {
    auto stored = config_.Read();
    if (!stored) return std::unexpected(stored.error());
    if (*stored) return *stored;
    auto registered = Registrations();
    if (!registered) return std::unexpected(registered.error());
    if (static_cast<int>(registered->size()) >= replicas) {
      Configuration first{.id = 1, .members = {}, .cm = 0};
      for (size_t i = 0; i < registered->size(); ++i) {
        auto m = static_cast<MachineId>(i);
        first.members.push_back({m, m, (*registered)[i].node});
      }
      auto won = config_.CompareAndSwap(0, first);
      if (!won) return std::unexpected(won.error());
      if (*won) return first;
      return std::nullopt;  // another node formed it: read that one next round
    }
    if (std::chrono::steady_clock::now() - last_report >= std::chrono::seconds(1)) {
      last_report = std::chrono::steady_clock::now();
      waiting("cluster \"" + name_ + "\" has " + std::to_string(registered->size()) + " of the " +
              std::to_string(replicas) + " nodes it needs to place regions with farmdb.replicas=" +
              std::to_string(replicas));
    }
    return std::nullopt;
  });
}

std::expected<std::vector<std::string>, std::string> ZooKeeperCluster::FabricAddresses(const Configuration& c) {
  auto registered = Registrations();
  if (!registered) return std::unexpected(registered.error());
  std::vector<std::string> out;
  for (const Configuration::Member& m : c.members) {
    auto it = std::find_if(registered->begin(), registered->end(), [&](auto& r) { return r.node == m.node; });
    if (it == registered->end()) {
      return std::unexpected("member " + std::to_string(m.machine) + " (" + m.node + ") of cluster \"" + name_ +
                             "\" has no registration in ZooKeeper");
    }
    if (out.size() <= m.machine) out.resize(m.machine + 1);
    out[m.machine] = it->fabric_address;
  }
  return out;
}

std::expected<void, std::string> ZooKeeperCluster::UpdateRegistration(const std::string& node,
                                                                      const std::string& fabric_address) {
  const std::string path = Path() + "/nodes/" + node;
  auto set = session_->Set(path, "fabric " + fabric_address + "\n", -1);
  if (!set) return std::unexpected("zookeeper znode " + path + ": " + set.error().message);
  return {};
}

std::expected<ZooKeeperCluster::Restarted, std::string> ZooKeeperCluster::Restart(
    const Configuration& c, MachineId machine, const std::string& note, std::chrono::milliseconds timeout,
    const std::function<void(const std::string&)>& waiting) {
  const std::string dir = Path() + "/restart/" + std::to_string(c.id);
  if (auto put = Put(*session_, dir + "/" + std::to_string(machine), note); !put) return std::unexpected(put.error());
  auto last_report = std::chrono::steady_clock::now() - std::chrono::seconds(1);
  auto next = PollFor<Configuration>(timeout, std::chrono::milliseconds(20), "every member to restart",
                                     [&]() -> std::expected<std::optional<Configuration>, std::string> {
    auto stored = config_.Read();
    if (!stored) return std::unexpected(stored.error());
    if (!*stored) return std::unexpected("cluster \"" + name_ + "\" lost its configuration");
    if ((*stored)->id > c.id) return *stored;
    auto restarted = session_->Children(dir);
    if (!restarted) return std::unexpected(restarted.error().message);
    if (restarted->size() >= c.members.size()) {
      if (machine != c.cm) return std::nullopt;
      Configuration following = c;
      following.id = c.id + 1;
      auto won = config_.CompareAndSwap(c.id, following);
      if (!won) return std::unexpected(won.error());
      return std::nullopt;  // won or lost, the next round reads what is there
    }
    if (std::chrono::steady_clock::now() - last_report >= std::chrono::seconds(1)) {
      last_report = std::chrono::steady_clock::now();
      waiting("cluster \"" + name_ + "\" has " + std::to_string(restarted->size()) + " of its " +
              std::to_string(c.members.size()) + " members restarted; a member recovers only with every member's log");
    }
    return std::nullopt;
  });
  if (!next) return std::unexpected(next.error());
  if (next->id != c.id + 1 || next->members.size() != c.members.size()) {
    return std::unexpected("cluster \"" + name_ + "\" moved to configuration " + std::to_string(next->id) +
                           " while this member restarted in configuration " + std::to_string(c.id));
  }
  Restarted out{*next, std::vector<std::string>(c.members.size())};
  for (const Configuration::Member& m : c.members) {
    auto znode = session_->Get(dir + "/" + std::to_string(m.machine));
    if (!znode) return std::unexpected(znode.error().message);
    if (m.machine < out.notes.size() && *znode) out.notes[m.machine] = (*znode)->data;
  }
  return out;
}

std::expected<void, std::string> ZooKeeperCluster::PublishSqlAddress(MachineId machine, const std::string& address) {
  return Put(*session_, Path() + "/sql/" + std::to_string(machine), address);
}

std::expected<std::optional<std::string>, std::string> ZooKeeperCluster::SqlAddress(MachineId machine) {
  auto znode = session_->Get(Path() + "/sql/" + std::to_string(machine));
  if (!znode) return std::unexpected(znode.error().message);
  if (!*znode) return std::optional<std::string>{};
  return std::optional<std::string>((*znode)->data);
}

std::expected<void, std::string> ZooKeeperCluster::PassStartBarrier(const Configuration& c, MachineId machine,
                                                                    std::chrono::milliseconds timeout) {
  std::string dir = Path() + "/ready/" + std::to_string(c.id);
  if (auto made = session_->CreatePath(dir + "/" + std::to_string(machine)); !made) {
    return std::unexpected(made.error().message);
  }
  auto passed = PollFor<bool>(timeout, std::chrono::milliseconds(20), "every member to be ready",
                              [&]() -> std::expected<std::optional<bool>, std::string> {
                                auto ready = session_->Children(dir);
                                if (!ready) return std::unexpected(ready.error().message);
                                if (ready->size() >= c.members.size()) return true;
                                return std::nullopt;
                              });
  if (!passed) return std::unexpected(passed.error());
  return {};
}

std::expected<void, std::string> ZooKeeperCluster::PublishCatalogRoot(uint64_t root) {
  auto created = session_->Create(Path() + "/catalog", std::to_string(root));
  if (!created) return std::unexpected(created.error().message);
  if (*created) return {};
  // Published by an earlier run of the CM (a restart publishes again, in case the first run
  // stopped in between): it must be the same root.
  auto znode = session_->Get(Path() + "/catalog");
  if (!znode) return std::unexpected(znode.error().message);
  if (!*znode || (*znode)->data != std::to_string(root)) {
    return std::unexpected("cluster \"" + name_ + "\" has another catalog root already");
  }
  return {};
}

std::expected<uint64_t, std::string> ZooKeeperCluster::WaitForCatalogRoot(std::chrono::milliseconds timeout) {
  return PollFor<uint64_t>(timeout, std::chrono::milliseconds(20), "the catalog's bootstrap",
                           [&]() -> std::expected<std::optional<uint64_t>, std::string> {
                             auto znode = session_->Get(Path() + "/catalog");
                             if (!znode) return std::unexpected(znode.error().message);
                             if (!*znode) return std::nullopt;
                             const std::string& text = (*znode)->data;
                             uint64_t root = 0;
                             auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), root);
                             if (ec != std::errc() || end != text.data() + text.size() || root == 0) {
                               return std::unexpected("zookeeper znode " + Path() + "/catalog: not a root: " + text);
                             }
                             return root;
                           });
}

}  // namespace farmdb::cluster
