#include "txn/workload.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <thread>

#include "cluster/rng.h"

namespace farmdb::txn {

namespace {

constexpr uint64_t kInitialBalance = 1000;


// One transaction with recording; Read/Write return false once it has failed.
class Recorded {
 public:
  Recorded(Worker& w, TxnOptions o, bool sync_commit = true) {
    rec_.isolation = o.isolation;
    rec_.strict = o.strict;
    rec_.begin_ns = RealNanos();
    auto t = w.Begin(o);
    if (t) txn_ = std::move(*t);
    if (txn_) txn_->SetSyncCommit(sync_commit), rec_.read_ts = txn_->read_ts();
  }
  bool ok() const { return txn_ && !failed_; }
  std::optional<uint64_t> Read(Addr a) {
    if (!ok()) return std::nullopt;
    auto v = txn_->Read(a);
    if (!v) return failed_ = true, std::nullopt;
    // R may have moved forward (txn.h "Reads newer than R"): every read so far holds at the new R.
    rec_.read_ts = txn_->read_ts();
    uint64_t x = U64Value(*v);
    if (!written_.contains(a)) rec_.reads.emplace_back(a, x);
    return x;
  }
  void Write(Addr a, uint64_t v) {
    if (!ok()) return;
    if (!txn_->Write(a, U64Bytes(v))) {
      failed_ = true;
      return;
    }
    rec_.read_ts = txn_->read_ts();
    written_.insert(a);
    std::erase_if(rec_.writes, [&](auto& w) { return w.first == a; });
    rec_.writes.emplace_back(a, v);
  }
  TxnRecord Finish(bool abort) {
    if (txn_ && !failed_ && !abort) {
      auto info = txn_->Commit();
      if (info) rec_.committed = true, rec_.write_ts = info->write_ts;
    } else if (txn_) {
      txn_->Abort();
    }
    rec_.end_ns = RealNanos();
    if (!rec_.committed) rec_.write_ts = 0;
    return std::move(rec_);
  }

