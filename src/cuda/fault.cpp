#include "cuda/fault.hpp"

#include <array>
#include <cstdlib>
#include <mutex>
#include <vector>

#include "core/fault_spec.hpp"

namespace cuzk::cuda {
namespace {

struct Rule {
  FaultKind kind;
  uint64_t nth;
  std::string site;  // substring of the site name; empty: any
  uint64_t seen = 0;
  bool spent = false;
};

struct Faults {
  std::mutex mu;
  std::vector<Rule> rules;
  std::array<uint64_t, 4> counts{};
  Status env_error;  // a malformed CUZK_FAULT fails every checked operation, loudly
};

Result<std::vector<Rule>> parse(const std::string& spec) {
  CUZK_ASSIGN_OR_RETURN(auto parsed, parse_fault_spec(spec, {"alloc", "copy", "kernel", "sticky"}, "CUZK_FAULT"));
  std::vector<Rule> rules;
  for (FaultRuleSpec& p : parsed) rules.push_back(Rule{FaultKind(p.kind), p.nth, std::move(p.site)});
  return rules;
}

Faults& faults() {
  static Faults* f = [] {
    auto* state = new Faults;  // never destroyed: checked from destructors during exit
    if (const char* env = std::getenv("CUZK_FAULT"); env != nullptr && *env != '\0') {
      auto rules = parse(env);
      if (rules.is_ok()) {
        state->rules = std::move(rules).value();
      } else {
        state->env_error = rules.status();
      }
    }
    return state;
  }();
  return *f;
}

}  // namespace

const char* fault_kind_name(FaultKind kind) {
  switch (kind) {
    case FaultKind::kAlloc:
      return "alloc";
    case FaultKind::kCopy:
      return "copy";
    case FaultKind::kKernel:
      return "kernel";
    case FaultKind::kSticky:
      return "sticky";
  }
  return "?";
}

Status arm_faults(const std::string& spec) {
  CUZK_ASSIGN_OR_RETURN(auto rules, parse(spec));
  Faults& f = faults();
  std::lock_guard lock(f.mu);
  f.rules = std::move(rules);
  f.counts = {};
  f.env_error = Status::ok();
  return Status::ok();
}

void disarm_faults() {
  Faults& f = faults();
  std::lock_guard lock(f.mu);
  f.rules.clear();
  f.counts = {};
  f.env_error = Status::ok();
}

uint64_t fault_count(FaultKind kind) {
  Faults& f = faults();
  std::lock_guard lock(f.mu);
  return f.counts[size_t(kind)];
}

Status inject_fault(FaultKind kind, const char* site) {
  std::string msg;
  {
    Faults& f = faults();
    std::lock_guard lock(f.mu);
    ++f.counts[size_t(kind)];
    if (!f.env_error.is_ok()) return f.env_error;
    const std::string where = site != nullptr ? site : "";
    // Every rule this operation matches counts it ("alloc:1,alloc:2" fails the first two);
    // the first that reaches its N fires.
    for (Rule& r : f.rules) {
      if (r.spent || r.kind != kind) continue;
      if (!r.site.empty() && where.find(r.site) == std::string::npos) continue;
      if (++r.seen != r.nth || !msg.empty()) continue;
      r.spent = true;
      msg = std::string("injected ") + fault_kind_name(kind) + " fault at " + where + " (rule " +
            fault_kind_name(kind) + ":" + std::to_string(r.nth) + (r.site.empty() ? "" : "@" + r.site) + ")";
    }
  }
  if (msg.empty()) return Status::ok();
  // The trap runs outside the lock: other threads' checks go on while it fails the context.
  if (kind == FaultKind::kSticky) return launch_trapping_kernel(msg);
  return {kind == FaultKind::kAlloc ? StatusCode::kResourceExhausted : StatusCode::kInternal, msg};
}

}  // namespace cuzk::cuda
