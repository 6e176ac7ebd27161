// storage_bench: throughput of the two indexes on one coordinator thread (per core), on 1 machine
// and on 3 machines (f = 2), and the object reads each operation costs (txn::TxnCounters local and
// remote reads of the coordinator's engine). Not a test: results in RESULTS.md beside this file.
//
//   build/<release dir>/storage/bench/storage_bench [--keys N] [--seconds S]
//
// Per index kind and cluster size:
//   insert   one insert per transaction, N keys in random order; coordinators rotate over the
//            machines so nodes and buckets spread over all of them (a Txn allocates locally)
//   lookup   one lookup of a present key per read-only transaction, from the last machine (a
//            non-CM on 3 machines); warm caches; also without the cache (reads per op before/after)
//   scan     B-tree only: a forward scan of 100 keys from a random start per read-only transaction
// Keys are 12 bytes ("k" + 11 digits), values 8 bytes (a row Addr), as in a table's index.
// LocalCluster's fabric and engine threads share the machine's cores with the coordinator, and
// every "machine" lives in this one process: numbers compare configurations, not hardware.
// Inserts commit without waiting for the log's sync (as with synchronous_commit=off), so they
// measure the index, not the disk.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "storage/btree.h"
#include "storage/hash_index.h"
#include "txn/test_cluster.h"

namespace farmdb::storage {
namespace {

using Clock = std::chrono::steady_clock;

cluster::LocalClusterOptions ClusterOptions(int machines) {
  cluster::LocalClusterOptions o;
  o.machines = machines;
  o.replicas = machines - 1;
  o.region_size = 64 << 20;
  return o;
}

std::string Key(uint64_t i) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "k%011llu", static_cast<unsigned long long>(i));
  return buf;
}

struct Result {
  double ops_per_s = 0;
  double local_reads = 0, remote_reads = 0;  // per op
  uint64_t aborts = 0;
};

// Runs fn(i) (one transaction each, true = committed) for `seconds` on `engine`'s counters.
Result Measure(txn::TxnEngine& engine, double seconds, uint64_t per_op_items,
               const std::function<bool(uint64_t)>& fn) {
  auto& k = engine.counters();
  uint64_t local0 = k.local_reads.load(), remote0 = k.remote_reads.load();
  uint64_t done = 0, aborts = 0;
  auto start = Clock::now();
  auto deadline = start + std::chrono::duration<double>(seconds);
  while (Clock::now() < deadline) {
    for (int i = 0; i < 64; ++i) fn(done) ? ++done : ++aborts;
  }
  double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  Result r;
  r.ops_per_s = done * per_op_items / elapsed;
  r.local_reads = double(k.local_reads.load() - local0) / (done + aborts);
  r.remote_reads = double(k.remote_reads.load() - remote0) / (done + aborts);
  r.aborts = aborts;
  return r;
}

void Print(const char* index, int machines, const char* op, const Result& r, const char* unit) {
  std::printf("| %-6s | %d | %-22s | %10.0f %-6s | %5.2f | %5.2f | %llu |\n", index, machines, op,
              r.ops_per_s, unit, r.local_reads, r.remote_reads,
              static_cast<unsigned long long>(r.aborts));
  std::fflush(stdout);
}

