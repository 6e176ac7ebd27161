// CRC-32C (Castagnoli), the checksum on everything recovery reads back from disk: log
// segments, checkpoint images and state files. The x86-64-v2 baseline (CMakeLists.txt) has
// SSE4.2's crc32 instruction, which computes exactly this polynomial; other targets use a table.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace farmdb::cluster {

// Continues `crc` (0 to start) over `bytes`. Crc32c(b, Crc32c(a)) == Crc32c(a + b).
uint32_t Crc32c(std::span<const std::byte> bytes, uint32_t crc = 0);

}  // namespace farmdb::cluster
