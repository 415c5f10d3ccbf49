// The layer strategy's kernels: ref's loops (common/ref/layers.hpp, compiled once there), each
// layer's independent outputs shared among the threads of one parallel region. Every output and
// gradient element is computed by the same machine code as in ref, only on another thread, so
// the results are ref's bits. Where a layer sums over the outputs that are shared out (the S1
// weight gradient), one thread computes the whole sum while the others compute the deltas.
#pragma once

#include "../common/tier.hpp"

namespace lenet {

class LayerKernels final : public SampleKernels {
 public:
  explicit LayerKernels(int threads) : threads_(threads) {}
  const char* tier() const override { return "ref"; }  // ref's arithmetic, ref's bits
  void load_input(const uint8_t* pixels) override;
  void c1_forward(const float* params) override;
  void s1_forward(const float* params) override;
  float f_forward(const float* params, int label) override;
  int predicted() const override;
  void f_backward(const float* params, float* grad) override;
  void s1_backward(const float* params, float* grad) override;
  void c1_backward(const float* params, float* grad) override;
  void activations(Activations& out) const override { out = act_; }

 private:
  int threads_;  // the team size of every parallel region
  Activations act_;
  int label_ = 0;
  float d2_[kS1Size];  // dloss/dz2, from f_backward
  float d1_[kC1Size];  // dloss/dz1, from s1_backward
};

}  // namespace lenet
