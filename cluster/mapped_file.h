// MappedFile: a file in the data directory mapped shared into memory. Region replicas and log
// rings live in these (DESIGN.md "Memory": they stand in for battery-backed DRAM, so contents
// survive a process crash). The mapping is page-aligned. Not copyable; unmaps on destruction.
#pragma once

#include <cstddef>
#include <expected>
#include <filesystem>
#include <memory>
#include <span>
#include <string>

namespace farmdb::cluster {

class MappedFile {
 public:
  // Creates (truncating) `path` with `size` zero bytes and maps it.
  static std::expected<std::unique_ptr<MappedFile>, std::string> Create(
      const std::filesystem::path& path, size_t size);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  std::span<std::byte> bytes() const { return {data_, size_}; }
  const std::filesystem::path& path() const { return path_; }

 private:
  MappedFile(std::filesystem::path path, std::byte* data, size_t size)
      : path_(std::move(path)), data_(data), size_(size) {}
  std::filesystem::path path_;
  std::byte* data_;
  size_t size_;
};

}  // namespace farmdb::cluster
