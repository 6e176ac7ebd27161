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
// Restart: a node whose data directory says it is a member publishes its new fabric address and
// waits until every member restarted; the CM then moves the cluster to a new configuration with
// the same members (ZooKeeperCluster::Restart), the machine reopens its state and images, and
// the txn layer's recovery trades its first pass over the log with every other member's
// (ExchangeRecoveryState) before any replays. So the whole cluster restarts together: a member
// restarting alone, while the others run, waits for them (that is recovery from a failure,
// issue 39).
//
// Not yet here: joining a cluster that already formed (a node not in the first configuration
// is refused) and failure domains (each node is its own).
#pragma once

#include <chrono>
#include <expected>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

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
  // Recovery's exchange (txn::TxnEngine::RecoveryExchange): offers `mine`, this machine's first
  // pass over its log, to the others (RECOVERY-STATE, txn/FORMATS.md) and returns every
  // member's, indexed by machine id, asking each until it answers, at most the start timeout.
  std::expected<std::vector<std::vector<std::byte>>, std::string> ExchangeRecoveryState(std::vector<std::byte> mine);
  void Stop();

 private:
  ProcessCluster() = default;
  // What Start's registration found: the node's registration, machine id, and the region id
  // below which every region was committed (Machine::Open).
  struct Joined {
    std::string node;
    MachineId id;
    RegionId committed_below;
  };
  // A fresh node: registers and waits for the first configuration.
  std::expected<Joined, std::string> JoinFirst(const std::string& fabric_address);
  // A member restarting (its data directory says it is `node`, machine `id`, and its state's
  // next region id is `next_region`, the note it gives as the CM): ZooKeeperCluster::Restart.
  std::expected<Joined, std::string> Rejoin(const std::string& node, MachineId id, const std::string& fabric_address,
                                            RegionId next_region);
  void Log(const std::string& line) const;
  std::vector<std::byte> RecoveryStateReply(const Message& m);

  ProcessClusterOptions options_;
  std::unique_ptr<ZooKeeperSession> session_;
  std::unique_ptr<ZooKeeperCluster> zk_cluster_;
  ClusterSettings settings_;
  Configuration configuration_;
  SystemTimeSource system_time_;
  std::unique_ptr<SkewedTimeSource> time_;
  std::unique_ptr<TcpFabric> fabric_;
  std::unique_ptr<Machine> machine_;
  std::mutex recovery_mu_;
  std::optional<std::vector<std::byte>> recovery_state_;  // this machine's first pass; guarded by recovery_mu_
};

}  // namespace farmdb::cluster
