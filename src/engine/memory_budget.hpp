// A byte budget (host memory, or one device's memory) that every stage reserves its
// in-flight bytes from before it starts, so nothing allocates and hopes. A reservation is
// an RAII object: however a job ends, what it held goes back.
//
// `critical_reserve` bytes are kept for CRITICAL work: lower priorities may use at most
// limit - critical_reserve, so a deadline-critical proof never waits behind them for memory.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <stop_token>
#include <string>

#include "core/status.hpp"
#include "engine/priority.hpp"

namespace cuzk::engine {

class MemoryBudget {
 public:
  class Reservation {
   public:
    Reservation() = default;
    Reservation(Reservation&& o) noexcept : budget_(o.budget_), bytes_(o.bytes_) { o.budget_ = nullptr; }
    Reservation& operator=(Reservation&& o) noexcept {
      if (this != &o) {
        release();
        budget_ = o.budget_;
        bytes_ = o.bytes_;
        o.budget_ = nullptr;
      }
      return *this;
    }
    Reservation(const Reservation&) = delete;
    Reservation& operator=(const Reservation&) = delete;
    ~Reservation() { release(); }

    uint64_t bytes() const { return budget_ ? bytes_ : 0; }
    bool held() const { return budget_ != nullptr; }
    void release();

   private:
    friend class MemoryBudget;
    Reservation(MemoryBudget* b, uint64_t bytes) : budget_(b), bytes_(bytes) {}
    MemoryBudget* budget_ = nullptr;
    uint64_t bytes_ = 0;
  };

  MemoryBudget(std::string name, uint64_t limit, uint64_t critical_reserve = 0);
  MemoryBudget(const MemoryBudget&) = delete;
  MemoryBudget& operator=(const MemoryBudget&) = delete;

  // The bytes now, or RESOURCE_EXHAUSTED when they do not fit now.
  Result<Reservation> try_reserve(uint64_t bytes, Priority p);
  // Waits until the bytes fit. RESOURCE_EXHAUSTED at once when they never can (more than
  // the limit this priority may use); UNAVAILABLE when `stop` is requested while waiting.
  Result<Reservation> reserve(uint64_t bytes, Priority p, std::stop_token stop);
  // Whether `bytes` could ever be reserved at this priority.
  bool can_ever_fit(uint64_t bytes, Priority p) const { return bytes <= usable(p); }

  const std::string& name() const { return name_; }
  uint64_t limit() const { return limit_; }
  uint64_t in_use() const;
  uint64_t peak() const;
  uint64_t free() const;

 private:
  uint64_t usable(Priority p) const;
  Status never_fits(uint64_t bytes, Priority p) const;
  void give_back(uint64_t bytes);

  const std::string name_;
  const uint64_t limit_, critical_reserve_;
  mutable std::mutex mu_;
  std::condition_variable_any freed_;
  uint64_t in_use_ = 0, peak_ = 0;
};

// "1.5 GiB", "512 MiB", "3 KiB", "17 B": for messages.
std::string format_bytes(uint64_t bytes);

}  // namespace cuzk::engine
