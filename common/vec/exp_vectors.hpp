// exp and the sigmoid on whole vectors: the algorithm and constants of common/vexp.hpp, written
// once more for vfloat, so each lane gets exactly what lenet::vexp gives for that float
// (tests/unit/test_simd_exp.cpp checks both that and the error against std::exp).
//   exp(x) = 2^n * exp(r),  n = round(x / ln2),  r = x - n*ln2,  exp(r) by a degree-7 polynomial.
#pragma once

#include <bit>

#include "minmax.hpp"
#include "vec.hpp"

namespace lenet::simd {

// N exps at once, each step done for all N before the next: one exp is a chain of about 20
// dependent instructions (some 60 cycles), and a loop of single exps keeps only a few chains in
// the core's scheduler, which then waits on latency; written step by step, the N chains sit side
// by side (AVX2 on AMD Zen 4: C1's 3,456 sigmoids in about 1,200 -> 1,030 ns).
// Each lane's operations are the same as with N = 1, so the results are too.
// S = -1 gives exp(-x): the sign goes into the clamp's bounds and the first two steps' constants
// (the sigmoid's negation, one instruction a vector, is gone). Negating is exact and rounding
// is symmetric, so every step rounds as it does for vexp(-x): the same bits for every float x
// but a NaN, and a NaN out for the NaNs that arithmetic makes; only the sign a NaN carries may
// differ. The test labelled exhaustive checks the sigmoid on all 2^32 floats at the build's
// vector width (tests/unit/test_simd_exp.cpp; run by hand with AVX2 and SSE2 too, 2026-11-28).
template <int N, int S = 1>
[[gnu::always_inline]] inline void vexp(vfloat (&x)[N]) {
  static_assert(S == 1 || S == -1);
  // Clamp S x to [-87, 88] so that 2^n stays a normal float: the same result as vexp's
  // ternaries, NaN included (the bound comes first: min(a, b) gives b when either is NaN, so a
  // NaN x passes through and a diverged run is caught by its NaN loss, as with `ref`).
  for (int i = 0; i < N; ++i) {
    x[i] = S > 0 ? max(splat(-87.0f), min(splat(88.0f), x[i]))
                 : min(splat(87.0f), max(splat(-88.0f), x[i]));
  }
  // n = round(S x / ln2) by the 1.5*2^23 trick: adding it leaves n in the low mantissa bits.
  const float shifter = 12582912.0f;
  vfloat t[N], r[N], p[N];
  for (int i = 0; i < N; ++i) {
    t[i] = x[i] * (S * 1.44269504088896341f) + shifter;
    const vfloat n = t[i] - shifter;
    r[i] = (S > 0 ? x[i] : -x[i]) - n * 0.693145751953125f;  // Cody-Waite: ln2 in two parts
    r[i] = r[i] - n * 1.42860682030941723212e-6f;
  }
  for (int i = 0; i < N; ++i)
    p[i] = splat(1.0f / 5040) * r[i] + 1.0f / 720;
  for (const float c : {1.0f / 120, 1.0f / 24, 1.0f / 6, 0.5f, 1.0f, 1.0f}) {
    for (int i = 0; i < N; ++i)
      p[i] = p[i] * r[i] + c;
  }
  // 2^n: add n to the exponent field. vexp adds (t - shifter) << 23, as integers; shifter's own
  // bits all leave the 32-bit word when shifted by 23 (0x4B400000 << 23 is 0 modulo 2^32), so
  // t << 23 is the same number, one subtraction fewer.
  for (int i = 0; i < N; ++i)
    x[i] = std::bit_cast<vfloat>(std::bit_cast<vint>(p[i]) + (std::bit_cast<vint>(t[i]) << 23));
}

inline vfloat vexp(vfloat x) {
  vfloat v[1] = {x};
  vexp(v);
  return v[0];
}

// z[i] = 1 / (1 + exp(-z[i])) for N vectors at once (see the N-vector vexp).
template <int N>
[[gnu::always_inline]] inline void sigmoid(vfloat (&z)[N]) {
  vexp<N, -1>(z);
  for (int i = 0; i < N; ++i)
    z[i] = 1.0f / (1.0f + z[i]);
}

inline vfloat sigmoid(vfloat z) {
  vfloat v[1] = {z};
  sigmoid(v);
  return v[0];
}

// a[i] = sigmoid(z[i]) for i < n, a whole number of vectors: 4 vectors at a time (more spilled
// registers with AVX2 and gained nothing with AVX-512), then any left one at a time.
inline void sigmoids(const float* z, float* a, int n) {
  constexpr int kGroup = 4;
  int i = 0;
  for (; i + kGroup * kLanes <= n; i += kGroup * kLanes) {
    vfloat v[kGroup];
    for (int k = 0; k < kGroup; ++k)
      v[k] = load(z + i + k * kLanes);
    sigmoid(v);
    for (int k = 0; k < kGroup; ++k)
      store(a + i + k * kLanes, v[k]);
  }
  for (; i < n; i += kLanes)
    store(a + i, sigmoid(load(z + i)));
}

}  // namespace lenet::simd
