// Human names of the sections of each binfile type, for error messages.
#include "formats/r1cs.hpp"
#include "formats/wtns.hpp"
#include "formats/zkey.hpp"

namespace cuzk::formats {

const char* zkey_section::name(uint32_t id) {
  switch (id) {
    case kHeader: return "header";
    case kGrothHeader: return "Groth header";
    case kIc: return "IC points";
    case kCoefficients: return "coefficients";
    case kA: return "A points";
    case kB1: return "B1 points";
    case kB2: return "B2 points";
    case kC: return "C points";
    case kH: return "H points";
    case kMpc: return "MPC params";
    default: return nullptr;
  }
}

const char* wtns_section::name(uint32_t id) {
  switch (id) {
    case kHeader: return "header";
    case kValues: return "witness values";
    default: return nullptr;
  }
}

const char* r1cs_section::name(uint32_t id) {
  switch (id) {
    case kHeader: return "header";
    case kConstraints: return "constraints";
    case kWireToLabel: return "wire-to-label map";
    case kCustomGatesList: return "custom gates list";
    case kCustomGatesUses: return "custom gates uses";
    default: return nullptr;
  }
}

}  // namespace cuzk::formats
