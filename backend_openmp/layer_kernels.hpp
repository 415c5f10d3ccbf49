// The layer strategy's kernels: ref's loops (common/ref/layers.hpp, compiled once there), each
// layer's independent outputs shared among the threads of one parallel region. Every output and
// gradient element is computed by the same machine code as in ref, only on another thread, so
// the results are ref's bits. Where a layer sums over the outputs that are shared out (the S1
// weight gradient), one thread computes the whole sum while the others compute the deltas.
// C1's rows and maps go through c1_rows and c1_maps, which count them per thread and note, per
// call of c1_forward and c1_backward, which threads computed a share: the summary's "C1 rows
// computed" shows whether every thread had a part of every call (a clock on 2 busy cores cannot).
#pragma once

#include <string>
#include <vector>

#include "../common/per_sample.hpp"
#include "../common/share.hpp"

namespace lenet {

class LayerKernels final : public SampleKernels {
 public:
  explicit LayerKernels(int threads) : threads_(threads), tally_(threads) {}
  const char* name() const override { return "ref"; }  // ref's arithmetic, ref's bits
  void load_input(const uint8_t* pixels) override;
  void c1_forward(const float* params) override;
  void s1_forward(const float* params) override;
  float f_forward(const float* params, int label) override;
  int predicted() const override;
  void f_backward(const float* params, float* grad) override;
  void s1_backward(const float* params, float* grad) override;
  void c1_backward(const float* params, float* grad) override;
  void activations(Activations& out) const override { out = act_; }

  // "N on T threads (fewest to most a thread); calls shared by every thread: S of C": C1's
  // forward rows and backward maps so far, and in how many calls every thread had a share.
  std::string c1_rows_shared() const;
  std::string c1_maps_shared() const;

 private:
  // ref::c1_forward of the rows [begin, end) and ref::c1_backward of the maps [begin, end), on
  // the calling thread, counted in its tally.
  void c1_rows(const float* params, int begin, int end);
  void c1_maps(float* grad, int begin, int end);

  // One per thread of the team, each on its own cache line. A thread numbered beyond the team
  // (a region wider than threads_) counts as its last. rows_sample, maps_sample: the last
  // sample in whose C1 forward (backward) this thread computed rows (maps).
  struct alignas(64) Tally {
    long long rows = 0, maps = 0;
    long long rows_sample = -1, maps_sample = -1;
  };
  Tally& my_tally();
  // How many threads computed a share of the current sample's call, and the calls so far with
  // it counted (it ends when load_input starts the next sample, or the run).
  int sharers(long long Tally::*sample) const;
  CallsShared calls(const CallsShared& ended, long long Tally::*sample, int items) const;
  std::string shared(long long Tally::*count, long long Tally::*sample, const CallsShared& ended,
                     int items) const;

  int threads_;  // the team size of every parallel region
  std::vector<Tally> tally_;
  long long sample_ = -1;  // the samples loaded so far, less one: the current call's number
  CallsShared rows_calls_, maps_calls_;  // the calls of the samples before sample_
  Activations act_;
  int label_ = 0;
  float d2_[kS1Size];  // dloss/dz2, from f_backward
  float d1_[kC1Size];  // dloss/dz1, from s1_backward
};

}  // namespace lenet
