// lenet-serial: the reference backend. Everything but "how to train a batch" is the shared
// driver's job (common/driver.hpp).
#include "../common/driver.hpp"
#include "serial_options.hpp"

int main(int argc, char** argv) {
  lenet::SerialOptions serial;
  lenet::BackendSpec spec;
  spec.program = "lenet-serial";
  spec.add_options = [&](CLI::App& app) { lenet::add_serial_options(app, serial); };
  spec.create = [&](const lenet::Options& o) { return lenet::make_serial_backend(serial, o); };
  return lenet::run_driver(argc, argv, spec);
}
