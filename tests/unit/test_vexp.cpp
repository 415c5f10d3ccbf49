// The vectorisable exp of common/vexp.hpp against std::exp, in ulps, over the range the
// network's sigmoids and softmax use (and the clamped ends).
#include <cmath>
#include <cstdint>
#include <cstdio>

#include "../../common/vexp.hpp"
#include "catch.hpp"
#include "ulps.hpp"

TEST_CASE("vexp is within 2 ulp of std::exp on [-87, 88]", "[vexp]") {
  int64_t worst = 0;
  float worst_x = 0;
  for (float x = -87.0f; x <= 88.0f; x += 0.000731f) {
    const int64_t ulps = ulps_between(lenet::vexp(x), std::exp(x));
    if (ulps > worst) worst = ulps, worst_x = x;
  }
  std::printf("vexp: max error %lld ulp (at x = %g) over [-87, 88]\n",
              static_cast<long long>(worst), worst_x);
  CHECK(worst <= 2);
  // Beyond the clamps the sigmoid still saturates cleanly to 0 and 1.
  CHECK(lenet::sigmoid(-200.0f) < 1e-37f);
  CHECK(lenet::sigmoid(200.0f) == 1.0f);
  CHECK(std::isfinite(lenet::vexp(1000.0f)));
}
