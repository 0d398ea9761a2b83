// The device MSM over bls12_381 G1 (see cuda/msm/msm.hpp).
#include "cuda/msm/msm_kernels.cuh"

CUZK_INSTANTIATE_MSM(cuzk::bls12_381::G1Config);
