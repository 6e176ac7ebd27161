#include "cluster/wal.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cluster/crc32c.h"
#include "cluster/machine_state.h"
#include "cluster/region_image.h"
#include "cluster/temp_dir.h"

namespace farmdb::cluster {
namespace {

// PosixFiles, but creating files fails with ENOSPC while `full` (a full disk).
class FullDiskFiles final : public Files {
 public:
  bool full = false;
  std::expected<std::unique_ptr<MappedFile>, FileError> Create(const std::filesystem::path& p, size_t size,
                                                               MapMode mode) override {
    if (full) return std::unexpected(MakeFileError(ENOSPC, "posix_fallocate", p));
    return PosixFiles().Create(p, size, mode);
  }
  std::expected<std::unique_ptr<MappedFile>, FileError> Open(const std::filesystem::path& p, MapMode m) override {
    return PosixFiles().Open(p, m);
  }
  std::expected<void, FileError> Sync(const MappedFile& f, size_t o, size_t l) override { return PosixFiles().Sync(f, o, l); }
  std::expected<void, FileError> Replace(const std::filesystem::path& p,
                                         std::span<const std::span<const std::byte>> parts) override {
    return PosixFiles().Replace(p, parts);
  }
  std::expected<std::vector<std::byte>, FileError> Read(const std::filesystem::path& p) override {
    return PosixFiles().Read(p);
  }
  std::expected<void, FileError> Remove(const std::filesystem::path& p) override { return PosixFiles().Remove(p); }
  std::vector<std::string> List(const std::filesystem::path& d) override { return PosixFiles().List(d); }
  std::string BootId() override { return PosixFiles().BootId(); }
};

std::vector<std::byte> Body(uint64_t i, size_t size) {
  std::vector<std::byte> b(size, std::byte(i));
  std::memcpy(b.data(), &i, std::min<size_t>(8, size));
  return b;
}

std::expected<uint64_t, FileError> Append(Wal& wal, uint64_t i, size_t size, bool small = false) {
  auto body = Body(i, size);
  std::span<const std::byte> part(body);
  return wal.Append(7, std::span(&part, 1), small);
}

// What Open reads back: (type, first body word) of each record.
std::vector<uint64_t> ReadAll(Files& files, const std::filesystem::path& dir, uint64_t segment, uint64_t from = 0,
                              std::unique_ptr<Wal>* kept = nullptr) {
  std::vector<uint64_t> seen;
  auto wal = Wal::Open(&files, dir, {segment}, from, [&](const WalRecord& r) {
    EXPECT_EQ(r.type, 7u);
    uint64_t v;
    std::memcpy(&v, r.body.data(), 8);
    seen.push_back(v);
  });
  EXPECT_TRUE(wal.has_value()) << (wal ? "" : wal.error().message);
  if (wal && kept) *kept = std::move(*wal);
  return seen;
}

// Opens a log in `dir` and appends records 1..n of 800 bytes each.
void WriteRecords(Files& files, const std::filesystem::path& dir, uint64_t segment, uint64_t n) {
  std::unique_ptr<Wal> wal;
  ReadAll(files, dir, segment, 0, &wal);
  ASSERT_TRUE(wal);
  for (uint64_t i = 1; i <= n; ++i) ASSERT_TRUE(Append(*wal, i, 800));
}

std::vector<uint64_t> Range(uint64_t from, uint64_t to) {
  std::vector<uint64_t> v;
  for (uint64_t i = from; i <= to; ++i) v.push_back(i);
  return v;
}

TEST(WalTest, RecordsComeBackInOrderAcrossSegmentsAndRuns) {
  TempDir dir("wal");
  FullDiskFiles files;
  constexpr uint64_t kSegment = 64 << 10;
  {
    std::unique_ptr<Wal> wal;
    EXPECT_TRUE(ReadAll(files, dir.path, kSegment, 0, &wal).empty());
    for (uint64_t i = 1; i <= 300; ++i) ASSERT_TRUE(Append(*wal, i, 8 + (i * 37) % 900));
    EXPECT_GT(wal->end(), 2 * kSegment) << "the records should span several segments";
    ASSERT_TRUE(wal->SyncTo(wal->end()));
  }
  // A second run appends after what the first wrote; a third reads both.
  {
    std::unique_ptr<Wal> wal;
    EXPECT_EQ(ReadAll(files, dir.path, kSegment, 0, &wal), Range(1, 300));
    for (uint64_t i = 301; i <= 320; ++i) ASSERT_TRUE(Append(*wal, i, 100));
  }
  std::unique_ptr<Wal> wal;
  EXPECT_EQ(ReadAll(files, dir.path, kSegment, 0, &wal), Range(1, 320));
  // Replay reads a range again; DropBefore removes whole segments below a position only.
  std::vector<uint64_t> again;
  ASSERT_TRUE(wal->Replay(0, wal->end(), [&](const WalRecord& r) {
    uint64_t v;
    std::memcpy(&v, r.body.data(), 8);
    again.push_back(v);
  }));
  EXPECT_EQ(again, Range(1, 320));
  uint64_t before = wal->FileBytes();
  ASSERT_TRUE(wal->SyncTo(wal->end()));
  wal->DropBefore(2 * kSegment + 5);
  EXPECT_EQ(wal->FileBytes(), before - 2 * kSegment);
}

// A torn or stale record ends the log: nothing after it is read, by this run or a later one,
// even records that look whole (a power loss keeps random sectors of what was not synced).
TEST(WalTest, ATornRecordEndsTheLogForGood) {
  TempDir dir("wal");
  FullDiskFiles files;
  constexpr uint64_t kSegment = 1 << 20;
  uint64_t torn_at = 0;
  {
    std::unique_ptr<Wal> wal;
    ReadAll(files, dir.path, kSegment, 0, &wal);
    for (uint64_t i = 1; i <= 50; ++i) {
      auto lsn = Append(*wal, i, 200);
      ASSERT_TRUE(lsn);
      if (i == 30) torn_at = *lsn;
    }
  }
  // Flip a byte inside record 30's body.
  {
    auto seg = PosixFiles().Open(dir.path / "0000000000000000", MapMode::kShared);
    ASSERT_TRUE(seg);
    (*seg)->bytes()[torn_at + Wal::kHeaderSize + 50] ^= std::byte{1};
  }
  // After a process crash everything appended is there: a whole record after the end is damage.
  {
    auto refused = Wal::Open(&files, dir.path, {kSegment}, 0, [](const WalRecord&) {}, /*whole=*/true);
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().message.find("is damaged at position " + std::to_string(torn_at)), std::string::npos)
        << refused.error().message;
  }
  // After a reboot the end is the first record that is not whole.
  {
    std::unique_ptr<Wal> wal;
    EXPECT_EQ(ReadAll(files, dir.path, kSegment, 0, &wal), Range(1, 29));
    ASSERT_TRUE(Append(*wal, 1000, 200));
  }
  // Records 31..50 are still in the file, whole, but never come back.
  EXPECT_EQ(ReadAll(files, dir.path, kSegment), (std::vector<uint64_t>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
                                                                        16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27,
                                                                        28, 29, 1000}));
}

