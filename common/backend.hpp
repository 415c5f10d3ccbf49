// The ONE interface every backend implements. The shared driver (driver.hpp) owns the loop
//   load data -> for each epoch: order -> for each batch: train_batch -> evaluate -> report
// and a backend only says how one batch is trained and how the test set is evaluated.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "dataset.hpp"
#include "timer.hpp"

namespace lenet {

struct EvalResult {
  long long correct = 0;
  double loss_sum = 0;
  long long count = 0;
};

// How a backend describes itself in the summary block and the CSV.
struct BackendInfo {
  std::string name;            // serial, openmp, mpi, cuda
  std::string kernels;         // the CPU kernels (ref, lanes, simd) or the CUDA kernel version
  std::string strategy = "-";  // e.g. "batch" or "layer" for OpenMP; "-" where there is one way
  int threads = 1;             // threads per process, as asked for
  int threads_worked = 0;      // the most that had work at once, when fewer than `threads`
  int ranks = 1;               // processes
  int hosts = 1;               // distinct host names the processes ran on
  std::string device = "cpu";
  // More "Key = value" lines for the summary block (MPI, CUDA, ...), formatted by report.cpp.
  std::vector<std::pair<std::string, std::string>> extra;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual BackendInfo info() const = 0;

  // Parameters in spec order (kParamCount floats). Never collective: the driver reads them at
  // every --save-every checkpoint.
  virtual void set_params(const std::vector<float>& params) = 0;
  virtual std::vector<float> get_params() = 0;

  // Called once before training: the data sets stay alive and unchanged for the whole run.
  virtual void bind_data(const Dataset& train, const Dataset& test) = 0;

  // Called at the start of each epoch with that epoch's sample order; resets the loss sum.
  virtual void begin_epoch(const std::vector<int32_t>& order) = 0;

  // One SGD step on the samples order[first .. first + count).
  virtual void train_batch(int first, int count, float lr) = 0;

  // Sum of the per-sample losses of this epoch's batches so far (each computed before its
  // batch's update). May synchronise a device; the driver reads it rarely, and on rank 0 only,
  // so it must not be a collective operation.
  virtual double epoch_loss_sum() = 0;

  // How often, in steps, the driver reads epoch_loss_sum() to stop a diverging run at once: 1 on
  // the CPU; a device backend may ask for less often, to avoid a synchronisation per step.
  virtual int loss_check_interval() const { return 1; }

  // Loss and correct predictions over the whole bound test set. Called by every rank.
  virtual EvalResult evaluate() = 0;

  // Called by every rank once, after the last step and before the report reads get_params(),
  // times() and info(): a backend of several processes gathers there what the report shows
  // (MPI: the slowest rank's times, whether the ranks agree). Nothing to do for one process.
  virtual void end_run() {}

  // Per-layer timers: off by default because reading clocks per layer costs time. A backend
  // that communicates (MPI, CUDA copies) measures times().comm even with timing off.
  virtual void set_timing(bool on) = 0;
  virtual LayerTimes times() const = 0;
};

}  // namespace lenet
