// ATTACK: the submission's own OpenMP and clock functions (they replace the runtime's at link
// time: a team that says it has 8 threads, a clock that runs slow), and a compile-time read of
// a file outside the graded tree (OUTSIDE, given with -D).
#include <time.h>

#include OUTSIDE

int omp_get_num_threads(void) {
  return 8;
}

int clock_gettime(clockid_t clock, struct timespec* t) {
  (void)clock;
  t->tv_sec = 0;
  t->tv_nsec = 0;
  return 0;
}
