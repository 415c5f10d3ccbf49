#include "driver.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <iostream>

#include "checkpoint.hpp"
#include "error.hpp"
#include "huge_pages.hpp"
#include "network.hpp"
#include "progress.hpp"
#include "report.hpp"
#include "rng.hpp"
#include "verify.hpp"

namespace lenet {
namespace {

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
  } catch (const std::exception& e) {
    message = std::string("unexpected error: ") + e.what();
  }
  const int failed = comm.first_failure(message.empty());
  if (failed < 0) return;
  if (failed == comm.rank()) throw Error(message, code);
  throw Error("", code);  // another rank printed the reason
}

// Refuses to resume a run with other data or options than it was started with.
void check_resumable(const TrainingPosition& p, const Options& o, const Dataset& train,
                     uint32_t train_crc) {
  auto mismatch = [&](const std::string& what) {
    throw Error("--resume: " + o.resume_path + " was written with another " + what, 2);
  };
  if (p.seed != o.seed) mismatch("--seed (" + std::to_string(p.seed) + ")");
  if (p.batch != static_cast<uint32_t>(o.batch)) {
    mismatch("--batch (" + std::to_string(p.batch) + ")");
  }
  if (p.lr != o.lr) mismatch("--lr (" + std::to_string(p.lr) + ")");
  if ((p.shuffle != 0) != o.shuffle) mismatch("shuffle setting (--no-shuffle)");
  if (p.train_count != static_cast<uint32_t>(train.count) || p.train_crc != train_crc) {
    mismatch("training set (" + std::to_string(p.train_count) + " images, CRC " +
             std::to_string(p.train_crc) + ")");
  }
  if (p.epoch > static_cast<uint32_t>(o.epochs)) {
    mismatch("--epochs (it is already in epoch " + std::to_string(p.epoch + 1) + ")");
  }
}

// The shortest text that reads back as `x`: 0.1, not 0.100000001.
std::string text_of(float x) {
  char text[32];
  return std::string(text, std::to_chars(text, text + sizeof text, x).ptr);
}

std::string given(bool flag) {
  return flag ? "given" : "not given";
}

// A checkpoint named on the command line; its errors name the flag too.
Checkpoint read_input(const std::string& path, const std::string& flag) {
  try {
    return read_checkpoint(path);
  } catch (const Error& e) {
    throw Error(flag + ": " + e.what(), e.exit_code());
  }
}

// One execution of an executable: parse, set up, train, report.
class Run {
 public:
  Run(const BackendSpec& spec, Comm& comm) : spec_(spec), comm_(comm), root_(comm.rank() == 0) {}

  int main(int argc, char** argv) {
    if (!parse(argc, argv)) return 0;
    set_up();
    train();
    return finish();
  }

 private:
  // Returns false when --help was printed.
  bool parse(int argc, char** argv) {
    CLI::App app(
        "Trains the LeNet-style network of docs/network.md with the " + spec_.program + " backend.",
        spec_.program);
    add_common_options(app, opts_);
    if (spec_.add_options) spec_.add_options(app);
    bool help = false;
    std::vector<std::string> listed;  // --list-kernels
    // Collective, so that a bad flag (the same on every rank) is printed once, not once a rank.
    collective(comm_, [&] {
      try {
        app.parse(argc, argv);
        check_options(opts_);
      } catch (const CLI::CallForHelp&) {
        help = true;
      } catch (const KernelsListed& l) {
        help = true;
        listed = l.names;
      } catch (const CLI::ParseError& e) {
        throw Error(e.what(), 2);
      } catch (const Error& e) {
        throw Error(e.what(), 2);
      }
    });
    check_ranks_agree(help);
    if (help) {
      if (root_ && listed.empty()) std::cout << app.help();
      if (root_) {
        for (const std::string& name : listed) {
          std::cout << name << '\n';
        }
      }
      return false;
    }
    result_.opts = opts_;
    say_ = root_ && !opts_.quiet;
    return true;
  }

