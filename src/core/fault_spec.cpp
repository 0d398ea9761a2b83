#include "core/fault_spec.hpp"

namespace cuzk {

Result<std::vector<FaultRuleSpec>> parse_fault_spec(const std::string& spec, std::initializer_list<const char*> kinds,
                                                    const std::string& source) {
  std::string expected;
  for (const char* k : kinds) {
    if (!expected.empty()) expected += '|';
    expected += k;
  }
  std::vector<FaultRuleSpec> rules;
  size_t pos = 0;
  while (pos < spec.size()) {
    size_t end = spec.find(',', pos);
    if (end == std::string::npos) end = spec.size();
    const std::string item = spec.substr(pos, end - pos);
    pos = end + 1;
    if (item.empty()) continue;
    auto bad = [&](const std::string& why) {
      return invalid_argument(source + " rule '" + item + "': " + why + " (expected kind:N or kind:N@site, kind " +
                              expected + ")");
    };
    const size_t colon = item.find(':');
    if (colon == std::string::npos) return bad("no ':'");
    FaultRuleSpec r;
    r.text = item;
    const std::string kind = item.substr(0, colon);
    r.kind = kinds.size();
    size_t i = 0;
    for (const char* k : kinds) {
      if (kind == k) r.kind = i;
      ++i;
    }
    if (r.kind == kinds.size()) return bad("unknown kind '" + kind + "'");
    std::string n = item.substr(colon + 1);
    if (const size_t at = n.find('@'); at != std::string::npos) {
      r.site = n.substr(at + 1);
      n.resize(at);
    }
    const bool digits = !n.empty() && n.size() <= 18 && n.find_first_not_of("0123456789") == std::string::npos;
    r.nth = digits ? std::stoull(n) : 0;
    if (r.nth == 0) return bad("N must be a positive integer");
    rules.push_back(std::move(r));
  }
  return rules;
}

}  // namespace cuzk
