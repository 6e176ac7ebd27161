#include "txn/test_cluster.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "txn/object.h"
#include "txn/slab.h"

namespace farmdb::txn {

cluster::LocalClusterOptions SkewedClusterOptions(uint64_t seed) {
  cluster::LocalClusterOptions co;
  co.machines = 3;
  co.replicas = 2;
  co.region_size = 8 << 20;
  co.seed = seed;
  co.sync_interval = std::chrono::microseconds(300);
  co.skews = {{0, -200}, {1'000'000, 400}, {-4'000'000, -450}};
  return co;
}

cluster::FaultPolicy DelaysAndDroppedSync() {
  cluster::FaultPolicy p;
  p.max_delay = std::chrono::microseconds(300);
  p.drop_probability = 0.3;
  p.droppable_types = {cluster::kMsgSyncRequest, cluster::kMsgSyncReply};
  return p;
}

TestCluster::TestCluster(cluster::LocalClusterOptions cluster_options, EngineOptions engine_options)
    : cluster_(std::move(cluster_options)) {
  if (!cluster_.error().empty()) {
    std::fprintf(stderr, "TestCluster: %s\n", cluster_.error().c_str());
    std::abort();
  }
  cluster_.WaitForClocks();
  std::vector<cluster::Machine*> machines;
  for (int m = 0; m < cluster_.size(); ++m) machines.push_back(&cluster_.machine(m));
  auto e = TxnEngine::OpenAll(machines, engine_options);
  if (!e) {
    std::fprintf(stderr, "TestCluster: %s\n", e.error().c_str());
    std::abort();
  }
  engines_ = std::move(*e);
}

TestCluster::~TestCluster() { engines_.clear(); }

uint64_t TestCluster::Commits() {
  uint64_t n = 0;
  for (auto& e : engines_) n += e->counters().commits.load();
  return n;
}

uint64_t TestCluster::Aborts(AbortReason r) {
  uint64_t n = 0;
  for (auto& e : engines_) n += e->counters().Aborts(r);
  return n;
}

void TestCluster::WaitQuiescent() {
  // Receivers publish their heads once idle, so this terminates once the logs stop growing.
  while (!std::ranges::all_of(engines_, [](auto& e) { return e->LogsDrained(); })) {
    std::this_thread::yield();
  }
}

std::string TestCluster::CheckReplicas() {
  WaitQuiescent();
  for (auto& e : engines_) {
    for (auto [region, index, lines] : e->Slabs()) {
      auto place = e->machine().Lookup(region);
      auto primary = cluster_.machine(place->primary).LocalReplica(region);
      for (MachineId b : place->backups) {
        auto backup = cluster_.machine(b).LocalReplica(region);
        uint64_t base = uint64_t{index} * kSlabSize + 64;
        for (uint32_t i = 0; i < SlabCapacity(lines); ++i) {
          uint64_t off = base + uint64_t{i} * lines * 64;
          if (!SameReplicaContents(primary.data() + off, backup.data() + off, lines)) {
            return "region " + std::to_string(region) + " offset " + std::to_string(off) +
                   " differs between primary " + std::to_string(place->primary) + " and backup " +
                   std::to_string(b);
          }
        }
      }
    }
  }
  return "";
}

}  // namespace farmdb::txn
