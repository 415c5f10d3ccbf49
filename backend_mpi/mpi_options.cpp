#include "mpi_options.hpp"

#include <cstdio>

#include "../common/cpu/cores.hpp"
#include "../common/error.hpp"
#include "mpi_backend.hpp"

namespace lenet {
void add_mpi_options(CLI::App& app, MpiOptions& o) {
  add_kernels_option(app, o.kernels);
  app.add_option("--threads", o.threads,
                 "OpenMP threads per rank (more than 1: launch with mpirun --bind-to none or "
                 "--map-by slot:PE=N)")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  app.add_flag("--exact", o.exact,
               "bit-identical to lenet-serial: gather the 16-sample chunk sums and add them in "
               "serial's order, instead of one allreduce of per-rank sums");
}

std::unique_ptr<Backend> make_mpi_backend(const MpiOptions& o, const Options& common,
                                          const MpiComm& comm) {
  if (common.batch < comm.size()) {
    throw Error("--batch: " + std::to_string(common.batch) + " is smaller than the " +
                    std::to_string(comm.size()) +
                    " ranks; each rank needs at least one sample of a batch (use --batch >= " +
                    std::to_string(comm.size()) + " or fewer ranks)",
                2);
  }
  int provided = MPI_THREAD_SINGLE;
  MPI_Query_thread(&provided);
  if (o.threads > 1 && provided < MPI_THREAD_FUNNELED) {
    throw Error("--threads: this MPI library allows no threads (MPI_THREAD_FUNNELED)", 2);
  }
  // Threads that share one core only take turns: say so rather than run slowly in silence. The
  // ranks of one node share its cores. (No collective call here: a rank that failed to load its
  // data is already waiting in the driver's.)
  const int node_ranks = comm.node_size();
  const int cores = usable_cores();
  if (comm.rank() == 0 && cores > 0 && o.threads > cores) {
    std::fprintf(stderr,
                 "lenet-mpi: warning: --threads %d but rank 0 may use %d core(s); launch with "
                 "mpirun --bind-to none or --map-by slot:PE=%d\n",
                 o.threads, cores, o.threads);
  } else if (comm.rank() == 0 && node_ranks * o.threads > static_cast<int>(online_cores())) {
    std::fprintf(stderr,
                 "lenet-mpi: warning: %d ranks x %d thread(s) on this node, which has %ld "
                 "core(s): they will take turns (expect a slower run)\n",
                 node_ranks, o.threads, online_cores());
  }
  const MpiStrategy strategy = o.exact ? MpiStrategy::kExact : MpiStrategy::kAllreduce;
  return std::make_unique<MpiBackend>(o.kernels, strategy, o.threads, comm.handle(), comm.hosts());
}

}  // namespace lenet
