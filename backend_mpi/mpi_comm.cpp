#include "mpi_comm.hpp"

#include <sys/statvfs.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "../common/error.hpp"
#include "../common/network.hpp"

namespace lenet {
namespace {

// FNV-1a, 64 bits: a value of any length as one number, so that one fixed-size MPI_Allreduce
// compares every value.
uint64_t fingerprint(const std::string& text) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : text)
    h = (h ^ c) * 1099511628211ull;
  return h;
}

// One rank's value of an option, as rank 0 gathers it on a mismatch; its text cut to fit.
struct Value {
  uint64_t fingerprint;
  char text[64];
};

std::string shown(const char* text) {
  return *text ? text : "(not given)";
}

// Whether the shared-memory window for `bytes` fits where the MPI keeps it. Open MPI backs it
// with a file in /dev/shm (MCA osc_sm_backing_directory), and a window that does not fit
// there does not fail cleanly (some ranks abort, others wait for ever): so look first. Where
// the folder cannot be asked, try.
bool room_for_window(MPI_Aint bytes) {
  const char* dir = std::getenv("OMPI_MCA_osc_sm_backing_directory");
  struct statvfs fs {};
  if (statvfs(dir != nullptr ? dir : "/dev/shm", &fs) != 0) return true;
  return static_cast<double>(fs.f_bavail) * static_cast<double>(fs.f_frsize) >
         1.1 * static_cast<double>(bytes);
}

}  // namespace

void prefer_eager_messages() {
#if defined(OPEN_MPI) && OMPI_MAJOR_VERSION >= 5
  setenv("OMPI_MCA_btl_sm_eager_limit", "16384", 0);  // 0: a value already set stays
#elif defined(OPEN_MPI)
  setenv("OMPI_MCA_btl_vader_eager_limit", "16384", 0);  // vader: Open MPI 4's name of sm
#endif
}

MpiComm::MpiComm(MPI_Comm comm) : comm_(comm) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  // Key 0: a node's ranks keep their order, so its reader is its lowest rank.
  MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node_);
  MPI_Comm_rank(node_, &node_rank_);
  MPI_Comm_size(node_, &node_size_);
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

MpiComm::~MpiComm() {
  for (MPI_Win& w : windows_)
    MPI_Win_free(&w);
  MPI_Comm_free(&node_);
}

bool MpiComm::share_pixels(Dataset& d, MPI_Comm group) {
  int ranks = 1, rank = 0;
  MPI_Comm_size(group, &ranks);
  MPI_Comm_rank(group, &rank);
  if (ranks == 1) return true;  // a reader alone keeps its copy as it is
  const auto bytes = static_cast<MPI_Aint>(d.count) * kImageSize;
  int shared = rank == 0 && room_for_window(bytes);  // the reader decides for the group
  MPI_Bcast(&shared, 1, MPI_INT, 0, group);
  if (!shared) {
    // A copy each, as before the window. The reader only sends from its buffer.
    std::vector<uint8_t> copy(rank == 0 ? 0 : static_cast<size_t>(bytes));
    uint8_t* buffer = rank == 0 ? const_cast<uint8_t*>(d.pixels.data()) : copy.data();
    MPI_Bcast(buffer, static_cast<int>(bytes), MPI_UINT8_T, 0, group);
    if (rank != 0) d.pixels = Pixels(std::move(copy));
    return false;
  }
  // The window: the reader's segment holds the pixels, the others' are empty.
  uint8_t* base = nullptr;
  MPI_Win window;
  MPI_Win_allocate_shared(rank == 0 ? bytes : 0, 1, MPI_INFO_NULL, group, &base, &window);
  windows_.push_back(window);
  if (rank == 0) std::memcpy(base, d.pixels.data(), static_cast<size_t>(bytes));
  // A barrier that also makes the reader's stores visible to the others; no RMA follows.
  MPI_Win_fence(MPI_MODE_NOSUCCEED, window);
  MPI_Aint size = 0;
  int unit = 1;
  MPI_Win_shared_query(window, 0, &size, &unit, &base);
  d.pixels = Pixels::borrowed(base, static_cast<size_t>(size));  // frees the reader's copy
  return true;
}

