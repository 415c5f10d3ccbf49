// The `simd` kernels: the same six layer functions as `ref` (common/ref/), written with explicit
// vectors (vec.hpp) whose width the build target chooses. One layer per file, like ref:
//   input.cpp  pixels -> x, and the five shifted copies of x that C1 reads
//   c1.cpp     convolution (93% of the work), s1.cpp pooling, f.cpp fully connected + softmax
// docs/performance.md tells what each layout and loop order is for, with measurements.
//
// Nothing is carried from one sample to the next: every buffer below is overwritten before it
// is read (pads are zero from construction and never written, but for p_'s: written, never read),
// so a sample's result does not depend on which samples this object ran before it.
#pragma once

#include "../per_sample.hpp"
#include "../vec/vec.hpp"

namespace lenet {

class SimdKernels final : public SampleKernels {
 public:
  const char* name() const override { return "simd"; }
  void load_input(const uint8_t* pixels) override;
  void c1_forward(const float* params) override;
  void s1_forward(const float* params) override;
  float f_forward(const float* params, int label) override;
  int predicted() const override;
  void f_backward(const float* params, float* grad) override;
  void s1_backward(const float* params, float* grad) override;
  void c1_backward(const float* params, float* grad) override;
  void activations(Activations& out) const override;

 private:
  static constexpr int kRunLength = kImageSide * kC1Side;      // X_v: 28 rows of 24
  static constexpr int kS1Rows = kC1Maps * kS1Side * kC1Side;  // 864: S1's row sums

  // Spec layouts ([m][i][j] row-major), padded to whole vectors where vector loops overrun.
  alignas(64) float x_[kImageSize] = {};
  // xs_[v][24 r + j] = x[r][j + v]: C1's five shifted copies of the image (input.cpp), so that
  // tap (u, v) of a whole 24x24 output map is one contiguous run, xs_[v] + 24 u.
  alignas(64) float xs_[kC1Kernel][kRunLength] = {};
  alignas(64) float z1_[kC1Size] = {};
  alignas(64) float a1_[kC1Size] = {};
  alignas(64) float d1_[kC1Size] = {};                          // dloss/dz1, from s1_backward
  alignas(64) float rows_[simd::padded(kS1Rows / 4) * 4] = {};  // S1 forward scratch
  alignas(64) float z2_[simd::padded(kS1Size)] = {};
  alignas(64) float a2_[simd::padded(kS1Size)] = {};
  alignas(64) float d2_[kS1Size + simd::kLanes] = {};  // dloss/dz2, from f_backward
  alignas(64) float z3_[simd::padded(kClasses)] = {};
  alignas(64) float p_[simd::padded(kClasses)] = {};
  float loss_ = 0;
  int label_ = 0;
};

}  // namespace lenet
