#include "engine/metrics.hpp"

#include <cstdio>

namespace cuzk::engine {

namespace {

std::string num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

const char* stage_help(TimedStage s) {
  switch (s) {
    case TimedStage::kAdmission:
      return "Witness intake: read, decoded, range-checked and queued";
    case TimedStage::kQueueWait:
      return "Time a proof waited in the stage queues";
    case TimedStage::kKeyLoad:
      return "Time spent loading a proving key that was not resident";
    case TimedStage::kSynthesis:
      return "Witness to a, b, c evaluations";
    case TimedStage::kPrestage:
      return "Pre-staging: reserving device memory and uploading inputs outside the lock";
    case TimedStage::kGpuCompute:
      return "The device's kernel region (under the per-device lock)";
    case TimedStage::kNttH:
      return "The H polynomial (NTTs)";
    case TimedStage::kMsm:
      return "All multi-scalar multiplications of a proof";
    case TimedStage::kVerify:
      return "Self-verification of a proof before it is returned";
    case TimedStage::kFinalize:
      return "Verification, serialization and recording of a proof";
    case TimedStage::kTotal:
      return "Admission to result";
  }
  return "";
}

}  // namespace

const char* timed_stage_name(TimedStage s) {
  switch (s) {
    case TimedStage::kAdmission:
      return "admission";
    case TimedStage::kQueueWait:
      return "queue_wait";
    case TimedStage::kKeyLoad:
      return "key_load";
    case TimedStage::kSynthesis:
      return "synthesis";
    case TimedStage::kPrestage:
      return "prestage";
    case TimedStage::kGpuCompute:
      return "gpu_compute";
    case TimedStage::kNttH:
      return "ntt_hpoly";  // "_h_" would read as hours to promtool
    case TimedStage::kMsm:
      return "msm";
    case TimedStage::kVerify:
      return "verify";
    case TimedStage::kFinalize:
      return "finalize";
    case TimedStage::kTotal:
      return "total";
  }
  return "unknown";
}

Histogram::Histogram(std::vector<double> upper_bounds)
    : bounds_(std::move(upper_bounds)), counts_(bounds_.size() + 1, 0) {}

void Histogram::observe(double seconds) {
  size_t i = 0;
  while (i < bounds_.size() && seconds > bounds_[i]) ++i;
  std::lock_guard lock(mu_);
  ++counts_[i];
  sum_ += seconds;
  ++count_;
}

void Histogram::write(std::string& out, const std::string& name) const {
  std::lock_guard lock(mu_);
  uint64_t cumulative = 0;
  for (size_t i = 0; i < bounds_.size(); ++i) {
    cumulative += counts_[i];
    out += name + "_bucket{le=\"" + num(bounds_[i]) + "\"} " + std::to_string(cumulative) + "\n";
  }
  cumulative += counts_.back();
  out += name + "_bucket{le=\"+Inf\"} " + std::to_string(cumulative) + "\n";
  out += name + "_sum " + num(sum_) + "\n";
  out += name + "_count " + std::to_string(count_) + "\n";
}

Metrics::Metrics() {
  // 1 ms .. ~10 min, about three buckets per decade.
  std::vector<double> bounds = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
                                1,     2.5,    5,     10,   25,    50,   100, 250,  600};
  for (size_t i = 0; i < kTimedStageCount; ++i) stages_.push_back(std::make_unique<Histogram>(bounds));
}

void Metrics::count(const std::string& name, const std::string& label, const std::string& value, uint64_t n) {
  std::lock_guard lock(mu_);
  counters_[name][{label, value}] += n;
}

std::string Metrics::render() const {
  std::string out;
  for (size_t i = 0; i < kTimedStageCount; ++i) {
    auto s = TimedStage(i);
    std::string name = std::string("cuzk_") + timed_stage_name(s) + "_seconds";
    out += "# HELP " + name + " " + stage_help(s) + ".\n# TYPE " + name + " histogram\n";
    stages_[i]->write(out, name);
  }
  out +=
      "# HELP cuzk_device_batch_size Proofs of one circuit run back to back under one hold of a device's kernel "
      "region.\n# TYPE cuzk_device_batch_size histogram\n";
  batch_sizes_.write(out, "cuzk_device_batch_size");
  std::lock_guard lock(mu_);
  for (const auto& [name, samples] : counters_) {
    std::string full = "cuzk_" + name + "_total";
    out += "# HELP " + full + " Count of " + name + " events by " + samples.begin()->first.first + ".\n";
    out += "# TYPE " + full + " counter\n";
    for (const auto& [lv, n] : samples) {
      out += full + "{" + lv.first + "=\"" + lv.second + "\"} " + std::to_string(n) + "\n";
    }
  }
  return out;
}

namespace {
void write_family(std::string& out, const char* type, const std::string& name, const std::string& help,
                  const std::vector<GaugeSample>& samples) {
  out.append("# HELP ").append(name).append(" ").append(help).append(".\n# TYPE ").append(name).append(" ");
  out.append(type).append("\n");
  for (const auto& s : samples) {
    out.append(name);
    if (!s.labels.empty()) out.append("{").append(s.labels).append("}");
    out.append(" ").append(num(s.value)).append("\n");
  }
}
}  // namespace

void write_gauge(std::string& out, const std::string& name, const std::string& help,
                 const std::vector<GaugeSample>& samples) {
  write_family(out, "gauge", name, help, samples);
}

void write_counter(std::string& out, const std::string& name, const std::string& help,
                   const std::vector<GaugeSample>& samples) {
  write_family(out, "counter", name, help, samples);
}

}  // namespace cuzk::engine
