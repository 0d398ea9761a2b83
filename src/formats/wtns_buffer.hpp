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
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "core/status.hpp"

namespace cuzk {
class ThreadPool;
}  // namespace cuzk

namespace cuzk::formats {

class WtnsBufferPool;
struct WtnsIdleMaps;

// A range check read_file runs on each piece as it lands (while it is in cache), instead of
// a second pass over the whole witness. It assumes the values are the `value_bytes`-byte
// integers from byte `offset` to the end of the file; borrow_wtns_values uses its answer only
// when the parsed header says they are.
struct ValueScan {
  size_t offset = 0;
  size_t value_bytes = 0;
  // The index (from 0) of the first of `count` values at `p` that is out of range, or count.
  size_t (*first_bad)(const uint8_t* p, size_t count) = nullptr;
};

// What a ValueScan found: `first_bad` over the `count` values it covered (count: none bad).
struct ScannedValues {
  ValueScan scan;
  size_t count = 0;
  size_t first_bad = 0;
};

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
  // kAlign boundary. From `pool` (when not null) an idle buffer is reused instead: its bytes
  // are then NOT zeroed (they hold an earlier witness), so the caller must overwrite all
  // `size` of them before anyone reads the buffer. Large buffers are backed by transparent
  // huge pages where the kernel offers them: faulting in 512 MiB of 4 KiB pages costs more
  // than copying into it.
  static Result<WtnsBuffer> allocate(size_t size, size_t aligned_at = kValuesOffset, WtnsBufferPool* pool = nullptr);
  // A copy of `bytes`.
  static Result<WtnsBuffer> copy_of(std::span<const uint8_t> bytes);
  // The file at `path`, read with pread into a buffer it owns. Never mapped: a file truncated
  // under a mapping raises SIGBUS on the next access, and the job reads its witness long
  // after submission. NOT_FOUND for a missing file, RESOURCE_EXHAUSTED over `max_bytes`,
  // INVALID_ARGUMENT when it is not a regular file or changes size while being read. With a
  // pool, pieces of the file are read by its threads at once (the copy out of the page cache
  // and the page faults are per thread). With `scan`, each piece's values are range-checked
  // as soon as it is read (scanned()); with `buffers`, the buffer comes from there.
  static Result<WtnsBuffer> read_file(const std::string& path, uint64_t max_bytes, ThreadPool* pool = nullptr,
                                      const ValueScan* scan = nullptr, WtnsBufferPool* buffers = nullptr);
  // Takes the bytes of `s` without copying them.
  static WtnsBuffer adopt(std::string&& s);

  uint8_t* data() { return data_; }
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  std::span<const uint8_t> bytes() const { return {data_, size_}; }
  // The range check read_file ran while reading, or null.
  const ScannedValues* scanned() const { return scanned_ ? &*scanned_ : nullptr; }

  // The bytes from `offset` to the end, starting at an address aligned to `align`: as they
  // are when they already do, else moved toward the front in place (over bytes before
  // `offset`, which the caller has read: bytes() is no longer the file after that).
  std::span<const uint8_t> align_from(size_t offset, size_t align);

 private:
  friend class WtnsBufferPool;
  void release();

  uint8_t* data_ = nullptr;
  size_t size_ = 0;
  void* map_ = nullptr;  // an anonymous mapping this buffer owns, or null
  size_t map_bytes_ = 0;
  uint8_t* base_ = nullptr;  // where the usable part of the mapping starts
  std::string adopted_;      // or the adopted string that holds the bytes
  std::optional<ScannedValues> scanned_;
  // The pool the mapping goes back to when the buffer is done with it; shared, so a buffer
  // that outlives its pool (a job still proving at shutdown) unmaps it instead.
  std::shared_ptr<WtnsIdleMaps> home_;
};

// Idle witness mappings kept for the next job: faulting in a fresh 512 MiB mapping costs more
// than reading the witness into it. A buffer taken from here (WtnsBuffer::allocate with this
// pool) returns its mapping when it dies, kept while the idle bytes stay within `max_idle_bytes`
// (0: nothing is kept), else unmapped. A request reuses an idle mapping that holds it and is
// at most twice its size. Idle mappings are host memory outside any budget.
class WtnsBufferPool {
 public:
  explicit WtnsBufferPool(uint64_t max_idle_bytes);
  ~WtnsBufferPool();  // unmaps the idle mappings; buffers still out unmap theirs when they die
  WtnsBufferPool(const WtnsBufferPool&) = delete;
  WtnsBufferPool& operator=(const WtnsBufferPool&) = delete;

  uint64_t max_idle_bytes() const;
  uint64_t idle_bytes() const;
  size_t idle_count() const;

 private:
  friend class WtnsBuffer;
  // An idle mapping holding `need` bytes from its base, or a buffer with no mapping.
  WtnsBuffer take(size_t need);

  std::shared_ptr<WtnsIdleMaps> maps_;
};

}  // namespace cuzk::formats
