// Test bench shared by the index tests: an in-memory model of an index (a set of (key, value)
// pairs), random seeded operations, and two property runs against the model — single-threaded,
// and concurrent with conflicts, aborts and retries, checked by replaying the committed
// transactions in serialisation order. Works for any index type with Lookup/Insert/Erase (and
// range scans where the index has them). Every failure message carries its seed; FARMDB_SEED=<n>
// replays one seed.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "storage/btree.h"
#include "storage/hash_index.h"
#include "txn/test_cluster.h"

namespace farmdb::storage {

using txn::TestCluster;
using txn::Txn;
using txn::Worker;

inline cluster::LocalClusterOptions Machines(int n) {
  cluster::LocalClusterOptions o;
  o.machines = n;
  o.replicas = n - 1;
  o.region_size = 16 << 20;
  o.sync_interval = std::chrono::microseconds(300);
  return o;
}

// A head stays locked until its primary processes COMMIT-PRIMARY; under a loaded sanitizer build
// give reads time rather than abort (the single-threaded runs check semantics, not timing).
inline txn::EngineOptions Patient() {
  txn::EngineOptions e;
  e.locked_read_wait = std::chrono::seconds(2);
  return e;
}

inline txn::TxnOptions ReadOnly() {
  txn::TxnOptions o;
  o.read_only = true;
  return o;
}

inline std::vector<uint64_t> Seeds(std::vector<uint64_t> defaults) {
  if (const char* s = std::getenv("FARMDB_SEED")) return {std::strtoull(s, nullptr, 10)};
  return defaults;
}

inline std::string Describe(const StorageError& e) {
  return "storage error code " + std::to_string(static_cast<int>(e.code)) + " txn code " +
         std::to_string(static_cast<int>(e.txn.code)) + " txn reason " +
         std::string(txn::AbortReasonName(e.txn.reason));
}

// Ordered by key, then value: the B-tree's order for non-unique trees (and memcmp order, since
// std::string compares as unsigned char).
using Model = std::set<std::pair<std::string, std::string>>;

struct Op {
  enum Kind { kLookup, kInsert, kErase, kEraseValue, kScan } kind = kLookup;
  std::string key, value;
  // kScan: key..value is the key range; bounds may be absent or exclusive.
  bool has_lower = true, has_upper = true, lower_inclusive = true, upper_inclusive = true;
  bool backward = false;
};

struct Outcome {
  bool duplicate = false;
  size_t erased = 0;
  std::vector<std::string> values;  // lookups: sorted values; scans: key/value in scan order
  friend bool operator==(const Outcome&, const Outcome&) = default;
};

inline std::string Show(const Outcome& o) {
  return "{dup=" + std::to_string(o.duplicate) + " erased=" + std::to_string(o.erased) +
         " values=" + std::to_string(o.values.size()) + "}";
}

inline Outcome ApplyToModel(Model& m, const Op& op, bool unique) {
  Outcome out;
  auto lo = m.lower_bound({op.key, ""});
  auto hi = lo;
  while (hi != m.end() && hi->first == op.key) ++hi;
  switch (op.kind) {
    case Op::kLookup:
      for (auto it = lo; it != hi; ++it) out.values.push_back(it->second);
      break;
    case Op::kInsert:
      if (std::any_of(lo, hi, [&](const auto& kv) { return unique || kv.second == op.value; })) {
        out.duplicate = true;
      } else {
        m.emplace(op.key, op.value);
      }
      break;
    case Op::kErase:
      out.erased = std::distance(lo, hi);
      m.erase(lo, hi);
      break;
    case Op::kEraseValue:
      out.erased = m.erase({op.key, op.value});
      break;
    case Op::kScan: {
      std::vector<std::string> in_range;
      for (const auto& [k, v] : m) {
        if (op.has_lower && (k < op.key || (k == op.key && !op.lower_inclusive))) continue;
        if (op.has_upper && (k > op.value || (k == op.value && !op.upper_inclusive))) continue;
        in_range.push_back(k + '\0' + v);
      }
      if (op.backward) std::ranges::reverse(in_range);
      out.values = std::move(in_range);
      break;
    }
  }
  return out;
}

template <typename Index>
StorageResult<Outcome> ApplyToIndex(const Index& ix, Txn& t, const Op& op) {
  Outcome out;
  switch (op.kind) {
    case Op::kLookup: {
      auto v = ix.Lookup(t, op.key);
      if (!v) return std::unexpected(v.error());
      out.values = std::move(*v);
      std::ranges::sort(out.values);
      break;
    }
    case Op::kInsert: {
      auto r = ix.Insert(t, op.key, op.value);
      if (!r && r.error().code == StorageError::Code::kDuplicateKey) {
        out.duplicate = true;
      } else if (!r) {
        return std::unexpected(r.error());
      }
      break;
    }
    case Op::kErase:
    case Op::kEraseValue: {
      auto n = op.kind == Op::kErase ? ix.Erase(t, op.key) : ix.Erase(t, op.key, op.value);
      if (!n) return std::unexpected(n.error());
      out.erased = *n;
      break;
    }
    case Op::kScan: {
      if constexpr (std::is_same_v<Index, BTree>) {
        std::optional<KeyBound> lower, upper;
        if (op.has_lower) lower = KeyBound{op.key, op.lower_inclusive};
        if (op.has_upper) upper = KeyBound{op.value, op.upper_inclusive};
        auto it = ix.Scan(t, lower, upper,
                          op.backward ? ScanDirection::kBackward : ScanDirection::kForward);
        if (!it) return std::unexpected(it.error());
        for (;;) {
          auto more = (*it)->Next();
          if (!more) return std::unexpected(more.error());
          if (!*more) break;
          out.values.push_back(std::string((*it)->key()) + '\0' + std::string((*it)->value()));
        }
      }
      break;
    }
  }
  return out;
}

// Keys: short, long (out of line in a hash index once a value joins them) and binary with zero
// and 0xff bytes.
inline std::string KeyOf(uint32_t i) {
  std::string k = "k" + std::to_string(i);
  if (i % 7 == 3) k += std::string(70, 'x');
  if (i % 5 == 1) k += std::string("\0\xff", 2);
  return k;
}

// Values from a small set so non-unique indexes see repeated pairs and targeted erases hit.
inline std::string ValueOf(std::mt19937_64& rng, bool large_values) {
  static constexpr size_t kLengths[] = {0, 3, 8, 20, 90, 3000};
  size_t len = kLengths[rng() % (large_values ? std::size(kLengths) : 4)];
  return std::string(len, static_cast<char>('a' + rng() % 3));
}

struct OpMix {
  uint32_t keys = 100;
  bool large_values = true;
  bool scans = false;
  // Percent of operations that insert; lookups are a quarter, and erases, erases of one value
  // and scans share the rest 12:10:8.
  uint32_t insert_percent = 45;
  // Nonzero: the insert share alternates every `waves` transactions between 70% and none, so the
  // index fills up and then drains (B-tree leaves empty and are unlinked, chains collapse).
  int waves = 0;
};

// The mix for a thread's transaction number `txn`.
inline OpMix MixAt(const OpMix& mix, int txn) {
  OpMix m = mix;
  if (mix.waves > 0) m.insert_percent = (txn / mix.waves) % 2 == 0 ? 70 : 0;
  return m;
}

inline Op RandomOp(std::mt19937_64& rng, const OpMix& mix) {
  Op op;
  uint32_t r = rng() % 100;
  const uint32_t inserts = 25 + mix.insert_percent, rest = 75 - mix.insert_percent;
  op.kind = r < 25 ? Op::kLookup : r < inserts ? Op::kInsert : r - inserts < rest * 12 / 30 ? Op::kErase
          : r - inserts < rest * 22 / 30 ? Op::kEraseValue : Op::kScan;
  if (op.kind == Op::kScan && !mix.scans) op.kind = Op::kLookup;
  op.key = KeyOf(rng() % mix.keys);
  op.value = ValueOf(rng, mix.large_values);
  if (op.kind == Op::kScan) {
    std::string a = op.key, b = KeyOf(rng() % mix.keys);
    op.key = std::min(a, b), op.value = std::max(a, b);
    op.has_lower = rng() % 5 != 0, op.has_upper = rng() % 5 != 0;
    op.lower_inclusive = rng() % 2, op.upper_inclusive = rng() % 2;
    op.backward = rng() % 2;
  }
  return op;
}

template <typename Index>
std::vector<std::pair<std::string, std::string>> Contents(const Index& ix, Txn& t) {
  std::vector<std::pair<std::string, std::string>> got;
  if constexpr (std::is_same_v<Index, BTree>) {
    auto it = ix.Scan(t, std::nullopt, std::nullopt, ScanDirection::kForward);
    EXPECT_TRUE(it);
    for (;;) {
      auto more = it ? (*it)->Next() : StorageResult<bool>(false);
      EXPECT_TRUE(more);
      if (!more || !*more) break;
      got.emplace_back((*it)->key(), (*it)->value());
    }
  } else {
    auto r = ix.ForEach(t, [&](std::string_view k, std::string_view v) { got.emplace_back(k, v); });
    EXPECT_TRUE(r);
  }
  std::ranges::sort(got);
  return got;
}

// Compares the whole index with the model and checks its structure, in a read-only transaction.
template <typename Index>
void CheckAll(Worker& w, const Index& ix, const Model& model, uint64_t seed) {
  auto t = *w.Begin(ReadOnly());
  auto invariants = ix.CheckInvariants(*t);
  ASSERT_TRUE(invariants) << "seed=" << seed << " " << Describe(invariants.error());
  EXPECT_EQ(*invariants, "") << "seed=" << seed;
  auto got = Contents(ix, *t);
  std::vector<std::pair<std::string, std::string>> want(model.begin(), model.end());
  EXPECT_EQ(got.size(), want.size()) << "seed=" << seed;
  EXPECT_TRUE(got == want) << "seed=" << seed;
  ASSERT_TRUE(t->Commit());
}

// A property run. `create` makes the index in a transaction; `open(machine)` gives the handle
// a worker on that machine uses (e.g. with that machine's B-tree cache).
template <typename Index>
struct Bench {
  int machines = 1;
  bool unique = true;
  OpMix mix;
  std::function<StorageResult<Index>(Txn&)> create;
  std::function<Index(Index, int)> open = [](Index ix, int) { return ix; };
};

template <typename Index>
Index CreateIndex(Worker& w, const Bench<Index>& b) {
  auto t = *w.Begin({});
  auto ix = b.create(*t);
  EXPECT_TRUE(ix);
  EXPECT_TRUE(t->Commit());
  return *ix;
}

// Transactions of 1-6 random operations, some aborted by the caller, coordinators alternating
// across machines; every result matches the model, and the whole index every 50 transactions.
template <typename Index>
void RunSingleThreaded(const Bench<Index>& b, uint64_t seed, int txns) {
  SCOPED_TRACE("seed=" + std::to_string(seed));
  TestCluster c(Machines(b.machines), Patient());
  std::vector<std::unique_ptr<Worker>> workers;
  for (int m = 0; m < b.machines; ++m) workers.push_back(c.engine(m).NewWorker());
  Index created = CreateIndex(*workers[0], b);
  std::mt19937_64 rng(seed);
  Model model;
  for (int n = 0; n < txns; ++n) {
    int m = n % b.machines;
    Index ix = b.open(created, m);
    auto t = *workers[m]->Begin({});
    Model next = model;
    int ops = 1 + rng() % 6;
    for (int i = 0; i < ops; ++i) {
      Op op = RandomOp(rng, MixAt(b.mix, n));
      Outcome want = ApplyToModel(next, op, b.unique);
      auto got = ApplyToIndex(ix, *t, op);
      ASSERT_TRUE(got) << "seed=" << seed << " txn " << n << " " << Describe(got.error());
      ASSERT_EQ(*got, want) << "seed=" << seed << " txn " << n << " op " << i << " kind "
                            << op.kind << " got " << Show(*got) << " want " << Show(want);
    }
    if (rng() % 10 == 0) {
      t->Abort();
    } else {
      auto r = t->Commit();
      ASSERT_TRUE(r) << "seed=" << seed << " reason " << txn::AbortReasonName(r.error().reason);
      model = std::move(next);
    }
    if (n % 50 == 49) CheckAll(*workers[m], ix, model, seed);
  }
  CheckAll(*workers[0], created, model, seed);
  for (auto& w : workers) w->FlushTruncations();
  EXPECT_EQ(c.CheckReplicas(), "") << "seed=" << seed;
}

// Several workers on a small key space, so transactions conflict, abort and retry. Serializable
// transactions take effect at their write timestamp W (read-only ones at their R, after writes
// with W <= R): replaying the committed ones in that order against the model must reproduce
// every result they saw, and the final contents.
template <typename Index>
void RunConcurrent(const Bench<Index>& b, uint64_t seed, int txns_per_thread) {
  SCOPED_TRACE("seed=" + std::to_string(seed));
  struct Committed {
    txn::Timestamp ts = 0;
    bool read_only = false;
    std::vector<Op> ops;
    std::vector<Outcome> outcomes;
  };
  TestCluster c(Machines(b.machines), txn::EngineOptions{});
  auto setup = c.engine(0).NewWorker();
  Index created = CreateIndex(*setup, b);
  std::mutex mu;
  std::vector<Committed> log;
  std::atomic<bool> failed{false};
  constexpr int kThreads = 3;
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      int m = i % b.machines;
      auto w = c.engine(m).NewWorker();
      Index ix = b.open(created, m);
      std::mt19937_64 rng(seed * 1000 + i);
      for (int n = 0; n < txns_per_thread && !failed; ++n) {
        std::vector<Op> ops(1 + rng() % 3);
        for (Op& op : ops) op = RandomOp(rng, MixAt(b.mix, n));
        bool user_abort = rng() % 10 == 0;
        while (!failed) {
          auto t = *w->Begin({});
          Committed rec{0, false, ops, {}};
          bool retry = false;
          for (const Op& op : ops) {
            auto got = ApplyToIndex(ix, *t, op);
            if (!got && got.error().IsRetryable()) {
              retry = true;
              break;
            }
            if (!got) {
              ADD_FAILURE() << "seed=" << seed << " " << Describe(got.error());
              failed = true;
              break;
            }
            rec.outcomes.push_back(std::move(*got));
          }
          if (failed) break;
          if (retry) continue;
          if (user_abort) {
            t->Abort();
            break;
          }
          auto info = t->Commit();
          if (!info) continue;
          rec.read_only = info->write_ts == 0;
          rec.ts = rec.read_only ? info->read_ts : info->write_ts;
          std::lock_guard lock(mu);
          log.push_back(std::move(rec));
          break;
        }
      }
      w->FlushTruncations();
    });
  }
  for (auto& t : threads) t.join();
  ASSERT_FALSE(failed);
  std::ranges::sort(log, [](const Committed& a, const Committed& b) {
    return std::pair(a.ts, a.read_only) < std::pair(b.ts, b.read_only);
  });
  Model model;
  for (size_t k = 0; k < log.size(); ++k) {
    for (size_t i = 0; i < log[k].ops.size(); ++i) {
      Outcome want = ApplyToModel(model, log[k].ops[i], b.unique);
      ASSERT_EQ(log[k].outcomes[i], want) << "seed=" << seed << " committed txn " << k << " op "
                                          << i << " got " << Show(log[k].outcomes[i])
                                          << " want " << Show(want);
    }
  }
  EXPECT_GT(log.size(), static_cast<size_t>(txns_per_thread)) << "seed=" << seed;
  CheckAll(*setup, created, model, seed);
  setup->FlushTruncations();
  EXPECT_EQ(c.CheckReplicas(), "") << "seed=" << seed;
}

}  // namespace farmdb::storage
