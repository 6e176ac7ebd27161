#include "txn/object.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <optional>
#include <utility>

#include "cluster/fabric/word_copy.h"

namespace farmdb::txn {

using cluster::LoadWord;
using cluster::StoreWord;

uint32_t LinesFor(size_t bytes) {
  if (bytes <= 40) return 1;
  return static_cast<uint32_t>(1 + (bytes - 40 + 55) / 56);
}

namespace {
// Line 0's data starts at word 2 (after the header and the old-version pointer), other lines'
// at word 0; word 7 is the line version.
//
// Copies words 6 down to `first` of `line` to out[w - first], highest first. Unrolled (a word
// is a load and a store; a loop costs three more instructions per word).
template <size_t first, size_t... i>
void CopyDataWordsOut(const std::byte* line, std::byte* out, std::index_sequence<i...>) {
  auto copy = [&](size_t w) {
    uint64_t v = LoadWord(line + 8 * w);
    std::memcpy(out + 8 * (w - first), &v, 8);
  };
  (copy(6 - i), ...);
}
template <size_t first>
void CopyDataWordsOut(const std::byte* line, std::byte* out) {
  CopyDataWordsOut<first>(line, out, std::make_index_sequence<7 - first>());
}

// The word at payload offset `at` that runs past the payload's end, zero-padded. Out of line so
// that the whole words' path keeps its word in a register.
[[gnu::noinline]] uint64_t PaddedWord(std::span<const std::byte> payload, size_t at) {
  uint64_t v = 0;
  if (at < payload.size()) std::memcpy(&v, payload.data() + at, payload.size() - at);
  return v;
}

// Stores payload bytes [src, src + 8 * (7 - first)) as words first..6 of `line`, ascending,
// zeros past the payload's end. Unrolled as above.
template <size_t first, size_t... i>
void StoreDataWords(std::byte* line, std::span<const std::byte> payload, size_t src,
                    std::index_sequence<i...>) {
  auto store = [&](size_t w) {
    size_t at = src + 8 * (w - first);
    uint64_t v;
    if (at + 8 <= payload.size()) {
      std::memcpy(&v, payload.data() + at, 8);
    } else {
      v = PaddedWord(payload, at);
    }
    StoreWord(line + 8 * w, v);
  };
  (store(first + i), ...);
}
template <size_t first>
void StoreDataWords(std::byte* line, std::span<const std::byte> payload, size_t src) {
  StoreDataWords<first>(line, payload, src, std::make_index_sequence<7 - first>());
}
}  // namespace

ObjectHead CopyPayloadOut(const std::byte* src, uint32_t lines, std::byte* payload) {
  // One pass, last line first; each line's version word before its data (object.h). The copy is
  // consistent iff every line version equals the header's timestamp, read last.
  uint64_t version = LoadWord(src + (lines - 1) * kLineSize + 56);
  bool same_versions = true;
  for (uint32_t k = lines - 1; k > 0; --k) {
    const std::byte* line = src + k * kLineSize;
    same_versions &= LoadWord(line + 56) == version;
    CopyDataWordsOut<0>(line, payload + 40 + 56 * (k - 1));
  }
  same_versions &= LoadWord(src + 56) == version;
  CopyDataWordsOut<2>(src, payload);
  ObjectHead head;
  head.old_version = Addr{LoadWord(src + 8)};
  head.header = LoadWord(src);
  if (HeaderLocked(head.header)) {
    head.check = ReadCheck::kLocked;
  } else if (!same_versions || version != HeaderTs(head.header)) {
    head.check = ReadCheck::kTorn;
  }
  return head;
}

void InstallObject(std::byte* obj, uint32_t lines, std::span<const std::byte> payload,
                   Timestamp ts, bool allocated, Addr old_version) {
  // Line by line: data words, then the line version (line 0's data includes the old-version
  // pointer); the header word goes last and releases the lock. Payload past its end is zeros.
  StoreWord(obj + 8, old_version.raw);
  StoreDataWords<2>(obj, payload, 0);
  StoreWord(obj + 56, ts);
  for (uint32_t k = 1; k < lines; ++k) {
    std::byte* line = obj + k * kLineSize;
    StoreDataWords<0>(line, payload, 40 + 56 * (k - 1));
    StoreWord(line + 56, ts);
  }
  StoreWord(obj, (allocated ? kAllocBit : 0) | (ts & cluster::kTimestampMask));
}

void CopyAsOldVersion(const std::byte* head, std::byte* dst, uint32_t lines) {
  // The caller holds the head's lock, so no install races this copy; the header word goes last,
  // as for installs, without the lock bit.
  size_t size = lines * kLineSize;
  for (size_t off = 8; off < size; off += 8) StoreWord(dst + off, LoadWord(head + off));
  StoreWord(dst, LoadWord(head) & ~kLockBit);
}

namespace {
// Word `off` (a multiple of 8) of an object as its replicas share it: nullopt for the
// old-version pointer, the header without its lock bit.
std::optional<uint64_t> ReplicaWord(const std::byte* object, size_t off) {
  if (off == 8) return std::nullopt;
  uint64_t w = LoadWord(object + off);
  return off == 0 ? w & ~kLockBit : w;
}
}  // namespace

bool SameReplicaContents(const std::byte* a, const std::byte* b, uint32_t lines) {
  for (size_t off = 0; off < lines * kLineSize; off += 8) {
    if (ReplicaWord(a, off) != ReplicaWord(b, off)) return false;
  }
  return true;
}

uint64_t HashReplicaContents(const std::byte* object, uint32_t lines, uint64_t h) {
  for (size_t off = 0; off < lines * kLineSize; off += 8) {
    if (auto w = ReplicaWord(object, off)) h = (std::rotl(h, 5) ^ *w) * 0x9e3779b97f4a7c15ull;
  }
  return h;
}

}  // namespace farmdb::txn
