#include "txn/object.h"

#include <cstring>

#include "cluster/fabric/word_copy.h"

namespace farmdb::txn {

using cluster::CopyIn;
using cluster::CopyOut;
using cluster::LoadWord;
using cluster::StoreWord;

uint32_t LinesFor(size_t bytes) {
  if (bytes <= 40) return 1;
  return static_cast<uint32_t>(1 + (bytes - 40 + 55) / 56);
}

namespace {
uint64_t WordAt(std::span<const std::byte> raw, size_t off) {
  uint64_t v;
  std::memcpy(&v, raw.data() + off, 8);
  return v;
}
}  // namespace

uint64_t ObjectCopy::header() const { return WordAt(raw, 0); }
Addr ObjectCopy::old_version() const { return {WordAt(raw, 8)}; }

ReadCheck ObjectCopy::Check() const {
  uint64_t w0 = header();
  if (HeaderLocked(w0)) return ReadCheck::kLocked;
  Timestamp ts = HeaderTs(w0);
  for (size_t line = 0; line < raw.size() / kLineSize; ++line) {
    if (WordAt(raw, line * kLineSize + 56) != ts) return ReadCheck::kTorn;
  }
  return ReadCheck::kOk;
}

RawBytes ObjectCopy::Payload() const {
  uint32_t lines = static_cast<uint32_t>(raw.size() / kLineSize);
  RawBytes out(PayloadCapacity(lines));
  std::memcpy(out.data(), raw.data() + 16, 40);
  for (uint32_t k = 1; k < lines; ++k) {
    std::memcpy(out.data() + 40 + 56 * (k - 1), raw.data() + k * kLineSize, 56);
  }
  return out;
}

void InstallObject(std::byte* obj, uint32_t lines, std::span<const std::byte> payload,
                   Timestamp ts, bool allocated, Addr old_version) {
  // Line by line: data words, then the line version (line 0's data includes the old-version
  // pointer); the header word goes last and releases the lock.
  std::byte line_buf[kLineSize];
  for (uint32_t k = 0; k < lines; ++k) {
    std::memset(line_buf, 0, sizeof line_buf);
    size_t data_off = k == 0 ? 16 : 0;
    size_t data_len = k == 0 ? 40 : 56;
    size_t src_off = k == 0 ? 0 : 40 + 56 * (k - 1);
    if (src_off < payload.size()) {
      std::memcpy(line_buf + data_off, payload.data() + src_off,
                  std::min(data_len, payload.size() - src_off));
    }
    std::memcpy(line_buf + 56, &ts, 8);
    std::byte* line = obj + k * kLineSize;
    if (k == 0) {
      StoreWord(line + 8, old_version.raw);
      CopyIn(line + 16, line_buf + 16, 48);
    } else {
      CopyIn(line, line_buf, kLineSize);
    }
  }
  StoreWord(obj, (allocated ? kAllocBit : 0) | (ts & cluster::kTimestampMask));
}

void CopyAsOldVersion(const std::byte* head, std::byte* dst, uint32_t lines) {
  size_t size = lines * kLineSize;
  RawBytes tmp(size);  // overwritten whole by CopyOut
  CopyOut(head, tmp.data(), size);
  uint64_t w0;
  std::memcpy(&w0, tmp.data(), 8);
  w0 &= ~kLockBit;
  // The header word goes last, as for installs.
  CopyIn(dst + 8, tmp.data() + 8, size - 8);
  StoreWord(dst, w0);
}

bool SameReplicaContents(const std::byte* a, const std::byte* b, uint32_t lines) {
  size_t size = lines * kLineSize;
  for (size_t off = 0; off < size; off += 8) {
    if (off == 8) continue;
    uint64_t x = LoadWord(a + off), y = LoadWord(b + off);
    if (off == 0) x &= ~kLockBit, y &= ~kLockBit;
    if (x != y) return false;
  }
  return true;
}

}  // namespace farmdb::txn
