// Wal: an append-only log in fixed-size segment files, the durable log of one machine
// (txn/FORMATS.md "Durable log" says what goes in it and why it is not the rings).
//
// Records are addressed by LSN, their byte position in the log. Each carries its own LSN and a
// CRC-32C, so a reader stops at the first record that is torn, stale (from an earlier use of the
// same bytes) or missing, and never misreads one. Appends copy into the current segment, a
// shared mapping of a preallocated file; SyncTo(lsn) makes everything below lsn durable (msync),
// so one sync covers every append before it (group commit is built on that in txn/).
//
// Opening reads the log from a given LSN to its end, handing each record to a callback, then
// seals it: an END mark at the end and a fresh segment for what comes next. A record after the
// end of what one run could read is therefore never read by a later run either.
//
// Thread-safe: appends serialise on a mutex; syncs serialise among themselves, not with appends.
#pragma once

#include <atomic>
#include <cstdint>
#include <expected>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>

#include "cluster/files.h"

namespace farmdb::cluster {

struct WalOptions {
  uint64_t segment_size = 64ull << 20;  // a multiple of 8; records larger than this minus 24 are refused
};

struct WalRecord {
  uint64_t lsn = 0;  // where it starts
  uint32_t type = 0;
  std::span<const std::byte> body;  // valid during the callback only
};

class Wal {
 public:
  static constexpr uint64_t kHeaderSize = 24;

  // Opens (or starts) the log in `dir`, reads it from `from` (0 or the LSN of a record, or the
  // end) and calls `each` for every record found, in order, until its end. Errors name the file:
  // a segment that should exist and does not, or the log cannot be written. `whole`: everything
  // appended is still there (a process crash in this boot: only the one record being written
  // can be torn), so a whole record after the end means the end is damage, an error naming the
  // segment; otherwise (after a reboot) unsynced records may survive in any order, and the end
  // is the first record that is not whole.
  static std::expected<std::unique_ptr<Wal>, FileError> Open(Files* files, std::filesystem::path dir,
                                                             WalOptions options, uint64_t from,
                                                             const std::function<void(const WalRecord&)>& each,
                                                             bool whole = false);
  ~Wal();
  // Reads the records in [from, to) again, as Open read them (without checking their CRCs
  // again). REQUIRES: `from` is where Open began or a record's LSN, and `to` <= end().
  std::expected<void, FileError> Replay(uint64_t from, uint64_t to, const std::function<void(const WalRecord&)>& each);
  Wal(const Wal&) = delete;
  Wal& operator=(const Wal&) = delete;

  // Appends a record of `type` whose body is the concatenation of `parts` and returns its LSN
  // (where it starts). Fails (the file system's error, NoSpace() on a full disk) only when a new
  // segment could not be created; the log is unchanged then. The last kReserve bytes of each
  // segment are kept for `small` records (the group commit's stamps): on a full disk, commits
  // already logged still become durable while new ones fail.
  static constexpr uint64_t kReserve = 4096;
  std::expected<uint64_t, FileError> Append(uint32_t type, std::span<const std::span<const std::byte>> parts,
                                            bool small = false);
  // The LSN past the last record appended.
  uint64_t end() const;
  // Makes every record below `lsn` durable. REQUIRES: lsn <= end().
  std::expected<void, FileError> SyncTo(uint64_t lsn);
  uint64_t durable() const;
  // Creates the next segment ahead of need, so that an append seldom waits for one.
  std::expected<void, FileError> PrepareNextSegment();
  // Removes the segments that hold only records below `lsn`.
  void DropBefore(uint64_t lsn);
  uint64_t segment_size() const { return options_.segment_size; }
  // Bytes in segment files, for tests and statistics.
  uint64_t FileBytes() const;

 private:
  struct Segment {
    uint64_t start = 0;
    std::unique_ptr<MappedFile> file;
  };
  Wal(Files* files, std::filesystem::path dir, WalOptions options)
      : files_(files), dir_(std::move(dir)), options_(options) {}
  // Reads records from `from` until `to` or the end of the log; says where it stopped and in
  // which segment (null: none holds `from`). A segment missing below the end is an error.
  // `check_crcs` false: the records' CRCs were checked before (a replay of what Open read).
  struct ScanEnd {
    uint64_t stop;
    Segment* last;
  };
  std::expected<ScanEnd, FileError> Scan(uint64_t from, uint64_t to, const std::function<void(const WalRecord&)>& each,
                                         bool check_crcs);
  std::filesystem::path SegmentPath(uint64_t start) const;
  // The segment starting at `start`, made now. REQUIRES: segments_mu_ held.
  std::expected<Segment*, FileError> NewSegment(uint64_t start);
  // Writes the END mark at `lsn` in `seg` (when there is room for one).
  void WriteEnd(Segment& seg, uint64_t lsn);
  // A whole record in `seg` after `pos`, if any.
  std::optional<uint64_t> WholeRecordAfter(const Segment& seg, uint64_t pos) const;

  Files* files_;
  std::filesystem::path dir_;
  WalOptions options_;

  mutable std::mutex append_mu_;
  Segment* current_ = nullptr;  // guarded by append_mu_
  uint64_t end_ = 0;            // guarded by append_mu_

  // Segments by start LSN. Held briefly by Append (switching), SyncTo, Drop and Prepare.
  mutable std::mutex segments_mu_;
  std::map<uint64_t, Segment> segments_;

  std::mutex sync_mu_;
  std::atomic<uint64_t> durable_{0};
};

}  // namespace farmdb::cluster
