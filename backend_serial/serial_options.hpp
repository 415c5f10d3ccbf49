// lenet-serial's own flags: the shared --kernels, and nothing else (the reference has no
// parallel part to configure).
#pragma once

#include <memory>
#include <string>

#include "../common/backend.hpp"
#include "../common/options.hpp"

namespace lenet {

struct SerialOptions {
  std::string kernels;  // --kernels
};

void add_serial_options(CLI::App& app, SerialOptions& o);

// Throws lenet::Error (exit code 2) for unknown kernels.
std::unique_ptr<Backend> make_serial_backend(const SerialOptions& o, const Options& common);

}  // namespace lenet
