// BinaryReader: reads a binary-format value field by field the way PostgreSQL's typreceive
// functions do through pq_getmsg* (big-endian integers), with the same errors: running out of
// bytes is a protocol violation (08P01 "insufficient data left in message", or "no data left
// in message" for a single byte), while bytes left over are the caller's 22P03
// (kIncorrectBinaryFormat in type_io.h).
// Thread-safety: a value type over a borrowed buffer.
#pragma once

#include <bit>
#include <concepts>
#include <cstring>
#include <expected>
#include <string_view>
#include <utility>

#include "types/error.h"

namespace farmdb {

class BinaryReader {
 public:
  explicit BinaryReader(std::string_view bytes) : bytes_(bytes) {}

  template <std::integral T>
  std::expected<T, Error> Read() {
    if (bytes_.size() < sizeof(T)) {
      // pq_getmsgbyte vs pq_copymsgbytes (which pq_getmsgint uses for wider integers).
      return std::unexpected(MakeError("08P01", sizeof(T) == 1 ? "no data left in message" : "insufficient data left in message"));
    }
    T v;
    std::memcpy(&v, bytes_.data(), sizeof(T));
    if constexpr (sizeof(T) > 1 && std::endian::native == std::endian::little) v = std::byteswap(v);
    bytes_.remove_prefix(sizeof(T));
    return v;
  }

  // The remaining bytes, all consumed (variable-length types whose value is the whole field).
  std::string_view TakeRest() { return std::exchange(bytes_, std::string_view()); }

  bool AtEnd() const { return bytes_.empty(); }

 private:
  std::string_view bytes_;
};

}  // namespace farmdb