TEST(WalTest, AMissingSegmentIsAnErrorNamingIt) {
  TempDir dir("wal");
  FullDiskFiles files;
  constexpr uint64_t kSegment = 64 << 10;
  WriteRecords(files, dir.path, kSegment, 200);
  std::filesystem::remove(dir.path / "0000000000010000");
  auto wal = Wal::Open(&files, dir.path, {kSegment}, 0, [](const WalRecord&) {});
  ASSERT_FALSE(wal);
  EXPECT_NE(wal.error().message.find("0000000000010000"), std::string::npos) << wal.error().message;
  // Reading from a position whose segment is gone.
  std::filesystem::remove(dir.path / "0000000000000000");
  auto from_gone = Wal::Open(&files, dir.path, {kSegment}, 100, [](const WalRecord&) {});
  ASSERT_FALSE(from_gone);
  EXPECT_NE(from_gone.error().message.find("missing"), std::string::npos) << from_gone.error().message;
}

// A crash while a segment is being made (opened, not yet allocated) leaves a short file: as the
// newest segment it is dropped and the log opens; a short segment before others is damage.
TEST(WalTest, AnUnfinishedNewestSegmentIsDroppedAndAShortOneElsewhereRefused) {
  TempDir dir("wal");
  FullDiskFiles files;
  constexpr uint64_t kSegment = 64 << 10;
  WriteRecords(files, dir.path, kSegment, 200);
  uint64_t newest = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.path)) {
    newest = std::max<uint64_t>(newest, std::stoull(e.path().filename().string(), nullptr, 16));
  }
  char name[17];
  std::snprintf(name, sizeof name, "%016llx", static_cast<unsigned long long>(newest + kSegment));
  std::ofstream(dir.path / name).close();  // created, never allocated
  EXPECT_EQ(ReadAll(files, dir.path, kSegment), Range(1, 200));
  std::filesystem::resize_file(dir.path / "0000000000010000", 0);
  auto refused = Wal::Open(&files, dir.path, {kSegment}, 0, [](const WalRecord&) {});
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("0000000000010000 is not"), std::string::npos) << refused.error().message;
}

