// The comparisons every check rests on (common/compare.hpp, tests/unit/vectors.cpp): NaN and
// infinity are failures, bits are counted, and a parameter vector is judged tensor by tensor.
#include <cmath>
#include <limits>

#include "../../common/compare.hpp"
#include "../../common/network.hpp"
#include "../../common/rng.hpp"
#include "../../common/verify.hpp"
#include "catch.hpp"
#include "vectors.hpp"

using namespace lenet;
using namespace lenet::test;

TEST_CASE("compare: NaN or infinity is never close", "[compare]") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  CHECK_FALSE(close_enough("NaN got", {1, nan, 3}, {1, 2, 3}, 1e-5));
  CHECK_FALSE(close_enough("NaN want", {1, 2, 3}, {1, nan, 3}, 1e-5));
  CHECK_FALSE(close_enough("NaN both", {1, nan, 3}, {1, nan, 3}, 1e-5));
  CHECK_FALSE(close_enough("infinity", {1, inf, 3}, {1, 2, 3}, 1e-5));
  CHECK(close_enough("equal", {1, 2, 3}, {1, 2, 3}, 1e-5));
  const std::vector<float> a{1, nan}, b{1, 2};
  const Comparison c = compare(a.data(), b.data(), 2, 1.0, 1.0);
  CHECK(c.non_finite == 1);
  CHECK_FALSE(c.passed());
  CHECK_FALSE(c.identical());
}

TEST_CASE("compare: counts changed bits, passes within atol + rtol |want|", "[compare]") {
  const std::vector<float> want{1.0f, -2.0f, 0.0f};
  std::vector<float> got = want;
  got[1] = std::nextafter(got[1], 0.0f);  // one ulp
  const Comparison c = compare(got.data(), want.data(), 3, 0.0, 1e-6);
  CHECK(c.differing == 1);
  CHECK(c.passed());
  CHECK_FALSE(c.identical());
  const Comparison strict = compare(got.data(), want.data(), 3, 0.0, 1e-9);
  CHECK_FALSE(strict.passed());
}

TEST_CASE("compare: each tensor on its own scale", "[compare]") {
  const std::vector<float> want = init_params(1);
  std::vector<float> got = want;
  // A change of 1e-5 to b3[0], smaller than 1e-4 of the largest parameter (a W2 value)...
  got[kB3] += 1e-5f;
  float max_param = 0;
  for (float w : want)
    max_param = std::max(max_param, std::fabs(w));
  REQUIRE(std::fabs(got[kB3] - want[kB3]) < 1e-4 * max_param);
  // ...is caught by the per-tensor check, which names b3 alone.
  CHECK_FALSE(params_close("params", got, want, 1e-5));
  const Verification v = verify_params(got, want, false);
  CHECK_FALSE(v.successful());
  for (const TensorComparison& t : v.tensors)
    CHECK(t.c.passed() == (t.name != "b3"));
  CHECK(v.summary().find("b3") != std::string::npos);
}

TEST_CASE("verify: --identical asks for every bit", "[compare]") {
  const std::vector<float> want = init_params(1);
  std::vector<float> got = want;
  CHECK(verify_params(got, want, true).successful());
  got[kW3 + 7] = std::nextafter(got[kW3 + 7], 1.0f);
  CHECK(verify_params(got, want, false).successful());
  CHECK_FALSE(verify_params(got, want, true).successful());
  got[kW1] = std::numeric_limits<float>::quiet_NaN();
  CHECK_FALSE(verify_params(got, want, false).successful());
  CHECK(std::isnan(verify_params(got, want, false).max_abs()));
}
