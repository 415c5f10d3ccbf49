// lenet-mpi: data-parallel SGD over MPI ranks, each optionally with OpenMP threads. Everything
// but "how to train a batch" is the shared driver's job (common/driver.hpp), which prints on
// rank 0 only and makes every rank leave together when one of them fails.
#include <mpi.h>

#include "../common/driver.hpp"
#include "mpi_comm.hpp"
#include "mpi_options.hpp"
#include "smpi_hooks.hpp"

int main(int argc, char** argv) {
  // FUNNELED: OpenMP threads compute, only the master thread calls MPI. (SMPI grants only
  // SINGLE: make_mpi_backend then refuses --threads above 1.)
  int provided = 0;
  lenet::prefer_eager_messages();
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int code = 0;
  {
    lenet::MpiComm comm;
    lenet::MpiOptions mpi;
    lenet::BackendSpec spec;
    spec.program = "lenet-mpi";
    spec.add_options = [&](CLI::App& app) {
      lenet::add_mpi_options(app, mpi);
      lenet::add_smpi_options(app);  // nothing outside the SMPI build
    };
    spec.must_match = [&] {
      return lenet::OptionValues{{"--kernels", mpi.kernels},
                                 {"--exact", mpi.exact ? "given" : "not given"}};
    };
    spec.create = [&](const lenet::Options& o) { return lenet::make_mpi_backend(mpi, o, comm); };
    spec.comm = &comm;
    code = lenet::run_driver(argc, argv, spec);
  }
  MPI_Finalize();
  return code;
}
