// The device NTT and H steps over BLS12-381's scalar field (see cuda/ntt/ntt.hpp).
#include "cuda/ntt/ntt_impl.cuh"
#include "ff/fields.hpp"

CUZK_INSTANTIATE_NTT(cuzk::bls12_381::Fr);
