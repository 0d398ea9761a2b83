#include "engine/device.hpp"

namespace cuzk::engine {

bool Device::poison() {
  std::lock_guard lock(state_mu_);
  return !poisoned_.exchange(true);
}

void Device::heal() {
  {
    std::lock_guard lock(state_mu_);
    poisoned_ = false;
  }
  state_cv_.notify_all();
}

void Device::bury() {
  {
    std::lock_guard lock(state_mu_);
    dead_ = true;
  }
  state_cv_.notify_all();
}

bool Device::wait_healthy(std::chrono::milliseconds max) {
  std::unique_lock lock(state_mu_);
  return state_cv_.wait_for(lock, max, [&] { return !poisoned_.load() || dead_.load(); }) && !poisoned_.load();
}

Device::Use Device::enter() {
  std::lock_guard lock(state_mu_);
  if (poisoned_.load()) return Use();
  ++users_;
  return Use(this);
}

void Device::Use::release() {
  if (d_ == nullptr) return;
  Device* d = std::exchange(d_, nullptr);
  {
    std::lock_guard lock(d->state_mu_);
    --d->users_;
  }
  d->state_cv_.notify_all();
}

void Device::wait_idle() {
  std::unique_lock lock(state_mu_);
  state_cv_.wait(lock, [&] { return users_ == 0; });
}

}  // namespace cuzk::engine
