// Checkpoint images of regions (format in cluster/FORMATS.md "Region images"): the region's
// bytes, then the metadata the layer above stores with them (the txn layer's slab table), a
// CRC-32C per MiB of region bytes and a trailer that checks the rest. One file per replica,
// `m<id>/region-<rid>`, replaced whole by each checkpoint (Files::Replace).
#pragma once

#include <cstdint>
#include <expected>
#include <span>
#include <string>
#include <vector>

#include "cluster/types.h"

namespace farmdb::cluster {

inline constexpr uint64_t kImageChunk = 1 << 20;

// The bytes that follow the region's in its image file.
std::vector<std::byte> ImageTail(RegionId id, uint64_t generation, std::span<const std::byte> region,
                                 std::span<const std::byte> meta);

struct ImageInfo {
  uint64_t generation = 0;  // 0: a new region's file, all zeros, no tail yet
  std::span<const std::byte> meta;
};

// Checks an image file's bytes (a mapping of the whole file) for region `id` of `region_size`
// bytes: its size and trailer, its metadata's checksum and, with `verify_data`, every chunk of
// region bytes. An error says what is wrong.
std::expected<ImageInfo, std::string> CheckImage(std::span<const std::byte> file, RegionId id,
                                                 uint64_t region_size, bool verify_data);

}  // namespace farmdb::cluster
