// Circuit ids bound to proving keys, and the keys loaded once and shared by every proof of
// that circuit. Loaded keys count against a byte budget; when a new key needs room the
// least recently used idle keys are dropped (never one a proof holds). Every key is fully
// validated when it is registered and again whenever it is loaded.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <stop_token>
#include <string>
#include <vector>

#include "core/status.hpp"
#include "engine/circuit_key.hpp"
#include "engine/device.hpp"

namespace cuzk::engine {

enum class KeyTier { kDisk, kMapped, kPinnedHost, kDevice };
const char* key_tier_name(KeyTier t);

// Where a loaded key lives for one device: kDevice when its points are resident on that
// device, kPinnedHost when they are streamed from page-locked host memory, kMapped when
// they are read from the key's mapped file (the CPU device, a GPU streaming from the
// mapping, or a device the key is not prepared on now).
struct KeyPlacement {
  std::string device;
  KeyTier tier = KeyTier::kMapped;
  uint64_t device_bytes = 0;  // device memory the key holds there
};

struct CircuitInfo {
  std::string circuit_id, zkey_path;
  KeyShape shape;
  KeyTier tier = KeyTier::kDisk;           // the highest tier of any placement; kDisk: not loaded
  uint32_t refs = 0;                       // proofs holding the key now
  std::vector<BackendBytes> device_bytes;  // per device, what its backend says a proof takes
  std::vector<KeyPlacement> placements;    // per device, while loaded
  // Bytes per tier while loaded: the mapped file, page-locked host copies, device copies.
  uint64_t mapped_bytes = 0, pinned_host_bytes = 0, resident_device_bytes = 0;
};

// The tier a backend's placement string names (groth16::PreparedKey::placement).
KeyTier tier_of_placement(const std::string& placement);

// Ok for ids of 1..128 characters from [A-Za-z0-9._-], other than "." and "..".
Status check_circuit_id(const std::string& id);

class KeyCache {
  struct Entry;

 public:
  // A proof's hold on a loaded key; the key is not evicted while any lease exists.
  class Lease {
   public:
    Lease() = default;
    Lease(Lease&& o) noexcept = default;
    Lease& operator=(Lease&& o) noexcept;
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    ~Lease() { release(); }

    const LoadedKey& key() const { return *key_; }
    double load_ms() const { return load_ms_; }  // > 0 when this acquire loaded the key
    explicit operator bool() const { return key_ != nullptr; }
    void release();

   private:
    friend class KeyCache;
    KeyCache* cache_ = nullptr;
    std::shared_ptr<Entry> entry_;
    std::shared_ptr<const LoadedKey> key_;
    double load_ms_ = 0;
  };

  KeyCache(uint64_t budget_bytes, std::vector<Device*> devices);
  KeyCache(const KeyCache&) = delete;
  KeyCache& operator=(const KeyCache&) = delete;

  // Binds `id` to the key at `path` after validating the whole file; keeps it loaded when
  // `preload`. Registering the same id and path again is a no-op.
  Result<CircuitInfo> register_circuit(const std::string& id, const std::string& path, bool preload);
  // The key of `id`, loading it (and evicting idle keys) when needed. Waits while keys in
  // use fill the budget; RESOURCE_EXHAUSTED when the key alone exceeds it.
  Result<Lease> acquire(const std::string& id, std::stop_token stop);
  // Loads `id` now; the milliseconds it took (0: it was loaded).
  Result<double> preload(const std::string& id);
  // Drops the loaded key of `id` (FAILED_PRECONDITION while proofs hold it); with
  // `unregister` also forgets the id. True when a loaded key was dropped.
  Result<bool> evict(const std::string& id, bool unregister);

  // The recovery of devices[device] after a sticky fault: with no key loading, drops every
  // loaded key's state on the device, runs `reset`, then prepares each key there again
  // (the key's stages on that device wait meanwhile). Keys whose preparation fails stay
  // unprepared on the device (UNAVAILABLE there) and are named in the returned error.
  // `prepared` gets the number of keys prepared again.
  Status rebuild_device(size_t device, const std::function<Status()>& reset, size_t& prepared);

  Result<CircuitInfo> info(const std::string& id) const;
  std::vector<CircuitInfo> circuits() const;
  uint64_t budget() const { return budget_; }
  uint64_t loaded_bytes() const;

 private:
  struct Entry {
    std::string path;
    KeyShape shape;
    std::vector<BackendBytes> device_bytes;
    std::shared_ptr<LoadedKey> key;
    uint32_t refs = 0;
    bool loading = false;
    std::chrono::steady_clock::time_point last_used{};
  };

  CircuitInfo info_locked(const std::string& id, const Entry& e) const;
  // Makes room for `bytes` by evicting idle keys, least recently used first (lock held).
  bool make_room_locked(uint64_t bytes);
  uint64_t loaded_bytes_locked() const;
  void release(Entry& e);
  // Counts a load (LoadedKey::load prepares the key on every device) from before it starts
  // until the key is in the table or dropped, so that a device rebuild never runs beside
  // one and finds every loaded key; waits while a rebuild runs.
  class LoadTicket {
   public:
    explicit LoadTicket(KeyCache& c);
    ~LoadTicket();
    LoadTicket(const LoadTicket&) = delete;
    LoadTicket& operator=(const LoadTicket&) = delete;

   private:
    KeyCache& c_;
  };

  const uint64_t budget_;
  const std::vector<Device*> devices_;
  mutable std::mutex mu_;
  std::condition_variable_any changed_;
  std::map<std::string, std::shared_ptr<Entry>> entries_;
  uint64_t generation_ = 0;  // bumped on every change a waiting acquire may care about
  uint32_t loads_in_flight_ = 0;
  bool rebuilding_ = false;
};

}  // namespace cuzk::engine
