// lenet-openmp: the serial backend's arithmetic on a team of OpenMP threads. Everything but
// "how to train a batch" is the shared driver's job (common/driver.hpp).
#include "../common/driver.hpp"
#include "openmp_options.hpp"

int main(int argc, char** argv) {
  lenet::OpenMPOptions omp;
  lenet::BackendSpec spec;
  spec.program = "lenet-openmp";
  spec.add_options = [&](CLI::App& app) { lenet::add_openmp_options(app, omp); };
  spec.create = [&](const lenet::Options& o) { return lenet::make_openmp_backend(omp, o); };
  return lenet::run_driver(argc, argv, spec);
}
