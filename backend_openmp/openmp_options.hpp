// lenet-openmp's own flags: --threads, --strategy and the shared --kernels.
#pragma once

#include <memory>
#include <string>

#include "../common/backend.hpp"
#include "../common/options.hpp"

namespace lenet {

struct OpenMPOptions {
  int threads = 1;                 // set to omp_get_max_threads() by add_openmp_options
  std::string strategy = "batch";  // the faster one at B = 32 (docs/strategies.md)
  std::string kernels;             // --kernels
  bool kernels_given = false;      // --kernels was on the command line (not the default)
};

void add_openmp_options(CLI::App& app, OpenMPOptions& o);

// The backend the options ask for. The layer strategy runs the ref kernels: without --kernels it
// takes ref and says so, and explicit other kernels are an error (exit code 2). Warns on stderr
// when threads exceed the usable cores or the batch's chunks (threads without work).
std::unique_ptr<Backend> make_openmp_backend(const OpenMPOptions& o, const Options& common);

}  // namespace lenet
