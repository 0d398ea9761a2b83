#include "cuda/stream.hpp"

#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include "cuda/cuda_status.hpp"

namespace cuzk::cuda {

namespace {
thread_local bool t_urgent = false;

constexpr size_t kMaxIdle = 128;  // per device and kind; more are destroyed

struct DevicePool {
  uint64_t generation = 0;
  std::vector<cudaStream_t> streams[2];  // [urgent]
  std::vector<cudaEvent_t> events[2];    // [timing]
  uint64_t reused = 0, created = 0;
};

std::mutex& pool_mu() {
  static auto* mu = new std::mutex;
  return *mu;
}
// Needs pool_mu(). For the process's life (handles may be released during exit).
DevicePool& pool_of(int device) {
  static auto* pools = new std::map<int, DevicePool>;
  return (*pools)[device];
}

int current_device() {
  int d = 0;
  return cudaGetDevice(&d) == cudaSuccess ? d : 0;
}

// An idle handle from the list `pick` selects in `device`'s pool, or null (counted as one
// to create); *generation receives the pool's.
template <class H, class Pick>
H take_idle(int device, Pick pick, uint64_t* generation) {
  std::lock_guard lock(pool_mu());
  DevicePool& p = pool_of(device);
  *generation = p.generation;
  std::vector<H>& idle = pick(p);
  if (idle.empty()) {
    ++p.created;
    return nullptr;
  }
  H h = idle.back();
  idle.pop_back();
  ++p.reused;
  return h;
}

// True when `h` needs nothing more: kept for reuse (`reusable` and room left), or made by a
// context that has since been reset (gone with it). False: the caller destroys it.
template <class H, class Pick>
bool keep_idle(int device, uint64_t generation, Pick pick, H h, bool reusable) {
  std::lock_guard lock(pool_mu());
  DevicePool& p = pool_of(device);
  if (p.generation != generation) return true;
  std::vector<H>& idle = pick(p);
  if (!reusable || idle.size() >= kMaxIdle) return false;
  idle.push_back(h);
  return true;
}
}  // namespace

PoolStats pool_stats(int device) {
  std::lock_guard lock(pool_mu());
  const DevicePool& p = pool_of(device);
  return {p.streams[0].size() + p.streams[1].size(), p.events[0].size() + p.events[1].size(), p.reused, p.created};
}

Status warm_pools(size_t urgent_streams, size_t streams, size_t events) {
  std::vector<Stream> made;
  for (bool urgent : {true, false}) {
    UrgentStreams scope(urgent);
    const size_t want = urgent ? urgent_streams : streams;
    for (size_t i = 0; i < want; ++i) {  // takes the idle ones first, then makes the rest
      CUZK_ASSIGN_OR_RETURN(Stream s, Stream::create());
      made.push_back(std::move(s));
    }
  }
  std::vector<Event> marks;
  for (bool timing : {true, false}) {
    for (size_t i = 0; i < events; ++i) {
      CUZK_ASSIGN_OR_RETURN(Event e, Event::create(timing));
      marks.push_back(std::move(e));
    }
  }
  for (auto& s : made) CUZK_RETURN_IF_ERROR(s.destroy());  // idle: into the pool
  for (auto& e : marks) CUZK_RETURN_IF_ERROR(e.destroy());
  return Status::ok();
}

void forget_pooled(int device) {
  std::lock_guard lock(pool_mu());
  DevicePool& p = pool_of(device);
  ++p.generation;
  for (auto& v : p.streams) v.clear();
  for (auto& v : p.events) v.clear();
}

UrgentStreams::UrgentStreams(bool on) : prev_(t_urgent) { t_urgent = prev_ || on; }
UrgentStreams::~UrgentStreams() { t_urgent = prev_; }
bool UrgentStreams::active() { return t_urgent; }

Result<Stream> Stream::create() {
  const int device = current_device();
  const bool urgent = t_urgent;
  uint64_t generation = 0;
  auto streams = [urgent](DevicePool& p) -> std::vector<cudaStream_t>& { return p.streams[urgent]; };
  cudaStream_t s = take_idle<cudaStream_t>(device, streams, &generation);
  if (s != nullptr) return Stream(s, device, urgent, generation);
  if (urgent) {
    int least = 0, greatest = 0;
    CUZK_CUDA_RETURN_IF_ERROR(cudaDeviceGetStreamPriorityRange(&least, &greatest), "cudaDeviceGetStreamPriorityRange");
    CUZK_CUDA_RETURN_IF_ERROR(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, greatest),
                              "cudaStreamCreateWithPriority");
  } else {
    CUZK_CUDA_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  }
  return Stream(s, device, urgent, generation);
}

Stream& Stream::operator=(Stream&& o) noexcept {
  if (this != &o) {
    (void)destroy();
    s_ = std::exchange(o.s_, nullptr);
    device_ = o.device_;
    urgent_ = o.urgent_;
    generation_ = o.generation_;
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
  // Idle: back to the pool. Work still queued (or an error): destroyed, which lets the
  // work finish.
  const bool idle = cudaStreamQuery(s) == cudaSuccess;
  auto streams = [this](DevicePool& p) -> std::vector<cudaStream_t>& { return p.streams[urgent_]; };
  if (keep_idle(device_, generation_, streams, s, idle)) return Status::ok();
  return cuda_status(cudaStreamDestroy(s), "cudaStreamDestroy");
}

Result<Event> Event::create(bool timing) {
  const int device = current_device();
  uint64_t generation = 0;
  auto events = [timing](DevicePool& p) -> std::vector<cudaEvent_t>& { return p.events[timing]; };
  cudaEvent_t e = take_idle<cudaEvent_t>(device, events, &generation);
  if (e != nullptr) return Event(e, device, timing, generation);
  unsigned flags = timing ? cudaEventDefault : cudaEventDisableTiming;
  CUZK_CUDA_RETURN_IF_ERROR(cudaEventCreateWithFlags(&e, flags), "cudaEventCreateWithFlags");
  return Event(e, device, timing, generation);
}

Event& Event::operator=(Event&& o) noexcept {
  if (this != &o) {
    (void)destroy();
    e_ = std::exchange(o.e_, nullptr);
    device_ = o.device_;
    timing_ = o.timing_;
    generation_ = o.generation_;
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
  // Complete (or never recorded): the next user finds it as a new one, complete. Pending: a
  // new user's synchronize() before its own record would wait for the old work, so destroyed.
  const bool done = cudaEventQuery(e) == cudaSuccess;
  auto events = [this](DevicePool& p) -> std::vector<cudaEvent_t>& { return p.events[timing_]; };
  if (keep_idle(device_, generation_, events, e, done)) return Status::ok();
  return cuda_status(cudaEventDestroy(e), "cudaEventDestroy");
}

}  // namespace cuzk::cuda
