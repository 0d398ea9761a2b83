#include "engine/key_cache.hpp"

#include <algorithm>
#include <filesystem>

namespace cuzk::engine {

namespace {
using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }
}  // namespace

const char* key_tier_name(KeyTier t) {
  switch (t) {
    case KeyTier::kDisk:
      return "disk";
    case KeyTier::kMapped:
      return "mapped";
    case KeyTier::kPinnedHost:
      return "pinned_host";
    case KeyTier::kDevice:
      return "device";
  }
  return "disk";
}

KeyTier tier_of_placement(const std::string& placement) {
  if (placement == "device") return KeyTier::kDevice;
  if (placement == "pinned") return KeyTier::kPinnedHost;
  return KeyTier::kMapped;  // "host", "streamed" or "mixed (...)" (reads the mapping), or not prepared now
}

Status check_circuit_id(const std::string& id) {
  if (id.empty() || id.size() > 128 || id == "." || id == "..") {
    return invalid_argument("circuit id \"" + id + "\" must be 1 to 128 characters, not \".\" or \"..\"");
  }
  for (char c : id) {
    bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    if (!ok) return invalid_argument("circuit id \"" + id + "\" may hold only letters, digits, '.', '_' and '-'");
  }
  return Status::ok();
}

KeyCache::Lease& KeyCache::Lease::operator=(Lease&& o) noexcept {
  if (this != &o) {
    release();
    cache_ = o.cache_;
    entry_ = std::move(o.entry_);
    key_ = std::move(o.key_);
    load_ms_ = o.load_ms_;
    o.cache_ = nullptr;
  }
  return *this;
}

void KeyCache::Lease::release() {
  if (cache_ != nullptr && entry_) cache_->release(*entry_);
  cache_ = nullptr;
  entry_.reset();
  key_.reset();
}

KeyCache::KeyCache(uint64_t budget_bytes, std::vector<Device*> devices)
    : budget_(budget_bytes), devices_(std::move(devices)) {}

void KeyCache::release(Entry& e) {
  {
    std::lock_guard lock(mu_);
    --e.refs;
    e.last_used = Clock::now();
    ++generation_;
  }
  changed_.notify_all();
}

CircuitInfo KeyCache::info_locked(const std::string& id, const Entry& e) const {
  CircuitInfo c;
  c.circuit_id = id;
  c.zkey_path = e.path;
  c.shape = e.shape;
  c.device_bytes = e.device_bytes;
  c.tier = e.key ? KeyTier::kMapped : KeyTier::kDisk;
  c.refs = e.refs;
  if (!e.key) return c;
  c.mapped_bytes = e.shape.key_bytes;
  for (size_t d = 0; d < devices_.size(); ++d) {
    KeyPlacement kp;
    kp.device = devices_[d]->id();
    kp.tier = tier_of_placement(e.key->placement(d));
    kp.device_bytes = e.key->resident_bytes(d);
    if (kp.tier == KeyTier::kDevice) c.resident_device_bytes += kp.device_bytes;
    if (kp.tier == KeyTier::kPinnedHost) c.pinned_host_bytes = e.shape.key_bytes;
    if (int(kp.tier) > int(c.tier)) c.tier = kp.tier;
    c.placements.push_back(std::move(kp));
  }
  return c;
}

uint64_t KeyCache::loaded_bytes_locked() const {
  uint64_t total = 0;
  for (const auto& [id, e] : entries_) {
    if (e->key || e->loading) total += e->shape.key_bytes;
  }
  return total;
}

uint64_t KeyCache::loaded_bytes() const {
  std::lock_guard lock(mu_);
  return loaded_bytes_locked();
}

bool KeyCache::make_room_locked(uint64_t bytes) {
  while (loaded_bytes_locked() + bytes > budget_) {
    Entry* victim = nullptr;
    for (auto& [id, e] : entries_) {
      if (e->key && e->refs == 0 && !e->loading && (victim == nullptr || e->last_used < victim->last_used)) {
        victim = e.get();
      }
    }
    if (victim == nullptr) return false;
    victim->key.reset();
  }
  return true;
}

