// ATTACK: twice the threads asked (--honest: as many as asked), each spinning until it has
// used 0.2 s of CPU (at most 20 s), and with --widen each allowed first on every CPU of the
// machine (escaping a `taskset -c` pin).
#define _GNU_SOURCE
#include <omp.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double clock_of(clockid_t which) {
  struct timespec t;
  clock_gettime(which, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(int argc, char** argv) {
  int asked = 1, widen = 0, honest = 0;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--threads") && i + 1 < argc) asked = atoi(argv[++i]);
    if (!strcmp(argv[i], "--widen")) widen = 1;
    if (!strcmp(argv[i], "--honest")) honest = 1;
  }
#pragma omp parallel num_threads(honest ? asked : 2 * asked)
  {
    if (widen) {
      cpu_set_t all;
      CPU_ZERO(&all);
      for (int c = 0; c < CPU_SETSIZE; ++c)
        CPU_SET(c, &all);
      sched_setaffinity(0, sizeof all, &all);
    }
    const double until = clock_of(CLOCK_MONOTONIC) + 20;
    while (clock_of(CLOCK_THREAD_CPUTIME_ID) < 0.2 && clock_of(CLOCK_MONOTONIC) < until) {
    }
  }
  return 0;
}
