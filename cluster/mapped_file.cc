#include "cluster/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace farmdb::cluster {

std::expected<std::unique_ptr<MappedFile>, std::string> MappedFile::Create(
    const std::filesystem::path& path, size_t size) {
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return std::unexpected("open " + path.string() + ": " + std::strerror(errno));
  if (::ftruncate(fd, static_cast<off_t>(size)) != 0) {
    std::string err = std::strerror(errno);
    ::close(fd);
    return std::unexpected("ftruncate " + path.string() + ": " + err);
  }
  void* p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ::close(fd);
  if (p == MAP_FAILED) return std::unexpected("mmap " + path.string() + ": " + std::strerror(errno));
  return std::unique_ptr<MappedFile>(new MappedFile(path, static_cast<std::byte*>(p), size));
}

MappedFile::~MappedFile() { ::munmap(data_, size_); }

}  // namespace farmdb::cluster
