// Wall-clock timing: a stopwatch and the per-layer time table that --timing prints.
#pragma once

#include <chrono>
#ifdef LENET_SMPI
#include <mpi.h>
#endif

namespace lenet {

inline double now_seconds() {
#ifdef LENET_SMPI
  return MPI_Wtime();  // the SMPI build (cmake/smpi.cmake): the simulated clock
#else
  using clock = std::chrono::steady_clock;
  return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
#endif
}

// Seconds spent in each part of training, summed over all steps (and, for a thread team, the
// time of the team as a whole: the wall time its slowest member took).
struct LayerTimes {
  double c1_forward = 0, s1_forward = 0, f_forward = 0;
  double f_backward = 0, s1_backward = 0, c1_backward = 0;
  double reduce = 0;  // summing per-sample gradients into the batch gradient
  double update = 0;  // the SGD step
  double comm = 0;    // communication between processes (MPI) or host and device

  LayerTimes& operator+=(const LayerTimes& o) {
    c1_forward += o.c1_forward, s1_forward += o.s1_forward, f_forward += o.f_forward;
    f_backward += o.f_backward, s1_backward += o.s1_backward, c1_backward += o.c1_backward;
    reduce += o.reduce, update += o.update, comm += o.comm;
    return *this;
  }
  double total() const {
    return c1_forward + s1_forward + f_forward + f_backward + s1_backward + c1_backward + reduce +
           update + comm;
  }
};

// Runs f() and adds its duration to times->*slot when timing is on (times not null).
template <class F>
void timed(LayerTimes* times, double LayerTimes::*slot, F&& f) {
  if (!times) return f();
  const double t0 = now_seconds();
  f();
  times->*slot += now_seconds() - t0;
}

}  // namespace lenet
