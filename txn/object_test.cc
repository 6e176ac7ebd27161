#include "txn/object.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>

#include "cluster/fabric/word_copy.h"

namespace farmdb::txn {
namespace {

std::vector<std::byte> Fill(uint32_t lines, uint8_t v) {
  return std::vector<std::byte>(PayloadCapacity(lines), std::byte{v});
}

ObjectCopy Snapshot(const std::byte* obj, uint32_t lines) {
  ObjectCopy c;
  c.raw.resize(lines * kLineSize);
  cluster::CopyOut(obj, c.raw.data(), c.raw.size());
  return c;
}

TEST(ObjectTest, LayoutRoundTripsPayloadHeaderAndOldVersionPointer) {
  EXPECT_EQ(LinesFor(0), 1u);
  EXPECT_EQ(LinesFor(40), 1u);
  EXPECT_EQ(LinesFor(41), 2u);
  EXPECT_EQ(LinesFor(96), 2u);
  EXPECT_EQ(LinesFor(97), 3u);
  alignas(64) std::byte obj[3 * kLineSize] = {};
  auto payload = Fill(3, 0);
  for (size_t i = 0; i < payload.size(); ++i) payload[i] = std::byte(i);
  InstallObject(obj, 3, payload, 12345, true, Addr{777});
  ObjectCopy c = Snapshot(obj, 3);
  EXPECT_EQ(c.Check(), ReadCheck::kOk);
  EXPECT_EQ(HeaderTs(c.header()), 12345u);
  EXPECT_TRUE(HeaderAllocated(c.header()));
  EXPECT_EQ(c.old_version(), Addr{777});
  EXPECT_TRUE(std::ranges::equal(c.Payload(), payload));
}

TEST(ObjectTest, LockedAndTornCopiesAreDetected) {
  alignas(64) std::byte obj[2 * kLineSize] = {};
  InstallObject(obj, 2, Fill(2, 1), 10, true, Addr{});
  // A copy mixing line 1 of a newer install with line 0 of the older one is torn.
  alignas(64) std::byte newer[2 * kLineSize] = {};
  InstallObject(newer, 2, Fill(2, 2), 20, true, Addr{});
  ObjectCopy mixed = Snapshot(obj, 2);
  std::memcpy(mixed.raw.data() + kLineSize, newer + kLineSize, kLineSize);
  EXPECT_EQ(mixed.Check(), ReadCheck::kTorn);
  // Locked heads are reported as locked, not torn.
  cluster::StoreWord(obj, cluster::LoadWord(obj) | kLockBit);
  EXPECT_EQ(Snapshot(obj, 2).Check(), ReadCheck::kLocked);
}

// A writer installs versions whose payload bytes all equal the version number, a reader copies
// concurrently: every copy that passes Check() must be uniform, and some copies must be caught
// as torn or locked (the detection really runs).
TEST(ObjectTest, ConcurrentReadsNeverAcceptATornObject) {
  constexpr uint32_t kLines = 8;
  alignas(64) static std::byte obj[kLines * kLineSize];
  std::memset(obj, 0, sizeof obj);
  InstallObject(obj, kLines, Fill(kLines, 1), 1, true, Addr{});
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    for (uint64_t v = 2; !stop.load(); ++v) {
      uint64_t w0 = cluster::LoadWord(obj);
      cluster::StoreWord(obj, w0 | kLockBit);
      InstallObject(obj, kLines, Fill(kLines, static_cast<uint8_t>(v)), v, true, Addr{});
    }
  });
  uint64_t ok = 0, rejected = 0;
  // Bounded by time, not iterations: on a loaded machine the writer may not run for a while.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  for (int i = 0; (ok < 1000 || rejected < 10 || i < 20000) && std::chrono::steady_clock::now() < deadline; ++i) {
    ObjectCopy c = Snapshot(obj, kLines);
    if (c.Check() != ReadCheck::kOk) {
      ++rejected;
      continue;
    }
    ++ok;
    auto p = c.Payload();
    uint8_t expect = static_cast<uint8_t>(HeaderTs(c.header()));
    for (std::byte b : p) ASSERT_EQ(std::to_integer<uint8_t>(b), expect);
  }
  stop = true;
  writer.join();
  EXPECT_GT(ok, 0u);
  EXPECT_GT(rejected, 0u);
}

TEST(ObjectTest, OldVersionCopyClearsLockAndKeepsChain) {
  alignas(64) std::byte head[kLineSize] = {}, old[kLineSize] = {};
  InstallObject(head, 1, Fill(1, 5), 50, true, Addr{99});
  cluster::StoreWord(head, cluster::LoadWord(head) | kLockBit);
  CopyAsOldVersion(head, old, 1);
  ObjectCopy c = Snapshot(old, 1);
  EXPECT_EQ(c.Check(), ReadCheck::kOk);
  EXPECT_EQ(HeaderTs(c.header()), 50u);
  EXPECT_EQ(c.old_version(), Addr{99});
  EXPECT_TRUE(SameReplicaContents(head, old, 1));  // lock bit and pointer are ignored
}

}  // namespace
}  // namespace farmdb::txn
