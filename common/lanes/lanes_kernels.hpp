// The `lanes` kernels: the samples of a chunk side by side, one per vector lane (layers.hpp),
// one layer per file like ref and simd:
//   input.cpp  pixels -> x, one image per lane
//   c1.cpp     convolution (93% of the work), s1.cpp pooling, f.cpp fully connected + softmax
//   sum.cpp    the chunk's gradient sum in docs/network.md's order
// The whole chunk is one group (kernels.hpp): kChunk / kLanes vectors of samples, each layer over
// all of them before the next layer. docs/performance.md says what bounds it.
#pragma once

#include <memory>

#include "../kernels.hpp"
#include "layers.hpp"

namespace lenet {

class LanesKernels final : public Kernels {
 public:
  LanesKernels();
  const char* name() const override { return "lanes"; }
  int group() const override { return kChunk; }
  void set_chunk(const uint8_t* const* images, const int* labels, int n) override;
  void load_input(int first) override;
  void c1_forward(const float* params, int first) override;
  void s1_forward(const float* params, int first) override;
  void f_forward(const float* params, int first) override;
  void f_backward(const float* params, int first) override;
  void s1_backward(const float* params, int first) override;
  void c1_backward(const float* params, int first) override;
  void add_gradients(int first, float* chunk_sum) override;  // sum.cpp
  float loss(int s) const override;
  int predicted(int s) const override;
  void activations(int s, Activations& out) const override;

 private:
  static constexpr int kGroups = kChunk / lanes::kLanes;
  static_assert(kChunk % lanes::kLanes == 0, "a chunk is whole vectors of samples");

  // Sample s of the chunk is lane s % kLanes of groups_[s / kLanes]; the lanes past n compute
  // a blank image and are left out of every sum.
  std::unique_ptr<lanes::Lanes[]> groups_;
  const uint8_t* images_[kChunk] = {};
  int n_ = 0;
  int used_ = 0;  // the groups that hold samples
};

}  // namespace lenet