  // Ranks given other options than rank 0's (an MPMD launch, a script that differs per node)
  // would wait in different collectives or train apart: stop them all, before any work.
  // --data may differ (the backend compares the data loaded); --save, --csv and --verify are
  // rank 0's alone.
  void check_ranks_agree(bool help) {
    OptionValues options = {{"--help", given(help)},
                            {"--epochs", std::to_string(opts_.epochs)},
                            {"--batch", std::to_string(opts_.batch)},
                            {"--lr", text_of(opts_.lr)},
                            {"--seed", std::to_string(opts_.seed)},
                            {"--train-limit", std::to_string(opts_.train_limit)},
                            {"--test-limit", std::to_string(opts_.test_limit)},
                            {"--no-shuffle", given(!opts_.shuffle)},
                            {"--load", opts_.load_path},
                            {"--resume", opts_.resume_path},
                            {"--save-every", std::to_string(opts_.save_every)},
                            {"--quiet", given(opts_.quiet)}};  // evaluating is collective
    if (spec_.must_match) {
      for (auto& option : spec_.must_match())
        options.push_back(option);
    }
    const std::string disagreement = comm_.first_disagreement(options);
    if (disagreement.empty()) return;
    throw Error(root_ ? "the ranks disagree on " + disagreement +
                            " (every rank must be given the same options)"
                      : "",  // every rank stops; rank 0 says why
                1);
  }

  // Data, the backend and the starting point: any rank may fail here.
  void set_up() {
    // Every file named on the command line first, before any work: a typo in a path or a
    // reference checkpoint that does not exist yet must not cost the whole run. Only rank 0
    // writes the outputs and verifies, so only rank 0 checks them and reads --verify's file;
    // collective() tells every rank when it failed.
    collective(comm_, [&] {
      if (!root_) return;
      if (!opts_.save_path.empty()) check_writable(opts_.save_path, "--save");
      if (!opts_.csv_path.empty()) check_writable(opts_.csv_path, "--csv");
      if (!opts_.verify_path.empty()) reference_ = read_input(opts_.verify_path, "--verify").params;
    });
    // Each file set in a phase of its own: loading is collective for MPI (a node's ranks share
    // one read), so every rank must learn of a failure before the next load.
    const double t0 = now_seconds();
    collective(comm_, [&] { train_ = comm_.load(opts_.data_dir, "train"); });
    collective(comm_, [&] { test_ = comm_.load(opts_.data_dir, "t10k"); });
    collective(comm_, [&] {
      apply_limit(train_, opts_.train_limit, "--train-limit");
      apply_limit(test_, opts_.test_limit, "--test-limit");
    });
    result_.load_seconds = now_seconds() - t0;
    std::vector<float> params;
    collective(comm_, [&] {
      Checkpoint ck;
      if (!opts_.resume_path.empty()) {
        ck = read_input(opts_.resume_path, "--resume");
        if (!ck.position) {
          throw Error("--resume: " + opts_.resume_path +
                          " holds no training position (a LENETCK1 file: use --load)",
                      2);
        }
      } else if (!opts_.load_path.empty()) {
        ck = read_input(opts_.load_path, "--load");
      }
      result_.start = "seed init";
      if (opts_.save_every > 0 || !opts_.resume_path.empty()) train_crc_ = dataset_crc(train_);
      if (!opts_.resume_path.empty()) {
        check_resumable(*ck.position, opts_, train_, train_crc_);
        start_ = *ck.position;
        params = std::move(ck.params);
        result_.start = "resumed from " + opts_.resume_path + " (epoch " +
                        std::to_string(start_.epoch + 1) + ", step " + std::to_string(start_.step) +
                        ")";
      } else if (!opts_.load_path.empty()) {
        params = std::move(ck.params);
        result_.start = "checkpoint " + opts_.load_path;
      } else {
        params = init_params(opts_.seed);
      }
      backend_ = spec_.create(opts_);
    });
    result_.train_images = train_.count;
    result_.test_images = test_.count;
    read_info();
    if (say_) {
      std::printf("%s: %s, %d train / %d test images from %s, load %.2f s%s\n",
                  spec_.program.c_str(), result_.info.kernels.c_str(), train_.count, test_.count,
                  opts_.data_dir.c_str(), result_.load_seconds,
                  opts_.resume_path.empty() ? "" : resume_note().c_str());
    }
    backend_->bind_data(train_, test_);
    backend_->set_params(params);
    backend_->set_timing(opts_.timing);
  }

