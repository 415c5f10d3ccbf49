// lenet-mpi's own flags: --exact, --threads and the shared --kernels.
#pragma once

#include <memory>
#include <string>

#include "../common/backend.hpp"
#include "../common/options.hpp"
#include "mpi_comm.hpp"

namespace lenet {

struct MpiOptions {
  std::string kernels;  // --kernels
  int threads = 1;      // --threads: OpenMP threads per rank
  bool exact = false;   // --exact: lenet-serial's bits instead of one allreduce
};

void add_mpi_options(CLI::App& app, MpiOptions& o);

// Checks the flags against this run and makes the backend. Throws lenet::Error (exit code 2)
// when --batch is smaller than the rank count (every rank needs a sample of each full batch),
// or --threads > 1 with an MPI library that does not allow threads.
std::unique_ptr<Backend> make_mpi_backend(const MpiOptions& o, const Options& common,
                                          const MpiComm& comm);

}  // namespace lenet
