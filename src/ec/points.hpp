// Everything about curve points in one include, and the per-curve point aliases.
#pragma once

#include "ec/curves.hpp"
#include "ec/jacobian.hpp"
#include "ec/xyzz.hpp"

namespace cuzk::bn254 {
using G1Jacobian = ec::Jacobian<G1Config>;
using G2Jacobian = ec::Jacobian<G2Config>;
using G1Xyzz = ec::Xyzz<G1Config>;
using G2Xyzz = ec::Xyzz<G2Config>;
}  // namespace cuzk::bn254

namespace cuzk::bls12_381 {
using G1Jacobian = ec::Jacobian<G1Config>;
using G2Jacobian = ec::Jacobian<G2Config>;
using G1Xyzz = ec::Xyzz<G1Config>;
using G2Xyzz = ec::Xyzz<G2Config>;
}  // namespace cuzk::bls12_381