  std::string resume_note() const {
    return ", resuming epoch " + std::to_string(start_.epoch + 1) + " at step " +
           std::to_string(start_.step);
  }

  void train() {
    Progress progress(say_);
    const int steps_per_epoch = (train_.count + opts_.batch - 1) / opts_.batch;
    const int check_every = std::max(1, backend_->loss_check_interval());
    for (int epoch = static_cast<int>(start_.epoch); epoch < opts_.epochs; ++epoch) {
      const bool resumed = epoch == static_cast<int>(start_.epoch);
      const int first_step = resumed ? static_cast<int>(start_.step) : 0;
      loss_offset_ = resumed ? start_.loss_sum : 0.0;  // what the interrupted run had summed
      backend_->begin_epoch(epoch_order(opts_.seed, epoch, train_.count, opts_.shuffle));
      double t0 = now_seconds(), saving = 0;
      for (int step = first_step; step < steps_per_epoch; ++step) {
        const int first = step * opts_.batch;
        const int count = std::min(opts_.batch, train_.count - first);
        backend_->train_batch(first, count, opts_.lr);
        result_.images_trained += count;
        if ((step + 1) % check_every == 0 && !std::isfinite(backend_->epoch_loss_sum())) {
          diverged(epoch, step + 1);
        }
        if (opts_.save_every > 0 && (epoch * steps_per_epoch + step + 1) % opts_.save_every == 0) {
          const double s0 = now_seconds();
          save_position(epoch, step + 1);
          saving += now_seconds() - s0;  // checkpoints are not training time
        }
        if (progress.due()) {
          progress.update(epoch, opts_.epochs, first + count, train_.count,
                          epoch_loss() / (first + count), t0 + saving);
        }
      }
      // Reading the loss waits for a device to finish the epoch's queued steps: before the
      // clock, so that the time covers all of them.
      const double loss_sum = epoch_loss();
      const double seconds = now_seconds() - t0 - saving;
      result_.train_seconds += seconds;
      progress.clear();
      if (!std::isfinite(loss_sum)) diverged(epoch, steps_per_epoch);
      result_.final_loss = loss_sum / train_.count;
      if (!opts_.quiet) {
        const EvalResult e = backend_->evaluate();  // collective for MPI: every rank calls it
        if (root_) {
          std::printf("epoch %d/%d  train loss %.4f  test acc %.2f%%  %.3f s  %.0f img/s\n",
                      epoch + 1, opts_.epochs, result_.final_loss,
                      100.0 * e.correct / std::max(1LL, e.count), seconds, train_.count / seconds);
          std::fflush(stdout);
        }
      }
    }
  }

  double epoch_loss() { return loss_offset_ + backend_->epoch_loss_sum(); }

  // Every rank sees the same (reduced) loss, so every rank stops here; rank 0 says why. The
  // --save file is left as the last good checkpoint.
  [[noreturn]] void diverged(int epoch, int step) {
    throw Error(root_
                    ? "training diverged in epoch " + std::to_string(epoch + 1) + " at step " +
                          std::to_string(step) + ": the loss is not finite (try a smaller --lr); " +
                          (opts_.save_path.empty() ? std::string("nothing saved")
                                                   : opts_.save_path + " left as it was")
                    : "",
                3);
  }

  TrainingPosition position(int epoch, int step) {
    TrainingPosition p;
    p.epoch = epoch, p.step = step, p.seed = opts_.seed, p.batch = opts_.batch, p.lr = opts_.lr;
    p.shuffle = opts_.shuffle, p.train_count = train_.count, p.train_crc = train_crc_;
    p.loss_sum = epoch_loss();
    return p;
  }

  void save_position(int epoch, int step) {
    const std::vector<float> params = backend_->get_params();
    const TrainingPosition p = position(epoch, step);
    collective(comm_, [&] {
      if (root_) save_checkpoint(opts_.save_path, params, p);
    });
  }

