// The `lanes` kernels: the samples of a chunk side by side, one per vector lane (layers.hpp),
// one layer per file like ref and simd:
//   input.cpp  pixels -> x, one image per lane
//   c1.cpp     convolution (93% of the work), s1.cpp pooling, f.cpp fully connected + softmax
// train_chunk runs a whole chunk (kChunk samples, kChunk / kLanes vectors of them) and sums its
// gradient in docs/network.md's order; the one-sample functions of SampleKernels run a chunk of
// one sample (lane 0; the other lanes compute a blank image, and nothing of them is kept), for
// the tests; forward_chunk runs the evaluation's chunks. docs/performance.md says what bounds it.
#pragma once

#include <memory>

#include "../kernels.hpp"
#include "layers.hpp"

namespace lenet {

class LanesKernels final : public SampleKernels {
 public:
  LanesKernels();
  const char* name() const override { return "lanes"; }
  void load_input(const uint8_t* pixels) override;
  void c1_forward(const float* params) override;
  void s1_forward(const float* params) override;
  float f_forward(const float* params, int label) override;
  int predicted() const override;
  void f_backward(const float* params, float* grad) override;
  void s1_backward(const float* params, float* grad) override;
  void c1_backward(const float* params, float* grad) override;
  void activations(Activations& out) const override;

  bool train_chunk(const float* params, const uint8_t* const* images, const int* labels, int n,
                   float* chunk_sum, double& loss, LayerTimes* times) override;
  bool forward_chunk(const float* params, const uint8_t* const* images, const int* labels, int n,
                     float* losses, int* predicted) override;

 private:
  static constexpr int kGroups = kChunk / lanes::kLanes;
  static_assert(kChunk % lanes::kLanes == 0, "a chunk is whole vectors of samples");

  // Sample s of the chunk is lane s % kLanes of groups_[s / kLanes].
  std::unique_ptr<lanes::Lanes[]> groups_;
  // Images and labels of samples s < n into their lanes, a blank image past n; returns the
  // number of groups that hold samples.
  int load_chunk(const uint8_t* const* images, const int* labels, int n);
  // The chunk's gradient sum, sample by sample (sum.cpp).
  void sum_gradients(int n, float* chunk_sum) const;
};

}  // namespace lenet