// A full disk fails appends that need a new segment; stamps still fit the segment's reserve, so
// commits already logged can still be made durable.
TEST(WalTest, AFullDiskFailsAppendsButSmallRecordsUseTheReserve) {
  TempDir dir("wal");
  FullDiskFiles files;
  constexpr uint64_t kSegment = 64 << 10;
  std::unique_ptr<Wal> wal;
  ReadAll(files, dir.path, kSegment, 0, &wal);
  files.full = true;
  int appended = 0;
  for (;; ++appended) {
    auto lsn = Append(*wal, appended + 1, 1000);
    if (!lsn) {
      EXPECT_TRUE(lsn.error().NoSpace()) << lsn.error().message;
      break;
    }
  }
  EXPECT_GT(appended, 50);
  for (int k = 0; k < 20; ++k) ASSERT_TRUE(Append(*wal, 10'000 + k, 8, /*small=*/true)) << k;
  ASSERT_TRUE(wal->SyncTo(wal->end()));
  files.full = false;
  ASSERT_TRUE(Append(*wal, 99'999, 1000));
  wal.reset();
  std::vector<uint64_t> seen = ReadAll(files, dir.path, kSegment);
  ASSERT_EQ(seen.size(), static_cast<size_t>(appended + 21));
  EXPECT_EQ(seen.back(), 99'999u);
}

TEST(MachineStateTest, RoundTripsAndRefusesDamageAndOtherFormats) {
  MachineState s;
  s.machine = 2;
  s.machines = 3;
  s.replicas = 2;
  s.region_size = 64 << 20;
  s.next_region = 9;
  s.time_floor = 123456789;
  s.root_object = uint64_t{1} << 40;
  s.regions = {{1, 64 << 20, 0, {1, 2}, RegionKind::kData}, {4, 64 << 20, 2, {}, RegionKind::kOldVersions}};
  s.images = {{1, 3}};
  s.log_start = 4096;
  s.checkpoint_ts = 77;
  s.checkpoint_boot_id = "abc-def";
  s.runs = {{1, 0, "abc-def", Timestamp{55}}, {2, 4096, "abc-def", std::nullopt}};
  std::string text = EncodeMachineState(s);
  auto back = DecodeMachineState(text);
  ASSERT_TRUE(back) << back.error();
  EXPECT_EQ(*back, s);
  std::string damaged = text;
  damaged[damaged.find("next_region 9") + 12] = '8';
  EXPECT_NE(DecodeMachineState(damaged).error().find("checksum"), std::string::npos);
  EXPECT_NE(DecodeMachineState(text.substr(0, text.size() / 2)).error().find("checksum"), std::string::npos);
  // A state file of another format version, checksummed as its farmdb wrote it.
  std::string other = text.substr(0, text.rfind("crc "));
  other.replace(0, other.find('\n'), "farmdb-machine-state 7");
  char crc[16];
  std::snprintf(crc, sizeof crc, "%08x", Crc32c(std::as_bytes(std::span(other.data(), other.size()))));
  auto refused = DecodeMachineState(other + "crc " + crc + "\n");
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().find("format version 7"), std::string::npos) << refused.error();
}

TEST(RegionImageTest, TailChecksTheImageAndFindsDamage) {
  constexpr uint64_t kSize = 2 * kImageChunk;
  std::vector<std::byte> region(kSize, std::byte{3});
  std::vector<std::byte> meta(13, std::byte{9});
  std::vector<std::byte> file = region;
  auto tail = ImageTail(5, 4, region, meta);
  file.insert(file.end(), tail.begin(), tail.end());
  auto info = CheckImage(file, 5, kSize, true);
  ASSERT_TRUE(info) << info.error();
  EXPECT_EQ(info->generation, 4u);
  EXPECT_TRUE(std::ranges::equal(info->meta, meta));
  EXPECT_FALSE(CheckImage(file, 6, kSize, true)) << "another region's image";
  std::vector<std::byte> cut(file.begin(), file.end() - 10);
  EXPECT_FALSE(CheckImage(cut, 5, kSize, true));
  std::vector<std::byte> bad = file;
  bad[kImageChunk + 17] ^= std::byte{1};
  EXPECT_TRUE(CheckImage(bad, 5, kSize, false)) << "data checks are asked for";
  auto found = CheckImage(bad, 5, kSize, true);
  ASSERT_FALSE(found);
  EXPECT_NE(found.error().find(std::to_string(kImageChunk)), std::string::npos) << found.error();
  std::vector<std::byte> bad_meta = file;
  bad_meta[kSize + 2] ^= std::byte{1};
  EXPECT_FALSE(CheckImage(bad_meta, 5, kSize, false));
  // A new region's file: zeros, no tail.
  EXPECT_EQ(CheckImage(region, 5, kSize, true)->generation, 0u);
}

}  // namespace
}  // namespace farmdb::cluster
