// The vector exp and sigmoid of the simd and lanes kernels (common/vec/exp_vectors.hpp): lane for
// lane the same bits as the scalar vexp of common/vexp.hpp (whose error against std::exp
// tests/unit/test_vexp.cpp measures), so both kernels' sigmoids agree exactly for the same input;
// and within 2 ulp of std::exp themselves, at whatever vector width this build has.
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>

#include "../../common/vec/exp_vectors.hpp"
#include "../../common/vexp.hpp"
#include "catch.hpp"
#include "ulps.hpp"

using namespace lenet::simd;

TEST_CASE("simd vexp equals the scalar vexp lane for lane, within 2 ulp of std::exp", "[vexp]") {
  int64_t worst = 0, mismatches = 0;
  float worst_x = 0;
  const float step = 0.000731f;
  for (float x0 = -87.0f; x0 + step * kLanes <= 88.0f; x0 += step * kLanes) {
    vfloat x;
    for (int l = 0; l < kLanes; ++l)
      x[l] = x0 + step * static_cast<float>(l);
    const vfloat e = vexp(x);
    const vfloat s = sigmoid(x);
    for (int l = 0; l < kLanes; ++l) {
      if (e[l] != lenet::vexp(x[l]) || s[l] != lenet::sigmoid(x[l])) ++mismatches;
      const int64_t ulps = ulps_between(e[l], std::exp(x[l]));
      if (ulps > worst) worst = ulps, worst_x = x[l];
    }
  }
  std::printf("simd vexp (%d lanes): max error %lld ulp (at x = %g), %lld lanes differ from vexp\n",
              kLanes, static_cast<long long>(worst), worst_x, static_cast<long long>(mismatches));
  CHECK(mismatches == 0);
  CHECK(worst <= 2);
}

TEST_CASE("simd sigmoid saturates cleanly beyond the clamps", "[vexp]") {
  const vfloat big = splat(200.0f);
  const vfloat lo = sigmoid(-big), hi = sigmoid(big), e = vexp(splat(1000.0f));
  for (int l = 0; l < kLanes; ++l) {
    CHECK(lo[l] < 1e-37f);
    CHECK(hi[l] == 1.0f);
    CHECK(std::isfinite(e[l]));
  }
}

TEST_CASE("simd vexp and sigmoid pass a NaN through, as the scalar ones do", "[vexp]") {
  // A diverged run is stopped by its NaN loss: a clamp that turned NaN into 88 would hide it.
  const vfloat nan = splat(std::nanf(""));
  const vfloat e = vexp(nan), s = sigmoid(nan);
  for (int l = 0; l < kLanes; ++l) {
    CHECK(std::isnan(e[l]));
    CHECK(std::isnan(s[l]));
    CHECK(std::isnan(lenet::sigmoid(nan[l])));
  }
}

TEST_CASE("simd sigmoid equals the scalar sigmoid for every float", "[vexp][exhaustive]") {
  // All 2^32 inputs, a block of 2^16 at a time: the same bits for every float but a NaN, and
  // a NaN wherever the scalar one gives a NaN (common/vec/exp_vectors.hpp folds the sigmoid's
  // negation into the exp's constants; this is what says that changed no bit).
  static float z[1 << 16], got[1 << 16], want[1 << 16];
  int64_t differ = 0, nans_differ = 0;
  for (uint32_t block = 0; block < (1u << 16); ++block) {
    for (uint32_t k = 0; k < (1u << 16); ++k)
      z[k] = std::bit_cast<float>(block << 16 | k);
    sigmoids(z, got, 1 << 16);
    for (uint32_t k = 0; k < (1u << 16); ++k)  // vectorised by GCC, as in ref's layers
      want[k] = lenet::sigmoid(z[k]);
    for (uint32_t k = 0; k < (1u << 16); ++k) {
      if (std::isnan(z[k]))
        nans_differ += std::isnan(want[k]) != std::isnan(got[k]);
      else
        differ += std::bit_cast<uint32_t>(want[k]) != std::bit_cast<uint32_t>(got[k]);
    }
  }
  std::printf("simd sigmoid (%d lanes), every float: %lld differ from the scalar sigmoid\n", kLanes,
              static_cast<long long>(differ + nans_differ));
  CHECK(differ == 0);
  CHECK(nans_differ == 0);
}
