// The shared training driver: every executable's main() is a few lines that hand it a
// BackendSpec. It parses the command line, loads data, runs the epochs, evaluates, prints the
// summary block and writes the reports, the same way for every backend.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "backend.hpp"
#include "dataset.hpp"
#include "options.hpp"

namespace lenet {

// Flags as (name, value as text) pairs, e.g. {"--batch", "32"}.
using OptionValues = std::vector<std::pair<std::string, std::string>>;

// The processes taking part in a run: one, except for MPI, which passes its own.
class Comm {
 public:
  virtual ~Comm() = default;
  virtual int rank() const { return 0; }
  virtual int size() const { return 1; }
  // Collective: the lowest rank whose `ok` is false, or -1 when every rank is ok. Lets all
  // ranks leave together after an error that only some of them hit, printed once.
  virtual int first_failure(bool ok) { return ok ? -1 : 0; }
  // Collective: the first of `options` whose value on some rank differs from rank 0's, as
  // "--batch: 32 on rank 0, 64 on rank 1" (on rank 0; other ranks may get any non-empty text),
  // or "" when every rank has the same values. `options` names the same flags on every rank.
  virtual std::string first_disagreement(const OptionValues& /*options*/) { return ""; }
  // `prefix` ("train" or "t10k") of the data in dir (load_split). MPI reads it once per node and
  // shares it with the node's other ranks: collective there (every rank calls it, then
  // first_failure), and every rank that shares a read throws when its reader failed.
  virtual Dataset load(const std::string& dir, const std::string& prefix) {
    return load_split(dir, prefix);
  }
  // Who read the data files, for the summary block ("" where one process did).
  virtual std::string data_readers() const { return ""; }
};

struct BackendSpec {
  std::string program;                         // e.g. "lenet-serial"
  std::function<void(CLI::App&)> add_options;  // the backend's own flags, may be empty
  // The backend's own flags that every rank must be given alike (MPI: --kernels, --exact).
  std::function<OptionValues()> must_match;
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
