#include "engine/device_recovery.hpp"

#include <chrono>

#include "engine/pipeline.hpp"

namespace cuzk::engine {

DeviceRecovery::DeviceRecovery(Pipeline& p) : p_(p), thread_([this] { run(); }) {}

void DeviceRecovery::report(Device& device, const Status& fault) {
  {
    std::lock_guard lock(mu_);
    pending_.emplace_back(&device, fault);
  }
  cv_.notify_all();
}

void DeviceRecovery::on_dead(DeadHandler h) {
  std::lock_guard lock(mu_);
  on_dead_ = std::move(h);
}

void DeviceRecovery::stop() {
  {
    std::lock_guard lock(mu_);
    if (stopping_ && !thread_.joinable()) return;
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void DeviceRecovery::run() {
  for (;;) {
    std::pair<Device*, Status> next;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return stopping_ || !pending_.empty(); });
      if (pending_.empty()) return;
      next = std::move(pending_.front());
      pending_.pop_front();
    }
    recover(*next.first, next.second);
  }
}

void DeviceRecovery::recover(Device& device, const Status& fault) {
  using Clock = std::chrono::steady_clock;
  auto log = [&](LogLevel level, const std::string& line) {
    if (p_.log) p_.log(level, device.id() + ": " + line);
  };
  const auto t0 = Clock::now();
  log(LogLevel::kError, "sticky fault, draining and resetting the device: " + fault.message());
  // Queued proofs first (they may hold memory a worker in flight waits for), then again
  // once the stages in flight have left (a pre-staging may have queued one meanwhile).
  p_.requeue_from(device);
  device.wait_idle();
  p_.requeue_from(device);

  Status st;
  size_t prepared = 0;
  for (int attempt = 1; attempt <= 3; ++attempt) {
    st = p_.keys.rebuild_device(
        device.index(), [&] { return device.reset(); }, prepared);
    if (st.is_ok() || device.health().is_ok()) break;  // back, possibly with a key missing
    device.counters().reset_failures++;
    log(LogLevel::kError, "reset attempt " + std::to_string(attempt) + " failed: " + st.message());
    std::this_thread::sleep_for(std::chrono::milliseconds(200 * attempt));
  }
  if (!device.health().is_ok()) {
    device.bury();
    log(LogLevel::kError, "the device could not be reset and takes no more work: " + st.message());
    p_.metrics.count("device_lost", "device", device.id());
    DeadHandler handler;
    {
      std::lock_guard lock(mu_);
      handler = on_dead_;
    }
    if (handler) handler(device, st);
    return;
  }
  if (!st.is_ok()) log(LogLevel::kError, "reset, but " + st.message());
  device.counters().resets++;
  p_.metrics.count("device_resets", "device", device.id());
  if (int64_t extra = device.unaccounted_bytes(); extra != 0) {
    device.counters().baseline_mismatches++;
    log(LogLevel::kError,
        std::to_string(extra) + " bytes in use beyond the new idle baseline and the keys after the reset");
  }
  const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  device.heal();
  log(LogLevel::kWarn, "reset done in " + std::to_string(int64_t(ms)) + " ms (reset " +
                           std::to_string(device.counters().resets.load()) + "), " + std::to_string(prepared) +
                           " key(s) prepared again, baseline " + format_bytes(device.baseline_bytes()) +
                           "; serving again");
}

}  // namespace cuzk::engine
