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
// time of the team as a whole: the wall time its slowest member took). kLayerTimeFields below
// lists the fields: whatever handles all of them iterates it.
struct LayerTimes {
  double c1_forward = 0, s1_forward = 0, f_forward = 0;
  double f_backward = 0, s1_backward = 0, c1_backward = 0;
  double reduce = 0;  // summing per-sample gradients into the batch gradient
  double update = 0;  // the SGD step
  double comm = 0;    // communication between processes (MPI) or host and device

  LayerTimes& operator+=(const LayerTimes& o);
  double total() const;
};

// One field of LayerTimes: its row in the --timing table, its column in the CSV.
struct LayerTimeField {
  const char* row;
  const char* column;
  double LayerTimes::*seconds;
};

// Every field, in the order the table and the CSV list them.
inline constexpr LayerTimeField kLayerTimeFields[] = {
    {"c1 forward", "c1_forward", &LayerTimes::c1_forward},
    {"s1 forward", "s1_forward", &LayerTimes::s1_forward},
    {"f forward", "f_forward", &LayerTimes::f_forward},
    {"f backward", "f_backward", &LayerTimes::f_backward},
    {"s1 backward", "s1_backward", &LayerTimes::s1_backward},
    {"c1 backward", "c1_backward", &LayerTimes::c1_backward},
    {"reduce", "reduce", &LayerTimes::reduce},
    {"update", "update", &LayerTimes::update},
    {"communication", "comm_seconds", &LayerTimes::comm},
};

inline LayerTimes& LayerTimes::operator+=(const LayerTimes& o) {
  for (const LayerTimeField& f : kLayerTimeFields)
    this->*f.seconds += o.*f.seconds;
  return *this;
}

inline double LayerTimes::total() const {
  double sum = 0;
  for (const LayerTimeField& f : kLayerTimeFields)
    sum += this->*f.seconds;
  return sum;
}

// Runs f() and adds its duration to times->*slot when timing is on (times not null).
template <class F>
void timed(LayerTimes* times, double LayerTimes::*slot, F&& f) {
  if (!times) return f();
  const double t0 = now_seconds();
  f();
  times->*slot += now_seconds() - t0;
}

}  // namespace lenet
