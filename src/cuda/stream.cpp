#include "cuda/stream.hpp"

#include <utility>

#include "cuda/cuda_status.hpp"

namespace cuzk::cuda {

namespace {
thread_local bool t_urgent = false;
}  // namespace

UrgentStreams::UrgentStreams(bool on) : prev_(t_urgent) { t_urgent = prev_ || on; }
UrgentStreams::~UrgentStreams() { t_urgent = prev_; }
bool UrgentStreams::active() { return t_urgent; }

Result<Stream> Stream::create() {
  cudaStream_t s = nullptr;
  if (t_urgent) {
    int least = 0, greatest = 0;
    CUZK_CUDA_RETURN_IF_ERROR(cudaDeviceGetStreamPriorityRange(&least, &greatest), "cudaDeviceGetStreamPriorityRange");
    CUZK_CUDA_RETURN_IF_ERROR(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, greatest),
                              "cudaStreamCreateWithPriority");
    return Stream(s);
  }
  CUZK_CUDA_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  return Stream(s);
}

Stream& Stream::operator=(Stream&& o) noexcept {
  if (this != &o) {
    (void)destroy();
    s_ = std::exchange(o.s_, nullptr);
  }
  return *this;
}

Status Stream::synchronize() const { return cuda_status(cudaStreamSynchronize(s_), "cudaStreamSynchronize"); }

Status Stream::wait(const Event& e) const {
  return cuda_status(cudaStreamWaitEvent(s_, e.get(), 0), "cudaStreamWaitEvent");
}

Status Stream::destroy() {
  if (s_ == nullptr) return Status::ok();
  cudaStream_t s = std::exchange(s_, nullptr);
  return cuda_status(cudaStreamDestroy(s), "cudaStreamDestroy");
}

Result<Event> Event::create(bool timing) {
  cudaEvent_t e = nullptr;
  unsigned flags = timing ? cudaEventDefault : cudaEventDisableTiming;
  CUZK_CUDA_RETURN_IF_ERROR(cudaEventCreateWithFlags(&e, flags), "cudaEventCreateWithFlags");
  return Event(e);
}

Event& Event::operator=(Event&& o) noexcept {
  if (this != &o) {
    (void)destroy();
    e_ = std::exchange(o.e_, nullptr);
  }
  return *this;
}

Status Event::record(const Stream& s) { return cuda_status(cudaEventRecord(e_, s.get()), "cudaEventRecord"); }

Status Event::synchronize() const { return cuda_status(cudaEventSynchronize(e_), "cudaEventSynchronize"); }

Result<float> Event::elapsed_ms(const Event& start, const Event& end) {
  float ms = 0;
  CUZK_CUDA_RETURN_IF_ERROR(cudaEventElapsedTime(&ms, start.e_, end.e_), "cudaEventElapsedTime");
  return ms;
}

Status Event::destroy() {
  if (e_ == nullptr) return Status::ok();
  cudaEvent_t e = std::exchange(e_, nullptr);
  return cuda_status(cudaEventDestroy(e), "cudaEventDestroy");
}

}  // namespace cuzk::cuda