 private:
  std::unique_ptr<Txn> txn_;
  bool failed_ = false;
  std::set<Addr> written_;
  TxnRecord rec_;
};

TxnOptions DrawOptions(cluster::Rng& rng, const WorkloadOptions& o, bool read_only) {
  TxnOptions t;
  t.read_only = read_only;
  if (rng.Chance(o.snapshot_fraction)) t.isolation = Isolation::kSnapshot;
  if (rng.Chance(o.non_strict_fraction)) t.strict = false;
  return t;
}

void RegistersTxn(Worker& w, cluster::Rng& rng, const WorkloadOptions& o,
                  const std::vector<Addr>& keys, uint64_t unique, std::vector<TxnRecord>* out) {
  bool ro = rng.Chance(o.read_only_fraction);
  Recorded t(w, DrawOptions(rng, o, ro), o.sync_commit);
  int n = 1 + static_cast<int>(rng.Uniform(4));
  for (int i = 0; i < n; ++i) {
    Addr a = keys[rng.Uniform(keys.size())];
    if (ro || rng.Chance(0.5)) {
      t.Read(a);
    } else {
      t.Write(a, unique * 8 + i + 1);
    }
  }
  out->push_back(t.Finish(false));
}

void BankTxn(Worker& w, cluster::Rng& rng, const WorkloadOptions& o, const std::vector<Addr>& keys,
             std::vector<TxnRecord>* out, std::string* error) {
  bool audit = rng.Chance(o.read_only_fraction);
  Recorded t(w, DrawOptions(rng, o, audit), o.sync_commit);
  if (audit) {
    uint64_t sum = 0;
    size_t seen = 0;
    for (Addr a : keys) {
      if (auto v = t.Read(a)) sum += *v, ++seen;
    }
    // Opacity: even a transaction that later aborts sees a consistent total.
    if (seen == keys.size() && sum != kInitialBalance * keys.size() && error->empty()) {
      *error = "audit saw total " + std::to_string(sum);
    }
  } else {
    Addr from = keys[rng.Uniform(keys.size())], to = keys[rng.Uniform(keys.size())];
    uint64_t amount = 1 + rng.Uniform(50);
    auto a = t.Read(from);
    auto b = from == to ? a : t.Read(to);
    if (a && b && from != to && *a >= amount) {
      t.Write(from, *a - amount);
      t.Write(to, *b + amount);
    }
  }
  out->push_back(t.Finish(false));
}

void WriteSkewTxn(Worker& w, cluster::Rng& rng, const std::vector<Addr>& keys, uint64_t unique,
                  std::vector<TxnRecord>* out) {
  TxnOptions opts;
  opts.isolation = Isolation::kSnapshot;
  Recorded t(w, opts);
  size_t pair = rng.Uniform(keys.size() / 2);
  Addr x = keys[2 * pair], y = keys[2 * pair + 1];
  t.Read(x), t.Read(y);
  // Give the other side time to read the same snapshot.
  std::this_thread::sleep_for(std::chrono::microseconds(rng.Uniform(200)));
  t.Write(rng.Chance(0.5) ? x : y, unique);
  out->push_back(t.Finish(false));
}

}  // namespace

std::vector<std::byte> U64Bytes(uint64_t v) {
  std::vector<std::byte> b(8);
  std::memcpy(b.data(), &v, 8);
  return b;
}

uint64_t U64Value(const std::vector<std::byte>& payload) {
  uint64_t v;
  std::memcpy(&v, payload.data(), 8);
  return v;
}

Addr CommitNewObject(Worker& w, uint64_t value) {
  auto t = w.Begin({});
  auto a = t ? (*t)->Alloc(8) : std::unexpected(t.error());
  if (!a || !(*t)->Write(*a, U64Bytes(value)) || !(*t)->Commit()) {
    std::fprintf(stderr, "CommitNewObject: set-up transaction failed\n");
    std::abort();
  }
  return *a;
}

WorkloadResult RunWorkload(Workload kind, TestCluster& cluster, const WorkloadOptions& o) {
  WorkloadResult res;
  cluster::Rng rng(o.seed);
  std::vector<Addr> keys;
  {
    // Setup: spread keys over all machines' regions.
    for (int k = 0; k < o.keys; ++k) {
      auto w = cluster.engine(k % cluster.size()).NewWorker();
      auto t = *w->Begin({});
      Addr a = *t->Alloc(8);
      uint64_t init = kind == Workload::kBank ? kInitialBalance : 0;
      (void)t->Write(a, U64Bytes(init));
      if (auto done = t->Commit(); !done) {
        res.invariant_error = "setup commit failed: code " +
                              std::to_string(static_cast<int>(done.error().code)) + ", " +
                              std::string(AbortReasonName(done.error().reason));
        return res;
      }
      keys.push_back(a);
      res.initial.emplace_back(a, init);
    }
  }
  std::mutex mu;
  std::vector<std::thread> threads;
  int thread_id = 0;
  for (int m = 0; m < cluster.size(); ++m) {
    for (int i = 0; i < o.threads_per_machine; ++i, ++thread_id) {
      threads.emplace_back([&, m, thread_id, trng = rng.Fork()]() mutable {
        auto w = cluster.engine(m).NewWorker();
        std::vector<TxnRecord> local;
        std::string error;
        for (int n = 0; n < o.txns_per_thread; ++n) {
          uint64_t unique = (uint64_t(thread_id + 1) << 32) | uint64_t(n);
          switch (kind) {
            case Workload::kRegisters: RegistersTxn(*w, trng, o, keys, unique, &local); break;
            case Workload::kBank: BankTxn(*w, trng, o, keys, &local, &error); break;
            case Workload::kWriteSkew: WriteSkewTxn(*w, trng, keys, unique, &local); break;
          }
        }
        w->FlushTruncations();
        std::lock_guard l(mu);
        res.history.insert(res.history.end(), local.begin(), local.end());
        if (res.invariant_error.empty()) res.invariant_error = error;
      });
    }
  }
  for (auto& t : threads) t.join();
  if (kind == Workload::kBank && res.invariant_error.empty()) {
    // Final audit; retried, since heads can stay locked briefly while the last commits drain.
    auto w = cluster.engine(0).NewWorker();
    std::optional<uint64_t> total;
    for (int attempt = 0; attempt < 1000 && !total; ++attempt) {
      auto t = *w->Begin({});
      uint64_t sum = 0;
      bool ok = true;
      for (Addr a : keys) {
        auto v = t->Read(a);
        if (!(ok = v.has_value())) break;
        sum += U64Value(*v);
      }
      if (ok) total = sum;
    }
    if (total != kInitialBalance * keys.size()) {
      res.invariant_error = "final total " + (total ? std::to_string(*total) : "unreadable");
    }
  }
  return res;
}

}  // namespace farmdb::txn
