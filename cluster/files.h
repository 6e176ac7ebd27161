// Files: the runtime seam for everything farmdb keeps on disk (DESIGN.md §7 "one runtime seam").
//
// The durable state of a machine is its log segments (shared mappings made durable by Sync),
// checkpoint images and state files (written whole by Replace), and the log rings (shared
// mappings that survive a process crash but are never synced). Everything goes through this
// interface so that a test can stand in for the disk: PosixFiles is the real one; the power-loss
// test's keeps, for every file, the image its last Sync or Replace made durable and builds crash
// images from it (txn/power_loss_test.cc).
//
// Every call names the file in its error. Thread-safe.
#pragma once

#include <expected>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "cluster/mapped_file.h"

namespace farmdb::cluster {

class Files {
 public:
  virtual ~Files() = default;

  // A new file of `size` zero bytes, replacing any at `path`, with every block allocated
  // (posix_fallocate) and its directory entry durable, mapped. Allocating up front is what makes
  // a mapping safe to store to: a sparse file takes its blocks at the first store to each page,
  // and a full disk then kills the process with SIGBUS instead of failing here.
  virtual std::expected<std::unique_ptr<MappedFile>, FileError> Create(const std::filesystem::path& path,
                                                                        size_t size, MapMode mode) = 0;
  // An existing file, mapped whole; fails (ENOENT) if it is missing.
  virtual std::expected<std::unique_ptr<MappedFile>, FileError> Open(const std::filesystem::path& path,
                                                                      MapMode mode) = 0;
  // Writes [offset, offset + length) of a shared mapping back and waits for the device.
  virtual std::expected<void, FileError> Sync(const MappedFile& file, size_t offset, size_t length) = 0;
  // Replaces `path` with the concatenation of `parts`, durably and atomically: a temporary file,
  // fsync, rename, fsync of the directory. A crash leaves the old file or the new one.
  virtual std::expected<void, FileError> Replace(const std::filesystem::path& path,
                                                 std::span<const std::span<const std::byte>> parts) = 0;
  // The whole file; fails (ENOENT) if it is missing.
  virtual std::expected<std::vector<std::byte>, FileError> Read(const std::filesystem::path& path) = 0;
  // Removes the file (a missing one is fine) and makes the removal durable.
  virtual std::expected<void, FileError> Remove(const std::filesystem::path& path) = 0;
  // The names of the entries of `dir` (empty if it does not exist).
  virtual std::vector<std::string> List(const std::filesystem::path& dir) = 0;
  // Identifies the running kernel (/proc/sys/kernel/random/boot_id): a restart under another
  // boot came after a reboot or power loss, when only what was synced can be trusted.
  virtual std::string BootId() = 0;
};

// The real file system. Stateless; one instance serves the process.
Files& PosixFiles();

}  // namespace farmdb::cluster
