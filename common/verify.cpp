#include "verify.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace lenet {

Verification verify_params(const std::vector<float>& got, const std::vector<float>& want,
                           bool require_identical) {
  Verification v;
  v.tensors = compare_params(got, want, kVerifyRtol, kVerifyAtolScale);
  v.require_identical = require_identical;
  return v;
}

bool Verification::identical() const {
  for (const TensorComparison& t : tensors)
    if (!t.c.identical()) return false;
  return true;
}

bool Verification::successful() const {
  if (require_identical) return identical();
  for (const TensorComparison& t : tensors)
    if (!t.c.passed()) return false;
  return true;
}

double Verification::max_abs() const {
  double m = 0;
  for (const TensorComparison& t : tensors) {
    if (t.c.non_finite > 0) return NAN;
    m = std::max(m, t.c.max_abs);
  }
  return m;
}

std::string Verification::summary() const {
  if (identical()) return " (bit-identical)";
  // The tensor furthest from its tolerance: the one to name, failed or not.
  auto badness = [](const Comparison& c) { return c.non_finite > 0 ? INFINITY : c.worst; };
  const TensorComparison* worst = &tensors.front();
  std::size_t differing = 0, count = 0;
  for (const TensorComparison& t : tensors) {
    differing += t.c.differing, count += t.c.count;
    if (badness(t.c) > badness(worst->c)) worst = &t;
  }
  char buf[256];
  if (require_identical) {
    std::snprintf(buf, sizeof buf,
                  " (not bit-identical as --identical requires: %zu of %zu values differ; %s %s)",
                  differing, count, worst->name.c_str(), describe(worst->c).c_str());
  } else {
    std::snprintf(buf, sizeof buf, " (%s, not bit-identical; worst tensor %s: %s)",
                  successful() ? "within tolerance" : "outside tolerance", worst->name.c_str(),
                  describe(worst->c).c_str());
  }
  return buf;
}

}  // namespace lenet
