#include "engine/memory_budget.hpp"

#include <algorithm>
#include <cstdio>

namespace cuzk::engine {

void MemoryBudget::Reservation::release() {
  if (budget_ == nullptr) return;
  budget_->give_back(bytes_);
  budget_ = nullptr;
}

MemoryBudget::MemoryBudget(std::string name, uint64_t limit, uint64_t critical_reserve)
    : name_(std::move(name)), limit_(limit), critical_reserve_(std::min(critical_reserve, limit)) {}

uint64_t MemoryBudget::usable(Priority p) const {
  return p == Priority::kCritical ? limit_ : limit_ - critical_reserve_;
}

Status MemoryBudget::never_fits(uint64_t bytes, Priority p) const {
  std::string why = name_ + " memory: a " + priority_name(p) + " proof needs " + format_bytes(bytes) +
                    " but the budget allows " + format_bytes(usable(p));
  if (p != Priority::kCritical && critical_reserve_ > 0) {
    why += " (" + format_bytes(critical_reserve_) + " of the " + format_bytes(limit_) + " are kept for CRITICAL)";
  }
  return {StatusCode::kResourceExhausted, why};
}

Result<MemoryBudget::Reservation> MemoryBudget::try_reserve(uint64_t bytes, Priority p) {
  std::lock_guard lock(mu_);
  if (bytes > usable(p)) return never_fits(bytes, p);
  if (in_use_ + bytes > usable(p)) {
    return Status(StatusCode::kResourceExhausted, name_ + " memory: " + format_bytes(bytes) + " do not fit now (" +
                                                      format_bytes(in_use_) + " of " + format_bytes(usable(p)) +
                                                      " in use)");
  }
  in_use_ += bytes;
  peak_ = std::max(peak_, in_use_);
  return Reservation(this, bytes);
}

Result<MemoryBudget::Reservation> MemoryBudget::reserve(uint64_t bytes, Priority p, std::stop_token stop) {
  std::unique_lock lock(mu_);
  if (bytes > usable(p)) return never_fits(bytes, p);
  if (!freed_.wait(lock, stop, [&] { return in_use_ + bytes <= usable(p); })) {
    return Status(StatusCode::kUnavailable, name_ + " memory: cancelled while waiting for " + format_bytes(bytes));
  }
  in_use_ += bytes;
  peak_ = std::max(peak_, in_use_);
  return Reservation(this, bytes);
}

void MemoryBudget::give_back(uint64_t bytes) {
  {
    std::lock_guard lock(mu_);
    in_use_ -= bytes;
  }
  freed_.notify_all();
}

uint64_t MemoryBudget::in_use() const {
  std::lock_guard lock(mu_);
  return in_use_;
}
uint64_t MemoryBudget::peak() const {
  std::lock_guard lock(mu_);
  return peak_;
}
uint64_t MemoryBudget::free() const {
  std::lock_guard lock(mu_);
  return limit_ - in_use_;
}

std::string format_bytes(uint64_t bytes) {
  static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = double(bytes);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  if (u == 0) {
    std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(bytes));
  } else {
    std::snprintf(buf, sizeof buf, "%.1f %s", v, units[u]);
  }
  return buf;
}

}  // namespace cuzk::engine
