#include "formats/wtns_buffer.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <utility>
#include <vector>

#include "core/thread_pool.hpp"

namespace cuzk::formats {

namespace {

constexpr size_t kHugePage = size_t(2) << 20;
constexpr size_t kReadPiece = size_t(8) << 20;   // the least a pool thread reads at once
constexpr size_t kScanStep = size_t(256) << 10;  // read, then range-check, this much at once

// Closes the descriptor on every path out of read_file.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

struct WtnsIdleMaps {
  struct Idle {
    void* map;
    size_t map_bytes;
    uint8_t* base;
    size_t capacity;  // usable bytes from base
  };
  std::mutex mu;
  uint64_t max_idle = 0;
  uint64_t idle_bytes = 0;  // of whole mappings
  bool open = true;
  std::vector<Idle> idle;

  void unmap_all() {
    for (const Idle& m : idle) munmap(m.map, m.map_bytes);
    idle.clear();
    idle_bytes = 0;
  }
  ~WtnsIdleMaps() { unmap_all(); }

  // Keeps the mapping for the next taker, or says no (then the caller unmaps it).
  bool keep(void* map, size_t map_bytes, uint8_t* base) {
    std::lock_guard lock(mu);
    if (!open || idle_bytes + map_bytes > max_idle) return false;
    idle.push_back({map, map_bytes, base, map_bytes - size_t(base - static_cast<uint8_t*>(map))});
    idle_bytes += map_bytes;
    return true;
  }
};

WtnsBufferPool::WtnsBufferPool(uint64_t max_idle_bytes) : maps_(std::make_shared<WtnsIdleMaps>()) {
  maps_->max_idle = max_idle_bytes;
}

WtnsBufferPool::~WtnsBufferPool() {
  std::lock_guard lock(maps_->mu);
  maps_->open = false;
  maps_->unmap_all();
}

uint64_t WtnsBufferPool::max_idle_bytes() const { return maps_->max_idle; }

uint64_t WtnsBufferPool::idle_bytes() const {
  std::lock_guard lock(maps_->mu);
  return maps_->idle_bytes;
}

size_t WtnsBufferPool::idle_count() const {
  std::lock_guard lock(maps_->mu);
  return maps_->idle.size();
}

WtnsBuffer WtnsBufferPool::take(size_t need) {
  WtnsBuffer b;
  std::lock_guard lock(maps_->mu);
  // The smallest that holds `need` and is not more than twice it (plus the huge-page slack a
  // fresh mapping of that size has anyway): a small witness does not pin a large mapping.
  auto best = maps_->idle.end();
  for (auto it = maps_->idle.begin(); it != maps_->idle.end(); ++it) {
    if (it->capacity < need || it->capacity > 2 * need + kHugePage) continue;
    if (best == maps_->idle.end() || it->capacity < best->capacity) best = it;
  }
  if (best == maps_->idle.end()) return b;
  b.map_ = best->map;
  b.map_bytes_ = best->map_bytes;
  b.base_ = best->base;
  maps_->idle_bytes -= best->map_bytes;
  maps_->idle.erase(best);
  return b;
}

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
    base_ = std::exchange(o.base_, nullptr);
    scanned_ = std::exchange(o.scanned_, std::nullopt);
    home_ = std::move(o.home_);
    o.home_.reset();
  }
  return *this;
}

void WtnsBuffer::release() {
  if (map_ != nullptr && !(home_ && home_->keep(map_, map_bytes_, base_))) munmap(map_, map_bytes_);
  home_.reset();
  scanned_.reset();
  map_ = nullptr;
  map_bytes_ = 0;
  base_ = nullptr;
  data_ = nullptr;
  size_ = 0;
  adopted_.clear();
  adopted_.shrink_to_fit();
}

Result<WtnsBuffer> WtnsBuffer::allocate(size_t size, size_t aligned_at, WtnsBufferPool* pool) {
  // Bytes before the data so that byte `aligned_at` lands on a kAlign boundary.
  const size_t lead = (kAlign - aligned_at % kAlign) % kAlign;
  if (pool != nullptr) {
    WtnsBuffer reused = pool->take(lead + size);
    if (reused.map_ != nullptr) {
      reused.data_ = reused.base_ + lead;
      reused.size_ = size;
      reused.home_ = pool->maps_;
      return reused;
    }
  }
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
  b.base_ = base;
  b.data_ = base + lead;
  b.size_ = size;
  if (pool != nullptr) b.home_ = pool->maps_;
  return b;
}

Result<WtnsBuffer> WtnsBuffer::copy_of(std::span<const uint8_t> bytes) {
  CUZK_ASSIGN_OR_RETURN(WtnsBuffer b, allocate(bytes.size()));
  if (!bytes.empty()) std::memcpy(b.data(), bytes.data(), bytes.size());
  return b;
}

Result<WtnsBuffer> WtnsBuffer::read_file(const std::string& path, uint64_t max_bytes, ThreadPool* pool,
                                         const ValueScan* scan, WtnsBufferPool* buffers) {
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
  CUZK_ASSIGN_OR_RETURN(WtnsBuffer b, allocate(size_t(size), kValuesOffset, buffers));
  // Each piece is read to its end or fails; the first failure (by offset) is reported.
  std::mutex mu;
  size_t bad_at = SIZE_MAX;
  Status bad;
  // The scan: values wholly inside a piece are checked by its thread as each step of it is
  // read; the few that straddle two pieces, after all are in. The smallest bad index wins.
  const size_t v_off = scan ? scan->offset : 0, v_bytes = scan ? scan->value_bytes : 1;
  const size_t v_count = scan && size >= v_off ? (size_t(size) - v_off) / v_bytes : 0;
  std::atomic<size_t> first_bad{v_count};
  std::vector<size_t> piece_starts;
  auto note_bad = [&](size_t i) {
    size_t cur = first_bad.load();
    while (i < cur && !first_bad.compare_exchange_weak(cur, i)) {
    }
  };
  auto scan_values = [&](size_t i_lo, size_t i_hi) {
    if (i_lo >= i_hi || i_lo >= first_bad.load(std::memory_order_relaxed)) return;
    const size_t r = scan->first_bad(b.data() + v_off + i_lo * v_bytes, i_hi - i_lo);
    if (r < i_hi - i_lo) note_bad(i_lo + r);
  };
  auto read_piece = [&](size_t lo, size_t hi) {
    const size_t start = lo;
    // With a scan, read in steps small enough to check each one while it is in cache.
    size_t next_i = start <= v_off ? 0 : (start - v_off + v_bytes - 1) / v_bytes;
    while (lo < hi) {
      const size_t want = scan != nullptr ? std::min(hi - lo, kScanStep) : hi - lo;
      ssize_t got = ::pread(f.fd, b.data() + lo, want, off_t(lo));
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
      if (scan != nullptr && lo >= v_off) {
        const size_t done_i = std::min(v_count, (lo - v_off) / v_bytes);  // values wholly read
        if (next_i < done_i) scan_values(next_i, done_i);
        next_i = std::max(next_i, done_i);
      }
    }
    if (scan == nullptr) return;
    std::lock_guard lock(mu);
    piece_starts.push_back(start);
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
  if (scan != nullptr) {
    for (size_t lo : piece_starts) {
      if (lo <= v_off) continue;
      const size_t i = (lo - v_off) / v_bytes;
      if (i < v_count && v_off + i * v_bytes < lo && scan->first_bad(b.data() + v_off + i * v_bytes, 1) == 0) {
        note_bad(i);
      }
    }
    b.scanned_ = ScannedValues{*scan, v_count, first_bad.load()};
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
