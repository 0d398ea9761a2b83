// Device builds of the bls12_381 G2 point formulas, Jacobian and XYZZ (see cuda/arith.hpp).
#include "cuda/arith_kernels.cuh"
#include "ec/points.hpp"

CUZK_INSTANTIATE_POINT_OPS(cuzk::bls12_381::G2Jacobian);
CUZK_INSTANTIATE_POINT_OPS(cuzk::bls12_381::G2Xyzz);
