#include "cluster/region_image.h"

#include <cstring>

#include "cluster/codec.h"
#include "cluster/crc32c.h"

namespace farmdb::cluster {

namespace {
constexpr uint64_t kImageMagic = 0x4547414d49424446;  // "FDBIMAGE"
constexpr uint32_t kImageFormat = 1;
constexpr uint64_t kTrailerSize = 40;

uint64_t Padded(uint64_t n) { return (n + 7) & ~uint64_t{7}; }
}  // namespace

std::vector<std::byte> ImageTail(RegionId id, uint64_t generation, std::span<const std::byte> region,
                                 std::span<const std::byte> meta) {
  std::vector<std::byte> tail;
  ByteWriter w(&tail);
  w.Bytes(meta);
  w.Align8();
  for (uint64_t at = 0; at < region.size(); at += kImageChunk) {
    w.U32(Crc32c(region.subspan(at, std::min(kImageChunk, region.size() - at))));
  }
  w.Align8();
  // Trailer: magic, format, region id, region size, generation, metadata length, then the CRC
  // of everything in the tail before it.
  w.U64(kImageMagic), w.U32(kImageFormat), w.U32(id), w.U64(region.size()), w.U64(generation);
  w.U32(static_cast<uint32_t>(meta.size()));
  w.U32(Crc32c(tail));
  return tail;
}

std::expected<ImageInfo, std::string> CheckImage(std::span<const std::byte> file, RegionId id,
                                                 uint64_t region_size, bool verify_data) {
  if (file.size() == region_size) {
    // A region created since the last checkpoint: its file only holds its space.
    return ImageInfo{};
  }
  if (file.size() < region_size + kTrailerSize) {
    return std::unexpected("is " + std::to_string(file.size()) + " bytes, shorter than a region of " +
                           std::to_string(region_size) + " bytes with its image trailer");
  }
  ByteReader r(file.subspan(file.size() - kTrailerSize));
  uint64_t magic = r.U64();
  uint32_t format = r.U32(), rid = r.U32();
  uint64_t size = r.U64(), generation = r.U64();
  uint32_t meta_len = r.U32(), crc = r.U32();
  if (magic != kImageMagic) return std::unexpected("has no image trailer (cut short or overwritten)");
  if (format != kImageFormat) {
    return std::unexpected("is an image of format " + std::to_string(format) + ", this farmdb reads format " +
                           std::to_string(kImageFormat));
  }
  if (rid != id || size != region_size) {
    return std::unexpected("holds region " + std::to_string(rid) + " of " + std::to_string(size) +
                           " bytes, not region " + std::to_string(id) + " of " + std::to_string(region_size));
  }
  const uint64_t chunks = (region_size + kImageChunk - 1) / kImageChunk;
  const uint64_t tail = Padded(meta_len) + Padded(4 * chunks) + kTrailerSize;
  if (file.size() != region_size + tail) return std::unexpected("has the wrong size for its image trailer");
  auto checked = file.subspan(region_size, tail - 4);
  if (Crc32c(checked) != crc) return std::unexpected("image metadata checksum mismatch");
  if (verify_data) {
    const std::byte* crcs = file.data() + region_size + Padded(meta_len);
    for (uint64_t c = 0; c < chunks; ++c) {
      uint32_t want;
      std::memcpy(&want, crcs + 4 * c, 4);
      uint64_t at = c * kImageChunk;
      if (Crc32c(file.subspan(at, std::min(kImageChunk, region_size - at))) != want) {
        return std::unexpected("checksum mismatch in region bytes at offset " + std::to_string(at));
      }
    }
  }
  return ImageInfo{generation, file.subspan(region_size, meta_len)};
}

}  // namespace farmdb::cluster
