// exp and the sigmoid on whole vectors: the algorithm and constants of common/vexp.hpp, written
// once more for vfloat, so each lane gets exactly what lenet::vexp gives for that float
// (tests/test_simd_exp.cpp checks both that and the error against std::exp).
//   exp(x) = 2^n * exp(r),  n = round(x / ln2),  r = x - n*ln2,  exp(r) by a degree-7 polynomial.
#pragma once

#include <bit>

#include "minmax.hpp"
#include "vec.hpp"

namespace lenet::simd {

inline vfloat vexp(vfloat x) {
  // Clamp so that 2^n stays a normal float: the same result as vexp's ternaries, NaN included
  // (the bound comes first: min(a, b) gives b when either is NaN, so a NaN x passes through and
  // a diverged run is caught by its NaN loss, as with `ref`).
  x = max(splat(-87.0f), min(splat(88.0f), x));
  // n = round(x / ln2) by the 1.5*2^23 trick: adding it leaves n in the low mantissa bits.
  const float shifter = 12582912.0f;
  const vfloat t = x * 1.44269504088896341f + shifter;
  const vfloat n = t - shifter;
  vfloat r = x - n * 0.693145751953125f;  // Cody-Waite: ln2 in two parts
  r = r - n * 1.42860682030941723212e-6f;
  vfloat p = splat(1.0f / 5040);
  p = p * r + 1.0f / 720;
  p = p * r + 1.0f / 120;
  p = p * r + 1.0f / 24;
  p = p * r + 1.0f / 6;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  // 2^n: add n to the exponent field.
  const vint bits = std::bit_cast<vint>(t) - std::bit_cast<int32_t>(shifter);
  return std::bit_cast<vfloat>(std::bit_cast<vint>(p) + (bits << 23));
}

inline vfloat sigmoid(vfloat z) {
  return 1.0f / (1.0f + vexp(-z));
}

}  // namespace lenet::simd
