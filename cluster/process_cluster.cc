#include "cluster/process_cluster.h"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <thread>

namespace farmdb::cluster {

namespace {

// The file in the data directory that names the cluster and machine this node became.
std::filesystem::path MemberFile(const std::filesystem::path& data_dir) { return data_dir / "member"; }

}  // namespace

std::expected<std::unique_ptr<ProcessCluster>, std::string> ProcessCluster::Start(ProcessClusterOptions options) {
  if (options.cluster_name.empty()) return std::unexpected("farmdb.zookeeper needs farmdb.cluster, the cluster's name");
  if (options.fabric_address.empty()) {
    return std::unexpected("farmdb.zookeeper needs farmdb.fabric_address, where the other nodes reach this one");
  }
  if (std::filesystem::exists(MemberFile(options.data_dir))) {
    std::ifstream in(MemberFile(options.data_dir));
    std::string was((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return std::unexpected(MemberFile(options.data_dir).string() + " says this node was a member already (" + was +
                           "); restarting a member of a multi-process cluster is not supported yet: its "
                           "recovery needs every member's log");
  }
  std::unique_ptr<ProcessCluster> pc(new ProcessCluster());
  pc->options_ = std::move(options);
  const ProcessClusterOptions& o = pc->options_;

  auto session = ZooKeeperSession::Connect({.hosts = o.zookeeper});
  if (!session) return std::unexpected(session.error().message);
  pc->session_ = std::move(*session);
  pc->zk_cluster_ = std::make_unique<ZooKeeperCluster>(pc->session_.get(), o.cluster_name);
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
  auto node = pc->zk_cluster_->Register(fabric_address);
  if (!node) return std::unexpected(node.error());
  pc->Log("event=cluster_registered cluster=" + o.cluster_name + " node=" + *node + " fabric=" + fabric_address);
  auto configuration = pc->zk_cluster_->FormOrRead(pc->settings_.replicas, o.start_timeout, [&](const std::string& what) {
    pc->Log("event=cluster_waiting " + what);
  });
  if (!configuration) return std::unexpected(configuration.error());
  pc->configuration_ = std::move(*configuration);
  const Configuration& c = pc->configuration_;
  auto self = std::find_if(c.members.begin(), c.members.end(), [&](auto& m) { return m.node == *node; });
  if (self == c.members.end()) {
    return std::unexpected("cluster \"" + o.cluster_name + "\" formed without this node (" + *node +
                           "); joining a cluster that has formed is not supported yet");
  }
  const MachineId id = self->machine;
  auto addresses = pc->zk_cluster_->FabricAddresses(c);
  if (!addresses) return std::unexpected(addresses.error());
  std::filesystem::create_directories(o.data_dir);
  {
    std::ofstream member(MemberFile(o.data_dir));
    member << "cluster " << o.cluster_name << " node " << *node << " machine " << id << "\n";
    if (!member.flush()) {
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

  // Master time starts well above zero, so timestamp 0 means "before everything" (LocalCluster).
  constexpr int64_t kOrigin = 1'000'000'000;
  pc->time_ = std::make_unique<SkewedTimeSource>(&pc->system_time_, kOrigin + o.skew.offset_ns, o.skew.drift_ppm);
  MachineOptions mo;
  mo.data_dir = o.data_dir;
  mo.region_size = pc->settings_.region_size;
  mo.replicas = std::min(pc->settings_.replicas, static_cast<int>(addresses->size())) - 1;
  mo.clock = o.clock;
  pc->machine_ = std::make_unique<Machine>(id, static_cast<int>(addresses->size()), pc->fabric_.get(), pc->time_.get(),
                                           mo, [] { return false; });
  if (auto opened = pc->machine_->Open(/*reopening=*/false, RegionId{1}); !opened) return std::unexpected(opened.error());
  pc->machine_->Start();
  pc->Log("event=cluster_member cluster=" + o.cluster_name + " machine=" + std::to_string(id) +
          " machines=" + std::to_string(addresses->size()) + " configuration=" + std::to_string(c.id));
  auto deadline = std::chrono::steady_clock::now() + o.start_timeout;
  while (!pc->machine_->clock().TryNow()) {
    if (std::chrono::steady_clock::now() >= deadline) {
      return std::unexpected("no clock synchronisation with the CM (machine 0) within the start timeout");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return pc;
}

ProcessCluster::~ProcessCluster() { Stop(); }

void ProcessCluster::Stop() {
  if (machine_) machine_->Stop();
  if (fabric_) fabric_->Shutdown();
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
