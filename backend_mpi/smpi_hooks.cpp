// lenet-mpi-smpi's hooks (smpi_hooks.hpp): compiled into the SMPI build only.
#include "smpi_hooks.hpp"

#include <simgrid/host.h>
#include <smpi/smpi.h>

namespace lenet {
namespace {
// Every rank parses the same command line, so every rank holds the same value (SMPI runs the
// ranks as threads of one process: a global shared by all of them would hold it as well).
double sample_seconds = 0;
}  // namespace

void add_smpi_options(CLI::App& app) {
  app.add_option("--sim-sample-seconds", sample_seconds,
                 "SMPI build: simulated seconds of compute per training sample (measured on a "
                 "real machine: experiments/scale_sim.sh)")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
}

void smpi_charge_compute(int samples) {
  // As flops at this simulated host's speed: smpi_execute(seconds) would scale by
  // smpi/host-speed and drop anything under smpi/cpu-threshold.
  if (samples > 0 && sample_seconds > 0)
    smpi_execute_flops(samples * sample_seconds * sg_host_get_speed(sg_host_self()));
}

}  // namespace lenet
