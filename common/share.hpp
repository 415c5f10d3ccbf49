// Cutting n items into contiguous parts: the batch over MPI ranks, the test set over ranks, a
// layer's rows over the threads of the OpenMP layer strategy.
#pragma once

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

namespace lenet {

// [begin, end): part `part` of n items cut into `parts` contiguous ranges whose sizes differ by
// at most one. Empty for some parts when n < parts.
struct Range {
  int begin, end;
  int size() const { return end - begin; }
};

inline Range share(int n, int parts, int part) {
  const auto at = [&](int p) { return static_cast<int>(static_cast<long long>(n) * p / parts); };
  return {at(part), at(part + 1)};
}

// How the items were shared in fact, for the summary: "288 on 2 threads (144 to 144 a thread)".
// The lab kit reads these lines: a thread or rank that got no items shows as "0 to".
inline std::string shared_out(long long total, int parts, const char* part, long long fewest,
                              long long most) {
  return std::to_string(total) + " on " + std::to_string(parts) + " " + part +
         (parts == 1 ? " (" : "s (") + std::to_string(fewest) + " to " + std::to_string(most) +
         " a " + part + ")";
}

// The same from each part's own count (counts[p]: the items part p got; at least one part).
inline std::string shared_out(const std::vector<long long>& counts, const char* part) {
  const auto [fewest, most] = std::minmax_element(counts.begin(), counts.end());
  return shared_out(std::accumulate(counts.begin(), counts.end(), 0LL),
                    static_cast<int>(counts.size()), part, *fewest, *most);
}

// Evidence per call, not per run: a count summed over a whole run cannot
// tell a loop shared in every call from a serial one that a different thread runs each call
// (`omp single`). After each call, end_call says how many parts (threads, ranks) computed a
// share of it and how many could have (no more parts than items); the summary adds
// "; calls shared by every thread: S of C", which the lab kit reads.
struct CallsShared {
  long long calls = 0, shared = 0;

  void end_call(int sharers, int could) {
    ++calls;
    shared += sharers >= could;
  }
  std::string out(const char* part) const {
    return std::string("; calls shared by every ") + part + ": " + std::to_string(shared) + " of " +
           std::to_string(calls);
  }
};

}  // namespace lenet
