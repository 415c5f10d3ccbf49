// The main of the emulated CUDA tests: it says, before anything else, that what follows runs on
// the CPU emulation (tests/cuda_emu/), not on a GPU.
#define CATCH_CONFIG_RUNNER
#include <cstdio>

#include "../unit/catch.hpp"
#include "cuda_emu_control.hpp"

int main(int argc, char** argv) {
  // On stderr: CTest's test discovery reads the list of test names from stdout.
  std::fprintf(stderr,
               "EMULATED: CUDA kernels on the CPU (tests/cuda_emu), schedule seed %llu; not a GPU "
               "run\n",
               cuda_emu::schedule_seed());
  return Catch::Session().run(argc, argv);
}
