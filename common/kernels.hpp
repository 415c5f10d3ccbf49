// The per-sample kernels: the code that runs ONE sample forward and backward, layer by layer
// (and, for kernels that compute samples side by side, a whole chunk: train_chunk).
// It is a swappable part: `ref` (plain loops, common/ref/) is the one to learn from; faster
// kernels implement the same six layer functions. Every CPU backend runs samples through this
// interface, so the same compiled code computes each sample's gradient in every backend, which is
// what makes them bit-identical (docs/network.md, "Bit-identical CPU backends").
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "network.hpp"
#include "timer.hpp"

namespace lenet {

// The unit of work that every CPU backend shares out: kChunk consecutive samples of a batch,
// whose gradients are summed in sample order (common/gradient.hpp).
constexpr int kChunk = 16;

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

  // A copy of the last forward pass, for the tests.
  virtual void activations(Activations& out) const = 0;

  // Optional: a whole chunk at once, for kernels that compute samples side by side (`lanes`,
  // one sample per vector lane). Trains images[s] with labels[s] for s < n (n <= kChunk),
  // writes the sum of their gradients ((0 + g_0) + g_1) + ... (docs/network.md's order) into
  // chunk_sum and the sum of their losses, in sample order, into loss, adds each layer's time
  // to `times` where it is not null, and returns true. The default returns false: the kernels
  // train one sample at a time, and chunk_gradient (gradient.hpp) runs the samples through the
  // functions above.
  virtual bool train_chunk(const float* /*params*/, const uint8_t* const* /*images*/,
                           const int* /*labels*/, int /*n*/, float* /*chunk_sum*/, double& /*loss*/,
                           LayerTimes* /*times*/) {
    return false;
  }
  // Optional, likewise, for the test-set evaluation: the forward pass of images[s] with
  // labels[s], s < n (n <= kChunk), each one's loss into losses[s] and its predicted class into
  // predicted[s]. The default returns false, and forward_chunk (gradient.hpp) runs the samples
  // one at a time.
  virtual bool forward_chunk(const float* /*params*/, const uint8_t* const* /*images*/,
                             const int* /*labels*/, int /*n*/, float* /*losses*/,
                             int* /*predicted*/) {
    return false;
  }
};

// The kernels built into this binary, and a factory for one of them ("ref", ...).
std::vector<std::string> available_kernels();
std::unique_ptr<SampleKernels> make_kernels(const std::string& kernels);

}  // namespace lenet
