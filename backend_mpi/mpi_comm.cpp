#include "mpi_comm.hpp"

#include <set>
#include <string>
#include <vector>

namespace lenet {

MpiComm::MpiComm(MPI_Comm comm) : comm_(comm) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  MPI_Comm node;
  MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  MPI_Comm_size(node, &node_size_);
  MPI_Comm_free(&node);
  // Every rank's host name, fixed-width, to every rank; the hosts are the distinct names.
  std::vector<char> names(static_cast<size_t>(size_) * MPI_MAX_PROCESSOR_NAME, '\0');
  char mine[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  MPI_Get_processor_name(mine, &length);
  MPI_Allgather(mine, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names.data(), MPI_MAX_PROCESSOR_NAME,
                MPI_CHAR, comm_);
  std::set<std::string> distinct;
  for (int r = 0; r < size_; ++r)
    distinct.insert(names.data() + static_cast<size_t>(r) * MPI_MAX_PROCESSOR_NAME);
  hosts_ = static_cast<int>(distinct.size());
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
