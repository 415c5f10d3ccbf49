// One sample at a time: the per-sample layer functions of `ref` and `simd` (and of the OpenMP
// layer strategy's kernels, backend_openmp/layer_kernels.hpp), and the one adapter that runs a
// chunk through them, sample after sample, as the chunk interface (kernels.hpp) asks.
#pragma once

#include <cstdint>
#include <memory>

#include "kernels.hpp"
#include "network.hpp"

namespace lenet {

// The layers of ONE sample.
class SampleKernels {
 public:
  virtual ~SampleKernels() = default;
  virtual const char* name() const = 0;

  // x = pixel / 255 (an IEEE float32 division).
  virtual void load_input(const uint8_t* pixels) = 0;

  // Forward, in order. f_forward returns the loss of `label` and remembers it for f_backward.
  virtual void c1_forward(const float* params) = 0;
  virtual void s1_forward(const float* params) = 0;
  virtual float f_forward(const float* params, int label) = 0;
  virtual int predicted() const = 0;  // argmax of z3, lowest index on a tie

  // Backward, in reverse order. Each writes (overwrites) its layer's slice of the sample's
  // gradient `grad` (2343 floats, parameter order) and the delta that the layer below needs.
  virtual void f_backward(const float* params, float* grad) = 0;
  virtual void s1_backward(const float* params, float* grad) = 0;
  virtual void c1_backward(const float* params, float* grad) = 0;

  // A copy of the last forward pass.
  virtual void activations(Activations& out) const = 0;
};

// A chunk through a SampleKernels, one sample whole before the next (group() is 1): the same
// buffers serve every sample and stay in the caches. Each sample's gradient is added to the
// chunk's sum as soon as its backward pass ends.
class PerSample final : public Kernels {
 public:
  explicit PerSample(std::unique_ptr<SampleKernels> sample) : sample_(std::move(sample)) {}
  const char* name() const override { return sample_->name(); }
  int group() const override { return 1; }
  void set_chunk(const uint8_t* const* images, const int* labels, int n) override;
  void load_input(int first) override { sample_->load_input(images_[first]); }
  void c1_forward(const float* params, int) override { sample_->c1_forward(params); }
  void s1_forward(const float* params, int) override { sample_->s1_forward(params); }
  void f_forward(const float* params, int first) override;
  void f_backward(const float* params, int) override { sample_->f_backward(params, grad_); }
  void s1_backward(const float* params, int) override { sample_->s1_backward(params, grad_); }
  void c1_backward(const float* params, int) override { sample_->c1_backward(params, grad_); }
  void add_gradients(int first, float* chunk_sum) override;
  float loss(int s) const override { return loss_[s]; }
  int predicted(int s) const override { return predicted_[s]; }
  void activations(int, Activations& out) const override { sample_->activations(out); }

 private:
  std::unique_ptr<SampleKernels> sample_;
  const uint8_t* images_[kChunk] = {};
  int labels_[kChunk] = {};
  float loss_[kChunk] = {};
  int predicted_[kChunk] = {};
  float grad_[kParamCount];  // the current sample's gradient
};

}  // namespace lenet