Result<CircuitInfo> KeyCache::register_circuit(const std::string& id, const std::string& path, bool preload) {
  CUZK_RETURN_IF_ERROR(check_circuit_id(id));
  if (path.empty()) return invalid_argument("circuit " + id + ": no zkey path given");
  std::error_code ec;
  std::string abs = std::filesystem::absolute(path, ec).lexically_normal().string();
  if (ec) abs = path;
  {
    std::lock_guard lock(mu_);
    auto it = entries_.find(id);
    if (it != entries_.end()) {
      if (it->second->path != abs) {
        return invalid_argument("circuit " + id + " is registered to " + it->second->path +
                                "; evict it with unregister first");
      }
      if (!preload || it->second->key) return info_locked(id, *it->second);
    }
  }
  if (!std::filesystem::exists(abs, ec)) return not_found("circuit " + id + ": no such key file " + abs);
  LoadTicket ticket(*this);  // released after the key is in the table (or dropped)
  auto key = LoadedKey::load(abs, devices_);
  if (!key.is_ok()) {
    StatusCode code =
        key.status().code() == StatusCode::kNotFound ? StatusCode::kNotFound : StatusCode::kInvalidArgument;
    return Status(code, "circuit " + id + ": " + key.status().message());
  }
  std::shared_ptr<LoadedKey> loaded = std::move(*key);
  std::lock_guard lock(mu_);
  auto& slot = entries_[id];
  if (!slot) slot = std::make_shared<Entry>();
  slot->path = abs;
  slot->shape = loaded->shape();
  slot->device_bytes.clear();
  for (size_t d = 0; d < devices_.size(); ++d) slot->device_bytes.push_back(loaded->backend_bytes(d));
  slot->last_used = Clock::now();
  if (preload && !slot->key) {
    if (slot->shape.key_bytes > budget_) {
      return Status(StatusCode::kResourceExhausted, "circuit " + id + ": key of " +
                                                        format_bytes(slot->shape.key_bytes) +
                                                        " exceeds the key cache budget of " + format_bytes(budget_));
    }
    if (make_room_locked(slot->shape.key_bytes)) slot->key = std::move(loaded);
  }
  return info_locked(id, *slot);
}

Result<KeyCache::Lease> KeyCache::acquire(const std::string& id, std::stop_token stop) {
  std::unique_lock lock(mu_);
  for (;;) {
    auto it = entries_.find(id);
    if (it == entries_.end()) return not_found("circuit " + id + " is not registered");
    std::shared_ptr<Entry> e = it->second;
    if (e->key) {
      ++e->refs;
      e->last_used = Clock::now();
      Lease l;
      l.cache_ = this;
      l.entry_ = e;
      l.key_ = e->key;
      return l;
    }
    if (!e->loading) {
      if (e->shape.key_bytes > budget_) {
        return Status(StatusCode::kResourceExhausted, "circuit " + id + ": key of " + format_bytes(e->shape.key_bytes) +
                                                          " exceeds the key cache budget of " + format_bytes(budget_));
      }
      if (!rebuilding_ && make_room_locked(e->shape.key_bytes)) {
        e->loading = true;
        ++loads_in_flight_;
        std::string path = e->path;
        lock.unlock();
        auto t0 = Clock::now();
        auto key = LoadedKey::load(path, devices_);
        double ms = ms_since(t0);
        lock.lock();
        --loads_in_flight_;
        e->loading = false;
        ++generation_;
        changed_.notify_all();
        if (!key.is_ok()) return Status(key.status().code(), "circuit " + id + ": " + key.status().message());
        e->key = std::move(*key);
        ++e->refs;
        e->last_used = Clock::now();
        Lease l;
        l.cache_ = this;
        l.entry_ = e;
        l.key_ = e->key;
        l.load_ms_ = ms;
        return l;
      }
    }
    // Another proof is loading this key, or keys in use fill the budget: wait for a change.
    const uint64_t seen = generation_;
    if (!changed_.wait(lock, stop, [&] { return generation_ != seen; })) {
      return Status(StatusCode::kUnavailable, "circuit " + id + ": cancelled while waiting for the key cache");
    }
  }
}

