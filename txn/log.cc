#include "txn/log.h"

#include <algorithm>
#include <cstring>
#include <thread>

#include "cluster/fabric/word_copy.h"
#include "txn/records.h"

namespace farmdb::txn {

using cluster::LoadWord;

LogWriter::LogWriter(cluster::Fabric* fabric, cluster::MachineId self, cluster::MachineId to,
                     uint64_t ring_size, const std::byte* head_mirror, uint32_t configuration,
                     std::span<std::byte> local_ring)
    : fabric_(fabric),
      self_(self),
      to_(to),
      size_(ring_size),
      configuration_(configuration),
      head_mirror_(head_mirror),
      local_ring_(local_ring) {
  if (!local_ring_.empty()) {
    local_done_ = std::make_shared<cluster::Completion>();
    local_done_->Finish(true);
  }
}

cluster::CompletionPtr LogWriter::WriteAt(uint64_t at, std::span<const std::byte> bytes) {
  if (local_ring_.empty()) {
    return fabric_->Write(self_, to_, cluster::MemKey(cluster::MemKind::kLog, self_), at, bytes);
  }
  cluster::CopyIn(local_ring_.data() + at, bytes.data(), bytes.size());
  return local_done_;
}

uint64_t LogWriter::Head() {
  // The mirror only moves forward when publications arrive in order; take the maximum anyway so a
  // late stale word can never make space look smaller (or, past the tail, underflow).
  head_ = std::clamp(LoadWord(head_mirror_), head_, tail_);
  return head_;
}

bool LogWriter::Drained() {
  std::lock_guard l(mu_);
  return Head() == tail_;
}

bool LogWriter::TryReserve(uint64_t bytes) {
  std::lock_guard l(mu_);
  uint64_t used = tail_ - Head();  // <= size_: appends stay within reservations
  if (used + reserved_ + bytes > size_) return false;
  reserved_ += bytes;
  return true;
}

void LogWriter::Reserve(uint64_t bytes) {
  // The receiver publishes its head lazily (at least whenever it goes idle).
  while (!TryReserve(bytes)) std::this_thread::sleep_for(std::chrono::microseconds(20));
}

void LogWriter::Unreserve(uint64_t bytes) {
  std::lock_guard l(mu_);
  reserved_ -= bytes;
}

cluster::CompletionPtr LogWriter::Append(std::vector<std::byte> record) {
  const uint64_t len = record.size();
  SetRecordConfiguration(record, configuration_);
  std::lock_guard l(mu_);
  uint64_t at = tail_ % size_;
  if (at + len > size_) {
    // PAD to the end of the ring: first word gives the length, last word the mark.
    uint64_t pad_len = size_ - at;
    std::vector<std::byte> pad(pad_len, std::byte{0});
    uint64_t w0 = pad_len | (kRecordPad << 32), mark = RecordMark(tail_);
    std::memcpy(pad.data(), &w0, 8);
    std::memcpy(pad.data() + pad_len - 8, &mark, 8);
    WriteAt(at, pad);
    tail_ += pad_len;
    at = 0;
  }
  uint64_t mark = RecordMark(tail_);
  std::memcpy(record.data() + len - 8, &mark, 8);
  auto c = WriteAt(at, record);
  tail_ += len;
  reserved_ -= 2 * len;  // the caller reserved 2 * len; the space used is now counted by tail_
  return c;
}

std::optional<RawBytes> LogReader::Peek() {
  for (;;) {
    uint64_t at = head_ % ring_.size();
    std::byte* p = ring_.data() + at;
    uint64_t w0 = LoadWord(p);
    uint64_t len = w0 & 0xffffffff;
    if (len < kRecordAlign || len % kRecordAlign || at + len > ring_.size()) return std::nullopt;
    if (LoadWord(p + len - 8) != RecordMark(head_)) return std::nullopt;
    if (LoadWord(p) != w0) return std::nullopt;  // first word was stale; retry on next poll
    if (((w0 >> 32) & 0xff) == kRecordPad) {
      Consume(len);
      continue;
    }
    RawBytes out(len);  // overwritten whole by CopyOut
    cluster::CopyOut(p, out.data(), len);
    peeked_ = len;
    return out;
  }
}

void LogReader::Pop() {
  Consume(peeked_);
  peeked_ = 0;
}

void LogReader::Consume(uint64_t len) {
  std::byte* p = ring_.data() + head_ % ring_.size();
  // Zero what was consumed, before the head is published: a later record whose first word has
  // landed but whose trailer has not must find zero at its trailer slot, never an old lap's
  // payload word that happens to equal the mark (which would accept a half-written record).
  for (uint64_t off = 0; off < len; off += 8) cluster::StoreWord(p + off, 0);
  head_ += len;
  if (head_word_) cluster::StoreWord(head_word_, head_);
}

}  // namespace farmdb::txn
