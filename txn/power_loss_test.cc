// A power loss (FORMATS.md "Recovery", durability.h): for every file the cluster wrote, a crash
// image is built from the content its last Sync or Replace made durable plus a random subset of
// the 512-byte sectors written since, and the cluster is recovered from those images as after
// a reboot. With synchronous_commit on nothing acknowledged is lost; with off, what survives is
// a prefix in timestamp order, and no transaction is there in part. A deliberately broken
// variant (EngineOptions::mutant_ack_before_sync: acknowledging before the sync) must be caught.
//
// FARMDB_POWER_LOSS_SEEDS=<n> runs more seeds (./dev soak); FARMDB_SEED=<n> replays one.

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <thread>

#include "cluster/files.h"
#include "cluster/rng.h"
#include "cluster/temp_dir.h"
#include "txn/test_cluster.h"
#include "txn/workload.h"

namespace farmdb::txn {
namespace {

using cluster::TempDir;

namespace fs = std::filesystem;
using cluster::FileError;
using cluster::MappedFile;
using cluster::MapMode;

// The real file system, remembering what each file holds durably: what its last Sync (of a
// shared mapping) or Replace made so. Freeze() stops every sync and builds the crash images.
class CrashableFiles final : public cluster::Files {
 public:
  explicit CrashableFiles(std::string boot) : boot_(std::move(boot)) {}

  std::expected<std::unique_ptr<MappedFile>, FileError> Create(const fs::path& p, size_t size, MapMode mode) override {
    std::shared_lock f(freeze_);
    auto made = real().Create(p, size, mode);
    if (made) {
      std::lock_guard l(mu_);
      durable_[p] = std::vector<std::byte>(size);  // allocated zeros, directory entry synced
    }
    return made;
  }
  std::expected<std::unique_ptr<MappedFile>, FileError> Open(const fs::path& p, MapMode mode) override {
    return real().Open(p, mode);
  }
  std::expected<void, FileError> Sync(const MappedFile& file, size_t offset, size_t length) override {
    std::shared_lock f(freeze_);
    auto synced = real().Sync(file, offset, length);
    if (!synced) return synced;
    std::lock_guard l(mu_);
    auto& image = durable_[file.path()];
    image.resize(std::max(image.size(), file.bytes().size()));
    std::memcpy(image.data() + offset, file.bytes().data() + offset, length);
    return {};
  }
  std::expected<void, FileError> Replace(const fs::path& p, std::span<const std::span<const std::byte>> parts) override {
    std::shared_lock f(freeze_);
    auto replaced = real().Replace(p, parts);
    if (!replaced) return replaced;
    std::vector<std::byte> all;
    for (auto part : parts) all.insert(all.end(), part.begin(), part.end());
    std::lock_guard l(mu_);
    durable_[p] = std::move(all);
    return {};
  }
  std::expected<std::vector<std::byte>, FileError> Read(const fs::path& p) override { return real().Read(p); }
  std::expected<void, FileError> Remove(const fs::path& p) override {
    std::shared_lock f(freeze_);
    auto removed = real().Remove(p);
    std::lock_guard l(mu_);
    durable_.erase(p);
    return removed;
  }
  std::vector<std::string> List(const fs::path& d) override { return real().List(d); }
  std::string BootId() override { return boot_; }

  // The power goes: no sync or replace completes from here on. Writes, under `to`, every file's
  // crash image: its durable content, and each 512-byte sector that differs in the file now with
  // probability `keep`. Calls `acked_now` while nothing can become durable (the caller reads
  // what was acknowledged).
  void Freeze(const fs::path& from, const fs::path& to, double keep, cluster::Rng& rng,
              const std::function<void()>& acked_now) {
    freeze_.lock();
    acked_now();
    std::lock_guard l(mu_);
    for (auto& [path, image] : durable_) {
      auto now = real().Read(path);
      std::vector<std::byte> crash = image;
      if (now) {
        crash.resize(std::max(crash.size(), now->size()));
        for (size_t at = 0; at < now->size(); at += 512) {
          size_t n = std::min<size_t>(512, now->size() - at);
          if (std::memcmp(crash.data() + at, now->data() + at, n) != 0 && rng.Chance(keep)) {
            std::memcpy(crash.data() + at, now->data() + at, n);
          }
        }
      }
      fs::path out = to / fs::relative(path, from);
      fs::create_directories(out.parent_path());
      std::span<const std::byte> part(crash);
      ASSERT_TRUE(real().Replace(out, std::span(&part, 1)));
    }
  }
  void Thaw() { freeze_.unlock(); }

