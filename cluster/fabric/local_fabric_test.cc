#include "cluster/fabric/local_fabric.h"

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <cstring>
#include <mutex>
#include <thread>

#include "cluster/fabric/word_copy.h"

namespace farmdb::cluster {
namespace {

constexpr uint64_t kKey = MemKey(MemKind::kRegion, 7);

struct Inbox {
  std::mutex mu;
  std::vector<Message> got;
  size_t Size() {
    std::lock_guard l(mu);
    return got.size();
  }
};

void WaitFor(const std::function<bool()>& pred) {
  for (int i = 0; i < 20000 && !pred(); ++i) std::this_thread::sleep_for(std::chrono::microseconds(100));
}

TEST(LocalFabricTest, OneSidedReadAndWriteReachRegisteredMemory) {
  LocalFabric f(2, 1);
  alignas(8) std::array<std::byte, 64> mem{};
  f.Register(1, kKey, mem);
  std::array<std::byte, 16> src;
  std::memset(src.data(), 0xab, src.size());
  auto w = f.Write(0, 1, kKey, 8, src);
  w->Wait();
  ASSERT_TRUE(w->ok());
  EXPECT_EQ(mem[8], std::byte{0xab});
  EXPECT_EQ(mem[7], std::byte{0});
  alignas(8) std::array<std::byte, 16> dst{};
  auto r = f.Read(0, 1, kKey, 8, dst);
  r->Wait();
  ASSERT_TRUE(r->ok());
  EXPECT_EQ(dst, src);
  // Out of bounds and unknown keys fail instead of touching memory.
  auto bad = f.Read(0, 1, kKey, 64, dst);
  bad->Wait();
  EXPECT_FALSE(bad->ok());
  auto unknown = f.Write(0, 1, MemKey(MemKind::kLog, 1), 0, src);
  unknown->Wait();
  EXPECT_FALSE(unknown->ok());
  f.Unregister(1, kKey);
}

// The write notifier runs once per landed write to its key (inline or after a delay), with the
// bytes already in memory, never for reads, other keys or failed writes, and not once cleared.
TEST(LocalFabricTest, WriteNotifierRunsAfterEachLandedWrite) {
  LocalFabric f(2, 5);
  alignas(8) std::array<std::byte, 64> mem{}, other{};
  f.Register(1, kKey, mem);
  f.Register(1, MemKey(MemKind::kLog, 0), other);
  std::atomic<int> calls{0};
  std::atomic<bool> saw_bytes{true};
  f.SetWriteNotifier(1, kKey, [&] {
    if (LoadWord(mem.data()) == 0) saw_bytes = false;
    ++calls;
  });
  alignas(8) std::array<std::byte, 8> word;
  std::memset(word.data(), 0x5a, word.size());
  f.Write(0, 1, kKey, 0, word)->Wait();
  EXPECT_EQ(calls.load(), 1);
  f.Write(0, 1, MemKey(MemKind::kLog, 0), 0, word)->Wait();
  alignas(8) std::array<std::byte, 8> dst;
  f.Read(0, 1, kKey, 0, dst)->Wait();
  f.Write(0, 1, kKey, 64, word)->Wait();  // out of bounds: fails, nothing landed
  EXPECT_EQ(calls.load(), 1);
  FaultPolicy p;
  p.min_delay = std::chrono::microseconds(200);
  p.max_delay = std::chrono::microseconds(500);
  f.SetFaults(p);
  auto late = f.Write(0, 1, kKey, 8, word);  // executed later by machine 1's fabric thread
  late->Wait();
  EXPECT_TRUE(late->ok());
  EXPECT_EQ(calls.load(), 2);
  f.SetFaults({});
  f.SetWriteNotifier(1, kKey, nullptr);
  f.Write(0, 1, kKey, 0, word)->Wait();
  EXPECT_EQ(calls.load(), 2);
  EXPECT_TRUE(saw_bytes.load());
}

TEST(LocalFabricTest, PauseAndPartitionStallUntilLifted) {
  LocalFabric f(3, 2);
  alignas(8) std::array<std::byte, 64> mem{};
  f.Register(2, kKey, mem);
  Inbox inbox;
  f.SetHandler(2, [&](Message m) {
    std::lock_guard l(inbox.mu);
    inbox.got.push_back(std::move(m));
  });
  std::array<std::byte, 8> src{std::byte{1}};

  f.SetPaused(2, true);
  auto w = f.Write(0, 2, kKey, 0, src);
  f.Send(2, Message{0, 5, {}});
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(w->Done());
  EXPECT_EQ(inbox.Size(), 0u);
  f.SetPaused(2, false);
  w->Wait();
  WaitFor([&] { return inbox.Size() == 1; });
  EXPECT_EQ(inbox.Size(), 1u);

  f.SetPartitioned(1, 2, true);
  auto cut = f.Write(1, 2, kKey, 0, src);
  auto other = f.Write(0, 2, kKey, 8, src);  // 0 -> 2 is not cut
  other->Wait();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(cut->Done());
  f.SetPartitioned(1, 2, false);
  cut->Wait();
  EXPECT_TRUE(cut->ok());
}

// fabric.h: one-sided operations of one pair take effect in issue order whatever their delays
// (RDMA RC semantics), so the last write to a word wins. The log's head publication relies on it.
TEST(LocalFabricTest, DelayedOneSidedWritesOfOnePairKeepIssueOrder) {
  LocalFabric f(3, 7);
  alignas(8) uint64_t word = 0;
  f.Register(0, kKey, {reinterpret_cast<std::byte*>(&word), 8});
  FaultPolicy p;
  p.max_delay = std::chrono::microseconds(300);
  f.SetFaults(p);
  int regressed = 0;
  for (uint64_t v = 1; v < 400; v += 2) {
    auto c1 = f.Write(1, 0, kKey, 0, std::as_bytes(std::span<const uint64_t>(&v, 1)));
    uint64_t next = v + 1;
    auto c2 = f.Write(1, 0, kKey, 0, std::as_bytes(std::span<const uint64_t>(&next, 1)));
    c1->Wait(), c2->Wait();
    regressed += LoadWord(reinterpret_cast<std::byte*>(&word)) != next;
  }
  EXPECT_EQ(regressed, 0) << "a delayed write landed after a later one of the same pair";
  // A read issued after a write of the same pair sees it.
  uint64_t v = 12345;
  f.Write(1, 0, kKey, 0, std::as_bytes(std::span<const uint64_t>(&v, 1)));
  alignas(8) uint64_t got = 0;
  f.Read(1, 0, kKey, 0, std::as_writable_bytes(std::span<uint64_t>(&got, 1)))->Wait();
  EXPECT_EQ(got, 12345u);
  f.Shutdown();
}

TEST(LocalFabricTest, DelaysReorderMessagesAndDropsOnlyDroppableTypes) {
  LocalFabric f(2, 3);
  Inbox inbox;
  f.SetHandler(1, [&](Message m) {
    std::lock_guard l(inbox.mu);
    inbox.got.push_back(std::move(m));
  });
  FaultPolicy p;
  p.min_delay = std::chrono::microseconds(0);
  p.max_delay = std::chrono::microseconds(3000);
  p.drop_probability = 0.5;
  p.droppable_types = {9};
  f.SetFaults(p);
  constexpr int kN = 200;
  for (int i = 0; i < kN; ++i) {
    std::vector<std::byte> body(1, std::byte(i));
    f.Send(1, Message{0, static_cast<uint16_t>(i % 2 ? 9 : 4), body});
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  WaitFor([&] { return inbox.Size() >= kN / 2; });
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  std::lock_guard l(inbox.mu);
  int type4 = 0, type9 = 0;
  bool reordered = false;
  int last = -1;
  for (auto& m : inbox.got) {
    (m.type == 4 ? type4 : type9)++;
    int v = std::to_integer<int>(m.body[0]);
    if (v < last) reordered = true;
    last = v;
  }
  EXPECT_EQ(type4, kN / 2);  // never dropped
  EXPECT_LT(type9, kN / 2);  // some dropped
  EXPECT_GT(type9, 0);
  EXPECT_TRUE(reordered);
}

// Inline delivery skips the receiver's fabric thread only while nothing would make the message
// wait: a type not allowed inline, a delay, or a paused receiver sends it through that thread.
TEST(LocalFabricTest, InlineTypesRunOnTheSendersThreadUnlessTheMessageMustWait) {
  LocalFabric f(2, 5);
  constexpr uint16_t kInline = 3, kQueued = 4;
  f.AllowInlineDelivery(1, kInline);
  std::mutex mu;
  std::vector<std::pair<uint16_t, std::thread::id>> ran;
  f.SetHandler(1, [&](Message m) {
    std::lock_guard l(mu);
    ran.emplace_back(m.type, std::this_thread::get_id());
  });
  auto ran_count = [&] {
    std::lock_guard l(mu);
    return ran.size();
  };
  const auto sender = std::this_thread::get_id();

  f.Send(1, Message{0, kInline, {}});
  ASSERT_EQ(ran_count(), 1u);  // delivered before Send returned
  EXPECT_EQ(ran[0].second, sender);
  f.Send(1, Message{0, kQueued, {}});
  WaitFor([&] { return ran_count() == 2; });
  ASSERT_EQ(ran_count(), 2u);
  EXPECT_NE(ran[1].second, sender);

  f.SetPaused(1, true);
  f.Send(1, Message{0, kInline, {}});
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(ran_count(), 2u);  // stalls while paused
  f.SetPaused(1, false);
  WaitFor([&] { return ran_count() == 3; });
  ASSERT_EQ(ran_count(), 3u);
  EXPECT_NE(ran[2].second, sender);

  FaultPolicy p;
  p.min_delay = std::chrono::microseconds(500);
  p.max_delay = std::chrono::microseconds(1000);
  f.SetFaults(p);
  f.Send(1, Message{0, kInline, {}});
  WaitFor([&] { return ran_count() == 4; });
  ASSERT_EQ(ran_count(), 4u);
  EXPECT_NE(ran[3].second, sender);

  f.Shutdown();
  f.Send(1, Message{0, kInline, {}});  // nothing is delivered after Shutdown
  EXPECT_EQ(ran_count(), 4u);
}

}  // namespace
}  // namespace farmdb::cluster
