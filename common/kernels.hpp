// The kernels: the code that runs a chunk of samples forward and backward, layer by layer.
// It is a swappable part: `ref` (plain loops, common/ref/) is the one to learn from; `simd`
// (common/simd/) runs the same layers with explicit vectors; both compute one sample at a time
// and reach this interface through one adapter (per_sample.hpp). `lanes` (common/lanes/)
// computes the samples of a chunk side by side, one per vector lane. Every CPU backend runs its
// chunks through this interface (common/gradient.cpp calls it), so the same compiled code computes
// each chunk's gradient sum in every backend, which is what makes them bit-identical
// (docs/network.md, "Bit-identical CPU backends"). The registry of kernels: kernels_registry.hpp.
#pragma once

#include <cstdint>

#include "network.hpp"

namespace lenet {

// The unit of work that every CPU backend shares out: kChunk consecutive samples of a batch,
// whose gradients are summed in sample order (common/gradient.hpp).
constexpr int kChunk = 16;

// A chunk goes through the layers a group of group() samples at a time: each layer runs over
// the group [first, min(first + group(), n)), in the order load_input, c1, s1, f forward, then f,
// s1, c1 backward and add_gradients, before the next group starts. `lanes` takes the whole chunk
// as one group; one sample at a time keeps that sample's activations in the core's caches from
// one layer to the next (the per-sample adapter's group is 1).
class Kernels {
 public:
  virtual ~Kernels() = default;
  virtual const char* name() const = 0;
  virtual int group() const = 0;

  // The chunk: images[s] with labels[s] for s < n (1 <= n <= kChunk). The kernels keep the
  // pointers, not the pixels, until the next chunk.
  virtual void set_chunk(const uint8_t* const* images, const int* labels, int n) = 0;

  // x = pixel / 255 (an IEEE float32 division) of the group that starts at sample `first`.
  virtual void load_input(int first) = 0;

  // Forward, in order. f_forward computes each sample's loss of its label (loss(s)).
  virtual void c1_forward(const float* params, int first) = 0;
  virtual void s1_forward(const float* params, int first) = 0;
  virtual void f_forward(const float* params, int first) = 0;

  // Backward, in reverse order: each sample's gradient of its layer and the delta that the layer
  // below needs.
  virtual void f_backward(const float* params, int first) = 0;
  virtual void s1_backward(const float* params, int first) = 0;
  virtual void c1_backward(const float* params, int first) = 0;

  // Adds the gradients of the group's samples (2343 floats each, parameter order) to chunk_sum,
  // one sample after the other: from a zeroed chunk_sum, group after group, that is
  // ((0 + g_0) + g_1) + ... + g_(n-1), docs/network.md's order.
  virtual void add_gradients(int first, float* chunk_sum) = 0;

  // After f_forward: sample s's loss, and its predicted class (argmax of z3, lowest index on a
  // tie), for every s < n.
  virtual float loss(int s) const = 0;
  virtual int predicted(int s) const = 0;

  // For the tests: a copy of sample s's activations, s in the last group that ran.
  virtual void activations(int s, Activations& out) const = 0;
};

}  // namespace lenet
