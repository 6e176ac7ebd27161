#include "txn/log.h"

#include <gtest/gtest.h>

#include <cstring>
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
  LogWriter writer{&fabric, 0, 1, kSize, reinterpret_cast<const std::byte*>(&mirror), /*configuration=*/7};
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

// The next record, consumed (what the participant does once the record is in its durable log).
std::optional<RawBytes> Take(LogReader& reader) {
  auto rec = reader.Peek();
  if (rec) reader.Pop();
  return rec;
}

Record Sized(TxnId id, size_t payload_lines) {
  Record r;
  r.type = RecordType::kCommitBackup;
  r.txn = id;
  r.write_ts = id * 10;
  r.truncated = {id + 1000};
  RecordObject o;
  o.addr = Addr::Of(1, 64 * id);
  o.lines = static_cast<uint32_t>(payload_lines);
  RawBytes& payload = r.buffers.emplace_back(40 + 56 * (payload_lines - 1), std::byte(id));
  o.payload = payload;
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
      while (auto rec = Take(ring.reader)) {
        auto r = DecodeRecord(*rec);
        ASSERT_TRUE(r.has_value());
        EXPECT_EQ(r->txn, next_read);
        EXPECT_EQ(r->write_ts, next_read * 10);
        EXPECT_EQ(r->configuration, 7u) << "the writer's configuration";
        EXPECT_EQ(r->truncated, std::vector<TxnId>{next_read + 1000});
        EXPECT_EQ(r->objects.at(0).payload.front(), std::byte(next_read));
        ++next_read;
      }
      ring.PublishHead();
    });
    consumer.join();
    ring.writer.Reserve(2 * bytes.size());
    ring.writer.Append(std::move(bytes))->Wait();
  }
  while (auto rec = Take(ring.reader)) ++next_read;
  EXPECT_EQ(next_read, 501u);
}

// A TRUNCATE-typed record of exactly `len` bytes (Append writes its trailer mark).
std::vector<std::byte> Raw(uint64_t len) {
  std::vector<std::byte> r(len);
  uint64_t w0 = len | (uint64_t{static_cast<uint8_t>(RecordType::kTruncate)} << 32);
  std::memcpy(r.data(), &w0, 8);
  return r;
}

TEST(LogTest, ReservationWaitsForTheReceiversPublishedHead) {
  Ring ring;
  ASSERT_TRUE(ring.writer.TryReserve(Ring::kSize));  // everything
  EXPECT_FALSE(ring.writer.TryReserve(64));
  ring.writer.Unreserve(Ring::kSize);
  ASSERT_TRUE(ring.writer.TryReserve(2048));
  ring.writer.Append(Raw(1024))->Wait();
  EXPECT_FALSE(ring.writer.TryReserve(3072 + 64)) << "1024 used + 0 reserved: 3072 free";
  // Appended but unconsumed records keep the writer from being drained.
  EXPECT_FALSE(ring.writer.Drained());
  ASSERT_TRUE(Take(ring.reader));
  EXPECT_FALSE(ring.writer.Drained()) << "consumed but not published yet";
  ring.PublishHead();
  EXPECT_TRUE(ring.writer.Drained());
  EXPECT_TRUE(ring.writer.TryReserve(Ring::kSize));
  // A Reserve blocked on a full ring returns once space is given back.
  std::thread t([&] { ring.writer.Reserve(64); });
  ring.writer.Unreserve(Ring::kSize);
  t.join();
  ring.writer.Unreserve(64);
}

// A head publication delayed past a later one must not make the writer's view of the head go
// back: space would look smaller and the old unsigned arithmetic underflowed into "plenty".
TEST(LogTest, AStaleHeadMirrorNeverShrinksOrUnderflowsFreeSpace) {
  Ring ring;
  auto record = [] { return Raw(1024); };
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(ring.writer.TryReserve(2048));
    ring.writer.Append(record())->Wait();
    if (i == 1) {
      while (Take(ring.reader)) {}
      ring.PublishHead();  // head 2048
    }
  }
  // tail 3072, head 2048: 1024 used.
  ASSERT_TRUE(ring.writer.TryReserve(2048));          // 1024 + 2048 <= 4096
  cluster::StoreWord(reinterpret_cast<std::byte*>(&ring.mirror), 0);  // a stale publication lands
  EXPECT_FALSE(ring.writer.TryReserve(2048)) << "only 1024 bytes are free";
  EXPECT_TRUE(ring.writer.TryReserve(1024)) << "the head the writer saw (2048) still counts";
  EXPECT_FALSE(ring.writer.TryReserve(32));
}

// An old lap's payload word equal to a future record's mark must not complete that record when
// only its first word has landed: the receiver zeroes what it consumed.
TEST(LogTest, OldLapPayloadCannotForgeATrailer) {
  Ring ring;
  std::vector<std::byte> forged = Raw(1024);
  uint64_t mark = RecordMark(Ring::kSize);  // the mark of position 4096 (ring offset 0, lap 2)
  std::memcpy(forged.data() + 536, &mark, 8);
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(ring.writer.TryReserve(2048));
    ring.writer.Append(i == 0 ? forged : Raw(1024))->Wait();
    ASSERT_TRUE(Take(ring.reader));
    ring.PublishHead();
  }
  ASSERT_EQ(ring.reader.head(), Ring::kSize);
  // Lap 2's first record has written only its first word: length 544, trailer slot at 536.
  cluster::StoreWord(ring.ring, 544 | (uint64_t{static_cast<uint8_t>(RecordType::kLock)} << 32));
  EXPECT_FALSE(Take(ring.reader)) << "a half-written record was accepted";
}

