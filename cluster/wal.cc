#include "cluster/wal.h"

#include <algorithm>
#include <cinttypes>
#include <optional>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>

#include "cluster/crc32c.h"
#include "cluster/crash_point.h"

namespace farmdb::cluster {

namespace {

// Record header: length (u32, the whole record, a multiple of 8), CRC-32C (u32) of the length and
// of everything after the CRC, LSN (u64), type (u32), body length (u32); the body, zero-padded.
// END: length kEndMark, CRC of the length and the LSN; the rest of its segment holds nothing.
constexpr uint32_t kEndMark = 0xffffffff;
constexpr uint64_t kEndSize = 16;

uint32_t RecordCrc(uint32_t length, std::span<const std::byte> after_crc) {
  return Crc32c(after_crc, Crc32c(std::as_bytes(std::span(&length, 1))));
}

uint64_t Load64(const std::byte* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
uint32_t Load32(const std::byte* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

std::optional<uint64_t> ParseSegmentName(const std::string& name) {
  if (name.size() != 16 || name.find_first_not_of("0123456789abcdef") != std::string::npos) return std::nullopt;
  return std::stoull(name, nullptr, 16);
}

}  // namespace

std::filesystem::path Wal::SegmentPath(uint64_t start) const {
  char name[17];
  std::snprintf(name, sizeof name, "%016" PRIx64, start);
  return dir_ / name;
}

std::expected<std::unique_ptr<Wal>, FileError> Wal::Open(Files* files, std::filesystem::path dir,
                                                         WalOptions options, uint64_t from,
                                                         const std::function<void(const WalRecord&)>& each, bool whole) {
  std::unique_ptr<Wal> wal(new Wal(files, std::move(dir), options));
  // A segment of another size is one whose creation (open, allocate, map) a crash cut short. It
  // holds no record, since nothing is appended to a segment before it is whole; as the newest
  // segment it goes, anywhere else it is damage.
  std::map<uint64_t, std::filesystem::path> unfinished;
  for (const std::string& name : files->List(wal->dir_)) {
    auto start = ParseSegmentName(name);
    if (!start) continue;
    std::error_code ec;
    const auto size = std::filesystem::file_size(wal->dir_ / name, ec);
    if (!ec && size != options.segment_size) {
      unfinished[*start] = wal->dir_ / name;
      continue;
    }
    auto file = files->Open(wal->dir_ / name, MapMode::kShared);
    if (!file) return std::unexpected(file.error());
    wal->segments_[*start] = Segment{*start, std::move(*file)};
  }
  for (const auto& [start, path] : unfinished) {
    if (start != unfinished.rbegin()->first || (!wal->segments_.empty() && wal->segments_.rbegin()->first > start)) {
      return std::unexpected(FileError{0, "log segment " + path.string() + " is not " +
                                              std::to_string(options.segment_size) + " bytes long"});
    }
    if (auto removed = files->Remove(path); !removed) return std::unexpected(removed.error());
  }
  auto scanned = wal->Scan(from, ~uint64_t{0}, each, /*check_crcs=*/true);
  if (!scanned) return std::unexpected(scanned.error());
  const uint64_t pos = scanned->stop;
  Segment* last = scanned->last;
  if (whole && last) {
    if (auto later = wal->WholeRecordAfter(*last, pos)) {
      return std::unexpected(FileError{0, "log segment " + last->file->path().string() + " is damaged at position " +
                                              std::to_string(pos) + ": a whole record follows at " +
                                              std::to_string(*later)});
    }
  }

  // Seal: what was read is made durable (a process crash leaves it in the page cache only), an END
  // mark closes the segment reading stopped in, and segments past it (never durable, or holding
  // records after a gap) go. The next record starts a new segment.
  uint64_t next_start = pos;
  for (auto& [start, s] : wal->segments_) {
    if (start > (last ? last->start : pos)) continue;
    if (auto synced = files->Sync(*s.file, 0, s.file->bytes().size()); !synced) return std::unexpected(synced.error());
  }
  if (last) {
    uint64_t seg_end = last->start + last->file->bytes().size();
    if (pos + kEndSize <= seg_end) {
      wal->WriteEnd(*last, pos);
      if (auto synced = files->Sync(*last->file, pos - last->start, kEndSize); !synced) {
        return std::unexpected(synced.error());
      }
    }
    next_start = seg_end;
  }
  for (auto it = wal->segments_.begin(); it != wal->segments_.end();) {
    if (it->first >= next_start) {
      std::filesystem::path path = it->second.file->path();
      it = wal->segments_.erase(it);
      if (auto removed = files->Remove(path); !removed) return std::unexpected(removed.error());
    } else {
      ++it;
    }
  }
  std::lock_guard l(wal->segments_mu_);
  auto fresh = wal->NewSegment(next_start);
  if (!fresh) return std::unexpected(fresh.error());
  wal->current_ = *fresh;
  wal->end_ = next_start;
  wal->durable_.store(next_start);
  return wal;
}

Wal::~Wal() = default;

std::optional<uint64_t> Wal::WholeRecordAfter(const Segment& seg, uint64_t pos) const {
  const std::span<std::byte> bytes = seg.file->bytes();
  const uint64_t seg_end = seg.start + bytes.size();
  // 8-aligned positions after the first word of the end (a torn record may start exactly there).
  for (uint64_t at = pos + 8; at + kHeaderSize <= seg_end; at += 8) {
    const std::byte* p = bytes.data() + (at - seg.start);
    if (Load64(p + 8) != at) continue;
    uint32_t length = Load32(p);
    if (length >= kHeaderSize && length % 8 == 0 && length <= seg_end - at &&
        Load32(p + 4) == RecordCrc(length, {p + 8, length - 8})) {
      return at;
    }
  }
  return std::nullopt;
}

std::expected<Wal::ScanEnd, FileError> Wal::Scan(uint64_t from, uint64_t to,
                                                 const std::function<void(const WalRecord&)>& each, bool check_crcs) {
  // Segments wholly below `from` are not read; the one holding it must be there.
  auto seg = segments_.upper_bound(from);
  if (seg != segments_.begin()) --seg;
  bool holds_from = seg != segments_.end() && seg->first <= from && from <= seg->first + seg->second.file->bytes().size();
  if (!holds_from) {
    if (!segments_.empty() && from < std::prev(segments_.end())->first) {
      return std::unexpected(FileError{ENOENT, "log segment " + SegmentPath(from / options_.segment_size *
                                                                            options_.segment_size).string() +
                                                   " holding position " + std::to_string(from) + " is missing"});
    }
    return ScanEnd{from, nullptr};
  }
  uint64_t pos = from;
  for (;;) {
    Segment& s = seg->second;
    const std::span<std::byte> bytes = s.file->bytes();
    const uint64_t seg_end = s.start + bytes.size();
    if (pos >= to) return ScanEnd{pos, &s};
    if (pos + kEndSize <= seg_end) {
      const std::byte* p = bytes.data() + (pos - s.start);
      uint32_t length = Load32(p);
      bool end_mark = length == kEndMark && Load64(p + 8) == pos && Load32(p + 4) == RecordCrc(length, {p + 8, 8});
      bool record = !end_mark && length >= kHeaderSize && length % 8 == 0 && length <= seg_end - pos &&
                    Load64(p + 8) == pos && (!check_crcs || Load32(p + 4) == RecordCrc(length, {p + 8, length - 8})) &&
                    Load32(p + 20) <= length - kHeaderSize;
      if (record) {
        each(WalRecord{pos, Load32(p + 16), {p + kHeaderSize, Load32(p + 20)}});
        pos += length;
        continue;
      }
      if (!end_mark) return ScanEnd{pos, &s};  // the end of the log: torn, stale or never written
    }
    // The rest of this segment is empty; the log goes on in the segment starting where it ends.
    auto next = std::next(seg);
    if (next == segments_.end() || next->first != seg_end) {
      if (next != segments_.end()) {
        return std::unexpected(FileError{ENOENT, "log segment " + SegmentPath(seg_end).string() + " is missing"});
      }
      return ScanEnd{seg_end, &s};
    }
    pos = seg_end;
    seg = next;
  }
}

std::expected<void, FileError> Wal::Replay(uint64_t from, uint64_t to,
                                           const std::function<void(const WalRecord&)>& each) {
  std::lock_guard l(segments_mu_);
  // Open checked every record's CRC below where it ended, in these same mappings, and what was
  // appended since was written by this process: a recovery's second pass (half its time was
  // CRCs) need not check them again.
  auto scanned = Scan(from, to, each, /*check_crcs=*/false);
  if (!scanned) return std::unexpected(scanned.error());
  return {};
}

void Wal::WriteEnd(Segment& seg, uint64_t lsn) {
  std::byte* p = seg.file->bytes().data() + (lsn - seg.start);
  uint32_t length = kEndMark;
  std::memcpy(p, &length, 4);
  std::memcpy(p + 8, &lsn, 8);
  uint32_t crc = RecordCrc(length, {p + 8, 8});
  std::memcpy(p + 4, &crc, 4);
}

std::expected<Wal::Segment*, FileError> Wal::NewSegment(uint64_t start) {
  if (auto it = segments_.find(start); it != segments_.end()) return &it->second;
  auto file = files_->Create(SegmentPath(start), options_.segment_size, MapMode::kShared);
  if (!file) return std::unexpected(file.error());
  return &(segments_[start] = Segment{start, std::move(*file)});
}

std::expected<void, FileError> Wal::PrepareNextSegment() {
  uint64_t next;
  {
    std::lock_guard l(append_mu_);
    next = current_->start + current_->file->bytes().size();
  }
  std::lock_guard l(segments_mu_);
  if (segments_.contains(next)) return {};
  auto made = NewSegment(next);
  if (!made) return std::unexpected(made.error());
  return {};
}

std::expected<uint64_t, FileError> Wal::Append(uint32_t type, std::span<const std::span<const std::byte>> parts,
                                               bool small) {
  size_t body = 0;
  for (auto part : parts) body += part.size();
  const uint64_t length = (kHeaderSize + body + 7) & ~uint64_t{7};
  if (length + kReserve > options_.segment_size || (small && length > kReserve)) {
    return std::unexpected(FileError{EFBIG, "a log record of " + std::to_string(length) +
                                                " bytes does not fit a segment of " + dir_.string()});
  }
  std::lock_guard l(append_mu_);
  uint64_t seg_end = current_->start + current_->file->bytes().size();
  if (end_ + length + (small ? 0 : kReserve) > seg_end) {
    std::expected<Segment*, FileError> next;
    {
      std::lock_guard sl(segments_mu_);
      next = NewSegment(seg_end);
    }
    if (next) {
      CrashPoint("wal.segment");
      if (end_ + kEndSize <= seg_end) WriteEnd(*current_, end_);
      current_ = *next;
      end_ = seg_end;
    } else if (!small || end_ + length > seg_end) {
      return std::unexpected(next.error());
    }  // else a small record goes into the reserve
  }
  std::byte* p = current_->file->bytes().data() + (end_ - current_->start);
  uint32_t length32 = static_cast<uint32_t>(length), body32 = static_cast<uint32_t>(body);
  std::memcpy(p, &length32, 4);
  std::memcpy(p + 8, &end_, 8);
  std::memcpy(p + 16, &type, 4);
  std::memcpy(p + 20, &body32, 4);
  size_t at = kHeaderSize;
  for (auto part : parts) {
    std::memcpy(p + at, part.data(), part.size());
    at += part.size();
  }
  std::memset(p + at, 0, length - at);
  uint32_t crc = RecordCrc(length32, {p + 8, length - 8});
  std::memcpy(p + 4, &crc, 4);
  const uint64_t lsn = end_;
  end_ += length;
  return lsn;
}

uint64_t Wal::end() const {
  std::lock_guard l(append_mu_);
  return end_;
}

uint64_t Wal::durable() const { return durable_.load(std::memory_order_acquire); }

std::expected<void, FileError> Wal::SyncTo(uint64_t lsn) {
  std::lock_guard sync(sync_mu_);
  const uint64_t from = durable_.load();
  if (lsn <= from) return {};
  std::vector<std::pair<MappedFile*, std::pair<uint64_t, uint64_t>>> ranges;
  {
    std::lock_guard l(segments_mu_);
    for (auto& [start, s] : segments_) {
      uint64_t seg_end = start + s.file->bytes().size();
      uint64_t lo = std::max(from, start), hi = std::min(lsn, seg_end);
      if (lo < hi) ranges.push_back({s.file.get(), {lo - start, hi - lo}});
    }
  }
  // Segments are only removed below the durable LSN (DropBefore), so these stay mapped.
  for (auto& [file, range] : ranges) {
    if (auto synced = files_->Sync(*file, range.first, range.second); !synced) return synced;
  }
  durable_.store(lsn, std::memory_order_release);
  return {};
}

void Wal::DropBefore(uint64_t lsn) {
  std::vector<std::filesystem::path> gone;
  {
    std::lock_guard a(append_mu_);
    std::lock_guard l(segments_mu_);
    const uint64_t limit = std::min({lsn, durable_.load(), uint64_t{current_->start}});
    for (auto it = segments_.begin(); it != segments_.end();) {
      if (it->first + it->second.file->bytes().size() > limit) break;
      gone.push_back(it->second.file->path());
      it = segments_.erase(it);
    }
  }
  // A file left behind only takes space: the next open reads from a later LSN.
  for (auto& path : gone) (void)files_->Remove(path);
}

uint64_t Wal::FileBytes() const {
  std::lock_guard l(segments_mu_);
  uint64_t n = 0;
  for (auto& [start, s] : segments_) n += s.file->bytes().size();
  return n;
}

}  // namespace farmdb::cluster
