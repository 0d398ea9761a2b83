// Device builds of the BLS12-381 fields (see cuda/arith.hpp).
#include "cuda/arith_kernels.cuh"

CUZK_INSTANTIATE_FIELD_OPS(cuzk::bls12_381::Fr);
CUZK_INSTANTIATE_FIELD_OPS(cuzk::bls12_381::Fq);
CUZK_INSTANTIATE_FIELD_OPS(cuzk::bls12_381::Fq2);
