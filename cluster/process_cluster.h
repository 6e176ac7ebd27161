// ProcessCluster: this process's machine of a multi-process cluster, the counterpart of
// LocalCluster for `farmdb -o farmdb.zookeeper=...`. The machine talks to the others over a
// TcpFabric; membership comes from ZooKeeper (ZooKeeperCluster).
//
// Start: create or join the named cluster (its settings are the creator's), listen on the
// fabric address, register it, wait until the first configuration is formed (logging what it
// waits for), take the machine id the configuration gives this node and keep it in the data
// directory, then start the fabric and the Machine over it. The CM (machine 0) is the clock
// master; the others wait for their first clock synchronisation with it.
//
// Not yet here: joining a cluster that already formed (a node not in the first configuration
// is refused), restarting a member (its recovery needs every member's log: issue 39), and
// failure domains (each node is its own).
#pragma once

#include <chrono>
#include <expected>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include "cluster/fabric/tcp_fabric.h"
#include "cluster/machine.h"
#include "cluster/time_source.h"
#include "cluster/zookeeper_cluster.h"

namespace farmdb::cluster {

struct ProcessClusterOptions {
  std::string zookeeper;       // farmdb.zookeeper: "HOST:PORT[,HOST:PORT...][/CHROOT]"
  std::string cluster_name;    // farmdb.cluster
  std::string fabric_address;  // farmdb.fabric_address: "HOST:PORT" (port 0: any)
  ClusterSettings settings;    // what this node asks for (a creator's are the cluster's)
  std::filesystem::path data_dir;  // this node's machine files go in data_dir/m<id>
  // How long to wait for enough nodes to form the cluster, for the members' start barrier and
  // for the CM's first clock synchronisation.
  std::chrono::milliseconds start_timeout{std::chrono::hours(24)};
  std::chrono::milliseconds fabric_timeout{2000};  // TcpFabricOptions::operation_timeout
  // Added to this process's clock (tests: processes on one host read one clock, which would
  // hide synchronisation bugs), and its drift; ClockSkew says what the bound must cover.
  ClockSkew skew;
  ClockOptions clock;
  std::function<void(const std::string&)> log;  // "event=... key=value" lines; empty: stderr
};

class ProcessCluster {
 public:
  static std::expected<std::unique_ptr<ProcessCluster>, std::string> Start(ProcessClusterOptions options);
  ~ProcessCluster();  // Stop()
  ProcessCluster(const ProcessCluster&) = delete;
  ProcessCluster& operator=(const ProcessCluster&) = delete;

  Machine& machine() { return *machine_; }
  TcpFabric& fabric() { return *fabric_; }
  ZooKeeperCluster& zookeeper() { return *zk_cluster_; }
  const Configuration& configuration() const { return configuration_; }
  const ClusterSettings& settings() const { return settings_; }
  // Waits until every member passed it (ZooKeeperCluster::PassStartBarrier), at most the
  // start timeout: the txn layer calls it once its log rings are registered.
  std::expected<void, std::string> PassStartBarrier();
  void Stop();

 private:
  ProcessCluster() = default;
  void Log(const std::string& line) const;

  ProcessClusterOptions options_;
  std::unique_ptr<ZooKeeperSession> session_;
  std::unique_ptr<ZooKeeperCluster> zk_cluster_;
  ClusterSettings settings_;
  Configuration configuration_;
  SystemTimeSource system_time_;
  std::unique_ptr<SkewedTimeSource> time_;
  std::unique_ptr<TcpFabric> fabric_;
  std::unique_ptr<Machine> machine_;
};

}  // namespace farmdb::cluster
