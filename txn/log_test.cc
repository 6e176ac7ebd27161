#include "txn/log.h"

#include <gtest/gtest.h>

#include <thread>

#include "cluster/fabric/local_fabric.h"
#include "cluster/fabric/word_copy.h"
#include "cluster/rng.h"
#include "txn/records.h"

namespace farmdb::txn {
namespace {

using cluster::MemKey;
using cluster::MemKind;

// A ring on machine 1 fed by machine 0, with the head mirror on machine 0.
struct Ring {
  static constexpr uint64_t kSize = 4096;
  cluster::LocalFabric fabric{2, 5};
  alignas(64) std::byte ring[kSize] = {};
  alignas(8) uint64_t mirror = 0;
  LogWriter writer{&fabric, 0, 1, kSize, reinterpret_cast<const std::byte*>(&mirror)};
  LogReader reader{std::span<std::byte>(ring, kSize)};
  Ring() {
    fabric.Register(1, MemKey(MemKind::kLog, 0), {ring, kSize});
    fabric.Register(0, MemKey(MemKind::kLogHead, 0), {reinterpret_cast<std::byte*>(&mirror), 8});
  }
  void PublishHead() {
    uint64_t h = reader.head();
    fabric.Write(1, 0, MemKey(MemKind::kLogHead, 0), 0,
                 std::as_bytes(std::span<uint64_t>(&h, 1)))->Wait();
  }
};

Record Sized(TxnId id, size_t payload_lines) {
  Record r;
  r.type = RecordType::kCommitBackup;
  r.txn = id;
  r.write_ts = id * 10;
  r.truncated = {id + 1000};
  RecordObject o;
  o.addr = Addr::Of(1, 64 * id);
  o.lines = static_cast<uint32_t>(payload_lines);
  o.payload.assign(40 + 56 * (payload_lines - 1), std::byte(id));
  r.objects.push_back(o);
  return r;
}

TEST(LogTest, RecordsRoundTripInOrderAcrossManyWrapsWithReservations) {
  Ring ring;
  cluster::Rng rng(11);
  TxnId next_read = 1;
  for (TxnId id = 1; id <= 500; ++id) {
    auto bytes = EncodeRecord(Sized(id, 1 + rng.Uniform(8)));
    ASSERT_EQ(bytes.size() % kRecordAlign, 0u);
    std::thread consumer([&] {
      // Drain until the writer's reservation can succeed.
      while (auto rec = ring.reader.Next()) {
        auto r = DecodeRecord(*rec);
        ASSERT_TRUE(r.has_value());
        EXPECT_EQ(r->txn, next_read);
        EXPECT_EQ(r->write_ts, next_read * 10);
        EXPECT_EQ(r->truncated, std::vector<TxnId>{next_read + 1000});
        EXPECT_EQ(r->objects.at(0).payload.at(0), std::byte(next_read));
        ++next_read;
      }
      ring.PublishHead();
    });
    consumer.join();
    ring.writer.Reserve(2 * bytes.size());
    ring.writer.Append(std::move(bytes))->Wait();
  }
  while (auto rec = ring.reader.Next()) ++next_read;
  EXPECT_EQ(next_read, 501u);
}

TEST(LogTest, ReservationBlocksUntilTheReceiverPublishesItsHead) {
  Ring ring;
  ring.writer.Reserve(Ring::kSize);  // everything
  std::atomic<bool> got{false};
  std::thread t([&] {
    ring.writer.Reserve(64);
    got = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(got.load());
  ring.writer.Unreserve(Ring::kSize);
  t.join();
  EXPECT_TRUE(got.load());
  ring.writer.Unreserve(64);
}

TEST(LogTest, IncompleteRecordIsNotReturned) {
  Ring ring;
  auto bytes = EncodeRecord(Sized(1, 2));
  // Only the first half arrives: the trailer mark is missing.
  ring.fabric.Write(0, 1, MemKey(MemKind::kLog, 0), 0,
                    std::span(bytes).first(bytes.size() / 2))->Wait();
  EXPECT_FALSE(ring.reader.Next().has_value());
  ring.writer.Reserve(2 * bytes.size());
  ring.writer.Append(bytes)->Wait();
  auto rec = ring.reader.Next();
  ASSERT_TRUE(rec.has_value());
  EXPECT_EQ(DecodeRecord(*rec)->txn, 1u);
}

}  // namespace
}  // namespace farmdb::txn
