#include "mpi_comm.hpp"

namespace lenet {

MpiComm::MpiComm(MPI_Comm comm) : comm_(comm) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  MPI_Comm node;
  MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  MPI_Comm_size(node, &node_size_);
  MPI_Comm_free(&node);
}

int MpiComm::first_failure(bool ok) {
  // A failed rank offers its own number, a good one offers `size_`, larger than any rank: the
  // minimum is the lowest failed rank, or size_ when none failed.
  const int mine = ok ? size_ : rank_;
  int lowest = size_;
  MPI_Allreduce(&mine, &lowest, 1, MPI_INT, MPI_MIN, comm_);
  return lowest == size_ ? -1 : lowest;
}

}  // namespace lenet
