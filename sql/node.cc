#include "sql/node.h"

#include <chrono>
#include <thread>

#include "cluster/local_cluster.h"
#include "cluster/process_cluster.h"
#include "storage/catalog.h"
#include "txn/engine.h"
#include "txn/slab.h"

namespace farmdb::sql {

// The machines under the node: an in-process cluster, or this process's machine of a
// multi-process one. Exactly one of the two is set.
struct Node::Cluster {
  std::unique_ptr<cluster::LocalCluster> local;
  std::unique_ptr<cluster::ProcessCluster> process;
};

// One machine's engine and caches. Members are destroyed bottom-up: the caches (the
// SequenceCache holds a Worker of the engine) before the engine.
struct Node::Machine {
  std::unique_ptr<txn::TxnEngine> engine;
  storage::BTreeCache tables;  // user tables' internal B-tree nodes
  storage::HashDirectoryCache hash_directories;  // user tables' hash index directories
  std::unique_ptr<storage::SequenceCache> sequences;
  std::unique_ptr<storage::CatalogCache> catalog;
};

std::expected<std::shared_ptr<Node>, std::string> Node::Start(NodeOptions options) {
  std::shared_ptr<Node> node(new Node());
  node->cluster_ = std::make_unique<Cluster>();
  std::vector<cluster::Machine*> machines;
  txn::TxnEngine::AttachedHook attached;
  txn::TxnEngine::RecoveryExchange exchange;
  if (options.membership) {
    const ClusterMembership& m = *options.membership;
    cluster::ProcessClusterOptions po;
    po.zookeeper = m.zookeeper;
    po.cluster_name = m.cluster_name;
    po.fabric_address = m.fabric_address;
    po.settings = {.replicas = m.replicas, .region_size = options.region_size, .log_size = options.log_size,
                   .lease = options.lease, .secret = m.secret};
    po.skew.offset_ns = m.clock_offset_ns;
    po.log = options.log;
    if (options.data_dir.empty()) return std::unexpected("a member of a multi-process cluster needs a data directory");
    po.data_dir = options.data_dir / "cluster";
    auto pc = cluster::ProcessCluster::Start(std::move(po));
    if (!pc) return std::unexpected(pc.error());
    node->cluster_->process = std::move(*pc);
    machines.push_back(&node->cluster_->process->machine());
    attached = [pc = node->cluster_->process.get()] { return pc->PassStartBarrier(); };
    exchange = [pc = node->cluster_->process.get()](std::vector<std::byte> mine) {
      return pc->ExchangeRecoveryState(std::move(mine));
    };
  } else {
    if (options.machines < 1) return std::unexpected("farmdb.machines must be at least 1");
    cluster::LocalClusterOptions co;
    co.machines = options.machines;
    co.replicas = std::min(2, options.machines - 1);
    co.region_size = options.region_size;
    co.verify_images = options.verify_images;
    co.lease = options.lease;
    co.log = options.log;
    if (!options.data_dir.empty()) co.data_dir = options.data_dir / "cluster";
    node->cluster_->local = std::make_unique<cluster::LocalCluster>(std::move(co));
    cluster::LocalCluster& lc = *node->cluster_->local;
    if (!lc.error().empty()) return std::unexpected(lc.error());
    lc.WaitUntilServing();
    for (int m = 0; m < lc.size(); ++m) machines.push_back(&lc.machine(static_cast<cluster::MachineId>(m)));
  }
  txn::EngineOptions engine_options;
  engine_options.log_size = options.log_size;
  engine_options.log = options.log;
  auto engines = txn::TxnEngine::OpenAll(machines, engine_options, attached, exchange);
  if (!engines) return std::unexpected(engines.error());
  for (auto& engine : *engines) {
    auto machine = std::make_unique<Machine>();
    machine->engine = std::move(engine);
    machine->sequences = std::make_unique<storage::SequenceCache>(*machine->engine);
    machine->catalog = std::make_unique<storage::CatalogCache>(
        storage::TableCaches{&machine->tables, machine->sequences.get(), &machine->hash_directories});
    node->machines_.push_back(std::move(machine));
  }

  if (cluster::ProcessCluster* pc = node->cluster_->process.get()) {
    if (!pc->machine().IsCm()) {
      auto root = pc->zookeeper().WaitForCatalogRoot(std::chrono::minutes(5));
      if (!root) return std::unexpected(root.error());
      node->catalog_root_ = *root;
      return node;
    }
  }
  // The catalog of an earlier run; none yet, or the first run stopped before its bootstrap
  // committed: bootstrap it.
  cluster::Machine& cm = *machines[0];  // this node's CM
  if (uint64_t root = cm.State().root_object) {
    node->catalog_root_ = root;
    if (cluster::ProcessCluster* pc = node->cluster_->process.get()) {
      // Again, in case the first run stopped before it published it.
      if (auto published = pc->zookeeper().PublishCatalogRoot(root); !published) return std::unexpected(published.error());
    }
    return node;
  }
  // Bootstrap the catalog on machine 0, retrying conflicts (none are expected with no sessions
  // yet, but aborts such as kLockedOnRead are legal for any transaction).
  auto worker = node->NewWorker(0);
  if (!worker) return std::unexpected("no worker for the catalog bootstrap");
  for (int attempt = 0;; ++attempt) {
    auto t = worker->Begin({});
    if (!t) return std::unexpected("catalog bootstrap: could not begin a transaction");
    const storage::BootstrapOptions bootstrap;
    auto catalog = storage::Catalog::Bootstrap(**t, bootstrap, node->machines_[0]->catalog.get());
    for (size_t r = 0; catalog && r < options.roles.size(); ++r) {
      if (options.roles[r].rolname == bootstrap.superuser) continue;  // Bootstrap made it
      if (auto created = catalog->CreateRole(**t, options.roles[r]); !created) catalog = std::unexpected(created.error());
    }
    if (catalog) {
      auto committed = (*t)->Commit();
      if (committed) {
        node->catalog_root_ = catalog->root().raw;
        break;
      }
      if (!committed.error().IsRetryable() || attempt >= 100) {
        return std::unexpected("catalog bootstrap: commit failed");
      }
    } else {
      (*t)->Abort();
      if (!catalog.error().IsRetryable() || attempt >= 100) {
        return std::unexpected("catalog bootstrap failed: " + catalog.error().error.message);
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  worker->FlushTruncations();
  // The bootstrap's commit is durable (synchronous): only then may the state name its root.
  if (auto stored = cm.UpdateState([&](cluster::MachineState& s) { s.root_object = node->catalog_root_; }); !stored) {
    return std::unexpected("catalog bootstrap: " + stored.error().message);
  }
  if (cluster::ProcessCluster* pc = node->cluster_->process.get()) {
    if (auto published = pc->zookeeper().PublishCatalogRoot(node->catalog_root_); !published) {
      return std::unexpected("catalog bootstrap: " + published.error());
    }
  }
  return node;
}

std::expected<void, std::string> Node::PublishSqlAddress(const std::string& address) {
  cluster::ProcessCluster* pc = cluster_->process.get();
  if (!pc) return {};
  return pc->zookeeper().PublishSqlAddress(pc->machine().id(), address);
}

Node::~Node() {
  machines_.clear();  // caches, then each engine
  cluster_.reset();   // machines' threads and the fabric
}

std::expected<void, Node::CheckpointError> Node::Checkpoint() {
  for (auto& m : machines_) {
    if (auto done = m->engine->Checkpoint(); !done) {
      return std::unexpected(CheckpointError{done.error().find("No space left") != std::string::npos, done.error()});
    }
  }
  return {};
}

int Node::machines() const { return static_cast<int>(machines_.size()); }

int Node::NextMachine() {
  return static_cast<int>(next_machine_.fetch_add(1, std::memory_order_relaxed) % machines_.size());
}

std::unique_ptr<txn::Worker> Node::NewWorker(int machine) { return machines_[machine]->engine->NewWorker(); }

storage::Catalog Node::Catalog(int machine) const {
  return storage::Catalog::Open(txn::Addr{catalog_root_}, machines_[machine]->catalog.get());
}

storage::TableCaches Node::Caches(int machine) const {
  Machine& m = *machines_[machine];
  return {&m.tables, m.sequences.get(), &m.hash_directories};
}

std::vector<MachineStats> Node::MachineStatistics() const {
  std::optional<cluster::TcpFabricStats> fabric;
  if (cluster_->process) fabric = cluster_->process->fabric().Stats();
  std::vector<MachineStats> out;
  for (const auto& m : machines_) {
    cluster::Machine& machine = m->engine->machine();
    const txn::TxnCounters& c = m->engine->counters();
    MachineStats s;
    s.machine = machine.id();
    s.is_cm = machine.IsCm();
    s.configuration = machine.State().configuration;
    s.machines = static_cast<uint32_t>(machine.machines());
    s.commits = c.commits.load();
    s.read_only_commits = c.read_only_commits.load();
    for (size_t r = 0; r < static_cast<size_t>(txn::AbortReason::kCount); ++r) {
      const uint64_t n = c.aborts[r].load();
      s.aborts += n;
      s.aborts_by_reason.emplace_back(txn::AbortReasonName(static_cast<txn::AbortReason>(r)), n);
    }
    if (auto now = machine.clock().TryNow()) s.clock_uncertainty_ns = static_cast<int64_t>(now->upper - now->lower);
    s.lease_ms = std::chrono::duration<double, std::milli>(machine.leases().lease()).count();
    s.lease_held = machine.LeaseHeld();
    s.suspicions = machine.Suspicions();
    if (fabric) {
      s.fabric_frames_out = fabric->frames_out;
      s.fabric_bytes_out = fabric->bytes_out;
      s.fabric_system_calls = fabric->SystemCalls();
    }
    out.push_back(s);
  }
  return out;
}

std::vector<PeerStats> Node::PeerStatistics() const {
  std::vector<PeerStats> out;
  const auto ms = [](std::chrono::nanoseconds d) { return std::chrono::duration<double, std::milli>(d).count(); };
  for (const auto& m : machines_) {
    cluster::Machine& machine = m->engine->machine();
    const cluster::LeaseTable& leases = machine.leases();
    for (cluster::MachineId peer = 0; peer < static_cast<cluster::MachineId>(machine.machines()); ++peer) {
      if (peer == machine.id()) continue;
      const int64_t now = machine.clock().LocalNanos();
      PeerStats p;
      p.machine = machine.id();
      p.peer = peer;
      if (auto since = machine.SinceHeard(peer)) p.heard_ms_ago = ms(*since);
      if (auto left = leases.HeldFor(peer, now)) {
        p.lease_left_ms = ms(*left);
        p.longest_renewal_gap_ms = ms(leases.LongestRenewalGap(peer));
      }
      p.suspected = leases.Suspects(peer, now);
      out.push_back(p);
    }
  }
  return out;
}

std::vector<RegionStats> Node::RegionStatistics() const {
  std::vector<RegionStats> out;
  for (const auto& m : machines_) {
    cluster::Machine& machine = m->engine->machine();
    for (const cluster::RegionPlacement& p : machine.LocalRegions()) {
      RegionStats r{p.id, p.size, p.primary, {}, machine.id(), txn::ReplicaDigest(machine.LocalReplica(p.id))};
      r.backups.assign(p.backups.begin(), p.backups.end());
      out.push_back(std::move(r));
    }
  }
  return out;
}

}  // namespace farmdb::sql
