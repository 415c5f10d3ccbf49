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

}  // namespace lenet
