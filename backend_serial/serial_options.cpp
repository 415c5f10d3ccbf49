#include "serial_options.hpp"

#include "serial_backend.hpp"

namespace lenet {

void add_serial_options(CLI::App& app, SerialOptions& o) {
  add_kernels_option(app, o.kernels);
}

std::unique_ptr<Backend> make_serial_backend(const SerialOptions& o, const Options& /*common*/) {
  return std::make_unique<SerialBackend>(o.kernels);
}

}  // namespace lenet
