// Device builds of the bls12_381 Fq6 and Fq12 towers: add, sub and mul (see cuda/arith.hpp).
#include "cuda/arith_kernels.cuh"

CUZK_INSTANTIATE_FIELD_OPS(cuzk::bls12_381::Fq6);
CUZK_INSTANTIATE_FIELD_OPS(cuzk::bls12_381::Fq12);
