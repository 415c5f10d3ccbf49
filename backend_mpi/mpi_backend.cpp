#include "mpi_backend.hpp"

#include <algorithm>
#include <cstdio>
#include <iterator>

#include "../common/cpu/evaluate.hpp"
#include "../common/error.hpp"
#include "../common/report.hpp"
#include "../common/share.hpp"
#include "mpi_comm.hpp"
#include "smpi_hooks.hpp"

namespace lenet {
namespace {

constexpr int kFieldCount = std::size(kLayerTimeFields);

// "Open MPI v4.1.4", "MPICH Version: 4.0.2": the library's version string up to its first comma
// or line end, each run of spaces and tabs one space (MPICH's has a tab), for the summary's line.
std::string library_version() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING];
  int length = 0;
  MPI_Get_library_version(text, &length);
  std::string line;
  for (const char c : std::string(text, length)) {
    if (c == ',' || c == '\n') break;
    const bool blank = c == ' ' || c == '\t';
    if (blank && (line.empty() || line.back() == ' ')) continue;
    line += blank ? ' ' : c;
  }
  if (!line.empty() && line.back() == ' ') line.pop_back();
  return line;
}

std::string format(const char* f, double x) {
  char text[64];
  std::snprintf(text, sizeof text, f, x);
  return text;
}

}  // namespace

MpiBackend::MpiBackend(const std::string& kernels, MpiStrategy strategy, int threads, MPI_Comm comm,
                       int hosts)
    : strategy_(strategy), threads_(threads), comm_(comm), hosts_(hosts), grad_(kParamCount + 1) {
  if (threads < 1) throw Error("--threads: must be at least 1, got " + std::to_string(threads), 2);
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &ranks_);
  workers_ = make_workers(kernels, threads);
  gather_counts_.resize(ranks_);
  gather_displs_.resize(ranks_);
  MPI_Type_contiguous(sizeof(ChunkSum), MPI_BYTE, &chunk_type_);
  MPI_Type_commit(&chunk_type_);
}

MpiBackend::~MpiBackend() {
  MPI_Type_free(&chunk_type_);
}

BackendInfo MpiBackend::info() const {
  BackendInfo b;
  b.name = "mpi";
  b.kernels = workers_[0].kernels->name();
  b.strategy = strategy_ == MpiStrategy::kExact ? "exact" : "allreduce";
  b.threads = threads_;
  b.ranks = ranks_;
  b.hosts = hosts_;
  b.extra.emplace_back("MPI library", library_version());
  b.extra.emplace_back(
      "Message per step",
      strategy_ == MpiStrategy::kExact
          ? "MPI_Allgatherv of the chunk sums, " + std::to_string(sizeof(ChunkSum)) +
                " B per 16 samples"
          : "MPI_Allreduce of " + std::to_string(grad_.size() * sizeof(float)) + " B");
  if (steps_ > 0 && slowest_compute_ > 0) {  // measured, and reduced by end_run()
    const double compute = slowest_compute_ / steps_, comm = slowest_.comm / steps_;
    b.extra.emplace_back("Compute per step (ms)", format("%.4f (slowest rank)", 1e3 * compute));
    b.extra.emplace_back("Comm per step (ms)", format("%.4f (slowest rank)", 1e3 * comm));
    b.extra.emplace_back("Comm / compute", format("%.3f", comm / compute));
    // Per step: a step that a rank missed was not shared by every rank. Summed over the ranks,
    // the misses count a step once per rank that missed it, so S is a lower bound, exact at 2
    // ranks (a step both missed would have trained nothing).
    const CallsShared steps{steps_, std::max(0LL, steps_ - steps_missed_total_)};
    b.extra.emplace_back("Samples computed", shared_out(samples_total_, ranks_, "rank",
                                                        samples_fewest_, samples_most_) +
                                                 steps.out("rank"));
    b.extra.emplace_back("Ranks agree", ranks_agree_
                                            ? "yes (the same parameter CRC-32 on every rank)"
                                            : "NO: the ranks' parameters differ");
  }
  return b;
}

