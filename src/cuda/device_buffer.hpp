// Owned device and pinned host memory. The owner frees it; nothing else calls cudaFree,
// so an early return on an error path cannot leak device memory. Device memory comes from
// the device's accounted allocator (cuda/allocator.hpp), and every copy passes the fault
// injector (cuda/fault.hpp) first.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <utility>

#include "core/status.hpp"
#include "cuda/allocator.hpp"
#include "cuda/cuda_status.hpp"
#include "cuda/fault.hpp"
#include "cuda/stream.hpp"

namespace cuzk::cuda {

namespace detail {
template <class T>
Status checked_bytes(size_t count, size_t& bytes) {
  if (count > SIZE_MAX / sizeof(T)) {
    return invalid_argument("buffer of " + std::to_string(count) + " elements of " + std::to_string(sizeof(T)) +
                            " bytes overflows size_t");
  }
  bytes = count * sizeof(T);
  return Status::ok();
}

inline Status check_range(const char* what, size_t offset, size_t count, size_t size) {
  if (offset > size || count > size - offset) {
    return out_of_range(std::string(what) + ": elements [" + std::to_string(offset) + ", " +
                        std::to_string(offset + count) + ") outside a buffer of " + std::to_string(size));
  }
  return Status::ok();
}
}  // namespace detail

// `count` elements of T in device memory on the calling thread's current device, from
// that device's allocator (within its budget, or within `from`). `site` names the
// allocation in errors. Move-only; freed by the destructor or by release().
template <class T>
class DeviceBuffer {
  static_assert(std::is_trivially_copyable_v<T>, "device memory holds plain data only");

 public:
  DeviceBuffer() = default;

  static Result<DeviceBuffer> allocate(size_t count, const char* site = "device buffer", Reservation* from = nullptr) {
    // Explicit Result construction: nvcc's front end does not apply C++20's implicit move
    // when the returned local converts to Result, and g++ warns about a bare std::move.
    DeviceBuffer b;
    if (count == 0) return Result<DeviceBuffer>(std::move(b));
    size_t bytes = 0;
    CUZK_RETURN_IF_ERROR(detail::checked_bytes<T>(count, bytes));
    CUZK_ASSIGN_OR_RETURN(DeviceAllocator * alloc, DeviceAllocator::current());
    CUZK_ASSIGN_OR_RETURN(b.alloc_, alloc->allocate(bytes, site, from));
    b.owner_ = alloc;
    b.size_ = count;
    return Result<DeviceBuffer>(std::move(b));
  }

