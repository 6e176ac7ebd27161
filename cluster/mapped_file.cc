#include "cluster/mapped_file.h"

#include <sys/mman.h>

#include <cerrno>
#include <cstring>
#include <string_view>

namespace farmdb::cluster {

FileError MakeFileError(int errnum, std::string_view call, const std::filesystem::path& path) {
  return FileError{errnum, std::string(call) + " " + path.string() + ": " + std::strerror(errnum)};
}

bool FileError::NoSpace() const { return errnum == ENOSPC || errnum == EDQUOT || errnum == EFBIG; }

std::expected<std::unique_ptr<MappedFile>, FileError> MappedFile::Map(const std::filesystem::path& path, int fd,
                                                                      size_t size, MapMode mode) {
  void* p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, mode == MapMode::kShared ? MAP_SHARED : MAP_PRIVATE,
                   fd, 0);
  if (p == MAP_FAILED) return std::unexpected(MakeFileError(errno, "mmap", path));
  return std::unique_ptr<MappedFile>(new MappedFile(path, static_cast<std::byte*>(p), size, mode));
}

MappedFile::~MappedFile() { ::munmap(data_, size_); }

}  // namespace farmdb::cluster
