// The exact strategy (--exact): lenet-serial's summation tree (common/step.hpp), its chunks
// computed on different ranks.
//   chunks of the batch: 16 samples each from `first`, the last possibly shorter (as serial)
//   rank r computes chunks [n*r/P, n*(r+1)/P)      whole chunks: with n < P some ranks get none
//   MPI_Allgatherv                                 every rank receives every chunk's sum and loss
//   on every rank: G = ((0 + S_0) + S_1) + ...     chunk order, as serial
//                  params -= (lr / count) * G      (sum_and_update, common/step.hpp)
// A chunk's sum has the same bits wherever it is computed, and G adds them in serial's order:
// the parameters are lenet-serial's, bit for bit, for any rank and thread count. The price: the
// gather moves every chunk's 2343 floats (B/16 rows a step) where the allreduce strategy moves one
// vector, and with B = 32 only two ranks have a chunk to compute.
#include <algorithm>

#include "../common/gradient.hpp"
#include "mpi_backend.hpp"

namespace lenet {

// LAB 3 BEGIN: the exact mode, the chunk sums gathered and added in chunk order
double MpiBackend::train_exact(int first, int count, float lr) {
  const int n = (count + kChunk - 1) / kChunk;
  reserve_chunks(n);
  for (int r = 0; r < ranks_; ++r) {
    const Range rows = share(n, ranks_, r);
    gather_counts_[r] = rows.size();
    gather_displs_[r] = rows.begin;
  }
  const Range mine = share(n, ranks_, rank_);
  compute_chunks(first + mine.begin * kChunk, first + std::min(mine.end * kChunk, count), count,
                 chunks_.data() + mine.begin);

  const double c0 = MPI_Wtime();
  MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, chunks_.data(), gather_counts_.data(),
                 gather_displs_.data(), chunk_type_, comm_);
  const double comm = MPI_Wtime() - c0;

  add_losses(chunks_.data(), n, loss_sum_);
  sum_and_update(chunks_.data(), n, grad_.data(), params_.data(), lr, count, kAllParams,
                 timing_ ? &times_ : nullptr);
  return comm;
}
// LAB 3 END

}  // namespace lenet
