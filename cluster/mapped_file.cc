#include "cluster/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>

namespace farmdb::cluster {

namespace {

std::unexpected<FileError> Failed(int errnum, std::string_view call, const std::filesystem::path& path) {
  return std::unexpected(FileError{errnum, std::string(call) + " " + path.string() + ": " + std::strerror(errnum)});
}

}  // namespace

bool FileError::NoSpace() const { return errnum == ENOSPC || errnum == EDQUOT || errnum == EFBIG; }

std::expected<std::unique_ptr<MappedFile>, FileError> MappedFile::Create(
    const std::filesystem::path& path, size_t size) {
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return Failed(errno, "open", path);
  if (int err = ::posix_fallocate(fd, 0, static_cast<off_t>(size)); err != 0) {
    ::close(fd);
    ::unlink(path.c_str());  // a partly allocated file would only hold on to the space
    return Failed(err, "posix_fallocate", path);
  }
  void* p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  int mmap_errno = errno;
  ::close(fd);
  if (p == MAP_FAILED) return Failed(mmap_errno, "mmap", path);
  return std::unique_ptr<MappedFile>(new MappedFile(path, static_cast<std::byte*>(p), size));
}

MappedFile::~MappedFile() { ::munmap(data_, size_); }

}  // namespace farmdb::cluster