Dataset MpiComm::load(const std::string& dir, const std::string& prefix) {
  // The node's ranks that name the same folder share one read (ranks given other folders, a
  // stale copy say, read their own: bind_data then compares what every rank holds).
  MPI_Comm group;
  MPI_Comm_split(node_, static_cast<int>(fingerprint(dir) & 0x3fffffff), node_rank_, &group);
  int group_rank = 0;
  MPI_Comm_rank(group, &group_rank);
  const int reader = group_rank == 0;
  Dataset d;
  // The reader's outcome first (ok, image count, exit code, path length): when it failed, the
  // group's other ranks learn it here instead of waiting for data that never comes.
  long long head[4] = {0, 0, 1, 0};
  std::string error;
  if (reader) {
    try {
      d = load_split(dir, prefix);
      head[0] = 1;
      head[1] = d.count;
      head[3] = static_cast<long long>(d.images_path.size());
    } catch (const Error& e) {
      error = e.what();
      head[2] = e.exit_code();
    } catch (const std::exception& e) {  // out of memory, say: the group must still hear of it
      error = std::string("reading ") + dir + ": " + e.what();
    }
  }
  MPI_Bcast(head, 4, MPI_LONG_LONG, 0, group);
  int in_window = 1;  // the pixels are in the node's window, or their reader is alone
  if (head[0]) {
    if (!reader) {
      d.count = static_cast<int>(head[1]);
      d.images_path.resize(static_cast<size_t>(head[3]));
      d.labels.resize(static_cast<size_t>(d.count));
    }
    MPI_Bcast(d.images_path.data(), static_cast<int>(head[3]), MPI_CHAR, 0, group);
    MPI_Bcast(d.labels.data(), d.count, MPI_UINT8_T, 0, group);
    in_window = share_pixels(d, group);
  }
  MPI_Comm_free(&group);
  // For the summary, in one collective that every rank joins, whether its reader failed or
  // not (one that skipped it would hang the others): how many read, how many hold a copy
  // outside a window.
  int counts[2] = {reader, !in_window};
  MPI_Allreduce(MPI_IN_PLACE, counts, 2, MPI_INT, MPI_SUM, comm_);
  readers_ = counts[0];
  windows_everywhere_ = counts[1] == 0;
  // The reader, its group's lowest rank, is the one collective() lets speak.
  if (!head[0]) throw Error(reader ? error : "its reader failed", static_cast<int>(head[2]));
  return d;
}

std::string MpiComm::data_readers() const {
  if (readers_ == size_) return "every rank";
  return std::to_string(readers_) + " of " + std::to_string(size_) + " ranks, one per node " +
         (windows_everywhere_ ? "(the others read its copy in a shared-memory window)"
                              : "(no room for a shared-memory window: every rank has a copy)");
}

int MpiComm::first_failure(bool ok) {
  // A failed rank offers its own number, a good one offers `size_`, larger than any rank: the
  // minimum is the lowest failed rank, or size_ when none failed.
  const int mine = ok ? size_ : rank_;
  int lowest = size_;
  MPI_Allreduce(&mine, &lowest, 1, MPI_INT, MPI_MIN, comm_);
  return lowest == size_ ? -1 : lowest;
}

std::string MpiComm::first_disagreement(const OptionValues& options) {
  return lenet::first_disagreement(options, comm_);
}

std::string first_disagreement(const OptionValues& values, MPI_Comm comm) {
  // Each value's fingerprint and its complement, reduced with MAX: since max(~x) = ~min(x),
  // every rank learns both the largest and the smallest fingerprint of each value, and the
  // ranks agree on a value when the two are equal.
  const int n = static_cast<int>(values.size());
  std::vector<uint64_t> v(2 * n);
  for (int i = 0; i < n; ++i) {
    v[i] = fingerprint(values[i].second);
    v[n + i] = ~v[i];
  }
  MPI_Allreduce(MPI_IN_PLACE, v.data(), 2 * n, MPI_UINT64_T, MPI_MAX, comm);
  int first = 0;
  while (first < n && v[first] == ~v[n + first])
    ++first;
  if (first == n) return "";
  // The common case ends above. Here every rank knows which value differs somewhere: rank 0
  // gathers it from all ranks and names the lowest rank whose value is not its own.
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const std::string& name = values[first].first;
  Value mine{fingerprint(values[first].second), {}};
  values[first].second.copy(mine.text, sizeof mine.text - 1);
  std::vector<Value> all(rank == 0 ? size : 0);
  MPI_Gather(&mine, sizeof mine, MPI_BYTE, all.data(), sizeof mine, MPI_BYTE, 0, comm);
  if (rank != 0) return name;
  int other = 1;
  while (all[other].fingerprint == all[0].fingerprint)  // some rank differs: the loop ends
    ++other;
  return name + ": " + shown(all[0].text) + " on rank 0, " + shown(all[other].text) + " on rank " +
         std::to_string(other);
}

}  // namespace lenet
