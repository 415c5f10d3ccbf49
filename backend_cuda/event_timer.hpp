// Per-layer GPU time from CUDA events (--timing). A kernel launch returns before the kernel runs,
// so host clocks around a launch measure nothing; an event recorded in the stream is stamped by
// the GPU when the work before it has finished.
//   mark(stream, slot)  records an event; the GPU time until the next mark goes to `slot`
//   finish(stream)      ends the last interval, waits for the GPU and returns the step's times
// Events are created once and reused from step to step.
#pragma once

#include <cuda_runtime.h>

#include <vector>

#include "../common/timer.hpp"

namespace lenet::cuda {

class EventTimer {
 public:
  using Slot = double LayerTimes::*;

  EventTimer() = default;
  ~EventTimer();
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;

  void mark(cudaStream_t stream, Slot slot);
  LayerTimes finish(cudaStream_t stream);

 private:
  void record(cudaStream_t stream);

  std::vector<cudaEvent_t> events_;  // the pool; the first `used_` are this step's
  std::vector<Slot> slots_;          // slots_[i]: the slot of the interval after event i
  size_t used_ = 0;
};

}  // namespace lenet::cuda