 private:
  static cluster::Files& real() { return cluster::PosixFiles(); }
  const std::string boot_;
  std::shared_mutex freeze_;  // shared: a durable operation; exclusive: the power is off
  std::mutex mu_;
  std::map<fs::path, std::vector<std::byte>> durable_;  // guarded by mu_
};

constexpr int kWriters = 4;

struct Acked {
  uint64_t n;
  Timestamp w;
  bool sync;
};

struct Outcome {
  std::string error;  // "" if recovery kept what it must
};

// One seed: run writers, cut the power at a random moment, recover from the crash images.
Outcome RunSeed(uint64_t seed, int machines, bool mutant) {
  cluster::Rng rng(seed);
  TempDir live("power"), crashed("power");
  CrashableFiles files("boot-before");
  cluster::LocalClusterOptions o;
  o.machines = machines;
  o.replicas = machines - 1;
  o.region_size = 4 << 20;
  o.data_dir = live.path / "cluster";
  o.files = &files;
  EngineOptions e;
  e.log_size = 256 << 10;
  e.wal_segment_size = 1 << 20;
  e.wal_sync_interval = std::chrono::milliseconds(1 + rng.Uniform(20));
  e.mutant_ack_before_sync = mutant;
  const double sync_share = mutant ? 1.0 : (seed % 3 == 0 ? 0.0 : seed % 3 == 1 ? 1.0 : 0.5);
  Addr a[kWriters], b[kWriters];
  std::vector<std::vector<Acked>> acked(kWriters);
  std::mutex acked_mu;
  std::vector<std::vector<Acked>> frozen;
  {
    TestCluster c(o, e);
    {
      std::vector<std::unique_ptr<Worker>> ws;
      for (int m = 0; m < machines; ++m) ws.push_back(c.engine(m).NewWorker());
      for (int i = 0; i < kWriters; ++i) {
        a[i] = CommitNewObject(*ws[i % machines], 0);
        b[i] = CommitNewObject(*ws[(i + 1) % machines], 0);
      }
    }
    std::atomic<bool> stop{false};
    std::vector<std::thread> threads;
    for (int i = 0; i < kWriters; ++i) {
      threads.emplace_back([&, i] {
        auto w = c.engine(i % machines).NewWorker();
        cluster::Rng r(seed * 101 + i);
        for (uint64_t n = 1; !stop.load(); ++n) {
          for (;;) {
            if (stop.load()) return;
            auto t = *w->Begin({});
            if (!t->Write(a[i], U64Bytes(n)) || !t->Write(b[i], U64Bytes(n))) continue;
            const bool sync = r.Chance(sync_share);
            t->SetSyncCommit(sync);
            auto info = t->Commit();
            if (!info) continue;
            std::lock_guard l(acked_mu);
            acked[i].push_back({n, info->write_ts, sync});
            break;
          }
        }
      });
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20 + rng.Uniform(150)));
    if (rng.Chance(0.3)) (void)c.engine(0).Checkpoint();
    std::this_thread::sleep_for(std::chrono::milliseconds(rng.Uniform(50)));
    const double keep = std::vector<double>{0.0, 0.3, 0.7}[rng.Uniform(3)];
    files.Freeze(live.path, crashed.path, keep, rng, [&] {
      std::lock_guard l(acked_mu);
      frozen = acked;
    });
    stop = true;
    files.Thaw();
    for (auto& t : threads) t.join();
  }
  // After the reboot.
  CrashableFiles after("boot-after");
  o.data_dir = crashed.path / "cluster";
  o.files = &after;
  e.mutant_ack_before_sync = false;
  TestCluster c(o, e);
  if (!c.engine(0).recovery_stats().after_reboot) return {"recovery did not take the restart for a reboot"};
  auto w = c.engine(0).NewWorker();
  auto get = [&](Addr x) {
    for (;;) {
      auto t = *w->Begin({});
      auto v = t->Read(x);
      if (v) return U64Value(*v);
    }
  };
  // What survived of each writer: its transactions up to n, all of them (each rewrote both).
  uint64_t got[kWriters];
  Timestamp newest_survivor = 0;  // a lower bound on the largest W that survived
  for (int i = 0; i < kWriters; ++i) {
    uint64_t x = get(a[i]), y = get(b[i]);
    if (x != y) return {"writer " + std::to_string(i) + " is torn: " + std::to_string(x) + " vs " + std::to_string(y)};
    got[i] = x;
    for (const Acked& k : frozen[i]) {
      if (k.n <= x) newest_survivor = std::max(newest_survivor, k.w);
    }
  }
  for (int i = 0; i < kWriters; ++i) {
    for (const Acked& k : frozen[i]) {
      if (k.n <= got[i]) continue;
      if (k.sync) {
        return {"writer " + std::to_string(i) + " lost synchronous commit " + std::to_string(k.n) + " (has " +
                std::to_string(got[i]) + ")"};
      }
      if (k.w < newest_survivor) {
        return {"writer " + std::to_string(i) + " lost commit " + std::to_string(k.n) +
                " while a later one survived: not a prefix in timestamp order"};
      }
    }
  }
  return {};
}

std::vector<uint64_t> Seeds(uint64_t count, uint64_t base) {
  std::vector<uint64_t> seeds;
  if (const char* one = std::getenv("FARMDB_SEED")) return {std::strtoull(one, nullptr, 10)};
  if (const char* n = std::getenv("FARMDB_POWER_LOSS_SEEDS")) count = std::strtoull(n, nullptr, 10);
  for (uint64_t s = 0; s < count; ++s) seeds.push_back(base + s);
  return seeds;
}

TEST(PowerLossTest, OneMachineKeepsWhatItAcknowledgedAndAPrefix) {
  for (uint64_t seed : Seeds(30, 1)) {
    Outcome out = RunSeed(seed, 1, false);
    ASSERT_EQ(out.error, "") << "seed " << seed << " (FARMDB_SEED=" << seed << " replays it)";
  }
}

TEST(PowerLossTest, ThreeMachinesCutEveryLogAtTheSameStamp) {
  for (uint64_t seed : Seeds(20, 1000)) {
    Outcome out = RunSeed(seed, 3, false);
    ASSERT_EQ(out.error, "") << "seed " << seed << " (FARMDB_SEED=" << seed << " replays it)";
  }
}

// The check can fail: acknowledging before the sync loses acknowledged commits on some seed.
TEST(PowerLossTest, AcknowledgingBeforeTheSyncIsCaught) {
  int caught = 0;
  uint64_t tried = 0;
  for (uint64_t seed = 5000; seed < 5200 && caught == 0; ++seed, ++tried) {
    if (!RunSeed(seed, 1, true).error.empty()) ++caught;
  }
  EXPECT_GT(caught, 0) << "the mutant survived " << tried << " power losses";
  std::printf("the mutant was caught after %llu seeds\n", static_cast<unsigned long long>(tried));
}

}  // namespace
}  // namespace farmdb::txn
