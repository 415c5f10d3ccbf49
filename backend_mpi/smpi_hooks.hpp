// The only place where lenet-mpi differs when it is built against SimGrid's SMPI (the
// lenet-mpi-smpi target, cmake/smpi.cmake; docs/scaling.md). In the simulator the ranks'
// arithmetic still runs, for real, so that the parameters are the same as in a real run; but the
// simulated clock does not see it (smpirun --cfg=smpi/simulate-computation:no). Instead each
// rank's compute is charged to the simulated clock from a time per sample measured on a real
// machine (--sim-sample-seconds). In the normal build both hooks are empty and compile away.
#pragma once

#include <CLI/CLI.hpp>

namespace lenet {

#ifdef LENET_SMPI
// --sim-sample-seconds S: the simulated seconds one training sample costs (forward + backward).
void add_smpi_options(CLI::App& app);
// Advances this rank's simulated clock by `samples` x S.
void smpi_charge_compute(int samples);
#else
inline void add_smpi_options(CLI::App&) {}
inline void smpi_charge_compute(int) {}
#endif

}  // namespace lenet
