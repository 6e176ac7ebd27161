// LocalCluster: N machines in one process over a LocalFabric (the single-node server is N=1),
// or, for tests that want the protocol over real sockets, each over a TcpFabric of its own on
// loopback (Transport::kTcp), as the processes of a multi-process cluster talk. Each machine gets
// its own clock (optionally skewed and drifting within the bound), its own directory under the
// data directory, and its own threads. Two LocalClusters can live in one process: nothing here
// is global.
//
// A data directory that holds machines of an earlier run is opened again (Machine::Open): the
// machines map their regions' images and master time continues at the CM's timestamp floor, so
// every timestamp handed out from here on is above every one handed out before. What the
// transaction logs add to the images is the txn layer's recovery (TxnEngine::OpenAll).
#pragma once

#include <atomic>
#include <expected>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "cluster/fabric/local_fabric.h"
#include "cluster/fabric/tcp_fabric.h"
#include "cluster/machine.h"
#include "cluster/time_source.h"

namespace farmdb::cluster {

struct LocalClusterOptions {
  int machines = 1;
  int replicas = 0;  // f, clamped to machines - 1
  std::filesystem::path data_dir;  // empty: a fresh temporary directory, removed on destruction
  Files* files = nullptr;          // null: PosixFiles()
  bool verify_images = false;      // MachineOptions::verify_images
  uint64_t region_size = 64ull << 20;
  ClockOptions clock;
  std::chrono::microseconds sync_interval{500};
  std::chrono::microseconds gc_interval{5000};  // MachineOptions::gc_interval
  std::chrono::milliseconds lease = kDefaultLease;  // MachineOptions::lease
  std::function<void(const std::string&)> log;     // MachineOptions::log
  std::vector<ClockSkew> skews;  // per machine; missing entries mean none
  uint64_t seed = 1;
  // kTcp: every machine on a TcpFabric of its own on 127.0.0.1; the LocalFabric's fault
  // injection (fabric()) then does not apply.
  enum class Transport { kLocal, kTcp };
  Transport transport = Transport::kLocal;
};

class LocalCluster {
 public:
  explicit LocalCluster(LocalClusterOptions options);
  ~LocalCluster();
  LocalCluster(const LocalCluster&) = delete;
  LocalCluster& operator=(const LocalCluster&) = delete;

  // Why the machines could not be opened (a damaged or foreign data directory); empty if they
  // were, and then they run. REQUIRES: no other method is called when it is not empty.
  const std::string& error() const { return error_; }
  // True if the data directory held machines of an earlier run.
  bool Reopened() const { return machines_[0]->Reopened(); }
  int size() const { return static_cast<int>(machines_.size()); }
  Machine& machine(MachineId id) { return *machines_[id]; }
  // REQUIRES: options' transport kLocal.
  LocalFabric& fabric() { return fabric_; }
  SkewedTimeSource& time_source(MachineId id) { return *times_[id]; }
  const std::filesystem::path& data_dir() const { return data_dir_; }
  // Blocks until every machine's clock is enabled (synchronised with the CM at least once) and
  // it holds its lease (Machine::WaitUntilServing).
  void WaitUntilServing();
  void Stop();

 private:
  std::expected<void, std::string> StartTcpFabrics();

  LocalClusterOptions options_;
  std::filesystem::path data_dir_;
  bool owns_dir_ = false;
  SystemTimeSource system_time_;
  std::vector<std::unique_ptr<SkewedTimeSource>> times_;
  LocalFabric fabric_;
  std::vector<std::unique_ptr<TcpFabric>> tcp_fabrics_;  // transport kTcp, by machine
  std::atomic<bool> stopping_{false};
  std::vector<std::unique_ptr<Machine>> machines_;
  std::string error_;
};

}  // namespace farmdb::cluster
