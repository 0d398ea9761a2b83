// Device builds of the BN254 fields (see cuda/arith.hpp).
#include "cuda/arith_kernels.cuh"

CUZK_INSTANTIATE_FIELD_OPS(cuzk::bn254::Fr);
CUZK_INSTANTIATE_FIELD_OPS(cuzk::bn254::Fq);
CUZK_INSTANTIATE_FIELD_OPS(cuzk::bn254::Fq2);
