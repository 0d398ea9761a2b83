// The device MSM over bn254 G1 (see cuda/msm/msm.hpp).
#include "cuda/msm/msm_kernels.cuh"

CUZK_INSTANTIATE_MSM(cuzk::bn254::G1Config);