  // The backend's description for the summary, and who read the data.
  void read_info() {
    result_.info = backend_->info();
    if (const std::string readers = comm_.data_readers(); !readers.empty())
      result_.info.extra.emplace_back("Data read by", readers);
  }

  int finish() {
    backend_->end_run();  // every rank: collective for MPI
    result_.params = backend_->get_params();
    result_.times = backend_->times();
    // Again, now that the run is over: what the backend measured during it (MPI's compute and
    // communication per step, whether the ranks agree) is in the info only now.
    read_info();
    result_.eval = backend_->evaluate();
    bool verified = true;
    if (!opts_.verify_path.empty()) {
      collective(comm_, [&] {
        if (root_) {
          result_.verification = verify_params(result_.params, reference_, opts_.identical);
        }
      });
      if (say_) print_verification(*result_.verification);
      // Rank 0 compared; every rank exits with its verdict.
      verified = comm_.first_failure(!root_ || result_.verification->successful()) < 0;
    }
    if (root_) {
      if (opts_.timing && !opts_.quiet) {
        std::printf("%s", timing_table(result_.times, result_.epochs_trained()).c_str());
        // Whether the kernel gave the pixels huge pages (never in lenet-mpi's shared window).
        std::printf(" training pixels on 2 MiB pages: %.0f%%\n",
                    100 * huge_page_share(train_.pixels.data(), train_.pixels.size()));
      }
      std::printf("%s", summary_block(result_).c_str());
      std::fflush(stdout);
    }
    collective(comm_, [&] {
      if (!root_) return;
      if (!opts_.save_path.empty()) {
        // A resumable run ends with a resumable file (position: the end of the last epoch).
        if (opts_.save_every > 0) {
          TrainingPosition end = position(opts_.epochs, 0);
          end.loss_sum = 0;
          save_checkpoint(opts_.save_path, result_.params, end);
        } else {
          save_checkpoint(opts_.save_path, result_.params);
        }
      }
      if (!opts_.csv_path.empty()) append_csv(opts_.csv_path, result_);
    });
    return verified ? 0 : 1;
  }

  // One line per tensor, as the tests print them: which tensor is how close.
  void print_verification(const Verification& v) const {
    std::printf(
        "\nVerification against %s (tolerance per tensor: %.0e x max|ref| + %.0e x |ref|%s)\n",
        opts_.verify_path.c_str(), kVerifyAtolScale, kVerifyRtol,
        opts_.identical ? "; --identical: bits must match" : "");
    for (const TensorComparison& t : v.tensors) {
      const char* verdict = t.c.identical()                    ? "identical"
                            : opts_.identical || !t.c.passed() ? "DIFFERS"
                                                               : "close";
      std::printf("  %-3s %-9s %s\n", t.name.c_str(), verdict, describe(t.c).c_str());
    }
  }

  const BackendSpec& spec_;
  Comm& comm_;
  const bool root_;
  bool say_ = false;
  Options opts_;
  RunResult result_;
  Dataset train_, test_;
  uint32_t train_crc_ = 0;
  std::unique_ptr<Backend> backend_;
  std::vector<float> reference_;  // --verify's parameters, read at start-up on rank 0
  TrainingPosition start_;        // epoch 0, step 0 unless --resume
  double loss_offset_ = 0;        // the resumed epoch's loss sum before the restart
};

}  // namespace

int exit_code_of(const std::string& program, const std::function<int()>& body) {
  try {
    return body();
  } catch (const Error& e) {
    if (*e.what()) std::fprintf(stderr, "%s: error: %s\n", program.c_str(), e.what());
    return e.exit_code();
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "%s: error: out of memory\n", program.c_str());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: unexpected error: %s\n", program.c_str(), e.what());
    return 1;
  }
}

int run_driver(int argc, char** argv, const BackendSpec& spec) {
  Comm single;
  Comm& comm = spec.comm ? *spec.comm : single;
  return exit_code_of(spec.program, [&] { return Run(spec, comm).main(argc, argv); });
}

}  // namespace lenet
