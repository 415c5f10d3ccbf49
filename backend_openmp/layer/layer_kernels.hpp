// The layer strategy's kernels: the `ref` tier's loops (common/ref/) with OpenMP work-sharing
// inside each layer. Every output element and every gradient element is computed by the same
// sequence of float operations as in ref, only on another thread, so the results are ref's bits
// (`diff common/ref/c1.cpp backend_openmp/layer/c1.cpp` shows the parallel part). Where ref sums
// across the loop that is shared out (the S1 and F weight gradients), the sum gets its own loop,
// parallel over the elements being summed, each summed in ref's order.
#pragma once

#include "../../common/tier.hpp"

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
