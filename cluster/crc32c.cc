#include "cluster/crc32c.h"

#include <array>
#include <cstring>

#if defined(__SSE4_2__)
#include <nmmintrin.h>
#endif

namespace farmdb::cluster {

#if defined(__SSE4_2__)

uint32_t Crc32c(std::span<const std::byte> bytes, uint32_t crc) {
  uint64_t c = ~crc;
  const std::byte* p = bytes.data();
  size_t n = bytes.size();
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    c = _mm_crc32_u64(c, w);
  }
  uint32_t c32 = static_cast<uint32_t>(c);
  for (; n > 0; ++p, --n) c32 = _mm_crc32_u8(c32, static_cast<uint8_t>(*p));
  return ~c32;
}

#else

namespace {
constexpr std::array<uint32_t, 256> MakeTable() {
  std::array<uint32_t, 256> t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0x82f63b78u & (0u - (c & 1)));
    t[i] = c;
  }
  return t;
}
constexpr auto kTable = MakeTable();
}  // namespace

uint32_t Crc32c(std::span<const std::byte> bytes, uint32_t crc) {
  uint32_t c = ~crc;
  for (std::byte b : bytes) c = kTable[(c ^ static_cast<uint8_t>(b)) & 0xff] ^ (c >> 8);
  return ~c;
}

#endif

}  // namespace farmdb::cluster
