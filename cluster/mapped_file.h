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

// Why a file could not be made: errno of the call that failed, and a message naming the file.
struct FileError {
  int errnum = 0;
  std::string message;
  // The file system has no room (or the process may not grow a file this large): the data
  // directory cannot take more data.
  bool NoSpace() const;
};

class MappedFile {
 public:
  // Creates (truncating) `path` with `size` zero bytes, every block allocated on disk, and maps
  // it. Allocating up front is what makes the mapping memory (DESIGN.md "Memory"): a sparse file
  // would take its blocks at the first store to each page, and a full disk would then kill the
  // process with SIGBUS instead of failing here.
  static std::expected<std::unique_ptr<MappedFile>, FileError> Create(
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
