// The vector exp and sigmoid of the simd and lanes kernels (common/vec/exp_vectors.hpp): lane for
// lane the same bits as the scalar vexp of common/vexp.hpp (whose error against std::exp
// tests/unit/test_vexp.cpp measures), so both kernels' sigmoids agree exactly for the same input;
// and within 2 ulp of std::exp themselves, at whatever vector width this build has.
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
