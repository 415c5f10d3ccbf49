// The shared training driver: every executable's main() is a few lines that hand it a
// BackendSpec. It parses the command line, loads data, runs the epochs, evaluates, prints the
// summary block and writes the reports, the same way for every backend.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "backend.hpp"
#include "options.hpp"

namespace lenet {

// The processes taking part in a run: one, except for MPI, which passes its own.
class Comm {
 public:
  virtual ~Comm() = default;
  virtual int rank() const { return 0; }
  virtual int size() const { return 1; }
  // Collective: the lowest rank whose `ok` is false, or -1 when every rank is ok. Lets all
  // ranks leave together after an error that only some of them hit, printed once.
  virtual int first_failure(bool ok) { return ok ? -1 : 0; }
};

struct BackendSpec {
  std::string program;                         // e.g. "lenet-serial"
  std::function<void(CLI::App&)> add_options;  // the backend's own flags, may be empty
  std::function<std::unique_ptr<Backend>(const Options&)> create;
  Comm* comm = nullptr;  // null: a single process
};

// Runs the whole program; returns the process exit code (0 ok, 1 error or failed verification,
// 2 bad command line or no device, 3 training diverged).
int run_driver(int argc, char** argv, const BackendSpec& spec);

// Runs `body` and returns its exit code; an exception becomes one line on stderr, "PROGRAM:
// error: ...", and its exit code (lenet::Error's own, else 1). run_driver and the peers use it.
int exit_code_of(const std::string& program, const std::function<int()>& body);

}  // namespace lenet
