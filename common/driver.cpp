#include "driver.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <iostream>

#include "checkpoint.hpp"
#include "error.hpp"
#include "network.hpp"
#include "report.hpp"
#include "rng.hpp"

namespace lenet {
namespace {

// A one-line progress bar on stderr, redrawn at most 4 times a second, only on a terminal.
class Progress {
 public:
  explicit Progress(bool enabled) : enabled_(enabled && isatty(STDERR_FILENO)) {}

  // True when it is time to redraw (reading the loss may synchronise a device: ask first).
  bool due() {
    if (!enabled_) return false;
    const double now = now_seconds();
    if (now - last_ < 0.25) return false;
    last_ = now;
    return true;
  }

  void update(int epoch, int epochs, int done, int total, double loss_mean, double t0) {
    const double now = now_seconds();
    const int width = 30;
    const int filled = total ? width * done / total : width;
    std::fprintf(stderr, "\r epoch %d/%d [%-*s] %3d%%  loss %.4f  %.0f img/s ", epoch + 1, epochs,
                 width, std::string(filled, '#').c_str(), total ? 100 * done / total : 100,
                 loss_mean, done / std::max(now - t0, 1e-9));
    std::fflush(stderr);
  }
  void clear() {
    if (enabled_) std::fprintf(stderr, "\r%*s\r", 80, "");
  }

