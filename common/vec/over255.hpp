// p / 255, rounded as the IEEE division rounds it (the spec's x = pixel / 255), for the simd and
// lanes kernels' inputs. Where the target has FMA: q = p * (1/255), then one correction step
// with FMAs, q + (p - 255 q) * (1/255), which gives the rounded quotient for every byte p
// (tests/unit/test_kernels.cpp checks all 256; q alone is off for 126 of them). The divider is
// slower: on AMD Zen 4 simd's input step took 258 -> 225 ns (AVX-512), 199 -> 183 ns (AVX2).
// Without FMA the residual would be rounded, so the division stays. GCC vectorises a loop of it.
#pragma once

#include <cmath>
#include <cstdint>

namespace lenet::simd {

inline float over255(uint8_t pixel) {
  const float p = static_cast<float>(pixel);
#if defined(__FMA__)
  const float q = p * (1.0f / 255.0f);
  return std::fma(std::fma(-q, 255.0f, p), 1.0f / 255.0f, q);
#else
  return p / 255.0f;
#endif
}

}  // namespace lenet::simd
