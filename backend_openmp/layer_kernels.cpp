// One sample through ref's loops (common/ref/c1.cpp, s1.cpp, f.cpp), each layer in one parallel
// region where every thread runs the loop over its own part of the layer's outputs. Each region
// costs a fork and a join, a few microseconds, against a few microseconds of work in most
// layers (docs/strategies.md).
#include "layer_kernels.hpp"

#include <omp.h>

#include <algorithm>

#include "../common/ref/layers.hpp"
#include "../common/share.hpp"

namespace lenet {

LayerKernels::Tally& LayerKernels::my_tally() {
  return tally_[std::min(omp_get_thread_num(), threads_ - 1)];
}

void LayerKernels::c1_rows(const float* params, int begin, int end) {
  ref::c1_forward(params, act_.x, act_.z1, act_.a1, begin, end);
  if (end <= begin) return;  // no share
  Tally& t = my_tally();
  t.rows += end - begin;
  t.rows_sample = sample_;
}

void LayerKernels::c1_maps(float* grad, int begin, int end) {
  ref::c1_backward(act_.x, d1_, grad, begin, end);
  if (end <= begin) return;
  Tally& t = my_tally();
  t.maps += end - begin;
  t.maps_sample = sample_;
}

int LayerKernels::sharers(long long Tally::*sample) const {
  int n = 0;
  for (const Tally& t : tally_)
    n += t.*sample == sample_;
  return n;
}

CallsShared LayerKernels::calls(const CallsShared& ended, long long Tally::*sample,
                                int items) const {
  CallsShared all = ended;
  if (sample_ >= 0) all.end_call(sharers(sample), std::min(threads_, items));
  return all;
}

std::string LayerKernels::shared(long long Tally::*count, long long Tally::*sample,
                                 const CallsShared& ended, int items) const {
  std::vector<long long> counts;
  for (const Tally& t : tally_)
    counts.push_back(t.*count);
  return shared_out(counts, "thread") + calls(ended, sample, items).out("thread");
}

std::string LayerKernels::c1_rows_shared() const {
  return shared(&Tally::rows, &Tally::rows_sample, rows_calls_, ref::kC1Rows);
}

std::string LayerKernels::c1_maps_shared() const {
  return shared(&Tally::maps, &Tally::maps_sample, maps_calls_, kC1Maps);
}

// 784 divisions: less work than waking the team, so one thread does it. A new sample: the
// previous one's C1 calls are over, and counted (outside the regions, once a sample).
void LayerKernels::load_input(const uint8_t* pixels) {
  rows_calls_ = calls(rows_calls_, &Tally::rows_sample, ref::kC1Rows);
  maps_calls_ = calls(maps_calls_, &Tally::maps_sample, kC1Maps);
  ++sample_;
  ref::load_input(pixels, act_.x);
}

int LayerKernels::predicted() const {
  return ref::f_predicted(act_.z3);
}

// LAB 2 BEGIN: each layer's outputs shared among the threads (the lab: C1, forward and backward)
namespace {

// The calling thread's part of n items: contiguous, the parts' sizes differ by at most one.
Range my_part(int n) {
  return share(n, omp_get_num_threads(), omp_get_thread_num());
}

}  // namespace

// C1 forward: the 144 output rows.
void LayerKernels::c1_forward(const float* params) {
#pragma omp parallel num_threads(threads_)
  {
    const Range rows = my_part(ref::kC1Rows);
    c1_rows(params, rows.begin, rows.end);
  }
}

// The 36 output rows of 6 windows each (16 multiply-adds a window: less work than the fork).
void LayerKernels::s1_forward(const float* params) {
#pragma omp parallel num_threads(threads_)
  {
    const Range rows = my_part(ref::kS1Rows);
    ref::s1_forward(params, act_.a1, act_.z2, act_.a2, rows.begin, rows.end);
  }
}

// The 10 logits shared out; the softmax over them stays on one thread.
float LayerKernels::f_forward(const float* params, int label) {
#pragma omp parallel num_threads(threads_)
  {
    const Range classes = my_part(kClasses);
    ref::f_logits(params, act_.a2, act_.z3, classes.begin, classes.end);
  }
  label_ = label;
  act_.loss = ref::f_softmax_loss(act_.z3, act_.p, label);
  return act_.loss;
}

// The 216 input columns shared out: each thread its columns of dW3 and of d2. db3 on one
// thread (`single`; OpenMP 5.1's `masked` would run on every thread with GCC 11, which
// ignores it), while the others start on the columns (nowait).
void LayerKernels::f_backward(const float* params, float* grad) {
#pragma omp parallel num_threads(threads_)
  {
#pragma omp single nowait
    ref::f_bias_gradient(act_.p, label_, grad);
    const Range columns = my_part(kS1Size);
    ref::f_backward(params, act_.a2, act_.p, label_, grad, d2_, columns.begin, columns.end);
  }
}

// The weight gradient sums over every window: one thread computes it (`single`), while the
// others start on the deltas, which are independent (no barrier between them: nowait).
void LayerKernels::s1_backward(const float* params, float* grad) {
#pragma omp parallel num_threads(threads_)
  {
#pragma omp single nowait
    ref::s1_weight_gradient(act_.a1, d2_, grad);
    const Range rows = my_part(ref::kS1Rows);
    ref::s1_delta(params, act_.a1, d2_, d1_, rows.begin, rows.end);
  }
}

// C1 backward: the 6 maps (3 + 3 on 2 threads, 2 + 2 + 1 + 1 on 4).
void LayerKernels::c1_backward(const float* /*params*/, float* grad) {
#pragma omp parallel num_threads(threads_)
  {
    const Range maps = my_part(kC1Maps);
    c1_maps(grad, maps.begin, maps.end);
  }
}
// LAB 2 END

}  // namespace lenet
