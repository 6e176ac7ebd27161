// ByteWriter / ByteReader: little-endian fixed-width encoding for message bodies and log records
// (formats in txn/FORMATS.md). The reader is bounds-checked: a short buffer sets !ok() and yields
// zeros instead of reading past the end.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

namespace farmdb::cluster {

class ByteWriter {
 public:
  explicit ByteWriter(std::vector<std::byte>* out) : out_(out) {}
  void U64(uint64_t v) { Raw(&v, 8); }
  void U32(uint32_t v) { Raw(&v, 4); }
  void Bytes(std::span<const std::byte> b) { Raw(b.data(), b.size()); }
  // Zero bytes up to a multiple of 8.
  void Align8() { out_->resize((out_->size() + 7) & ~size_t{7}); }

 private:
  void Raw(const void* p, size_t n) {
    const auto* b = static_cast<const std::byte*>(p);
    out_->insert(out_->end(), b, b + n);  // one copy, no zero-fill first
  }
  std::vector<std::byte>* out_;
};

class ByteReader {
 public:
  explicit ByteReader(std::span<const std::byte> in) : in_(in) {}
  uint64_t U64() { return Fixed<uint64_t>(); }
  uint32_t U32() { return Fixed<uint32_t>(); }
  std::span<const std::byte> Bytes(size_t n) {
    if (!Need(n)) return {};
    auto s = in_.subspan(at_, n);
    at_ += n;
    return s;
  }
  void Align8() { at_ = std::min((at_ + 7) & ~size_t{7}, in_.size()); }
  bool ok() const { return ok_; }
  size_t remaining() const { return in_.size() - at_; }

 private:
  bool Need(size_t n) {
    if (!ok_ || in_.size() - at_ < n) return ok_ = false;
    return true;
  }
  template <typename T>
  T Fixed() {
    T v{};
    if (Need(sizeof(T))) std::memcpy(&v, in_.data() + at_, sizeof(T)), at_ += sizeof(T);
    return v;
  }
  std::span<const std::byte> in_;
  size_t at_ = 0;
  bool ok_ = true;
};

}  // namespace farmdb::cluster
