// The allreduce strategy (the default): each rank sums a slice of the batch, one MPI_Allreduce adds
// the slices.
//   slice r = samples [first + count*r/P, first + count*(r+1)/P)   contiguous, sizes differ by <= 1
//   on rank r:  S_r  = its slice's chunk sums (16 samples each, from the slice's start), in order
//                      (sum_chunks, common/step.hpp)
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

  float* message = grad_.data();
  timed(timing_ ? &times_ : nullptr, &LayerTimes::reduce,
        [&] { sum_chunks(chunks_.data(), n, message, kAllParams); });
  double loss = 0;
  add_losses(chunks_.data(), n, loss);
  message[kParamCount] = static_cast<float>(loss);

  const double c0 = MPI_Wtime();
  MPI_Allreduce(MPI_IN_PLACE, message, kParamCount + 1, MPI_FLOAT, MPI_SUM, comm_);
  const double comm = MPI_Wtime() - c0;

  loss_sum_ += message[kParamCount];
  timed(timing_ ? &times_ : nullptr, &LayerTimes::update,
        [&] { sgd_update(params_.data(), message, lr, count); });
  return comm;
}
// LAB 3 END

}  // namespace lenet