void MpiBackend::end_run() {
  // NPB reports the slowest rank's times; and the ranks must hold the same bits.
  // Samples computed on this rank: each sample trained once, on one rank, is what makes the
  // ranks share the work (the lab kit checks it: a rank that computes the whole batch shows);
  // and the steps it missed (a whole batch on one rank, another each step, shows there).
  // The most and the fewest ride on the MAX below (max(-x) = -min(x), exact in a double).
  const long long samples = samples_here();
  const LayerTimes mine = rank_times();
  double v[kFieldCount + 3];
  for (int i = 0; i < kFieldCount; ++i)
    v[i] = mine.*kLayerTimeFields[i].seconds;
  v[kFieldCount] = compute_seconds_;
  v[kFieldCount + 1] = static_cast<double>(samples);
  v[kFieldCount + 2] = -static_cast<double>(samples);
  MPI_Allreduce(MPI_IN_PLACE, v, kFieldCount + 3, MPI_DOUBLE, MPI_MAX, comm_);
  for (int i = 0; i < kFieldCount; ++i)
    slowest_.*kLayerTimeFields[i].seconds = v[i];
  slowest_compute_ = v[kFieldCount];
  samples_most_ = static_cast<long long>(v[kFieldCount + 1]);
  samples_fewest_ = -static_cast<long long>(v[kFieldCount + 2]);
  long long sums[2] = {samples, steps_missed_};
  MPI_Allreduce(MPI_IN_PLACE, sums, 2, MPI_LONG_LONG, MPI_SUM, comm_);
  samples_total_ = sums[0];
  steps_missed_total_ = sums[1];
  ranks_agree_ =
      first_disagreement({{"the parameters", std::to_string(param_crc32(params_))}}, comm_).empty();
}

void MpiBackend::bind_data(const Dataset& train, const Dataset& test) {
  // Each node loaded the data once for its ranks (MpiComm::load), each rank given another
  // --data folder its own. Ranks with other images (a stale copy on one node of a
  // cluster) would train apart in silence, and other counts would hang the collectives: stop.
  const auto identity = [](const Dataset& d) {
    char text[64];
    std::snprintf(text, sizeof text, "%d images, CRC-32 %08x", d.count, dataset_crc(d));
    return std::string(text);
  };
  const std::string disagreement = first_disagreement(
      {{"the training set", identity(train)}, {"the test set", identity(test)}}, comm_);
  if (!disagreement.empty()) {
    throw Error(rank_ == 0 ? "the ranks loaded different data: " + disagreement +
                                 " (is --data the same files on every node?)"
                           : "");  // every rank stops; rank 0 says why
  }
  train_ = &train;
  test_ = &test;
}

void MpiBackend::begin_epoch(const std::vector<int32_t>& order) {
  order_ = order;
  loss_sum_ = 0;
  // The driver starts the epoch's clock next: start every rank's together, so that no rank
  // counts the time it waits for a late one (still loading, say) as communication.
  MPI_Barrier(comm_);
}

void MpiBackend::train_batch(int first, int count, float lr) {
  const long long before = samples_here();
  const double t0 = MPI_Wtime();
  const double comm = strategy_ == MpiStrategy::kExact ? train_exact(first, count, lr)
                                                       : train_allreduce(first, count, lr);
  times_.comm += comm;
  compute_seconds_ += MPI_Wtime() - t0 - comm;
  ++steps_;
  steps_missed_ += count >= ranks_ && samples_here() == before;
}

long long MpiBackend::samples_here() const {
  long long samples = 0;
  for (const Worker& w : workers_)
    samples += w.samples;
  return samples;
}

void MpiBackend::reserve_chunks(int n) {
  if (n > static_cast<int>(chunks_.size())) chunks_.resize(n);
}

int MpiBackend::compute_chunks(int lo, int hi, int batch, ChunkSum* out) {
  smpi_charge_compute(hi - lo);  // the simulated clock's share (SMPI build only)
  if (hi <= lo) return 0;
  // This rank's threads share the chunks; the master thread alone needs no parallel region.
  const auto compute = [&] {
    return chunk_sums(workers_, params_.data(), *train_, order_, lo, hi, batch, out, timing_);
  };
  if (threads_ == 1) return compute();
#pragma omp parallel num_threads(threads_)
  compute();
  return (hi - lo + kChunk - 1) / kChunk;
}

LayerTimes MpiBackend::rank_times() const {
  // The threads wait for the slowest of them at the end of each parallel loop.
  LayerTimes t = times_;
  t += slowest_times(workers_, threads_);
  return t;
}

EvalResult MpiBackend::evaluate() {
  // Each rank a contiguous slice of the test set, its threads chunks of that
  // (common/cpu/evaluate.hpp); every rank then gathers every image's loss and adds them all in
  // image order, as lenet-serial does: the same bits for every rank and thread count. The
  // correct counts add exactly.
  const Range mine = share(test_->count, ranks_, rank_);
  test_losses_.resize(test_->count);
  long long correct = test_losses(kernels_of(workers_), params_.data(), *test_, mine, test_losses_);
  std::vector<int> counts(ranks_), displs(ranks_);
  for (int r = 0; r < ranks_; ++r) {
    const Range theirs = share(test_->count, ranks_, r);
    counts[r] = theirs.size();
    displs[r] = theirs.begin;
  }
  MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, test_losses_.data(), counts.data(),
                 displs.data(), MPI_FLOAT, comm_);
  MPI_Allreduce(MPI_IN_PLACE, &correct, 1, MPI_LONG_LONG, MPI_SUM, comm_);
  return eval_result(test_losses_, correct);
}

}  // namespace lenet
