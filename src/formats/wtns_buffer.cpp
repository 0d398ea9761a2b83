#include "formats/wtns_buffer.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <utility>

#include "core/thread_pool.hpp"

namespace cuzk::formats {

namespace {

constexpr size_t kHugePage = size_t(2) << 20;
constexpr size_t kReadPiece = size_t(8) << 20;  // the least a pool thread reads at once

// Closes the descriptor on every path out of read_file.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

WtnsBuffer::~WtnsBuffer() { release(); }

WtnsBuffer::WtnsBuffer(WtnsBuffer&& o) noexcept { *this = std::move(o); }

WtnsBuffer& WtnsBuffer::operator=(WtnsBuffer&& o) noexcept {
  if (this != &o) {
    release();
    // A moved std::string may keep short contents inline: data_ is rebased onto ours.
    const bool adopted = o.map_ == nullptr && o.data_ != nullptr;
    const size_t at = adopted ? size_t(o.data_ - reinterpret_cast<uint8_t*>(o.adopted_.data())) : 0;
    adopted_ = std::move(o.adopted_);
    data_ = adopted ? reinterpret_cast<uint8_t*>(adopted_.data()) + at : std::exchange(o.data_, nullptr);
    o.data_ = nullptr;
    size_ = std::exchange(o.size_, 0);
    map_ = std::exchange(o.map_, nullptr);
    map_bytes_ = std::exchange(o.map_bytes_, 0);
  }
  return *this;
}

void WtnsBuffer::release() {
  if (map_ != nullptr) munmap(map_, map_bytes_);
  map_ = nullptr;
  map_bytes_ = 0;
  data_ = nullptr;
  size_ = 0;
  adopted_.clear();
  adopted_.shrink_to_fit();
}

Result<WtnsBuffer> WtnsBuffer::allocate(size_t size, size_t aligned_at) {
  // Bytes before the data so that byte `aligned_at` lands on a kAlign boundary.
  const size_t lead = (kAlign - aligned_at % kAlign) % kAlign;
  const bool huge = size >= kHugePage;
  const size_t want = lead + size + (huge ? kHugePage : 0);
  void* p = mmap(nullptr, want, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    return Status(StatusCode::kResourceExhausted,
                  "witness buffer of " + std::to_string(size) + " bytes: mmap failed: " + std::strerror(errno));
  }
  WtnsBuffer b;
  b.map_ = p;
  b.map_bytes_ = want;
  uint8_t* base = static_cast<uint8_t*>(p);
  if (huge) {
    // Start on a huge-page boundary (the slack stays mapped, untouched) and ask for huge
    // pages: advice only, a kernel without them gives 4 KiB pages and the same bytes.
    const uintptr_t a = (reinterpret_cast<uintptr_t>(p) + kHugePage - 1) & ~uintptr_t(kHugePage - 1);
    base = reinterpret_cast<uint8_t*>(a);
    (void)madvise(base, want - size_t(base - static_cast<uint8_t*>(p)), MADV_HUGEPAGE);
  }
  b.data_ = base + lead;
  b.size_ = size;
  return b;
}

Result<WtnsBuffer> WtnsBuffer::copy_of(std::span<const uint8_t> bytes) {
  CUZK_ASSIGN_OR_RETURN(WtnsBuffer b, allocate(bytes.size()));
  if (!bytes.empty()) std::memcpy(b.data(), bytes.data(), bytes.size());
  return b;
}

Result<WtnsBuffer> WtnsBuffer::read_file(const std::string& path, uint64_t max_bytes, ThreadPool* pool) {
  Fd f{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (f.fd < 0) {
    int err = errno;
    std::string msg = path + ": cannot open: " + std::strerror(err);
    return err == ENOENT ? not_found(msg) : invalid_argument(msg);
  }
  struct stat st {};
  if (fstat(f.fd, &st) != 0) return invalid_argument(path + ": cannot stat: " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return invalid_argument(path + ": not a regular file");
  const uint64_t size = uint64_t(st.st_size);
  if (size > max_bytes) {
    return Status(StatusCode::kResourceExhausted,
                  path + ": " + std::to_string(size) + " bytes exceeds max_witness_bytes " + std::to_string(max_bytes));
  }
  CUZK_ASSIGN_OR_RETURN(WtnsBuffer b, allocate(size_t(size)));
  // Each piece is read to its end or fails; the first failure (by offset) is reported.
  std::mutex mu;
  size_t bad_at = SIZE_MAX;
  Status bad;
  auto read_piece = [&](size_t lo, size_t hi) {
    while (lo < hi) {
      ssize_t got = ::pread(f.fd, b.data() + lo, hi - lo, off_t(lo));
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) {
        Status why = got < 0 ? invalid_argument(path + ": read failed: " + std::strerror(errno))
                             : invalid_argument(path + ": truncated while being read (" + std::to_string(lo) + " of " +
                                                std::to_string(size) + " bytes)");
        std::lock_guard lock(mu);
        if (lo < bad_at) {
          bad_at = lo;
          bad = std::move(why);
        }
        return;
      }
      lo += size_t(got);
    }
  };
  if (pool != nullptr) {
    pool->parallel_for(0, size_t(size), read_piece, kReadPiece);
  } else {
    read_piece(0, size_t(size));
  }
  if (bad_at != SIZE_MAX) return bad;
  // Grown meanwhile: what was read is not the file the client meant either.
  if (fstat(f.fd, &st) == 0 && uint64_t(st.st_size) != size) {
    return invalid_argument(path + ": changed size while being read (" + std::to_string(size) + " then " +
                            std::to_string(st.st_size) + " bytes)");
  }
  return b;
}

WtnsBuffer WtnsBuffer::adopt(std::string&& s) {
  WtnsBuffer b;
  b.adopted_ = std::move(s);
  b.data_ = reinterpret_cast<uint8_t*>(b.adopted_.data());
  b.size_ = b.adopted_.size();
  return b;
}

std::span<const uint8_t> WtnsBuffer::align_from(size_t offset, size_t align) {
  if (offset > size_) return {};
  const uintptr_t at = reinterpret_cast<uintptr_t>(data_ + offset);
  const size_t shift = at % align;
  const size_t len = size_ - offset;
  if (shift == 0) return {data_ + offset, len};
  if (shift > offset) return {};  // nowhere to move them inside the buffer: the caller copies
  std::memmove(data_ + offset - shift, data_ + offset, len);
  return {data_ + offset - shift, len};
}

}  // namespace cuzk::formats