 private:
  bool enabled_;
  double last_ = 0;
};

// Runs one phase on every rank; if it fails anywhere, the lowest failing rank prints its error
// and every rank throws, so they all exit together instead of waiting for each other.
template <class F>
void collective(Comm& comm, F&& phase) {
  std::string message;
  int code = 1;
  try {
    phase();
  } catch (const Error& e) {
    message = e.what();
    code = e.exit_code();
  } catch (const std::bad_alloc&) {
    message = "out of memory";
  }
  const int failed = comm.first_failure(message.empty());
  if (failed < 0) return;
  if (failed == comm.rank()) throw Error(message, code);
  throw Error("", code);  // another rank printed the reason
}

// Fills r's verification fields from the final parameters and the reference checkpoint.
void verify_params(RunResult& r, const std::vector<float>& want) {
  const std::vector<float>& got = r.params;
  bool identical = true;
  double max_abs = 0, max_ref = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (got[i] != want[i]) identical = false;
    max_abs = std::max(max_abs, std::fabs(double(got[i]) - want[i]));
    max_ref = std::max(max_ref, std::fabs(double(want[i])));
  }
  const double max_rel = max_ref > 0 ? max_abs / max_ref : max_abs;
  char buf[128];
  std::snprintf(buf, sizeof buf, " (%s, max |diff| %.3g = %.3g of max |param|)",
                identical ? "bit-identical" : "not bit-identical", max_abs, max_rel);
  r.verification_detail = buf;
  r.max_abs_diff = max_abs;
  r.bit_identical = identical;
  // Tolerance-equal backends (MPI fast mode, CUDA) stay well inside 1e-4 of the largest
  // parameter after an epoch; docs/network.md lists which backends are bit-identical.
  r.verification = max_rel <= 1e-4 ? "SUCCESSFUL" : "UNSUCCESSFUL";
}

int run(int argc, char** argv, const BackendSpec& spec, Comm& comm) {
  const bool root = comm.rank() == 0;
  Options opts;
  CLI::App app(
      "Trains the LeNet-style network of docs/network.md with the " + spec.program + " backend.",
      spec.program);
  add_common_options(app, opts);
  if (spec.add_options) spec.add_options(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    if (root) std::cout << app.help();
    return 0;
  } catch (const CLI::ParseError& e) {
    throw Error(e.what(), 2);  // the same argv on every rank: every rank fails alike
  }
  try {
    check_options(opts);
  } catch (const Error& e) {
    throw Error(e.what(), 2);
  }
  const bool say = root && !opts.quiet;

  // Data, the backend and the starting parameters: any rank may fail here.
  RunResult result;
  result.opts = opts;
  Dataset train, test;
  std::unique_ptr<Backend> backend;
  std::vector<float> params;
  collective(comm, [&] {
    const double t0 = now_seconds();
    train = load_split(opts.data_dir, "train");
    test = load_split(opts.data_dir, "t10k");
    for (auto [d, limit, flag] : {std::tuple{&train, opts.train_limit, "--train-limit"},
                                  std::tuple{&test, opts.test_limit, "--test-limit"}}) {
      if (limit > d->count) {
        throw Error(std::string(flag) + ": " + std::to_string(limit) + " is more than the " +
                        std::to_string(d->count) + " images in " + d->images_path,
                    2);
      }
      if (limit > 0) truncate(*d, limit);
    }
    result.load_seconds = now_seconds() - t0;
    params = opts.load_path.empty() ? init_params(opts.seed) : load_checkpoint(opts.load_path);
    backend = spec.create(opts);
  });
  result.train_images = train.count;
  result.test_images = test.count;
  result.info = backend->info();
  if (say) {
    std::printf("%s: %s, %d train / %d test images from %s, load %.2f s\n", spec.program.c_str(),
                result.info.kernels.c_str(), train.count, test.count, opts.data_dir.c_str(),
                result.load_seconds);
  }

  backend->bind_data(train, test);
  backend->set_params(params);
  backend->set_timing(opts.timing);

  Progress progress(say);
  for (int epoch = 0; epoch < opts.epochs; ++epoch) {
    backend->begin_epoch(epoch_order(opts.seed, epoch, train.count, opts.shuffle));
    const double t0 = now_seconds();
    for (int first = 0; first < train.count; first += opts.batch) {
      const int count = std::min(opts.batch, train.count - first);
      backend->train_batch(first, count, opts.lr);
      if (progress.due()) {
        progress.update(epoch, opts.epochs, first + count, train.count,
                        backend->epoch_loss_sum() / (first + count), t0);
      }
    }
    const double seconds = now_seconds() - t0;
    result.train_seconds += seconds;
    progress.clear();
    result.final_loss = backend->epoch_loss_sum() / train.count;
    if (!std::isfinite(result.final_loss)) {
      throw Error("training diverged in epoch " + std::to_string(epoch + 1) +
                      ": the loss is not finite (try a smaller --lr)",
                  3);
    }
    if (!opts.quiet) {
      const EvalResult e = backend->evaluate();  // collective for MPI: every rank calls it
      if (root)
        std::printf("epoch %d/%d  train loss %.4f  test acc %.2f%%  %.3f s  %.0f img/s\n",
                    epoch + 1, opts.epochs, result.final_loss,
                    100.0 * e.correct / std::max(1LL, e.count), seconds, train.count / seconds);
      std::fflush(stdout);
    }
  }

  result.params = backend->get_params();
  result.times = backend->times();
  result.eval = backend->evaluate();
  if (!opts.verify_path.empty()) {
    collective(comm, [&] { verify_params(result, load_checkpoint(opts.verify_path)); });
  }
  if (root) {
    if (opts.timing) std::printf("%s", timing_table(result.times, opts.epochs).c_str());
    std::printf("%s", summary_block(result).c_str());
    std::fflush(stdout);
  }
  collective(comm, [&] {
    if (!root) return;
    if (!opts.save_path.empty()) save_checkpoint(opts.save_path, result.params);
    if (!opts.csv_path.empty()) append_csv(opts.csv_path, result);
  });
  return result.verification == "UNSUCCESSFUL" ? 1 : 0;
}

}  // namespace

int run_driver(int argc, char** argv, const BackendSpec& spec) {
  Comm single;
  Comm& comm = spec.comm ? *spec.comm : single;
  try {
    return run(argc, argv, spec, comm);
  } catch (const Error& e) {
    if (*e.what()) std::fprintf(stderr, "%s: error: %s\n", spec.program.c_str(), e.what());
    return e.exit_code();
  }
}

}  // namespace lenet
