// The batched-affine level-1 accumulation over bn254 G1 (see cuda/msm/msm_affine.hpp).
#include "cuda/msm/msm_affine_kernels.cuh"

CUZK_INSTANTIATE_MSM_AFFINE(cuzk::bn254::G1Config);
