// Device builds of the bn254 G1 point formulas, Jacobian and XYZZ (see cuda/arith.hpp).
#include "cuda/arith_kernels.cuh"
#include "ec/points.hpp"

CUZK_INSTANTIATE_POINT_OPS(cuzk::bn254::G1Jacobian);
CUZK_INSTANTIATE_POINT_OPS(cuzk::bn254::G1Xyzz);
