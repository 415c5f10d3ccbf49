#include "options.hpp"

#include <cmath>

#include "error.hpp"
#include "kernels_registry.hpp"

namespace lenet {

void add_training_options(CLI::App& app, Options& o) {
  app.add_option("--data", o.data_dir,
                 "directory with train-/t10k- images and labels in IDX format (plain or .gz)")
      ->required();
  app.add_option("--epochs", o.epochs, "passes over the training set (0: only evaluate)")
      ->check(CLI::Range(0, 1000000))
      ->capture_default_str();
  app.add_option("--batch", o.batch, "mini-batch size B")
      ->check(CLI::Range(1, 1 << 30))
      ->capture_default_str();
  app.add_option("--lr", o.lr, "learning rate")->capture_default_str();
  app.add_option("--seed", o.seed, "seed of the initial parameters and the epoch order")
      ->capture_default_str();
  app.add_option("--train-limit", o.train_limit, "use the first N training images (0: all)")
      ->check(CLI::Range(0, 1 << 30))
      ->capture_default_str();
  app.add_option("--test-limit", o.test_limit, "use the first N test images (0: all)")
      ->check(CLI::Range(0, 1 << 30))
      ->capture_default_str();
  app.add_flag_function(
      "--no-shuffle", [&o](std::int64_t) { o.shuffle = false; },
      "visit the training images in file order");
}

void add_common_options(CLI::App& app, Options& o) {
  add_training_options(app, o);
  app.add_option("--save", o.save_path, "write the final parameters to this checkpoint");
  app.add_option("--load", o.load_path, "start from this checkpoint instead of the seed's init");
  app.add_option("--save-every", o.save_every,
                 "every N steps, write a resumable (LENETCK2) checkpoint to the --save path")
      ->check(CLI::Range(1, 1 << 30));
  app.add_option("--resume", o.resume_path,
                 "continue the interrupted run whose --save-every checkpoint this is");
  app.add_option("--verify", o.verify_path,
                 "compare the final parameters with this checkpoint (e.g. serial's), tensor by "
                 "tensor within float32 rounding; exit 1 if they differ more");
  app.add_flag("--identical", o.identical,
               "with --verify: require bit-identical parameters (the CPU backends at the same "
               "--kernels, built by the same compiler; MPI only with --exact)");
  app.add_option("--csv", o.csv_path, "append one row describing this run to a CSV file");
  app.add_flag("--timing", o.timing, "time each layer's forward and backward pass");
  app.add_flag("--quiet", o.quiet, "print only the summary block");
}

void add_kernels_option(CLI::App& app, std::string& kernels) {
  const auto built = available_kernels();
  kernels = built.back();  // the registry lists the default last
  app.add_option("--kernels", kernels, "the layer kernels (docs/performance.md)")
      ->check(CLI::IsMember(built))
      ->capture_default_str();
  add_list_kernels_option(app, built);
}

void add_list_kernels_option(CLI::App& app, const std::vector<std::string>& names) {
  // A callback, run before CLI11 checks for the required --data, like --help.
  app.add_flag_callback(
      "--list-kernels", [names] { throw KernelsListed{names}; },
      "print the --kernels values this build has, one a line, and exit (for scripts)");
}

void check_options(const Options& o) {
  // CLI11 demands the flag; this catches --data "".
  if (o.data_dir.empty()) throw Error("--data: required (a directory of MNIST IDX files)");
  if (o.save_every > 0 && o.save_path.empty()) {
    throw Error("--save-every: needs --save FILE to write to");
  }
  if (!o.resume_path.empty() && !o.load_path.empty()) {
    throw Error("--resume: cannot be combined with --load (a resumed run starts where it stopped)");
  }
  if (o.identical && o.verify_path.empty()) {
    throw Error("--identical: needs --verify FILE (the checkpoint to match bit for bit)");
  }
  if (!std::isfinite(o.lr) || o.lr <= 0) {
    throw Error("--lr: must be a finite number > 0, got " + std::to_string(o.lr));
  }
}

}  // namespace lenet
