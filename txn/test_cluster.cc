#include "txn/test_cluster.h"

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <optional>
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

namespace {

// OpenAll apart: one call per machine, on threads of their own, meeting in memory.
std::expected<std::vector<std::unique_ptr<TxnEngine>>, std::string> OpenApart(
    std::span<cluster::Machine* const> machines, const EngineOptions& options) {
  const size_t n = machines.size();
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::optional<std::vector<std::byte>>> passes(n);
  size_t attached = 0;
  bool failed = false;  // a call failed: the others stop waiting
  std::vector<std::expected<std::vector<std::unique_ptr<TxnEngine>>, std::string>> opened(n);
  std::vector<std::thread> threads;
  for (size_t m = 0; m < n; ++m) {
    threads.emplace_back([&, m] {
      auto exchange = [&](std::vector<std::byte> mine) -> std::expected<std::vector<std::vector<std::byte>>, std::string> {
        std::unique_lock l(mu);
        passes[m] = std::move(mine);
        cv.notify_all();
        cv.wait(l, [&] { return failed || std::ranges::all_of(passes, [](auto& p) { return p.has_value(); }); });
        if (failed) return std::unexpected("another machine failed to open");
        std::vector<std::vector<std::byte>> all;
        for (auto& p : passes) all.push_back(*p);
        return all;
      };
      auto barrier = [&]() -> std::expected<void, std::string> {
        std::unique_lock l(mu);
        ++attached;
        cv.notify_all();
        cv.wait(l, [&] { return failed || attached == n; });
        if (failed) return std::unexpected("another machine failed to open");
        return {};
      };
      opened[m] = TxnEngine::OpenAll(machines.subspan(m, 1), options, barrier, exchange);
      if (!opened[m]) {
        std::lock_guard l(mu);
        failed = true;
        cv.notify_all();
      }
    });
  }
  for (auto& t : threads) t.join();
  std::vector<std::unique_ptr<TxnEngine>> engines;
  for (auto& o : opened) {
    if (!o) return std::unexpected(o.error());
    engines.push_back(std::move(o->front()));
  }
  return engines;
}

}  // namespace

TestCluster::TestCluster(cluster::LocalClusterOptions cluster_options, EngineOptions engine_options, Open open)
    : cluster_(std::move(cluster_options)) {
  if (!cluster_.error().empty()) {
    std::fprintf(stderr, "TestCluster: %s\n", cluster_.error().c_str());
    std::abort();
  }
  cluster_.WaitUntilServing();
  std::vector<cluster::Machine*> machines;
  for (int m = 0; m < cluster_.size(); ++m) machines.push_back(&cluster_.machine(m));
  auto e = open == Open::kTogether ? TxnEngine::OpenAll(machines, engine_options) : OpenApart(machines, engine_options);
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