TEST(LogTest, IncompleteRecordIsNotReturned) {
  Ring ring;
  auto bytes = EncodeRecord(Sized(1, 2));
  // Only the first half arrives: the trailer mark is missing.
  ring.fabric.Write(0, 1, MemKey(MemKind::kLog, 0), 0,
                    std::span(bytes).first(bytes.size() / 2))->Wait();
  EXPECT_FALSE(Take(ring.reader).has_value());
  ring.writer.Reserve(2 * bytes.size());
  ring.writer.Append(bytes)->Wait();
  auto rec = Take(ring.reader);
  ASSERT_TRUE(rec.has_value());
  EXPECT_EQ(DecodeRecord(*rec)->txn, 1u);
}

// A writer to its own machine's ring appends with local memory writes, never the fabric (the
// ring is not even registered here): each append is complete on return, wraps with a PAD like a
// remote one.
TEST(LogTest, LocalWriterAppendsInPlaceWithoutTheFabric) {
  constexpr uint64_t kSize = 4096;
  cluster::LocalFabric fabric{1, 3};
  alignas(64) std::byte ring[kSize] = {};
  alignas(8) uint64_t mirror = 0;
  LogWriter writer{&fabric, 0, 0, kSize, reinterpret_cast<const std::byte*>(&mirror), /*configuration=*/7,
                   std::span<std::byte>(ring, kSize)};
  LogReader reader{std::span<std::byte>(ring, kSize)};
  for (TxnId id = 1; id <= 40; ++id) {
    Record r = Sized(id, 1 + id % 5);
    auto bytes = EncodeRecord(r);
    ASSERT_TRUE(writer.TryReserve(2 * bytes.size()));
    auto c = writer.Append(std::move(bytes));
    ASSERT_TRUE(c->Done());
    ASSERT_TRUE(c->ok());
    auto rec = Take(reader);
    ASSERT_TRUE(rec.has_value()) << id;
    auto got = DecodeRecord(*rec);
    ASSERT_TRUE(got.has_value());
    EXPECT_EQ(got->txn, id);
    EXPECT_EQ(got->objects.at(0).payload.front(), std::byte(id));
    mirror = reader.head();  // what the receiver's head publication would write
  }
  EXPECT_GT(reader.head(), kSize) << "the test should have wrapped the ring";
  EXPECT_TRUE(writer.Drained());
}

// A record stays in the ring until Pop, however often it is peeked, and the consumed position
// goes to the head word as it moves: a reader made again from that word (a restart after a crash
// between the two) finds exactly the records not consumed, the peeked one included.
TEST(LogTest, PeekedRecordsStayUntilPoppedAndTheHeadWordFindsTheRest) {
  Ring ring;
  alignas(8) std::byte head_word[8] = {};
  LogReader reader{std::span<std::byte>(ring.ring, Ring::kSize), head_word};
  for (TxnId id = 1; id <= 3; ++id) {
    auto bytes = EncodeRecord(Sized(id, 2));
    ring.writer.Reserve(2 * bytes.size());
    ring.writer.Append(bytes)->Wait();
  }
  auto first = reader.Peek();
  ASSERT_TRUE(first.has_value());
  auto again = reader.Peek();
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(DecodeRecord(*again)->txn, 1u) << "a peek consumed the record";
  reader.Pop();
  EXPECT_EQ(cluster::LoadWord(head_word), reader.head());
  auto second = reader.Peek();
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(DecodeRecord(*second)->txn, 2u);
  // Crash before the second Pop: a new reader from the head word.
  LogReader restarted{std::span<std::byte>(ring.ring, Ring::kSize), nullptr, cluster::LoadWord(head_word)};
  std::vector<TxnId> left;
  while (auto rec = Take(restarted)) left.push_back(DecodeRecord(*rec)->txn);
  EXPECT_EQ(left, (std::vector<TxnId>{2, 3}));
  for (uint64_t i = 0; i < restarted.head(); ++i) ASSERT_EQ(ring.ring[i], std::byte(0)) << i;
}

// A LOCK-REPLY carries why a primary could not lock (records.h LockOutcome): a full disk must
// reach the coordinator as such, not as a conflict it would retry.
TEST(LogTest, LockRepliesCarryTheirOutcomeAndRejectUnknownOnes) {
  for (LockOutcome outcome : {LockOutcome::kLocked, LockOutcome::kConflict, LockOutcome::kNoSpace}) {
    auto got = DecodeLockReply(EncodeLockReply(LockReply{7, outcome, 42}));
    ASSERT_TRUE(got.has_value());
    EXPECT_EQ(got->txn, 7u);
    EXPECT_EQ(got->outcome, outcome);
    EXPECT_EQ(got->max_head_ts, 42u);
  }
  auto bytes = EncodeLockReply(LockReply{7, LockOutcome::kNoSpace, 42});
  bytes[8] = std::byte{9};  // the outcome word
  EXPECT_FALSE(DecodeLockReply(bytes).has_value());
}

}  // namespace
}  // namespace farmdb::txn
