// Which MSM sections of a key get precomputed bases (shifted copies of every base, built
// once when a GPU backend prepares the key: cuda/msm/msm.hpp PrecomputedBases). The spec
// is "auto" (every section, in order of the time it saves), "off" (none), or a comma-
// separated list of section names tried in the order given. The backend still keeps only
// the tables that fit its byte cap and budget; this is the plain-text side shared by the
// daemon's TOML and the command line, with no CUDA in it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/status.hpp"

namespace cuzk::groth16 {

enum class MsmSection { kH, kA, kB1, kB2, kL };

// "h", "a", "b1", "b2", "l".
const char* msm_section_name(MsmSection s);

// The sections of "auto": H (uniform scalars: the largest gain), B2 (a G2 MSM), then A,
// B1 and L (witness scalars, mostly 0/1 in many circuits: the least gain).
std::vector<MsmSection> precompute_auto_order();

// The sections `spec` names, in order; an error naming `what` (e.g. "--precompute") and
// the bad item otherwise.
Result<std::vector<MsmSection>> parse_precompute_spec(std::string_view spec, std::string_view what);

}  // namespace cuzk::groth16
