#include "cluster/process_cluster.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>

#include "cluster/codec.h"

namespace farmdb::cluster {

namespace {

// The file in the data directory that names the cluster and machine this node became:
// "cluster NAME node NODE machine ID".
std::filesystem::path MemberFile(const std::filesystem::path& data_dir) { return data_dir / "member"; }

struct Membership {
  std::string cluster;
  std::string node;
  MachineId machine = kNoMachine;
};

std::expected<std::optional<Membership>, std::string> ReadMemberFile(const std::filesystem::path& data_dir) {
  const std::filesystem::path path = MemberFile(data_dir);
  std::ifstream in(path);
  if (!in) {
    if (!std::filesystem::exists(path)) return std::nullopt;
    return std::unexpected("could not read " + path.string());
  }
  Membership m;
  std::string cluster_word, node_word, machine_word;
  if (!(in >> cluster_word >> m.cluster >> node_word >> m.node >> machine_word >> m.machine) ||
      cluster_word != "cluster" || node_word != "node" || machine_word != "machine") {
    return std::unexpected(path.string() + ": not \"cluster NAME node NODE machine ID\"");
  }
  return m;
}

// What the CM tells the members at a restart (ZooKeeperCluster::Restart's note): the region id
// it will hand out next, below which every region was committed (Machine::Open).
std::string NextRegionNote(RegionId next) { return "next_region " + std::to_string(next); }
std::optional<RegionId> ParseNextRegionNote(const std::string& note) {
  std::istringstream in(note);
  std::string key;
  RegionId next = 0;
  if (!(in >> key >> next) || key != "next_region" || next == 0) return std::nullopt;
  return next;
}

}  // namespace

std::expected<std::unique_ptr<ProcessCluster>, std::string> ProcessCluster::Start(ProcessClusterOptions options) {
  if (options.cluster_name.empty()) return std::unexpected("farmdb.zookeeper needs farmdb.cluster, the cluster's name");
  if (options.fabric_address.empty()) {
    return std::unexpected("farmdb.zookeeper needs farmdb.fabric_address, where the other nodes reach this one");
  }
  auto member = ReadMemberFile(options.data_dir);
  if (!member) return std::unexpected(member.error());
  if (*member && (*member)->cluster != options.cluster_name) {
    return std::unexpected(MemberFile(options.data_dir).string() + " says this node is a member of cluster \"" +
                           (*member)->cluster + "\", not \"" + options.cluster_name + "\"");
  }
  std::unique_ptr<ProcessCluster> pc(new ProcessCluster());
  pc->options_ = std::move(options);
  const ProcessClusterOptions& o = pc->options_;

  auto session = ZooKeeperSession::Connect({.hosts = o.zookeeper});
  if (!session) return std::unexpected(session.error().message);
  pc->session_ = std::move(*session);
  pc->zk_cluster_ = std::make_unique<ZooKeeperCluster>(pc->session_.get(), o.cluster_name);
  if (*member) {
    // A member's cluster must be there: creating it anew would pair this data with strangers.
    auto znode = pc->session_->Get(pc->zk_cluster_->Path());
    if (!znode) return std::unexpected(znode.error().message);
    if (!*znode) {
      return std::unexpected(MemberFile(o.data_dir).string() + " says this node is a member of cluster \"" +
                             o.cluster_name + "\", which ZooKeeper (" + o.zookeeper + ") does not have");
    }
  }
  auto settings = pc->zk_cluster_->CreateOrJoin(o.settings);
  if (!settings) return std::unexpected(settings.error());
  pc->settings_ = std::move(*settings);

  // Listen before registering, so the registration has the bound port; peers that dial before
  // the fabric runs wait in the backlog.
  auto listen_fd = TcpFabric::Listen(o.fabric_address);
  if (!listen_fd) return std::unexpected("farmdb.fabric_address: " + listen_fd.error());
  // Closed on every failure below, until the fabric takes it.
  std::unique_ptr<int, void (*)(int*)> listener(&*listen_fd, [](int* fd) { ::close(*fd); });
  std::string fabric_address = TcpFabric::ListenerAddress(*listener);
  // A member's state from its earlier run (a fresh node has none: Machine::Open checks).
  std::optional<MachineState> state;
  if (*member) {
    const std::filesystem::path path = o.data_dir / ("m" + std::to_string((*member)->machine)) / "machine.state";
    auto loaded = LoadMachineState(PosixFiles(), path);
    if (!loaded) return std::unexpected(loaded.error());
    if (!*loaded) {
      return std::unexpected(path.string() + " is missing; " + MemberFile(o.data_dir).string() + " says this node was a member");
    }
    state = std::move(**loaded);
  }
  auto joined = *member ? pc->Rejoin((*member)->node, (*member)->machine, fabric_address, state->next_region)
                        : pc->JoinFirst(fabric_address);
  if (!joined) return std::unexpected(joined.error());
  const auto [node, id, committed_below] = *joined;
  const Configuration& c = pc->configuration_;
  auto addresses = pc->zk_cluster_->FabricAddresses(c);
  if (!addresses) return std::unexpected(addresses.error());
  std::filesystem::create_directories(o.data_dir);
  if (!*member) {
    std::ofstream file(MemberFile(o.data_dir));
    file << "cluster " << o.cluster_name << " node " << node << " machine " << id << "\n";
    if (!file.flush()) {
      return std::unexpected("could not write " + MemberFile(o.data_dir).string());
    }
  }

  TcpFabricOptions fo;
  fo.self = id;
  fo.machines = static_cast<int>(addresses->size());
  fo.listen_fd = *listener.release();
  fo.cluster_name = o.cluster_name;
  fo.secret = pc->settings_.secret;
  fo.configuration_id = c.id;
  fo.operation_timeout = o.fabric_timeout;
  fo.log = [pc = pc.get()](const std::string& line) { pc->Log(line); };
  auto fabric = TcpFabric::Start(std::move(fo));
  if (!fabric) return std::unexpected("tcp fabric: " + fabric.error());
  pc->fabric_ = std::move(*fabric);
  for (MachineId m = 0; m < addresses->size(); ++m) {
    if (m == id) continue;
    if (auto set = pc->fabric_->SetPeerAddress(m, (*addresses)[m]); !set) return std::unexpected(set.error());
  }

  // Master time starts well above zero, so timestamp 0 means "before everything", or at the
  // CM's floor from an earlier run, above every timestamp it handed out (LocalCluster). The
  // others' clocks follow the CM's.
  int64_t origin = 1'000'000'000;
  if (state && id == c.cm) origin = static_cast<int64_t>(state->time_floor);
  pc->time_ = std::make_unique<SkewedTimeSource>(&pc->system_time_, origin + o.skew.offset_ns, o.skew.drift_ppm);
  MachineOptions mo;
  mo.data_dir = o.data_dir;
  mo.region_size = pc->settings_.region_size;
  mo.replicas = std::min(pc->settings_.replicas, static_cast<int>(addresses->size())) - 1;
  mo.clock = o.clock;
  mo.lease = pc->settings_.lease;
  mo.log = [pc = pc.get()](const std::string& line) { pc->Log(line); };
  pc->machine_ = std::make_unique<Machine>(id, static_cast<int>(addresses->size()), pc->fabric_.get(), pc->time_.get(),
                                           mo, [] { return false; });
  if (auto opened = pc->machine_->Open(/*reopening=*/state.has_value(), committed_below); !opened) {
    return std::unexpected(opened.error());
  }
  // Records carry the configuration they were written in (txn/records.h).
  if (auto stored = pc->machine_->UpdateState([&](MachineState& s) { s.configuration = c.id; }); !stored) {
    return std::unexpected(stored.error().message);
  }
  pc->machine_->OnRpc(kMsgRecoveryState, [pc = pc.get()](const Message& m) { return pc->RecoveryStateReply(m); },
                      /*blocking=*/false);
  pc->machine_->Start();
  pc->Log("event=cluster_member cluster=" + o.cluster_name + " machine=" + std::to_string(id) +
          " machines=" + std::to_string(addresses->size()) + " configuration=" + std::to_string(c.id));
  if (!pc->machine_->WaitUntilServing(std::chrono::steady_clock::now() + o.start_timeout)) {
    return std::unexpected(pc->machine_->IsCm()
                               ? "no lease from a majority of the configuration within the start timeout"
                               : "no clock synchronisation and lease from the CM (machine 0) within the start timeout");
  }
  return pc;
}

std::expected<ProcessCluster::Joined, std::string> ProcessCluster::JoinFirst(const std::string& fabric_address) {
  const ProcessClusterOptions& o = options_;
  auto node = zk_cluster_->Register(fabric_address);
  if (!node) return std::unexpected(node.error());
  Log("event=cluster_registered cluster=" + o.cluster_name + " node=" + *node + " fabric=" + fabric_address);
  auto configuration = zk_cluster_->FormOrRead(settings_.replicas, o.start_timeout, [&](const std::string& what) {
    Log("event=cluster_waiting " + what);
  });
  if (!configuration) return std::unexpected(configuration.error());
  configuration_ = std::move(*configuration);
  auto self = std::ranges::find(configuration_.members, *node, &Configuration::Member::node);
  if (self == configuration_.members.end()) {
    return std::unexpected("cluster \"" + o.cluster_name + "\" formed without this node (" + *node +
                           "); joining a cluster that has formed is not supported yet");
  }
  return Joined{*node, self->machine, RegionId{1}};
}

std::expected<ProcessCluster::Joined, std::string> ProcessCluster::Rejoin(const std::string& node, MachineId id,
                                                                          const std::string& fabric_address,
                                                                          RegionId next_region) {
  // The whole cluster restarts together, and recovers together (every member's log decides what
  // committed), in a new configuration with the same members.
  const ProcessClusterOptions& o = options_;
  if (auto updated = zk_cluster_->UpdateRegistration(node, fabric_address); !updated) {
    return std::unexpected(updated.error());
  }
  auto stored = zk_cluster_->configuration().Read();
  if (!stored) return std::unexpected(stored.error());
  const bool listed = *stored && std::ranges::any_of((*stored)->members, [&](const Configuration::Member& m) {
    return m.node == node && m.machine == id;
  });
  if (!listed) {
    return std::unexpected(MemberFile(o.data_dir).string() + " says this node is machine " + std::to_string(id) +
                           " of cluster \"" + o.cluster_name + "\", which its configuration in ZooKeeper does not have");
  }
  const std::string note = id == (*stored)->cm ? NextRegionNote(next_region) : "";
  Log("event=cluster_restarting cluster=" + o.cluster_name + " node=" + node + " machine=" + std::to_string(id) +
      " fabric=" + fabric_address + " configuration=" + std::to_string((*stored)->id));
  auto restarted = zk_cluster_->Restart(**stored, id, note, o.start_timeout, [&](const std::string& what) {
    Log("event=cluster_waiting " + what);
  });
  if (!restarted) return std::unexpected(restarted.error());
  configuration_ = std::move(restarted->configuration);
  auto next = ParseNextRegionNote(restarted->notes[configuration_.cm]);
  if (!next) {
    return std::unexpected("cluster \"" + o.cluster_name + "\": the CM restarted without its state (machine " +
                           std::to_string(configuration_.cm) + "'s machine.state)");
  }
  return Joined{node, id, *next};
}

ProcessCluster::~ProcessCluster() { Stop(); }

void ProcessCluster::Stop() {
  if (machine_) machine_->Stop();
  if (fabric_) fabric_->Shutdown();
}

namespace {
constexpr size_t kRecoveryStateChunk = size_t{16} << 20;
}  // namespace

std::vector<std::byte> ProcessCluster::RecoveryStateReply(const Message& m) {
  ByteReader r(m.body);
  const uint64_t offset = r.U64();
  std::vector<std::byte> reply;
  ByteWriter w(&reply);
  std::lock_guard l(recovery_mu_);
  if (!recovery_state_) {
    reply.push_back(std::byte{0});
    return reply;
  }
  const std::vector<std::byte>& mine = *recovery_state_;
  reply.push_back(std::byte{1});
  w.U64(mine.size());
  const size_t from = std::min<uint64_t>(offset, mine.size());
  w.Bytes(std::span(mine).subspan(from, std::min(kRecoveryStateChunk, mine.size() - from)));
  return reply;
}

std::expected<std::vector<std::vector<std::byte>>, std::string> ProcessCluster::ExchangeRecoveryState(
    std::vector<std::byte> mine) {
  const MachineId self = machine_->id();
  std::vector<std::vector<std::byte>> all(machine_->machines());
  all[self] = mine;
  {
    std::lock_guard l(recovery_mu_);
    recovery_state_ = std::move(mine);
  }
  const auto deadline = std::chrono::steady_clock::now() + options_.start_timeout;
  for (MachineId m = 0; m < all.size(); ++m) {
    if (m == self) continue;
    auto last_report = std::chrono::steady_clock::now();
    for (;;) {
      if (std::chrono::steady_clock::now() >= deadline) {
        return std::unexpected("gave up waiting for machine " + std::to_string(m) + "'s log (RECOVERY-STATE)");
      }
      std::vector<std::byte> ask;
      ByteWriter(&ask).U64(all[m].size());
      auto reply = machine_->CallFor(m, kMsgRecoveryState, std::move(ask), std::chrono::seconds(1));
      ByteReader r(reply ? std::span<const std::byte>(*reply) : std::span<const std::byte>{});
      const bool ready = reply && !reply->empty() && (*reply)[0] == std::byte{1};
      if (ready) {
        r.Bytes(1);
        const uint64_t total = r.U64();
        auto chunk = r.Bytes(r.remaining());
        if (!r.ok() || total > (uint64_t{1} << 40) || all[m].size() + chunk.size() > total ||
            (chunk.empty() && all[m].size() < total)) {
          return std::unexpected("machine " + std::to_string(m) + " sent a malformed RECOVERY-STATE reply");
        }
        all[m].insert(all[m].end(), chunk.begin(), chunk.end());
        if (all[m].size() == total) break;
        continue;
      }
      if (std::chrono::steady_clock::now() - last_report >= std::chrono::seconds(1)) {
        last_report = std::chrono::steady_clock::now();
        Log("event=cluster_waiting recovery waits for machine " + std::to_string(m) + "'s first pass over its log");
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(reply ? 5 : 0));
    }
  }
  return all;
}

std::expected<void, std::string> ProcessCluster::PassStartBarrier() {
  return zk_cluster_->PassStartBarrier(configuration_, machine_->id(), options_.start_timeout);
}

void ProcessCluster::Log(const std::string& line) const {
  if (options_.log) {
    options_.log(line);
  } else {
    std::fprintf(stderr, "%s\n", line.c_str());
  }
}

}  // namespace farmdb::cluster
