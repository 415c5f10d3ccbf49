// The MPI tests' main: every rank runs the same Catch2 tests (so that their collectives meet),
// rank 0 reports, and another rank's output is shown only when that rank failed. All ranks
// exit non-zero when any of them failed. A report file (-o FILE, the lab kit's) is rank 0's;
// rank R writes its own to FILE.rankR.
#define CATCH_CONFIG_RUNNER
#include <mpi.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "catch.hpp"

int main(int argc, char** argv) {
  int provided = 0, rank = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  // Other ranks write their stdout (Catch's report, the tests' "OK ..." lines) to a scratch file.
  std::FILE* scratch = rank > 0 ? std::tmpfile() : nullptr;
  if (scratch) dup2(fileno(scratch), STDOUT_FILENO);

  std::vector<std::string> args(argv, argv + argc);
  for (std::size_t i = 1; i + 1 < args.size(); ++i) {
    if (rank > 0 && (args[i] == "-o" || args[i] == "--out"))
      args[i + 1] += ".rank" + std::to_string(rank);
  }
  std::vector<char*> pointers;
  for (std::string& a : args)
    pointers.push_back(a.data());

  Catch::Session session;
  int failed = session.applyCommandLine(argc, pointers.data());
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
