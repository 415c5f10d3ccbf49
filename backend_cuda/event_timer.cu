#include "check.hpp"
#include "event_timer.hpp"

namespace lenet::cuda {

EventTimer::~EventTimer() {
  for (cudaEvent_t e : events_)
    cudaEventDestroy(e);
}

void EventTimer::record(cudaStream_t stream) {
  if (used_ == events_.size()) {
    cudaEvent_t e;
    CUDA_CHECK(cudaEventCreate(&e));
    events_.push_back(e);
  }
  CUDA_CHECK(cudaEventRecord(events_[used_], stream));
  ++used_;
}

void EventTimer::mark(cudaStream_t stream, Slot slot) {
  record(stream);
  slots_.push_back(slot);
}

LayerTimes EventTimer::finish(cudaStream_t stream) {
  LayerTimes t;
  if (slots_.empty()) return t;
  record(stream);
  CUDA_CHECK(cudaEventSynchronize(events_[used_ - 1]));
  for (size_t i = 0; i < slots_.size(); ++i) {
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, events_[i], events_[i + 1]));
    t.*slots_[i] += 1e-3 * ms;
  }
  slots_.clear();
  used_ = 0;
  return t;
}

}  // namespace lenet::cuda
