// Committed transactions per second on one coordinator thread (per core), for read-only
// 4-object and 2-read/2-write transactions, on 1 machine and on 3 machines with f = 2, under
// strict serializable, snapshot isolation and non-strict serializable. Objects are spread over
// all machines, chosen uniformly from 1000 (low contention). The coordinator runs on the last
// machine (a non-CM when there are 3). Commits do not wait for the log's sync (as with
// synchronous_commit=off): the figures are the protocol's, not the disk's. Results: RESULTS.md
// beside this file.
//
//   build/<dir>/txn/txn_bench --benchmark_min_time=2

#include <benchmark/benchmark.h>

#include <cstring>

#include "cluster/rng.h"
#include "txn/test_cluster.h"

namespace farmdb::txn {
namespace {

constexpr int kObjects = 1000;

struct Bench {
  explicit Bench(int machines) : cluster(Options(machines), {}) {
    for (int m = 0; m < machines; ++m) {
      auto w = cluster.engine(m).NewWorker();
      auto t = *w->Begin({});
      for (int i = m; i < kObjects; i += machines) objects.push_back(*t->Alloc(8));
      if (!t->Commit()) std::abort();
    }
  }
  static cluster::LocalClusterOptions Options(int machines) {
    cluster::LocalClusterOptions o;
    o.machines = machines;
    o.replicas = machines - 1;
    o.region_size = 16 << 20;
    return o;
  }
  TestCluster cluster;
  std::vector<Addr> objects;
};

enum Mode { kStrictSer, kSnapshot, kNonStrictSer };

TxnOptions OptionsFor(Mode mode, bool read_only) {
  TxnOptions o;
  o.read_only = read_only;
  if (mode == kSnapshot) o.isolation = Isolation::kSnapshot;
  if (mode == kNonStrictSer) o.strict = false;
  return o;
}

// The measured loop, apart from the setup so that instruction counts can cover it alone:
//   valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*MeasuredLoop*' ...
[[gnu::noinline]] void MeasuredLoop(benchmark::State& state, Bench& b, Worker* w, Mode mode,
                                    bool read_only) {
  cluster::Rng rng(1);
  uint64_t commits = 0, aborts = 0;
  std::vector<std::byte> value(8, std::byte{1});
  for (auto _ : state) {
    auto t = *w->Begin(OptionsFor(mode, read_only));
    t->SetSyncCommit(false);
    bool ok = true;
    for (int i = 0; i < 4 && ok; ++i) {
      Addr a = b.objects[rng.Uniform(b.objects.size())];
      ok = t->Read(a).has_value();
      if (ok && !read_only && i >= 2) ok = t->Write(a, value).has_value();
    }
    if (ok && t->Commit()) {
      ++commits;
    } else {
      ++aborts;
    }
  }
  state.counters["committed_txn/s"] = benchmark::Counter(double(commits), benchmark::Counter::kIsRate);
  state.counters["aborts"] = double(aborts);
}

void Run(benchmark::State& state, bool read_only) {
  const int machines = static_cast<int>(state.range(0));
  Bench b(machines);
  // On 3 machines the coordinator is a non-CM, so it pays real clock uncertainty.
  auto w = b.cluster.engine(machines - 1).NewWorker();
  MeasuredLoop(state, b, w.get(), static_cast<Mode>(state.range(1)), read_only);
}

void ArgsAll(benchmark::internal::Benchmark* b) {
  b->ArgNames({"machines", "mode(0=strict,1=si,2=nonstrict)"});
  for (int m : {1, 3}) {
    for (int mode : {kStrictSer, kSnapshot, kNonStrictSer}) b->Args({m, mode});
  }
  b->UseRealTime();
}

void BM_ReadOnly4(benchmark::State& s) { Run(s, true); }
void BM_Read2Write2(benchmark::State& s) { Run(s, false); }
BENCHMARK(BM_ReadOnly4)->Apply(ArgsAll);
BENCHMARK(BM_Read2Write2)->Apply(ArgsAll);

}  // namespace
}  // namespace farmdb::txn

BENCHMARK_MAIN();
