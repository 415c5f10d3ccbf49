// The allreduce strategy (the default): each rank sums a slice of the batch, one MPI_Allreduce adds
// the slices.
//   slice r = samples [first + count*r/P, first + count*(r+1)/P)   contiguous, sizes differ by <= 1
//   on rank r:  S_r  = its slice's chunk sums (16 samples each, from the slice's start), in order
//               message = [ S_r (2343 floats) | loss sum of the slice (1 float) ]
//               MPI_Allreduce(message, SUM)    -> G and the batch's loss sum, on every rank
//               params -= (lr / count) * G     (sgd_update, the same bits on every rank)
// A rank whose slice is empty (a short last batch with count < P) sends zeros. The slices'
// chunk boundaries move with P and MPI adds the slices in an order of its own, so G equals
// lenet-serial's within float32 rounding, not bit for bit (--exact is; exact.cpp).
#include <algorithm>

#include "../common/gradient.hpp"
#include "mpi_backend.hpp"

namespace lenet {

// LAB 3 BEGIN: the allreduce mode, one MPI_Allreduce per step
double MpiBackend::train_allreduce(int first, int count, float lr) {
  const Range slice = share(count, ranks_, rank_);
  reserve_chunks((slice.size() + kChunk - 1) / kChunk);
  const int n = compute_chunks(first + slice.begin, first + slice.end, count, chunks_.data());

  const double t0 = timing_ ? now_seconds() : 0;
  float* message = grad_.data();
  std::fill(message, message + kParamCount, 0.0f);
  double loss = 0;
  for (int c = 0; c < n; ++c) {
    accumulate(message, chunks_[c].grad);
    loss += chunks_[c].loss;
  }
  message[kParamCount] = static_cast<float>(loss);
  if (timing_) times_.reduce += now_seconds() - t0;

  const double c0 = MPI_Wtime();
  MPI_Allreduce(MPI_IN_PLACE, message, kParamCount + 1, MPI_FLOAT, MPI_SUM, comm_);
  const double comm = MPI_Wtime() - c0;

  loss_sum_ += message[kParamCount];
  const double t1 = timing_ ? now_seconds() : 0;
  sgd_update(params_.data(), message, lr, count);
  if (timing_) times_.update += now_seconds() - t1;
  return comm;
}
// LAB 3 END

}  // namespace lenet