KeyCache::LoadTicket::LoadTicket(KeyCache& c) : c_(c) {
  std::unique_lock lock(c_.mu_);
  c_.changed_.wait(lock, [&] { return !c_.rebuilding_; });
  ++c_.loads_in_flight_;
}

KeyCache::LoadTicket::~LoadTicket() {
  {
    std::lock_guard lock(c_.mu_);
    --c_.loads_in_flight_;
    ++c_.generation_;
  }
  c_.changed_.notify_all();
}

Status KeyCache::rebuild_device(size_t device, const std::function<Status()>& reset, size_t& prepared) {
  prepared = 0;
  std::vector<std::pair<std::string, std::shared_ptr<LoadedKey>>> keys;
  {
    std::unique_lock lock(mu_);
    changed_.wait(lock, [&] { return !rebuilding_; });
    rebuilding_ = true;
    changed_.wait(lock, [&] { return loads_in_flight_ == 0; });
    for (const auto& [id, e] : entries_) {
      if (e->key) keys.emplace_back(id, e->key);
    }
  }
  // Snapshots keep evicted keys alive until they are whole again, so none is destroyed
  // (freeing device memory) while the device resets.
  std::vector<std::unique_lock<std::shared_mutex>> holds;
  for (auto& [id, k] : keys) holds.push_back(k->release_device(device));
  Status st = reset();
  std::string failed;
  for (size_t i = 0; i < keys.size(); ++i) {
    if (!st.is_ok()) break;  // the device is not back: its keys stay unprepared there
    Status p = keys[i].second->prepare_device(device, std::move(holds[i]));
    if (p.is_ok()) {
      ++prepared;
    } else {
      failed += (failed.empty() ? "" : "; ") + keys[i].first + ": " + p.message();
    }
  }
  holds.clear();
  keys.clear();
  {
    std::lock_guard lock(mu_);
    rebuilding_ = false;
    ++generation_;
  }
  changed_.notify_all();
  if (!st.is_ok()) return st;
  if (!failed.empty()) return internal_error("keys not prepared again: " + failed);
  return Status::ok();
}

Result<double> KeyCache::preload(const std::string& id) {
  {
    std::lock_guard lock(mu_);
    auto it = entries_.find(id);
    if (it == entries_.end()) return not_found("circuit " + id + " is not registered");
    if (it->second->key) return 0.0;
  }
  CUZK_ASSIGN_OR_RETURN(Lease l, acquire(id, std::stop_token{}));
  return l.load_ms();
}

Result<bool> KeyCache::evict(const std::string& id, bool unregister) {
  std::lock_guard lock(mu_);
  auto it = entries_.find(id);
  if (it == entries_.end()) return not_found("circuit " + id + " is not registered");
  Entry& e = *it->second;
  if (e.refs > 0 || e.loading) {
    return failed_precondition("circuit " + id + " is in use by " + std::to_string(e.refs) + " proof(s); retry later");
  }
  bool dropped = e.key != nullptr;
  e.key.reset();
  if (unregister) entries_.erase(it);
  ++generation_;
  changed_.notify_all();
  return dropped;
}

Result<CircuitInfo> KeyCache::info(const std::string& id) const {
  std::lock_guard lock(mu_);
  auto it = entries_.find(id);
  if (it == entries_.end()) return not_found("circuit " + id + " is not registered");
  return info_locked(id, *it->second);
}

std::vector<CircuitInfo> KeyCache::circuits() const {
  std::lock_guard lock(mu_);
  std::vector<CircuitInfo> out;
  for (const auto& [id, e] : entries_) out.push_back(info_locked(id, *e));
  return out;
}

}  // namespace cuzk::engine
