// Device builds of the bls12_381 G1 point formulas, Jacobian and XYZZ (see cuda/arith.hpp).
#include "cuda/arith_kernels.cuh"
#include "ec/points.hpp"

CUZK_INSTANTIATE_POINT_OPS(cuzk::bls12_381::G1Jacobian);
CUZK_INSTANTIATE_POINT_OPS(cuzk::bls12_381::G1Xyzz);
