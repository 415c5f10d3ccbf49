// The MPI backend: data-parallel synchronous SGD. Every rank loads the data, holds the same
// parameters and follows the same epoch order; each mini-batch is shared among the P ranks, and
// one collective per step gives every rank the whole batch's gradient, so every rank applies
// the same update (docs/strategies.md). Two modes:
//   allreduce (default): each rank sums a contiguous slice of the batch; one MPI_Allreduce of
//              2343 + 1 floats adds the slices. Equal to lenet-serial within float32 rounding.
//   exact (--exact):     the batch's 16-sample chunks are shared among the ranks; one
//              MPI_Allgatherv gives every rank every chunk's sum, added in chunk order as
//              lenet-serial does. Bit-identical to lenet-serial for any rank count.
// Inside a rank, `threads` OpenMP threads compute the rank's chunks (the hybrid mode); only the
// master thread calls MPI (MPI_THREAD_FUNNELED).
#pragma once

#include <mpi.h>

#include <memory>
#include <string>
#include <vector>

#include "../common/backend.hpp"
#include "../common/cpu/chunks.hpp"
#include "../common/cpu/workers.hpp"
#include "../common/kernels.hpp"
#include "../common/network.hpp"
#include "../common/share.hpp"

namespace lenet {

enum class MpiStrategy { kAllreduce, kExact };

class MpiBackend final : public Backend {
 public:
  // Throws lenet::Error (exit code 2) when the OpenMP runtime gives fewer than `threads`
  // threads.
  // `hosts`: how many hosts the ranks run on, for the report (MpiComm::hosts()).
  MpiBackend(const std::string& kernels, MpiStrategy strategy, int threads, MPI_Comm comm,
             int hosts = 1);
  ~MpiBackend() override;

  BackendInfo info() const override;
  void set_params(const std::vector<float>& params) override { params_ = params; }
  std::vector<float> get_params() override { return params_; }
  // Collective: throws lenet::Error on every rank when the ranks loaded different data.
  void bind_data(const Dataset& train, const Dataset& test) override;
  void begin_epoch(const std::vector<int32_t>& order) override;  // collective: a barrier
  void train_batch(int first, int count, float lr) override;
  double epoch_loss_sum() override { return loss_sum_; }
  EvalResult evaluate() override;  // collective
  // Collective: takes the slowest rank's times and checks that all ranks hold the same bits.
  void end_run() override;
  void set_timing(bool on) override { timing_ = on; }
  // The slowest rank's times, as of end_run().
  LayerTimes times() const override { return slowest_; }

 private:
  // The sums of the chunks of kChunk samples of order_[lo, hi), cut from lo, into out[0..n):
  // each chunk on one of the rank's threads (common/cpu/chunks.hpp). Returns n. `batch`:
  // the batch size, which tells where each thread's next image lies (the same place in the next
  // batch).
  int compute_chunks(int lo, int hi, int batch, ChunkSum* out);
  // chunks_ holds at least n rows (it grows once, at the first, largest batch).
  void reserve_chunks(int n);

  double train_allreduce(int first, int count, float lr);  // allreduce.cpp
  double train_exact(int first, int count, float lr);      // exact.cpp; both return comm seconds

  // The samples this rank's threads computed so far.
  long long samples_here() const;

  // This rank's timers: the master thread's, plus the slowest thread's
  // (common/cpu/workers.hpp).
  LayerTimes rank_times() const;

  const MpiStrategy strategy_;
  const int threads_;
  const MPI_Comm comm_;
  const int hosts_;
  int rank_ = 0, ranks_ = 1;
  MPI_Datatype chunk_type_;  // one ChunkSum as bytes: a row of the exact strategy's gather

  std::vector<Worker> workers_;   // one per thread
  std::vector<ChunkSum> chunks_;  // allreduce: this rank's chunks; exact: all the batch's
  // The batch gradient; in the allreduce strategy one more float carries the slice's loss sum,
  // so that gradient and loss travel in one message.
  std::vector<float> grad_;
  std::vector<int> gather_counts_, gather_displs_;  // exact: each rank's chunk rows

  std::vector<float> params_;
  const Dataset* train_ = nullptr;
  const Dataset* test_ = nullptr;
  std::vector<int32_t> order_;
  double loss_sum_ = 0;             // the whole batch's, the same on every rank
  std::vector<float> test_losses_;  // one per test image, every rank's (common/cpu/evaluate.hpp)

  bool timing_ = false;
  LayerTimes times_;  // reduce, update and comm, measured by the master thread
  long long steps_ = 0;
  double compute_seconds_ = 0;  // train_batch's wall time less its communication
  // Filled by end_run(): the max over ranks, and whether all ranks hold the same bits.
  LayerTimes slowest_;
  double slowest_compute_ = 0;
  long long samples_total_ = 0, samples_fewest_ = 0, samples_most_ = 0;  // over the ranks
  // The steps in which this rank computed no sample of a batch that had one for every rank;
  // and, from end_run(), the sum over the ranks.
  long long steps_missed_ = 0, steps_missed_total_ = 0;
  bool ranks_agree_ = true;
};

}  // namespace lenet
