// The input: x = pixel / 255 (an IEEE float32 division, as the spec says), then the five
// shifted copies of x that C1 reads:
//   xs[v][r][j] = x[r][j + v]       r in 0..27, j in 0..23, v in 0..4
// With them, tap (u, v) of a whole 24x24 output map is the contiguous run xs[v] + 24 u, so C1
// needs no edge handling, whatever the vector width.
#include <algorithm>
#include <cmath>

#include "simd_kernels.hpp"

namespace lenet {

using namespace simd;

namespace {

// p / 255, rounded as the IEEE division rounds it. Where the target has FMA: q = p * (1/255),
// then one correction step with FMAs, q + (p - 255 q) * (1/255), which gives the rounded quotient
// for every byte p (tests/test_tiers.cpp checks all 256; q alone is off for 126 of them). The
// divider is slower: on AMD Zen 4 the input step took 258 -> 225 ns (AVX-512), 199 -> 183 ns
// (AVX2). Without FMA the residual would be rounded, so the division stays.
inline float over255(uint8_t pixel) {
  const float p = static_cast<float>(pixel);
#if defined(__FMA__)
  const float q = p * (1.0f / 255.0f);
  return std::fma(std::fma(-q, 255.0f, p), 1.0f / 255.0f, q);
#else
  return p / 255.0f;
#endif
}

}  // namespace

void SimdKernels::load_input(const uint8_t* pixels) {
  // GCC vectorises this loop itself (zero-extend bytes, convert, scale) at every width; a
  // version spelled with vector shuffles was no faster with AVX-512 and 13x slower with SSE2.
  for (int i = 0; i < kImageSize; ++i)
    x_[i] = over255(pixels[i]);
  for (int v = 0; v < kC1Kernel; ++v) {
    for (int r = 0; r < kImageSide; ++r) {
      for (int k = 0; k < vectors_in_row(kC1Side); ++k) {
        const int j = vector_start(k, kC1Side);
        store(xs_[v] + r * kC1Side + j, load(x_ + r * kImageSide + v + j));
      }
    }
  }
}

void SimdKernels::activations(Activations& out) const {
  std::copy_n(x_, kImageSize, out.x);
  std::copy_n(z1_, kC1Size, out.z1);
  std::copy_n(a1_, kC1Size, out.a1);
  std::copy_n(z2_, kS1Size, out.z2);
  std::copy_n(a2_, kS1Size, out.a2);
  std::copy_n(z3_, kClasses, out.z3);
  std::copy_n(p_, kClasses, out.p);
  out.loss = loss_;
}

}  // namespace lenet
