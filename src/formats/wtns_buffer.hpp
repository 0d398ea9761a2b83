// The bytes of one .wtns in memory the holder owns, laid out so its values can be borrowed
// in place: a daemon reads a witness once (from its file, a stream or a request message)
// and the prover reads the values from there, instead of copying them into a vector.
//
// Values are Fr::Int (uint64_t limbs), so they must start 8-byte aligned; in a .wtns they
// start at byte 76 (for 32-byte values), which no mapping or malloc'd string puts there.
// A buffer this class allocates places byte 76 on a 64-byte boundary; a buffer it adopts
// (a request's string) is aligned in place by align_from().
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "core/status.hpp"

namespace cuzk {
class ThreadPool;
}  // namespace cuzk

namespace cuzk::formats {

class WtnsBuffer {
 public:
  static constexpr size_t kValuesOffset = 76;  // of a .wtns's values when n8 = 32
  static constexpr size_t kAlign = 64;

  WtnsBuffer() = default;
  ~WtnsBuffer();
  WtnsBuffer(WtnsBuffer&& o) noexcept;
  WtnsBuffer& operator=(WtnsBuffer&& o) noexcept;
  WtnsBuffer(const WtnsBuffer&) = delete;
  WtnsBuffer& operator=(const WtnsBuffer&) = delete;

  // Room for `size` bytes (zeroed), to be filled through data(), with byte `aligned_at` on a
  // kAlign boundary. Large buffers are backed by transparent huge pages where the kernel
  // offers them: faulting in 512 MiB of 4 KiB pages costs more than copying into it.
  static Result<WtnsBuffer> allocate(size_t size, size_t aligned_at = kValuesOffset);
  // A copy of `bytes`.
  static Result<WtnsBuffer> copy_of(std::span<const uint8_t> bytes);
  // The file at `path`, read with pread into a buffer it owns. Never mapped: a file truncated
  // under a mapping raises SIGBUS on the next access, and the job reads its witness long
  // after submission. NOT_FOUND for a missing file, RESOURCE_EXHAUSTED over `max_bytes`,
  // INVALID_ARGUMENT when it is not a regular file or changes size while being read. With a
  // pool, pieces of the file are read by its threads at once (the copy out of the page cache
  // and the page faults are per thread).
  static Result<WtnsBuffer> read_file(const std::string& path, uint64_t max_bytes, ThreadPool* pool = nullptr);
  // Takes the bytes of `s` without copying them.
  static WtnsBuffer adopt(std::string&& s);

  uint8_t* data() { return data_; }
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  std::span<const uint8_t> bytes() const { return {data_, size_}; }

  // The bytes from `offset` to the end, starting at an address aligned to `align`: as they
  // are when they already do, else moved toward the front in place (over bytes before
  // `offset`, which the caller has read: bytes() is no longer the file after that).
  std::span<const uint8_t> align_from(size_t offset, size_t align);

 private:
  void release();

  uint8_t* data_ = nullptr;
  size_t size_ = 0;
  void* map_ = nullptr;  // an anonymous mapping this buffer owns, or null
  size_t map_bytes_ = 0;
  std::string adopted_;  // or the adopted string that holds the bytes
};

}  // namespace cuzk::formats