template <typename Index>
void Run(const char* name, int machines, uint64_t keys, double seconds,
         const std::function<Index(txn::Txn&, int)>& create,
         const std::function<Index(Index, int machine, bool cached)>& open) {
  txn::TestCluster c(ClusterOptions(machines), {});
  std::vector<std::unique_ptr<txn::Worker>> workers;
  for (int m = 0; m < machines; ++m) workers.push_back(c.engine(m).NewWorker());
  Index created = [&] {
    auto t = *workers[0]->Begin({});
    Index ix = create(*t, 0);
    if (!t->Commit()) std::abort();
    return ix;
  }();
  std::vector<uint64_t> order(keys);
  for (uint64_t i = 0; i < keys; ++i) order[i] = i;
  std::mt19937_64 rng(1);
  std::shuffle(order.begin(), order.end(), rng);
  std::string value(8, 'v');

  // Insert: every key once, coordinators rotating; reads counted on all engines.
  {
    uint64_t local0 = 0, remote0 = 0;
    for (int m = 0; m < machines; ++m) {
      local0 += c.engine(m).counters().local_reads, remote0 += c.engine(m).counters().remote_reads;
    }
    uint64_t aborts = 0;
    auto start = Clock::now();
    for (uint64_t n = 0; n < keys;) {
      int m = n % machines;
      Index ix = open(created, m, true);
      auto t = *workers[m]->Begin({});
      t->SetSyncCommit(false);
      auto r = ix.Insert(*t, Key(order[n]), value);
      if (r && t->Commit()) {
        ++n;
      } else if (!r && !r.error().IsRetryable()) {
        std::fprintf(stderr, "insert failed\n");
        std::abort();
      } else {
        ++aborts;
      }
    }
    double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    uint64_t local = 0, remote = 0;
    for (int m = 0; m < machines; ++m) {
      local += c.engine(m).counters().local_reads, remote += c.engine(m).counters().remote_reads;
    }
    Result r{keys / elapsed, double(local - local0) / (keys + aborts),
             double(remote - remote0) / (keys + aborts), aborts};
    Print(name, machines, "insert (1/txn)", r, "ops/s");
  }

  const int me = machines - 1;
  txn::Worker& w = *workers[me];
  txn::TxnOptions ro;
  ro.read_only = true;
  auto lookup = [&](const Index& ix) {
    return [&, ix](uint64_t) {
      auto t = *w.Begin(ro);
      auto v = ix.Lookup(*t, Key(rng() % keys));
      if (!v || v->size() != 1) {
        if (v || !v.error().IsRetryable()) std::abort();
        return false;
      }
      return t->Commit().has_value();
    };
  };
  // Warm the cache with one pass, then measure.
  Index cached = open(created, me, true);
  for (uint64_t i = 0; i < keys; i += 1) lookup(cached)(0);
  Print(name, machines, "lookup (1/txn), cache", Measure(c.engine(me), seconds, 1, lookup(cached)),
        "ops/s");
  Print(name, machines, "lookup (1/txn), no cache",
        Measure(c.engine(me), seconds, 1, lookup(open(created, me, false))), "ops/s");
  if constexpr (std::is_same_v<Index, BTree>) {
    auto scan = [&](uint64_t) {
      auto t = *w.Begin(ro);
      auto it = cached.Scan(*t, KeyBound{Key(rng() % (keys - 100)), true}, std::nullopt,
                            ScanDirection::kForward);
      if (!it) return false;
      for (int i = 0; i < 100; ++i) {
        auto more = (*it)->Next();
        if (!more) return false;
        if (!*more) std::abort();
      }
      return t->Commit().has_value();
    };
    Print(name, machines, "scan 100 keys (1/txn)", Measure(c.engine(me), seconds, 100, scan),
          "keys/s");
  }
  for (auto& wk : workers) wk->FlushTruncations();
}

}  // namespace
}  // namespace farmdb::storage

int main(int argc, char** argv) {
  using namespace farmdb::storage;
  uint64_t keys = 100000;
  double seconds = 2;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--keys") == 0) keys = std::strtoull(argv[i + 1], nullptr, 10);
    if (std::strcmp(argv[i], "--seconds") == 0) seconds = std::strtod(argv[i + 1], nullptr);
  }
  std::printf("keys=%llu seconds=%.1f\n\n", static_cast<unsigned long long>(keys), seconds);
  std::printf("| index | machines | operation | throughput (1 thread) | local reads/op | "
              "remote reads/op | aborts |\n|---|---|---|---|---|---|---|\n");
  for (int machines : {1, 3}) {
    std::vector<std::unique_ptr<BTreeCache>> caches;
    for (int m = 0; m < machines; ++m) caches.push_back(std::make_unique<BTreeCache>());
    Run<BTree>(
        "btree", machines, keys, seconds,
        [&](farmdb::txn::Txn& t, int m) { return *BTree::Create(t, {}, caches[m].get()); },
        [&](BTree ix, int m, bool cached) {
          return BTree::Open(ix.root(), cached ? caches[m].get() : nullptr);
        });
    std::vector<std::unique_ptr<HashDirectoryCache>> dirs;
    for (int m = 0; m < machines; ++m) dirs.push_back(std::make_unique<HashDirectoryCache>());
    Run<HashIndex>(
        "hash", machines, keys, seconds,
        [&](farmdb::txn::Txn& t, int m) { return *HashIndex::Create(t, {}, dirs[m].get()); },
        [&](HashIndex ix, int m, bool cached) {
          return HashIndex::Open(ix.root(), cached ? dirs[m].get() : nullptr);
        });
  }
  return 0;
}
