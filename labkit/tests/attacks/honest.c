// A file that uses the runtime and the clocks without defining any of them: nothing to flag.
#include <omp.h>
#include <time.h>

double seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec + 0 * omp_get_thread_num();
}
