#include "formats/mapped_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

namespace cuzk::formats {

std::string file_label(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

MappedFile::~MappedFile() { release(); }

MappedFile::MappedFile(MappedFile&& o) noexcept
    : data_(std::exchange(o.data_, nullptr)),
      size_(std::exchange(o.size_, 0)),
      mapped_(std::exchange(o.mapped_, false)),
      path_(std::move(o.path_)) {}

MappedFile& MappedFile::operator=(MappedFile&& o) noexcept {
  if (this != &o) {
    release();
    data_ = std::exchange(o.data_, nullptr);
    size_ = std::exchange(o.size_, 0);
    mapped_ = std::exchange(o.mapped_, false);
    path_ = std::move(o.path_);
  }
  return *this;
}

void MappedFile::release() {
  if (mapped_) munmap(const_cast<uint8_t*>(data_), size_);
  data_ = nullptr;
  size_ = 0;
  mapped_ = false;
}

void MappedFile::drop_resident(std::span<const uint8_t> range) const {
  if (!mapped_ || range.empty()) return;
  const uintptr_t map_lo = reinterpret_cast<uintptr_t>(data_), map_hi = map_lo + size_;
  uintptr_t lo = std::max(reinterpret_cast<uintptr_t>(range.data()), map_lo);
  uintptr_t hi = std::min(reinterpret_cast<uintptr_t>(range.data()) + range.size(), map_hi);
  if (lo >= hi) return;
  const uintptr_t page = uintptr_t(sysconf(_SC_PAGESIZE));
  lo &= ~(page - 1);  // the mapping starts on a page boundary, so lo stays inside it
  hi = std::min((hi + page - 1) & ~(page - 1), (map_hi + page - 1) & ~(page - 1));
  // Advice only: a failure leaves the pages resident, which is what would happen anyway.
  (void)madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_DONTNEED);
}

Result<MappedFile> MappedFile::open(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    std::string msg = path + ": cannot open: " + std::strerror(err);
    return err == ENOENT ? not_found(msg) : invalid_argument(msg);
  }
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    return invalid_argument(path + ": cannot stat: " + std::strerror(err));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return invalid_argument(path + ": not a regular file");
  }
  MappedFile f;
  f.path_ = path;
  f.size_ = size_t(st.st_size);
  if (f.size_ > 0) {
    void* p = mmap(nullptr, f.size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      int err = errno;
      ::close(fd);
      return Status(StatusCode::kResourceExhausted, path + ": mmap failed: " + std::strerror(err));
    }
    f.data_ = static_cast<const uint8_t*>(p);
    f.mapped_ = true;
  }
  ::close(fd);  // the mapping keeps the file alive
  return f;
}

Status write_file(const std::string& path, std::span<const uint8_t> bytes) {
  FILE* fp = std::fopen(path.c_str(), "wb");
  if (fp == nullptr) return invalid_argument(path + ": cannot create: " + std::strerror(errno));
  size_t written = bytes.empty() ? 0 : std::fwrite(bytes.data(), 1, bytes.size(), fp);
  int close_rc = std::fclose(fp);
  if (written != bytes.size() || close_rc != 0) {
    return Status(StatusCode::kResourceExhausted, path + ": write failed: " + std::strerror(errno));
  }
  return Status::ok();
}

}  // namespace cuzk::formats
