// The `ref` kernels: one sample forward and backward in plain loops, one layer per file
// (c1.cpp, s1.cpp, f.cpp, declared in layers.hpp); a chunk runs through them one sample at a time
// (common/per_sample.hpp). Read it beside docs/network.md: the comments quote its formulas.
#pragma once

#include "../per_sample.hpp"

namespace lenet {

class RefKernels final : public SampleKernels {
 public:
  const char* name() const override { return "ref"; }
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
  Activations act_;
  int label_ = 0;
  float d2_[kS1Size];  // dloss/dz2, from f_backward
  float d1_[kC1Size];  // dloss/dz1, from s1_backward
};

}  // namespace lenet
