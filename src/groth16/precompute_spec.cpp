#include "groth16/precompute_spec.hpp"

#include <algorithm>

namespace cuzk::groth16 {

const char* msm_section_name(MsmSection s) {
  switch (s) {
    case MsmSection::kH:
      return "h";
    case MsmSection::kA:
      return "a";
    case MsmSection::kB1:
      return "b1";
    case MsmSection::kB2:
      return "b2";
    case MsmSection::kL:
      return "l";
  }
  return "?";
}

std::vector<MsmSection> precompute_auto_order() {
  return {MsmSection::kH, MsmSection::kB2, MsmSection::kA, MsmSection::kB1, MsmSection::kL};
}

Result<std::vector<MsmSection>> parse_precompute_spec(std::string_view spec, std::string_view what) {
  if (spec == "auto") return precompute_auto_order();
  if (spec == "off") return std::vector<MsmSection>{};
  std::vector<MsmSection> out;
  size_t at = 0;
  while (at <= spec.size()) {
    const size_t comma = std::min(spec.find(',', at), spec.size());
    const std::string_view item = spec.substr(at, comma - at);
    bool known = false;
    for (MsmSection s : precompute_auto_order()) {
      if (item != msm_section_name(s)) continue;
      known = true;
      if (std::find(out.begin(), out.end(), s) != out.end()) {
        return invalid_argument(std::string(what) + " \"" + std::string(spec) + "\": section " + std::string(item) +
                                " named twice");
      }
      out.push_back(s);
    }
    if (!known) {
      return invalid_argument(std::string(what) + " \"" + std::string(spec) + "\": \"" + std::string(item) +
                              "\" is not auto, off or a comma-separated list of the sections h, b2, a, b1, l");
    }
    at = comma + 1;
  }
  return out;
}

}  // namespace cuzk::groth16
