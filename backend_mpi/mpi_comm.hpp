// The processes of an MPI run as the shared driver sees them (common/driver.hpp's Comm): who am
// I, how many are we, and did anyone fail.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "../common/driver.hpp"

namespace lenet {

class MpiComm final : public Comm {
 public:
  explicit MpiComm(MPI_Comm comm = MPI_COMM_WORLD);
  ~MpiComm() override;
  MpiComm(const MpiComm&) = delete;
  MpiComm& operator=(const MpiComm&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  // One MPI_Allreduce (MIN) over every rank: the lowest rank that is not ok, or -1.
  int first_failure(bool ok) override;
  // One MPI_Allreduce when the ranks agree; an MPI_Gather more to name the values when not.
  std::string first_disagreement(const OptionValues& options) override;
  // The lowest rank of each node reads the files, for itself and for the node's other ranks
  // that name the same folder, so that a job reads the data set once per node, not once per
  // rank, from its file system. The pixels go into an MPI shared-memory window, one copy per
  // node that all its ranks read (the window lives as long as this MpiComm); the labels, 1/784
  // of the data, each rank gets a copy of (MPI_Bcast).
  Dataset load(const std::string& dir, const std::string& prefix) override;
  std::string data_readers() const override;

  MPI_Comm handle() const { return comm_; }
  // The ranks on this rank's node (which share its cores): found once, when all ranks build
  // their MpiComm together, since it takes a collective call.
  int node_size() const { return node_size_; }
  // The distinct host names (MPI_Get_processor_name) of all ranks: found once, with node_size.
  int hosts() const { return hosts_; }

 private:
  MPI_Comm comm_;
  MPI_Comm node_;                 // this rank's node: the ranks that share its memory
  std::vector<MPI_Win> windows_;  // the node's shared copies of the data sets' pixels
  int rank_ = 0, size_ = 1, node_rank_ = 0, node_size_ = 1, hosts_ = 1, readers_ = 1;
  bool windows_everywhere_ = true;  // every group of ranks got its window (else: copies, MPI_Bcast)

  // The group's reader (its rank 0) holds d's pixels: puts them in a window all of the group
  // reads, or, where the window cannot be made, sends every rank a copy (returns false then).
  bool share_pixels(Dataset& d, MPI_Comm group);
};

// Call before MPI_Init. Open MPI sends a shared-memory message above 4 KiB as a rendezvous
// (announce, wait, copy): the step's 9,376-byte allreduce then took 5 times as long as one
// eager message (docs/performance.md, "Epoch budget"). This raises the eager limit to 16 KiB
// for this process, unless the environment sets it already (mpirun --mca does). Other MPIs:
// nothing.
void prefer_eager_messages();

// Comm::first_disagreement over `comm`, for any list of values that must match on every rank
// (the backend's data, say).
std::string first_disagreement(const OptionValues& values, MPI_Comm comm);

}  // namespace lenet
