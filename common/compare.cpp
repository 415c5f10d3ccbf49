#include "compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "network.hpp"

namespace lenet {

Comparison compare(const float* got, const float* want, std::size_t n, double atol, double rtol) {
  Comparison c;
  c.count = n;
  for (std::size_t i = 0; i < n; ++i) {
    if (std::memcmp(&got[i], &want[i], sizeof(float)) != 0) ++c.differing;
    if (!std::isfinite(got[i]) || !std::isfinite(want[i])) {
      ++c.non_finite;
      continue;
    }
    const double diff = std::fabs(double(got[i]) - want[i]);
    const double tol = atol + rtol * std::fabs(double(want[i]));
    c.max_abs = std::max(c.max_abs, diff);
    if (want[i] != 0) c.max_rel = std::max(c.max_rel, diff / std::fabs(double(want[i])));
    c.worst = std::max(c.worst, tol > 0 ? diff / tol : (diff > 0 ? INFINITY : 0.0));
  }
  return c;
}

std::vector<TensorComparison> compare_params(const std::vector<float>& got,
                                             const std::vector<float>& want, double rtol,
                                             double atol_scale) {
  std::vector<TensorComparison> out;
  for (const ParamTensor& t : kParamTensors) {
    double scale = 0;
    for (int i = t.offset; i < t.offset + t.size; ++i) {
      if (std::isfinite(want[i])) scale = std::max(scale, std::fabs(double(want[i])));
    }
    out.push_back(
        {t.name, compare(&got[t.offset], &want[t.offset], t.size, atol_scale * scale, rtol)});
  }
  return out;
}

std::string describe(const Comparison& c) {
  char buf[160];
  if (c.non_finite > 0) {
    std::snprintf(buf, sizeof buf, "%zu of %zu values NaN or infinite", c.non_finite, c.count);
  } else {
    std::snprintf(buf, sizeof buf, "max_abs %.2e max_rel %.2e (%.0f%% of tol)", c.max_abs,
                  c.max_rel, 100 * c.worst);
  }
  return buf;
}

}  // namespace lenet
