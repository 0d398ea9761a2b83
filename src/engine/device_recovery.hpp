// Containment of sticky device faults. A stage that sees a device fail with kDeviceLost
// (or any failure after which the device's health() says lost) poisons the device and
// reports it here (Pipeline::fail_on_device). One recovery thread then, per device:
//   1. drains: the poisoned device grants no new Use, its queued proofs give up their
//      device state and go back to pre-staging (onto a healthy device, or waiting for this
//      one), and it waits until every stage in flight on it has left (their backend calls
//      fail fast on the lost context, so those jobs fail cleanly);
//   2. rebuilds (KeyCache::rebuild_device): with no key loading, every loaded key drops its
//      state on the device (prover, resident points, their reservation), the device resets
//      (Device::reset: cudaDeviceReset and a re-measured baseline on a GPU, new backends on
//      the CPU), and every key is prepared (re-uploaded) there again;
//   3. checks the device against its new idle baseline, counts the reset, and heals the
//      device, which serves again. A device whose reset fails three times is buried: it
//      takes no work for the rest of the process, and the dead-device handler (if set) is
//      told: on the H200 a sticky fault cannot be reset inside the process (the context
//      comes back cudaErrorDevicesUnavailable), so the daemon's answer is to drain and exit
//      for its supervisor to restart it (apps/cuzk-daemon, [devices] on_device_lost).
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

#include "core/status.hpp"
#include "engine/device.hpp"

namespace cuzk::engine {

struct Pipeline;

class DeviceRecovery {
 public:
  explicit DeviceRecovery(Pipeline& p);
  DeviceRecovery(const DeviceRecovery&) = delete;
  DeviceRecovery& operator=(const DeviceRecovery&) = delete;
  ~DeviceRecovery() { stop(); }

  // `device` was poisoned by this caller after `fault`: recover it.
  void report(Device& device, const Status& fault);
  // Finishes the recovery in progress, if any, and stops the thread.
  void stop();
  // Called on the recovery thread once per device that could not be reset (and is buried),
  // with the last reset's error. Replaces an earlier handler.
  using DeadHandler = std::function<void(const Device&, const Status&)>;
  void on_dead(DeadHandler h);

 private:
  void run();
  void recover(Device& device, const Status& fault);

  Pipeline& p_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::pair<Device*, Status>> pending_;
  bool stopping_ = false;
  DeadHandler on_dead_;
  std::thread thread_;
};

}  // namespace cuzk::engine
