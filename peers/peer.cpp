#include "peer.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>

#include "checkpoint.hpp"
#include "dataset.hpp"
#include "driver.hpp"
#include "error.hpp"
#include "options.hpp"
#include "report.hpp"
#include "rng.hpp"
#include "timer.hpp"

namespace lenet::peers {
namespace {

FloatSet to_floats(const Dataset& d) {
  FloatSet f;
  f.count = d.count;
  f.pixels.resize(d.pixels.size());
  for (size_t i = 0; i < d.pixels.size(); ++i)
    f.pixels[i] = static_cast<float>(d.pixels[i]) / 255.0f;  // the spec's division
  f.labels.assign(d.labels.begin(), d.labels.end());
  return f;
}

Dataset load(const std::string& dir, const char* prefix, int limit, const char* flag) {
  Dataset d = load_split(dir, prefix);
  apply_limit(d, limit, flag);
  return d;
}

int run(int argc, char** argv, const PeerSpec& spec) {
  Options o;
  int threads = 1;
  CLI::App app("Trains the network of docs/network.md as closely as " + spec.library +
                   " allows (differences: docs/performance.md#peers).",
               spec.program);
  add_training_options(app, o);
  app.add_option("--threads", threads, spec.threads_help)
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  app.add_option("--csv", o.csv_path, "append one row describing this run to a CSV file");
  app.add_flag("--quiet", o.quiet, "print only the summary block");
  try {
    app.parse(argc, argv);
    check_options(o);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return 0;
  } catch (const CLI::ParseError& e) {
    throw Error(e.what(), 2);
  } catch (const Error& e) {
    throw Error(e.what(), 2);
  }
  if (!o.csv_path.empty()) check_writable(o.csv_path, "--csv");

  RunResult r;
  r.opts = o;
  r.start = "seed init (the layers the library can hold)";
  const double t0 = now_seconds();
  const FloatSet train = to_floats(load(o.data_dir, "train", o.train_limit, "--train-limit"));
  const FloatSet test = to_floats(load(o.data_dir, "t10k", o.test_limit, "--test-limit"));
  r.load_seconds = now_seconds() - t0;
  r.train_images = train.count;
  r.test_images = test.count;

  std::unique_ptr<Peer> peer = spec.create(threads);
  peer->set_spec_params(init_params(o.seed));
  for (int epoch = 0; epoch < o.epochs; ++epoch) {
    peer->begin_epoch(train, epoch_order(o.seed, epoch, train.count, o.shuffle));
    const double start = now_seconds();
    const double loss_sum = peer->train_epoch(o.batch, o.lr);
    const double seconds = now_seconds() - start;
    r.train_seconds += seconds;
    r.images_trained += train.count;
    r.final_loss = loss_sum / train.count;
    if (!std::isfinite(loss_sum)) {
      throw Error("training diverged in epoch " + std::to_string(epoch + 1) +
                  " (loss not finite): try a smaller --lr");
    }
    if (!o.quiet) {
      std::printf("epoch %d/%d  train loss %.4f  %.3f s  %.0f img/s\n", epoch + 1, o.epochs,
                  r.final_loss, seconds, train.count / seconds);
      std::fflush(stdout);
    }
  }
  r.info = peer->info();
  r.eval = peer->evaluate(test);
  r.params = peer->params();
  r.why_not_verified = "not comparable bit for bit: another library's network";
  std::cout << summary_block(r);
  if (!o.csv_path.empty()) append_csv(o.csv_path, r);
  return 0;
}

}  // namespace

void score_logits(const float* z, int label, EvalResult& e) {
  const float* best = std::max_element(z, z + 10);  // the first of equal maxima
  double sum = 0;
  for (int k = 0; k < 10; ++k)
    sum += std::exp(static_cast<double>(z[k]) - *best);
  e.loss_sum += std::log(sum) - (static_cast<double>(z[label]) - *best);
  e.correct += (best - z) == label;
  e.count += 1;
}

void score_probabilities(const float* p, int label, EvalResult& e) {
  const float* best = std::max_element(p, p + 10);
  e.loss_sum += -std::log(static_cast<double>(p[label]));
  e.correct += (best - p) == label;
  e.count += 1;
}

int run_peer(int argc, char** argv, const PeerSpec& spec) {
  return exit_code_of(spec.program, [&] { return run(argc, argv, spec); });
}

}  // namespace lenet::peers
