// libFuzzer target: the IDX loader (lenet::load_idx) on hostile image and label files, plain
// or gzip-compressed. fuzz_inputs.hpp says how one input becomes the two files; fuzz/README.md
// says how to run it.
#include <cstdio>
#include <cstdlib>

#include "fuzz_inputs.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const lenet::fuzz::ScratchDir dir;
  const auto outcome = lenet::fuzz::run_idx(dir, {reinterpret_cast<const char*>(data), size});
  if (!outcome.bug.empty()) {
    std::fprintf(stderr, "fuzz_idx: %s (error: '%s')\n", outcome.bug.c_str(),
                 outcome.error.c_str());
    std::abort();  // libFuzzer saves the input as a crash
  }
  return 0;
}
