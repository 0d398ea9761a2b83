#include "groth16/section_placement.hpp"

#include <algorithm>
#include <bit>
#include <cctype>
#include <tuple>
#include <vector>

namespace cuzk::groth16 {

std::string describe(SectionSet set) {
  if (set.empty()) return "none";
  if (set.full()) return "all";
  std::vector<std::string> names;  // msm_section_name's, in capitals: "B2", as the key's sections are named
  for (MsmSection s : {MsmSection::kA, MsmSection::kB1, MsmSection::kB2, MsmSection::kL, MsmSection::kH}) {
    if (!set.has(s)) continue;
    std::string name = msm_section_name(s);
    for (char& c : name) c = char(std::toupper(static_cast<unsigned char>(c)));
    names.push_back(std::move(name));
  }
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    out += i == 0 ? "" : (i + 1 == names.size() ? " and " : ", ");
    out += names[i];
  }
  return out;
}

std::optional<SectionSet> choose_streamed(const std::array<size_t, kMsmSections>& bytes,
                                          const std::function<bool(SectionSet)>& fits) {
  struct Candidate {
    size_t bytes;
    int count;
    bool h;
    unsigned bits;
  };
  std::vector<Candidate> order;
  for (unsigned bits = 0; bits <= SectionSet::all().bits; ++bits) {
    const SectionSet set{bits};
    size_t total = 0;
    for (size_t i = 0; i < kMsmSections; ++i) total += set.has(MsmSection(i)) ? bytes[i] : 0;
    order.push_back({total, std::popcount(bits), set.has(MsmSection::kH), bits});
  }
  std::sort(order.begin(), order.end(), [](const Candidate& a, const Candidate& b) {
    return std::tie(a.bytes, a.count, a.h, a.bits) < std::tie(b.bytes, b.count, b.h, b.bits);
  });
  for (const Candidate& c : order) {
    if (fits(SectionSet{c.bits})) return SectionSet{c.bits};
  }
  return std::nullopt;
}

}  // namespace cuzk::groth16
