#include "cuda/fault.hpp"

#include <array>
#include <cstdlib>
#include <mutex>
#include <vector>

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
  std::vector<Rule> rules;
  size_t pos = 0;
  while (pos < spec.size()) {
    size_t end = spec.find(',', pos);
    if (end == std::string::npos) end = spec.size();
    const std::string item = spec.substr(pos, end - pos);
    pos = end + 1;
    if (item.empty()) continue;
    const size_t colon = item.find(':');
    auto bad = [&](const std::string& why) {
      return invalid_argument("CUZK_FAULT rule '" + item + "': " + why +
                              " (expected kind:N or kind:N@site, kind alloc|copy|kernel|sticky)");
    };
    if (colon == std::string::npos) return bad("no ':'");
    const std::string kind = item.substr(0, colon);
    Rule r{};
    if (kind == "alloc") {
      r.kind = FaultKind::kAlloc;
    } else if (kind == "copy") {
      r.kind = FaultKind::kCopy;
    } else if (kind == "kernel") {
      r.kind = FaultKind::kKernel;
    } else if (kind == "sticky") {
      r.kind = FaultKind::kSticky;
    } else {
      return bad("unknown kind '" + kind + "'");
    }
    std::string rest = item.substr(colon + 1);
    const size_t at = rest.find('@');
    if (at != std::string::npos) {
      r.site = rest.substr(at + 1);
      rest = rest.substr(0, at);
    }
    const bool digits = !rest.empty() && rest.size() <= 18 &&
                        rest.find_first_not_of("0123456789") == std::string::npos;
    const unsigned long long n = digits ? std::strtoull(rest.c_str(), nullptr, 10) : 0;
    if (n == 0) return bad("N must be a positive integer");
    r.nth = n;
    rules.push_back(std::move(r));
  }
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
    for (Rule& r : f.rules) {
      if (r.spent || r.kind != kind) continue;
      if (!r.site.empty() && where.find(r.site) == std::string::npos) continue;
      if (++r.seen != r.nth) continue;
      r.spent = true;
      msg = std::string("injected ") + fault_kind_name(kind) + " fault at " + where + " (rule " +
            fault_kind_name(kind) + ":" + std::to_string(r.nth) + (r.site.empty() ? "" : "@" + r.site) + ")";
      break;
    }
  }
  if (msg.empty()) return Status::ok();
  // The trap runs outside the lock: other threads' checks go on while it fails the context.
  if (kind == FaultKind::kSticky) return launch_trapping_kernel(msg);
  return {kind == FaultKind::kAlloc ? StatusCode::kResourceExhausted : StatusCode::kInternal, msg};
}

}  // namespace cuzk::cuda