  DeviceBuffer(DeviceBuffer&& o) noexcept
      : alloc_(std::exchange(o.alloc_, Allocation{})), owner_(std::exchange(o.owner_, nullptr)),
        size_(std::exchange(o.size_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      (void)release();
      alloc_ = std::exchange(o.alloc_, Allocation{});
      owner_ = std::exchange(o.owner_, nullptr);
      size_ = std::exchange(o.size_, 0);
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  // A failed free can only follow a sticky error, which the next checked call reports.
  ~DeviceBuffer() { (void)release(); }

  T* data() { return static_cast<T*>(alloc_.ptr); }
  const T* data() const { return static_cast<const T*>(alloc_.ptr); }
  size_t size() const { return size_; }
  size_t size_bytes() const { return size_ * sizeof(T); }
  bool empty() const { return size_ == 0; }
  int device() const { return alloc_.device; }

  // Asynchronous copies on `s`; the host memory must stay valid until `s` has reached them.
  Status upload(std::span<const T> src, const Stream& s, size_t offset = 0) {
    CUZK_RETURN_IF_ERROR(detail::check_range("DeviceBuffer::upload", offset, src.size(), size_));
    if (src.empty()) return Status::ok();
    CUZK_RETURN_IF_ERROR(inject_fault(FaultKind::kCopy, "DeviceBuffer::upload"));
    return cuda_status(cudaMemcpyAsync(data() + offset, src.data(), src.size_bytes(), cudaMemcpyHostToDevice, s.get()),
                       "cudaMemcpyAsync(host to device, " + std::to_string(src.size_bytes()) + " bytes)");
  }
  Status download(std::span<T> dst, const Stream& s, size_t offset = 0) const {
    CUZK_RETURN_IF_ERROR(detail::check_range("DeviceBuffer::download", offset, dst.size(), size_));
    if (dst.empty()) return Status::ok();
    CUZK_RETURN_IF_ERROR(inject_fault(FaultKind::kCopy, "DeviceBuffer::download"));
    return cuda_status(cudaMemcpyAsync(dst.data(), data() + offset, dst.size_bytes(), cudaMemcpyDeviceToHost, s.get()),
                       "cudaMemcpyAsync(device to host, " + std::to_string(dst.size_bytes()) + " bytes)");
  }
  // Sets every byte; tests use it to poison outputs so that unwritten elements show.
  Status fill_bytes(uint8_t value, const Stream& s) {
    if (size_ == 0) return Status::ok();
    return cuda_status(cudaMemsetAsync(data(), value, size_bytes(), s.get()),
                       "cudaMemsetAsync(" + std::to_string(size_bytes()) + " bytes)");
  }

  // Frees the memory now and reports the result.
  Status release() {
    if (owner_ == nullptr) return Status::ok();
    DeviceAllocator* owner = std::exchange(owner_, nullptr);
    size_ = 0;
    return owner->free(alloc_);
  }

 private:
  Allocation alloc_;
  DeviceAllocator* owner_ = nullptr;
  size_t size_ = 0;
};

// `count` elements of T in page-locked host memory (cudaMallocHost): the only host memory
// the copy engines can read and write asynchronously. Move-only.
template <class T>
class PinnedBuffer {
  static_assert(std::is_trivially_copyable_v<T>, "pinned memory holds plain data only");

 public:
  PinnedBuffer() = default;

  static Result<PinnedBuffer> allocate(size_t count) {
    PinnedBuffer b;
    if (count == 0) return Result<PinnedBuffer>(std::move(b));
    size_t bytes = 0;
    CUZK_RETURN_IF_ERROR(detail::checked_bytes<T>(count, bytes));
    void* p = nullptr;
    CUZK_CUDA_RETURN_IF_ERROR(cudaMallocHost(&p, bytes), "cudaMallocHost(" + std::to_string(bytes) + " bytes)");
    b.ptr_ = static_cast<T*>(p);
    b.size_ = count;
    return Result<PinnedBuffer>(std::move(b));
  }

  PinnedBuffer(PinnedBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), size_(std::exchange(o.size_, 0)) {}
  PinnedBuffer& operator=(PinnedBuffer&& o) noexcept {
    if (this != &o) {
      (void)release();
      ptr_ = std::exchange(o.ptr_, nullptr);
      size_ = std::exchange(o.size_, 0);
    }
    return *this;
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  ~PinnedBuffer() { (void)release(); }

  T* data() { return ptr_; }
  const T* data() const { return ptr_; }
  size_t size() const { return size_; }
  size_t size_bytes() const { return size_ * sizeof(T); }
  bool empty() const { return size_ == 0; }
  T& operator[](size_t i) { return ptr_[i]; }
  const T& operator[](size_t i) const { return ptr_[i]; }
  std::span<T> span() { return {ptr_, size_}; }
  std::span<const T> span() const { return {ptr_, size_}; }

  Status release() {
    if (ptr_ == nullptr) return Status::ok();
    T* p = std::exchange(ptr_, nullptr);
    size_ = 0;
    return cuda_status(cudaFreeHost(p), "cudaFreeHost");
  }

 private:
  T* ptr_ = nullptr;
  size_t size_ = 0;
};

}  // namespace cuzk::cuda
