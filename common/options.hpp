// The command line every executable shares (built on CLI11), and the hook through which a
// backend adds its own flags (--threads, --kernels, ...).
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

namespace lenet {

struct Options {
  std::string data_dir;
  int epochs = 1;
  int batch = 32;
  float lr = 0.5f;
  uint64_t seed = 1;
  int train_limit = 0;  // 0: the whole file
  int test_limit = 0;
  bool shuffle = true;
  std::string save_path;
  std::string load_path;
  std::string resume_path;  // continue an interrupted run from a LENETCK2 checkpoint
  int save_every = 0;       // write a LENETCK2 checkpoint to save_path every N steps
  std::string verify_path;  // compare the final parameters with this checkpoint
  bool identical = false;   // with verify_path: require the same bits, not only closeness
  std::string csv_path;
  bool timing = false;
  bool quiet = false;
};

// Adds the shared flags to `app`, bound to `opts`, with their defaults shown in --help.
void add_common_options(CLI::App& app, Options& opts);

// The part of them that says what to train on and how (--data, --epochs, --batch, --lr, --seed,
// the limits, --no-shuffle): all that the peers (peers/) take besides --csv and --quiet.
void add_training_options(CLI::App& app, Options& opts);

// Adds `--kernels` for the CPU kernels (ref, ...), default: the fastest built, and
// `--list-kernels` (add_list_kernels_option) for them.
void add_kernels_option(CLI::App& app, std::string& kernels);

// Thrown by the parse when `--list-kernels` is given, as CLI11 throws CallForHelp for --help:
// the caller prints `names`, one a line (for scripts: no --help to scrape), and exits 0.
struct KernelsListed {
  std::vector<std::string> names;
};

// Adds `--list-kernels`: print the kernels this build has, `names`, one a line, and exit.
void add_list_kernels_option(CLI::App& app, const std::vector<std::string>& names);

// Checks what CLI11's validators cannot (e.g. --lr nan); throws lenet::Error naming the flag.
void check_options(const Options& opts);

}  // namespace lenet
