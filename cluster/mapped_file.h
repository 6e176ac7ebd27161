// MappedFile: a file in the data directory mapped into memory, page-aligned, unmapped on
// destruction. Files (files.h) makes them.
//
// Shared mappings write through to the file: log rings (DESIGN.md "Memory": records that landed
// survive a process crash) and log segments (txn/FORMATS.md). Private mappings are copy on
// write: region memory starts as the region's last checkpoint image and what the process writes
// stays in its memory (txn/FORMATS.md "Region memory" says why).
#pragma once

#include <cstddef>
#include <expected>
#include <filesystem>
#include <memory>
#include <span>
#include <string>

namespace farmdb::cluster {

// Why a file operation failed: errno of the call that failed (0 for a bad format), and a message
// naming the file.
struct FileError {
  int errnum = 0;
  std::string message;
  // The file system has no room (or the process may not grow a file this large): the data
  // directory cannot take more data.
  bool NoSpace() const;
};

enum class MapMode { kShared, kPrivate };

class MappedFile {
 public:
  // Maps `size` bytes of the open descriptor `fd` (which the caller keeps and closes).
  static std::expected<std::unique_ptr<MappedFile>, FileError> Map(const std::filesystem::path& path, int fd,
                                                                   size_t size, MapMode mode);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  std::span<std::byte> bytes() const { return {data_, size_}; }
  const std::filesystem::path& path() const { return path_; }
  MapMode mode() const { return mode_; }

 private:
  MappedFile(std::filesystem::path path, std::byte* data, size_t size, MapMode mode)
      : path_(std::move(path)), data_(data), size_(size), mode_(mode) {}
  std::filesystem::path path_;
  std::byte* data_;
  size_t size_;
  MapMode mode_;
};

// A FileError for `call` on `path` that failed with `errnum`.
FileError MakeFileError(int errnum, std::string_view call, const std::filesystem::path& path);

}  // namespace farmdb::cluster
