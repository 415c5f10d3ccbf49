// lenet-serial: the reference backend. Everything but "how to train a batch" is the shared
// driver's job (common/driver.hpp).
#include "../common/driver.hpp"
#include "serial_backend.hpp"

int main(int argc, char** argv) {
  std::string tier;
  lenet::BackendSpec spec;
  spec.program = "lenet-serial";
  spec.add_options = [&](CLI::App& app) { lenet::add_tier_option(app, tier); };
  spec.create = [&](const lenet::Options&) { return std::make_unique<lenet::SerialBackend>(tier); };
  return lenet::run_driver(argc, argv, spec);
}
