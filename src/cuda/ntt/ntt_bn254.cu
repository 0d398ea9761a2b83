// The device NTT and H steps over BN254's scalar field (see cuda/ntt/ntt.hpp).
#include "cuda/ntt/ntt_impl.cuh"
#include "ff/fields.hpp"

CUZK_INSTANTIATE_NTT(cuzk::bn254::Fr);
