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

struct Snapshot {
  Snapshot(const std::byte* obj, uint32_t lines)
      : payload(PayloadCapacity(lines)), head(CopyPayloadOut(obj, lines, payload.data())) {}
  std::vector<std::byte> payload;
  ObjectHead head;
};

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
  Snapshot c(obj, 3);
  EXPECT_EQ(c.head.check, ReadCheck::kOk);
  EXPECT_EQ(HeaderTs(c.head.header), 12345u);
  EXPECT_TRUE(HeaderAllocated(c.head.header));
  EXPECT_EQ(c.head.old_version, Addr{777});
  EXPECT_EQ(c.payload, payload);
  // A short payload is stored zero-padded to the object's capacity.
  InstallObject(obj, 3, std::span(payload).first(50), 12346, true, Addr{});
  Snapshot short_copy(obj, 3);
  EXPECT_EQ(short_copy.head.check, ReadCheck::kOk);
  EXPECT_TRUE(std::ranges::equal(std::span(short_copy.payload).first(50), std::span(payload).first(50)));
  EXPECT_TRUE(std::ranges::all_of(std::span(short_copy.payload).subspan(50), [](std::byte b) { return b == std::byte{0}; }));
}

TEST(ObjectTest, LockedAndTornCopiesAreDetected) {
  alignas(64) std::byte obj[2 * kLineSize] = {};
  InstallObject(obj, 2, Fill(2, 1), 10, true, Addr{});
  // A copy mixing line 1 of a newer install with line 0 of the older one is torn.
  alignas(64) std::byte newer[2 * kLineSize] = {};
  InstallObject(newer, 2, Fill(2, 2), 20, true, Addr{});
  alignas(64) std::byte mixed[2 * kLineSize];
  std::memcpy(mixed, obj, kLineSize);
  std::memcpy(mixed + kLineSize, newer + kLineSize, kLineSize);
  EXPECT_EQ(Snapshot(mixed, 2).head.check, ReadCheck::kTorn);
  // So is one whose lines agree with each other but not with the header.
  std::memcpy(mixed, newer, kLineSize);
  cluster::StoreWord(mixed, cluster::LoadWord(obj));
  EXPECT_EQ(Snapshot(mixed, 2).head.check, ReadCheck::kTorn);
  // Locked heads are reported as locked, not torn.
  cluster::StoreWord(obj, cluster::LoadWord(obj) | kLockBit);
  EXPECT_EQ(Snapshot(obj, 2).head.check, ReadCheck::kLocked);
}

// A writer installs versions whose payload bytes all equal the version number, a reader copies
// concurrently: every copy that passes the check must be uniform, and some copies must be caught
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
    Snapshot c(obj, kLines);
    if (c.head.check != ReadCheck::kOk) {
      ++rejected;
      continue;
    }
    ++ok;
    uint8_t expect = static_cast<uint8_t>(HeaderTs(c.head.header));
    for (std::byte b : c.payload) ASSERT_EQ(std::to_integer<uint8_t>(b), expect);
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
  Snapshot c(old, 1);
  EXPECT_EQ(c.head.check, ReadCheck::kOk);
  EXPECT_EQ(HeaderTs(c.head.header), 50u);
  EXPECT_EQ(c.head.old_version, Addr{99});
  EXPECT_EQ(c.payload, Fill(1, 5));
  EXPECT_TRUE(SameReplicaContents(head, old, 1));  // lock bit and pointer are ignored
}

}  // namespace
}  // namespace farmdb::txn
