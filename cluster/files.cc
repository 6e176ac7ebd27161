#include "cluster/files.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>

namespace farmdb::cluster {

namespace {

std::unexpected<FileError> Failed(int errnum, std::string_view call, const std::filesystem::path& path) {
  return std::unexpected(MakeFileError(errnum, call, path));
}

std::expected<void, FileError> SyncDirectory(const std::filesystem::path& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Failed(errno, "open", dir);
  int rc = ::fsync(fd);
  int err = errno;
  ::close(fd);
  if (rc != 0) return Failed(err, "fsync", dir);
  return {};
}

bool WriteAll(int fd, std::span<const std::byte> bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes = bytes.subspan(static_cast<size_t>(n));
  }
  return true;
}

class PosixFilesImpl final : public Files {
 public:
  std::expected<std::unique_ptr<MappedFile>, FileError> Create(const std::filesystem::path& path, size_t size,
                                                               MapMode mode) override {
    std::error_code ec;
    std::filesystem::create_directories(path.parent_path(), ec);
    int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) return Failed(errno, "open", path);
    if (int err = ::posix_fallocate(fd, 0, static_cast<off_t>(size)); err != 0) {
      ::close(fd);
      ::unlink(path.c_str());  // a partly allocated file would only hold on to the space
      return Failed(err, "posix_fallocate", path);
    }
    auto mapped = MappedFile::Map(path, fd, size, mode);
    ::close(fd);
    if (!mapped) return mapped;
    if (auto synced = SyncDirectory(path.parent_path()); !synced) return std::unexpected(synced.error());
    return mapped;
  }

  std::expected<std::unique_ptr<MappedFile>, FileError> Open(const std::filesystem::path& path,
                                                             MapMode mode) override {
    int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) return Failed(errno, "open", path);
    struct stat st{};
    if (::fstat(fd, &st) != 0) {
      int err = errno;
      ::close(fd);
      return Failed(err, "fstat", path);
    }
    auto mapped = MappedFile::Map(path, fd, static_cast<size_t>(st.st_size), mode);
    ::close(fd);
    return mapped;
  }

  std::expected<void, FileError> Sync(const MappedFile& file, size_t offset, size_t length) override {
    if (length == 0) return {};
    // msync wants a page-aligned start.
    const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
    size_t start = offset / page * page;
    if (::msync(file.bytes().data() + start, offset + length - start, MS_SYNC) != 0) {
      return Failed(errno, "msync", file.path());
    }
    return {};
  }

  std::expected<void, FileError> Replace(const std::filesystem::path& path,
                                         std::span<const std::span<const std::byte>> parts) override {
    std::error_code ec;
    std::filesystem::create_directories(path.parent_path(), ec);
    std::filesystem::path tmp = path;
    tmp += ".tmp";
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) return Failed(errno, "open", tmp);
    for (auto part : parts) {
      if (!WriteAll(fd, part)) {
        int err = errno;
        ::close(fd);
        ::unlink(tmp.c_str());
        return Failed(err, "write", tmp);
      }
    }
    if (::fdatasync(fd) != 0) {
      int err = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      return Failed(err, "fdatasync", tmp);
    }
    ::close(fd);
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
      int err = errno;
      ::unlink(tmp.c_str());
      return Failed(err, "rename", tmp);
    }
    return SyncDirectory(path.parent_path());
  }

  std::expected<std::vector<std::byte>, FileError> Read(const std::filesystem::path& path) override {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return Failed(errno, "open", path);
    std::vector<std::byte> out;
    std::byte buf[1 << 16];
    for (;;) {
      ssize_t n = ::read(fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        int err = errno;
        ::close(fd);
        return Failed(err, "read", path);
      }
      if (n == 0) break;
      out.insert(out.end(), buf, buf + n);
    }
    ::close(fd);
    return out;
  }

  std::expected<void, FileError> Remove(const std::filesystem::path& path) override {
    if (::unlink(path.c_str()) != 0 && errno != ENOENT) return Failed(errno, "unlink", path);
    return SyncDirectory(path.parent_path());
  }

  std::vector<std::string> List(const std::filesystem::path& dir) override {
    std::vector<std::string> out;
    std::error_code ec;
    for (auto& entry : std::filesystem::directory_iterator(dir, ec)) out.push_back(entry.path().filename().string());
    return out;
  }

  std::string BootId() override {
    std::ifstream in("/proc/sys/kernel/random/boot_id");
    std::string id;
    std::getline(in, id);
    return id;
  }
};

}  // namespace

Files& PosixFiles() {
  static PosixFilesImpl files;
  return files;
}

}  // namespace farmdb::cluster
