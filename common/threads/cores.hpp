// How many cores this process may run on: its affinity mask, which taskset, mpirun's binding
// or Slurm's --cpus-per-task set. Threads beyond that only take turns on the same cores.
#pragma once

#include <sched.h>
#include <unistd.h>

namespace lenet {

inline int usable_cores() {
  cpu_set_t set;
  return sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 0;
}

// The cores of the machine (of this node), whatever this process's affinity.
inline long online_cores() {
  return sysconf(_SC_NPROCESSORS_ONLN);
}

}  // namespace lenet
