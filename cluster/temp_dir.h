// A test's scratch directory: made under $TMPDIR (or /tmp) and removed, with everything in it, when
// the test's scope ends.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <string>
#include <string_view>

namespace farmdb::cluster {

struct TempDir {
  std::filesystem::path path;

  // The directory is named after `prefix` (farmdb-<prefix>-XXXXXX), so one left behind by a
  // crashed test says which.
  explicit TempDir(std::string_view prefix) {
    std::string pattern =
        (std::filesystem::temp_directory_path() / ("farmdb-" + std::string(prefix) + "-XXXXXX")).string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::filesystem::filesystem_error("mkdtemp", pattern, {});
    path = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

}  // namespace farmdb::cluster
