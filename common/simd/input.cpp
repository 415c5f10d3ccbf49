// The input: x = pixel / 255 (an IEEE float32 division, as the spec says), then the five
// shifted copies of x that C1 reads:
//   xs[v][r][j] = x[r][j + v]       r in 0..27, j in 0..23, v in 0..4
// With them, tap (u, v) of a whole 24x24 output map is the contiguous run xs[v] + 24 u, so C1
// needs no edge handling, whatever the vector width.
#include <algorithm>
#include <numeric>

#include "../vec/over255.hpp"
#include "simd_kernels.hpp"

namespace lenet {

using namespace simd;

namespace {

// The copies are written kPeriodRows rows at a time, a whole number of vectors (2 rows with 16
// lanes, 1 with 8 or 4), so that each vector's place in its rows repeats from block to block.
constexpr int kPeriodRows = std::lcm(kC1Side, kLanes) / kC1Side;
static_assert(kImageSide % kPeriodRows == 0);

}  // namespace

void SimdKernels::load_input(const uint8_t* pixels) {
  // GCC vectorises this loop itself (zero-extend bytes, convert, scale) at every width; a
  // version spelled with vector shuffles was no faster with AVX-512 and 13x slower with SSE2.
  for (int i = 0; i < kImageSize; ++i)
    x_[i] = over255(pixels[i]);
  // Each copy xs[v] is one run of 28 x 24 floats, written as whole vectors. With 16 lanes a
  // row of 24 is not whole vectors: one vector in three starts at column 16 of row r and runs
  // into row r + 1, whose first columns lie 4 floats further on in x (rows of 28, not 24), so
  // its later lanes come from a second load. That is 42 stores per copy instead of 56 with two
  // overlapping vectors per row.
  for (int v = 0; v < kC1Kernel; ++v) {
    for (int r0 = 0; r0 < kImageSide; r0 += kPeriodRows) {
      const float* rows = x_ + r0 * kImageSide + v;
      float* to = xs_[v] + r0 * kC1Side;
      for (int q = 0; q < kPeriodRows * kC1Side; q += kLanes) {  // unrolled: r, c are constants
        const int r = q / kC1Side, c = q % kC1Side;
        const float* from = rows + r * kImageSide + c;
        vfloat lanes = load(from);
        if (c + kLanes > kC1Side) {
          const vint next_row = lane_pattern([c](int l) { return c + l; }) >= kC1Side;
          lanes = next_row ? load(from + kImageSide - kC1Side) : lanes;
        }
        store(to + q, lanes);
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
