// lenet-openmp: the serial backend's arithmetic on a team of OpenMP threads. Everything but
// "how to train a batch" is the shared driver's job (common/driver.hpp).
#include <omp.h>
#include <sched.h>
#include <unistd.h>

#include <cstdlib>
#include <vector>

#include "../common/driver.hpp"
#include "openmp_options.hpp"

namespace {

// A thread that waits at a barrier spins a while before it sleeps: libgomp's default is 300,000
// spins. Where other processes keep the cores busy, the spinning thread takes the core from the
// thread it waits for, and 2 threads ran up to 48 times slower than serial. 1000 spins (tens of
// microseconds) still catch the next parallel region on an idle machine (docs/strategies.md,
// "Wait policy"). libgomp reads GOMP_SPINCOUNT once, as it loads, before main(): so the program
// sets it and starts itself again, once, unless the user chose a policy.
void bound_the_spin(char** argv) {
  if (std::getenv("OMP_WAIT_POLICY") || std::getenv("GOMP_SPINCOUNT")) return;
  setenv("GOMP_SPINCOUNT", "1000", 1);
  // With OMP_PROC_BIND set, libgomp has already pinned this thread to its first place, and the
  // new image would build its places from that one-CPU mask (both threads on one core). Give it
  // back every CPU of the places: the mask this process started with.
  cpu_set_t all;
  CPU_ZERO(&all);
  for (int p = 0; p < omp_get_num_places(); ++p) {
    std::vector<int> ids(omp_get_place_num_procs(p));
    omp_get_place_proc_ids(p, ids.data());
    for (int id : ids)
      CPU_SET(id, &all);
  }
  if (CPU_COUNT(&all) > 0) sched_setaffinity(0, sizeof all, &all);
  execv("/proc/self/exe", argv);  // returns only when it failed: then the default policy it is
}

}  // namespace

int main(int argc, char** argv) {
  bound_the_spin(argv);
  lenet::OpenMPOptions omp;
  lenet::BackendSpec spec;
  spec.program = "lenet-openmp";
  spec.add_options = [&](CLI::App& app) { lenet::add_openmp_options(app, omp); };
  spec.create = [&](const lenet::Options& o) { return lenet::make_openmp_backend(omp, o); };
  return lenet::run_driver(argc, argv, spec);
}
