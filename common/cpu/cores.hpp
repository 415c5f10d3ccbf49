// How many cores this process may run on: its affinity mask, which taskset, mpirun's binding
// or Slurm's --cpus-per-task set. Threads beyond that only take turns on the same cores.
#pragma once

#include <omp.h>
#include <sched.h>
#include <unistd.h>

namespace lenet {

inline int usable_cores() {
  // With OMP_PROC_BIND set, the OpenMP runtime pins this thread to its first place before main()
  // runs, so the mask now says 1; the places, built from the mask the process started with,
  // still hold all of its CPUs.
  int in_places = 0;
  for (int p = 0; p < omp_get_num_places(); ++p)
    in_places += omp_get_place_num_procs(p);
  if (in_places > 0) return in_places;
  cpu_set_t set;
  return sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 0;
}

// The cores of the machine (of this node), whatever this process's affinity.
inline long online_cores() {
  return sysconf(_SC_NPROCESSORS_ONLN);
}

}  // namespace lenet
