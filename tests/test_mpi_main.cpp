// The MPI tests' main: every rank runs the same Catch2 tests (so that their collectives meet),
// rank 0 reports, and another rank's output is shown only when that rank failed. All ranks
// exit non-zero when any of them failed.
#define CATCH_CONFIG_RUNNER
#include <mpi.h>
#include <unistd.h>

#include <cstdio>

#include "catch.hpp"

int main(int argc, char** argv) {
  int provided = 0, rank = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  // Other ranks write their stdout (Catch's report, the tests' "OK ..." lines) to a scratch file.
  std::FILE* scratch = rank > 0 ? std::tmpfile() : nullptr;
  if (scratch) dup2(fileno(scratch), STDOUT_FILENO);

  Catch::Session session;
  int failed = session.applyCommandLine(argc, argv);
  if (failed == 0) failed = session.run();
  std::fflush(stdout);

  int any_failed = 0;
  MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (scratch && failed) {
    std::fprintf(stderr, "---- rank %d failed; its output:\n", rank);
    std::rewind(scratch);
    char line[512];
    while (std::fgets(line, sizeof line, scratch))
      std::fputs(line, stderr);
  }
  MPI_Finalize();
  return any_failed ? 1 : 0;
}
