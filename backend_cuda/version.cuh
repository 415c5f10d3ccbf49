// The CUDA kernel versions, side by side (llm.c style: each is complete, the simplest stays as
// the baseline to read first). All three compute docs/network.md; they differ in how the work is
// cut into kernels and threads (docs/cuda.md has the details and the launch counts):
//
//   version v1     one kernel per layer and pass, one thread per output element, one sample per
//                  launch: a batch is a loop of per-sample launches (about 8 B + 2 per step).
//                  Per-sample gradients are added into one batch gradient, then an update kernel.
//                  Files: v1/c1.cu, v1/s1.cu, v1/f.cu, v1/update.cu, v1/step.cu.
//   version v2     batched: each kernel covers the whole mini-batch (a grid over samples x
//                  outputs); the conv input is tiled in shared memory; the weight gradients are
//                  summed over the batch with warp shuffles and block sums (no global atomics) and
//                  the SGD update happens in those same kernels (9 launches per step).
//                  Files: v2/c1.cu, v2/s1.cu, v2/f.cu, v2/step.cu.
//   version fused  one block per sample does the whole forward and backward pass in shared
//                  memory and writes that sample's gradient; one more kernel sums the batch in
//                  sample order and updates (2 launches per step). At B = 1 the two launches are
//                  captured once in a CUDA Graph and replayed. Files: fused/kernels.cu,
//                  fused/step.cu.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <memory>

#include "../common/network.hpp"
#include "event_timer.hpp"

namespace lenet::cuda {

// The images a launch works on: its sample s is image order[first + s] of the set, or image
// first + s when order is null (evaluation walks the test set in file order). When `cursor` is
// set, `first` is read from that device integer instead (the fused version's CUDA Graph replays
// one captured step, so the step's position must live on the device).
struct Samples {
  const uint8_t* pixels = nullptr;  // the whole set, kImageSize bytes per image
  const uint8_t* labels = nullptr;
  const int32_t* order = nullptr;
  const int* cursor = nullptr;
  int first = 0;
  int count = 0;

  __device__ int image(int s) const {
    const int i = (cursor ? *cursor : first) + s;
    return order ? order[i] : i;
  }
  __device__ const uint8_t* pixels_of(int s) const {
    return pixels + static_cast<size_t>(image(s)) * kImageSize;
  }
  __device__ int label(int s) const { return labels[image(s)]; }
};

// Sums that stay on the device until the host asks: a loss in double (like the CPU backends'
// chunk losses) and a count of correct predictions.
struct Tally {
  double loss_sum;
  unsigned long long correct;
};

// Everything a kernel version works on, in device memory, owned by the backend.
struct DeviceData {
  float* params = nullptr;  // kParamCount, spec order
  Samples train;            // order = this epoch's order; first and count are set per step
  Samples test;             // order = null
  Tally* epoch = nullptr;   // this epoch's training losses
  Tally* eval = nullptr;    // the evaluation under way
  cudaStream_t stream = nullptr;
  EventTimer* timer = nullptr;  // null unless --timing
  LayerTimes* times = nullptr;  // where a version adds its per-layer times
};

// Starts a timed interval when timing is on.
inline void mark(const DeviceData& d, EventTimer::Slot slot) {
  if (d.timer) d.timer->mark(d.stream, slot);
}

class KernelVersion {
 public:
  virtual ~KernelVersion() = default;
  virtual const char* name() const = 0;
  virtual const char* strategy() const = 0;  // a few words for the summary block
  virtual int launches_per_step(int batch, bool timing) const = 0;

  // Allocates the work space for steps of up to `batch` samples (grows, never shrinks).
  virtual void reserve(int batch) = 0;
  // One SGD step on d.train's samples order[first .. first + count); adds the losses to *d.epoch.
  virtual void train_step(const DeviceData& d, int first, int count, float lr) = 0;
  // Forwards the whole test set; adds its losses and correct predictions to *d.eval.
  virtual void evaluate(const DeviceData& d) = 0;
};

std::unique_ptr<KernelVersion> make_v1();
std::unique_ptr<KernelVersion> make_v2();
std::unique_ptr<KernelVersion> make_fused();

// Adds the per-sample losses and hits (1 = correct) of `count` samples to *out, summed in a
// fixed order by one block: the same bits on every run. Used by v2 and by fused's evaluation.
void tally(const float* loss, const int* hit, int count, Tally* out, cudaStream_t stream);

// The largest batch a version accepts: every flattened index (sample x C1 cell) fits in an int.
constexpr int kMaxBatch = 1 << 19;

}  // namespace lenet::cuda
