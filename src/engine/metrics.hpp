// Prometheus-style metrics the engine keeps: a histogram per stage (cuzk_<stage>_seconds),
// outcome counters, and a text writer for gauges the engine reads at scrape time. Plain
// C++ with no client library; the server only serves the text.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace cuzk::engine {

class Histogram {
 public:
  explicit Histogram(std::vector<double> upper_bounds);
  void observe(double seconds);
  // Appends the _bucket/_sum/_count lines of `name`.
  void write(std::string& out, const std::string& name) const;

 private:
  const std::vector<double> bounds_;
  mutable std::mutex mu_;
  std::vector<uint64_t> counts_;  // per bucket, not cumulative; last = +Inf
  double sum_ = 0;
  uint64_t count_ = 0;
};

// The stages timed per proof, in pipeline order; each gets cuzk_<name>_seconds.
enum class TimedStage {
  kAdmission,
  kQueueWait,
  kKeyLoad,
  kSynthesis,
  kPrestage,
  kGpuCompute,
  kNttH,
  kMsm,
  kVerify,
  kFinalize,
  kTotal
};
inline constexpr size_t kTimedStageCount = 11;
const char* timed_stage_name(TimedStage s);

class Metrics {
 public:
  Metrics();
  void observe(TimedStage s, double seconds) { stages_[size_t(s)]->observe(seconds); }
  // Proofs run back to back under one hold of a device's kernel region (cuzk_device_batch_size).
  void observe_batch(size_t proofs) { batch_sizes_.observe(double(proofs)); }
  // A counter cuzk_<name>_total{<label>="<value>"}.
  void count(const std::string& name, const std::string& label, const std::string& value, uint64_t n = 1);
  // The histograms and counters in Prometheus text format.
  std::string render() const;

 private:
  std::vector<std::unique_ptr<Histogram>> stages_;
  Histogram batch_sizes_{{1, 2, 3, 4, 6, 8, 12, 16, 32}};
  mutable std::mutex mu_;
  std::map<std::string, std::map<std::pair<std::string, std::string>, uint64_t>> counters_;
};

// Appends one gauge family: `# HELP`, `# TYPE gauge` and one sample per (labels, value).
struct GaugeSample {
  std::string labels;  // e.g. device="cpu:0" (without braces), or empty
  double value = 0;
};
void write_gauge(std::string& out, const std::string& name, const std::string& help,
                 const std::vector<GaugeSample>& samples);
// The same with `# TYPE counter`, for totals kept elsewhere (a device allocator's).
void write_counter(std::string& out, const std::string& name, const std::string& help,
                   const std::vector<GaugeSample>& samples);

}  // namespace cuzk::engine
