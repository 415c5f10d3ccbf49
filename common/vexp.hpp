// exp(x) for float, written so that GCC vectorises loops that call it (std::exp stops the
// vectoriser without -ffast-math, and a scalar exp made training ~3.5x slower).
//   exp(x) = 2^n * exp(r),  n = round(x / ln2),  r = x - n*ln2 in [-ln2/2, ln2/2],
// exp(r) by a degree-7 Taylor polynomial (truncation error < 1e-8 relative; the measured
// error against std::exp is in tests/unit/test_vexp.cpp).
#pragma once

#include <bit>
#include <cstdint>

namespace lenet {

inline float vexp(float x) {
  // Clamp so that 2^n stays a normal float (ternaries: std::min/max block vectorisation).
  x = x > 88.0f ? 88.0f : x;
  x = x < -87.0f ? -87.0f : x;
  // Round x/ln2 to the nearest integer with the 1.5*2^23 trick (floorf would not vectorise).
  const float shifter = 12582912.0f;
  const float t = x * 1.44269504088896341f + shifter;
  const float n = t - shifter;
  // Cody-Waite: ln2 split in two so that r is exact enough.
  float r = x - n * 0.693145751953125f;
  r = r - n * 1.42860682030941723212e-6f;
  float p = 1.0f / 5040;
  p = p * r + 1.0f / 720;
  p = p * r + 1.0f / 120;
  p = p * r + 1.0f / 24;
  p = p * r + 1.0f / 6;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  // 2^n: add n to the exponent field.
  const int32_t bits = std::bit_cast<int32_t>(t) - std::bit_cast<int32_t>(shifter);
  return std::bit_cast<float>(std::bit_cast<int32_t>(p) + (bits << 23));
}

inline float sigmoid(float z) {
  return 1.0f / (1.0f + vexp(-z));
}

}  // namespace lenet
