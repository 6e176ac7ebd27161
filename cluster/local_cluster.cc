#include "cluster/local_cluster.h"

#include <stdlib.h>

#include <cstdio>
#include <thread>

namespace farmdb::cluster {

namespace {
std::filesystem::path MakeTempDir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "farmdb-cluster-XXXXXX").string();
  char* dir = ::mkdtemp(tmpl.data());
  return dir ? std::filesystem::path(dir) : std::filesystem::path(tmpl);
}
}  // namespace

LocalCluster::LocalCluster(LocalClusterOptions options)
    : options_(std::move(options)), fabric_(options_.machines, options_.seed) {
  data_dir_ = options_.data_dir;
  if (data_dir_.empty()) {
    data_dir_ = MakeTempDir();
    owns_dir_ = true;
  }
  // Master time starts well above zero, so timestamp 0 means "before everything", or at the
  // floor an earlier run left, which is above every timestamp it handed out.
  Files& files = options_.files ? *options_.files : PosixFiles();
  int64_t origin = 1'000'000'000;
  auto cm_state = LoadMachineState(files, data_dir_ / "m0" / "machine.state");
  if (!cm_state) {
    error_ = cm_state.error();
  } else if (*cm_state) {
    origin = static_cast<int64_t>((*cm_state)->time_floor);
  }
  for (int i = 0; i < options_.machines; ++i) {
    ClockSkew skew = i < static_cast<int>(options_.skews.size()) ? options_.skews[i] : ClockSkew{};
    times_.push_back(std::make_unique<SkewedTimeSource>(&system_time_, origin + skew.offset_ns, skew.drift_ppm));
  }
  MachineOptions mo;
  mo.data_dir = data_dir_;
  mo.files = &files;
  mo.verify_images = options_.verify_images;
  mo.region_size = options_.region_size;
  mo.replicas = std::min(options_.replicas, options_.machines - 1);
  mo.clock = options_.clock;
  mo.sync_interval = options_.sync_interval;
  mo.gc_interval = options_.gc_interval;
  mo.lease = options_.lease;
  mo.log = options_.log;
  if (options_.transport == LocalClusterOptions::Transport::kTcp) {
    if (auto started = StartTcpFabrics(); !started) {
      error_ = started.error();
      return;
    }
  }
  for (int i = 0; i < options_.machines; ++i) {
    MachineId id = static_cast<MachineId>(i);
    Fabric* fabric = tcp_fabrics_.empty() ? static_cast<Fabric*>(&fabric_) : tcp_fabrics_[i].get();
    machines_.push_back(std::make_unique<Machine>(id, options_.machines, fabric, times_[i].get(), mo,
                                                  [this, id] { return fabric_.IsPaused(id); }));
  }
  if (!error_.empty()) return;
  // All machines have state from an earlier run, or none does: machine 0 says which.
  const bool reopening = cm_state->has_value();
  const RegionId committed_below = reopening ? (*cm_state)->next_region : RegionId{1};
  for (auto& m : machines_) {
    if (auto opened = m->Open(reopening, committed_below); !opened) {
      error_ = opened.error();
      return;
    }
  }
  for (auto& m : machines_) m->Start();
}

std::expected<void, std::string> LocalCluster::StartTcpFabrics() {
  for (int i = 0; i < options_.machines; ++i) {
    TcpFabricOptions fo;
    fo.self = static_cast<MachineId>(i);
    fo.machines = options_.machines;
    fo.listen_address = "127.0.0.1:0";
    fo.cluster_name = "local";
    fo.secret = "a local cluster over loopback";
    // Connections that close while the cluster stops are no news.
    fo.log = [this](const std::string& line) {
      if (!stopping_.load()) std::fprintf(stderr, "%s\n", line.c_str());
    };
    auto fabric = TcpFabric::Start(std::move(fo));
    if (!fabric) return std::unexpected("tcp fabric: " + fabric.error());
    tcp_fabrics_.push_back(std::move(*fabric));
  }
  for (auto& from : tcp_fabrics_) {
    for (MachineId to = 0; to < tcp_fabrics_.size(); ++to) {
      if (from.get() == tcp_fabrics_[to].get()) continue;
      if (auto set = from->SetPeerAddress(to, tcp_fabrics_[to]->address()); !set) return std::unexpected(set.error());
    }
  }
  return {};
}

LocalCluster::~LocalCluster() {
  Stop();
  machines_.clear();
  if (owns_dir_) {
    std::error_code ec;
    std::filesystem::remove_all(data_dir_, ec);
  }
}

void LocalCluster::Stop() {
  stopping_.store(true);
  for (auto& m : machines_) m->Stop();
  fabric_.Shutdown();
  for (auto& f : tcp_fabrics_) f->Shutdown();
}

void LocalCluster::WaitUntilServing() {
  for (auto& m : machines_) (void)m->WaitUntilServing(std::chrono::steady_clock::time_point::max());
}

}  // namespace farmdb::cluster
