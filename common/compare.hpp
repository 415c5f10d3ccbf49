// Comparing two float vectors, element by element, with a tolerance |got - want| <= atol +
// rtol * |want|. One definition for --verify (driver.cpp) and the tests (tests/unit/vectors.cpp).
// NaN or infinity on either side is a failure, never "close": std::max(x, NaN) is x, so a
// comparison built from max() alone would not see it.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace lenet {

struct Comparison {
  std::size_t count = 0;
  std::size_t differing = 0;   // values whose bits differ
  std::size_t non_finite = 0;  // NaN or infinity in got or want
  double max_abs = 0;          // largest |got - want| over the finite pairs
  double max_rel = 0;          // largest |got - want| / |want| over the finite pairs, want != 0
  double worst = 0;            // largest |got - want| / (atol + rtol |want|): <= 1 passes

  bool passed() const { return count > 0 && non_finite == 0 && worst <= 1.0; }
  bool identical() const { return count > 0 && non_finite == 0 && differing == 0; }
};

Comparison compare(const float* got, const float* want, std::size_t n, double atol, double rtol);

// One parameter tensor's comparison (W1, b1, W2, b2, W3, b3 of docs/network.md), each with its
// own absolute floor: atol = atol_scale * max|want| over that tensor, so that a small tensor
// such as b2 is judged on its own scale, not on W3's.
struct TensorComparison {
  std::string name;
  Comparison c;
};
std::vector<TensorComparison> compare_params(const std::vector<float>& got,
                                             const std::vector<float>& want, double rtol,
                                             double atol_scale);

// "max_abs 3.1e-08 max_rel 2.0e-06 (12% of tol)", or what went wrong (NaN, count).
std::string describe(const Comparison& c);

}  // namespace lenet
