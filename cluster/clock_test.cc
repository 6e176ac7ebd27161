#include "cluster/clock.h"

#include <gtest/gtest.h>

#include <thread>

#include "cluster/rng.h"

namespace farmdb::cluster {
namespace {

// The CM's time is `cm`, the local clock `local`; both fake. A sync sample with one-way delays
// d1 (request) and d2 (reply) as seen on the local clock.
SyncSample Sample(int64_t local_send, int64_t cm_at_reply, int64_t local_recv) {
  return {local_send, cm_at_reply, local_recv};
}

TEST(SyncStateTest, IntervalContainsMasterTimeAndGrowsWithDrift) {
  SyncState s(1000);  // 1000 ppm
  // Sent at local 1000, master said 5000, received at local 1100 (RTT 100 ns).
  s.Add(Sample(1000, 5000, 1100), 1100);
  Interval iv = s.At(1100);
  EXPECT_EQ(iv.lower, 5000u);       // reply took >= 0: master >= 5000
  EXPECT_EQ(iv.upper, 5000u + 101); // request took >= 0: master <= 5000 + RTT (+1 rounding)
  // One second later the uncertainty grows by 2 * epsilon * 1s = 2 ms.
  Interval later = s.At(1100 + 1'000'000'000);
  EXPECT_EQ(later.lower, 5000u + 999'000'000u);
  EXPECT_EQ(later.upper, 5000u + 1'001'000'100u + 1);
}

TEST(SyncStateTest, KeepsBestLowerAndBestUpperFromDifferentSamples) {
  SyncState s(1000);
  // Sample A: tight on the lower side (reply delay 0), loose upper (request took long).
  s.Add(Sample(0, 10'000, 1000), 1000);
  // Sample B at local 2000..2100: master 11'050 received; its upper bound is tighter.
  s.Add(Sample(2000, 11'050, 2100), 2100);
  Interval iv = s.At(2100);
  // Lower bounds at 2100: A gives 10000 + 1100*(1-1e-3) = 11098; B gives 11050. A wins.
  EXPECT_EQ(iv.lower, 11'098u);
  // Upper bounds: A gives 10000 + 2100*1.001 + 1 = 12103; B gives 11050 + 100*1.001 + 1 = 11151.
  EXPECT_EQ(iv.upper, 11'151u);
  EXPECT_LE(iv.lower, iv.upper);
}

TEST(SyncStateTest, RandomizedBoundsHoldUnderDriftWithinBound) {
  Rng rng(42);
  for (int trial = 0; trial < 200; ++trial) {
    SCOPED_TRACE(trial);
    double drift = (static_cast<double>(rng.Uniform(2001)) - 1000.0) / 1e6;  // |drift| <= 1000ppm
    int64_t offset = static_cast<int64_t>(rng.Uniform(1'000'000'000));
    auto cm_at = [&](double local) { return static_cast<int64_t>(offset + local * (1 + drift)); };
    SyncState s(1000);
    double local = 1e6;
    for (int k = 0; k < 20; ++k) {
      double send = local;
      double d1 = static_cast<double>(rng.Uniform(50'000));
      double d2 = static_cast<double>(rng.Uniform(50'000));
      int64_t t_cm = cm_at(send + d1);
      double recv = send + d1 + d2;
      s.Add(Sample(static_cast<int64_t>(send), t_cm, static_cast<int64_t>(recv)),
            static_cast<int64_t>(recv));
      local = recv + static_cast<double>(rng.Uniform(10'000'000));
      Interval iv = s.At(static_cast<int64_t>(local));
      int64_t truth = cm_at(local);
      // Allow 2ns of float rounding in the simulated truth.
      EXPECT_LE(static_cast<int64_t>(iv.lower), truth + 2);
      EXPECT_GE(static_cast<int64_t>(iv.upper), truth - 2);
    }
  }
}

TEST(ClockTest, DisabledUntilSyncedAndMasterIsExact) {
  FakeTimeSource local(100);
  Clock c(&local, {}, /*is_master=*/false);
  EXPECT_FALSE(c.TryNow().has_value());
  c.OnSync({100, 1000, 100});
  auto iv = c.TryNow();
  ASSERT_TRUE(iv.has_value());
  EXPECT_EQ(iv->lower, 1000u);

  FakeTimeSource master_time(777);
  Clock master(&master_time, {}, true);
  EXPECT_EQ(master.Now().lower, 777u);
  EXPECT_EQ(master.Now().upper, 777u);
}

TEST(ClockTest, LowerBoundNeverDecreasesEvenWhenSamplesWouldLowerIt) {
  FakeTimeSource local(0);
  Clock c(&local, {1000}, false);
  c.OnSync({0, 10'000, 0});
  local.Set(1'000'000);
  Timestamp l1 = c.Now().lower;
  // The local clock is reset backwards (as a buggy source might be); L must not go back.
  local.Set(500'000);
  Timestamp l2 = c.Now().lower;
  EXPECT_GE(l2, l1);
  EXPECT_GE(c.Now().upper, l2);
}

TEST(ClockTest, GetTsReturnsValueThatIsInThePastAfterwards) {
  SystemTimeSource sys;
  SkewedTimeSource local(&sys, 0, 0);
  Clock c(&local, {1000}, false);
  int64_t t = local.Nanos();
  c.OnSync({t, t + 5'000'000, t + 200'000});  // 200us of uncertainty
  Interval before = c.Now();
  Timestamp ts = c.GetTs();
  EXPECT_GE(ts, before.upper);
  EXPECT_GT(c.Now().lower, ts);  // waited out the uncertainty
}

TEST(ClockTest, ConcurrentNowIsMonotonicPerThread) {
  SystemTimeSource sys;
  Clock c(&sys, {1000}, false);
  int64_t t = sys.Nanos();
  c.OnSync({t, t, t + 1000});
  std::vector<std::thread> threads;
  std::atomic<bool> bad{false};
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&] {
      Timestamp prev = 0;
      for (int k = 0; k < 20000; ++k) {
        Interval iv = c.Now();
        if (iv.lower < prev || iv.upper < iv.lower) bad = true;
        prev = iv.lower;
        if (k % 1000 == 0) c.OnSync({sys.Nanos(), sys.Nanos(), sys.Nanos() + 500});
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_FALSE(bad.load());
}

}  // namespace
}  // namespace farmdb::cluster
