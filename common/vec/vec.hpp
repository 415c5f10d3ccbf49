// The vector type of the `simd` and `lanes` kernels (namespace lenet::simd): GCC vector extensions
// (which Clang understands too), with the width chosen by the build target, so that one source
// serves every machine:
//   AVX-512 (-march=native here): 16 floats, 32 registers
//   AVX2 / AVX:                    8 floats, 16 registers
//   otherwise (SSE2, NEON):        4 floats, 16 registers (32 on 64-bit ARM)
// Arithmetic on vfloat is lane-wise (a + b, a * b, a * 2.0f, a > b ? a : b); what C++ cannot
// spell (loads, broadcasts, sums across lanes, lane shuffles) is defined here. No intrinsics.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>

namespace lenet::simd {

#if defined(__AVX512F__)
constexpr int kLanes = 16;
constexpr int kVectorRegisters = 32;
#elif defined(__AVX__)
constexpr int kLanes = 8;
constexpr int kVectorRegisters = 16;
#elif defined(__aarch64__)
constexpr int kLanes = 4;
constexpr int kVectorRegisters = 32;
#else
constexpr int kLanes = 4;
constexpr int kVectorRegisters = 16;
#endif

using vfloat = float __attribute__((vector_size(kLanes * sizeof(float))));
using vint = int32_t __attribute__((vector_size(kLanes * sizeof(int32_t))));

// n rounded up to a whole number of vectors: the size of a buffer that vector loops may overrun.
constexpr int padded(int n) {
  return (n + kLanes - 1) / kLanes * kLanes;
}

// A row of n >= kLanes floats as whole vectors: they start at 0, kLanes, 2 kLanes, ..., and the
// last one is moved back to end at n (with 16 lanes, a row of 24 is vectors at 0 and 8).
constexpr int vectors_in_row(int n) {
  return (n + kLanes - 1) / kLanes;
}
constexpr int vector_start(int k, int n) {
  return std::min(k * kLanes, n - kLanes);
}

// Unaligned load and store (memcpy compiles to one vector move).
inline vfloat load(const float* p) {
  vfloat v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline void store(float* p, vfloat v) {
  std::memcpy(p, &v, sizeof v);
}

// Every lane = s. (s - 0 is s for every float, -0 included.)
inline vfloat splat(float s) {
  return s - vfloat{};
}

// v, kept in a register. GCC likes to fold a vector load into each instruction that uses it, so
// a vector loaded once and used by 3 multiply-adds is read 3 times; in C1's weight gradient that
// made loads, not multiply-adds, the limit (13% slower). An empty asm statement that "changes"
// v in a vector register stops it; targets without such a constraint here just return v.
inline vfloat in_register(vfloat v) {
#if defined(__AVX__)
  asm("" : "+v"(v));
#elif defined(__SSE2__)
  asm("" : "+x"(v));
#elif defined(__aarch64__)
  asm("" : "+w"(v));
#endif
  return v;
}

// A lane pattern: {f(0), f(1), ..., f(kLanes - 1)}.
template <class F, int... L>
constexpr vint lane_pattern(F f, std::integer_sequence<int, L...>) {
  return vint{f(L)...};
}
template <class F>
constexpr vint lane_pattern(F f) {
  return lane_pattern(f, std::make_integer_sequence<int, kLanes>{});
}

// The lanes of vector k of a row of n (vector_start) that no earlier vector of it covered
// (true: -1, else 0): a sum along the row takes only these, so that each column counts once,
// as in `fresh(k, n) ? v : 0.0f`.
inline vint fresh(int k, int n) {
  const int start = vector_start(k, n);
  return lane_pattern([start](int l) { return start + l; }) >= k * kLanes;
}

// Result lane l = lane pick(l) of (a, b) seen as one vector of 2 * kLanes lanes, where pick is a
// lambda without captures, e.g. shuffle(a, b, [](int l) { return 2 * l; }): the lanes must be
// known at compile time, because Clang's __builtin_shufflevector (also in GCC from 12) takes
// them as constants. Older GCC has only __builtin_shuffle, which takes them as a vector.
template <class Pick, int... L>
vfloat shuffle(vfloat a, vfloat b, Pick pick, std::integer_sequence<int, L...>) {
#if __has_builtin(__builtin_shufflevector)
  return __builtin_shufflevector(a, b, pick(L)...);
#else
  return __builtin_shuffle(a, b, vint{pick(L)...});
#endif
}
template <class Pick>
vfloat shuffle(vfloat a, vfloat b, Pick pick) {
  return shuffle(a, b, pick, std::make_integer_sequence<int, kLanes>{});
}
// Result lane l = lane pick(l) of a (0 <= pick(l) < kLanes).
template <class Pick>
vfloat shuffle(vfloat a, Pick pick) {
  return shuffle(a, a, pick);
}

// The sum of all lanes: add each lane's partner kLanes/2 lanes away, then kLanes/4, ..., 1.
inline float hsum(vfloat v) {
  if constexpr (kLanes >= 16) v += shuffle(v, [](int l) { return l ^ 8; });
  if constexpr (kLanes >= 8) v += shuffle(v, [](int l) { return l ^ 4; });
  v += shuffle(v, [](int l) { return l ^ 2; });
  v += shuffle(v, [](int l) { return l ^ 1; });
  return v[0];
}

// Half the work of hsum(a) and hsum(b) in one vector: lanes with bit H clear get a's lane plus
// its partner H lanes away, lanes with bit H set the same for b.
template <int H>
vfloat fold(vfloat a, vfloat b) {
  const auto own = [](int l) { return (l & H) ? kLanes + (l ^ H) : l; };
  const auto partner = [](int l) { return (l & H) ? kLanes + l : l ^ H; };
  return shuffle(a, b, own) + shuffle(a, b, partner);
}

template <int H>
[[gnu::always_inline]] inline void fold_pairs(vfloat* v, int count) {
  for (int i = 0; i < count / 2; ++i)
    v[i] = fold<H>(v[2 * i], v[2 * i + 1]);
  if constexpr (H > 1) fold_pairs<H / 2>(v, count / 2);
}

// sums[i] = hsum(v[i]) for i < N, kLanes at a time: folding pairs of vectors, then pairs of
// those, ..., leaves kLanes sums in one vector, in 3 instructions per vector instead of hsum's
// 2 log2(kLanes). Lane l then holds the sum of vector bit-reversed(l).
template <int N>
[[gnu::always_inline]] inline void hsums(const vfloat (&v)[N], float* sums) {
  for (int first = 0; first < N; first += kLanes) {
    vfloat t[kLanes] = {};
    for (int i = 0; i < kLanes && first + i < N; ++i)
      t[i] = v[first + i];
    fold_pairs<kLanes / 2>(t, kLanes);
    for (int i = 0; i < kLanes && first + i < N; ++i) {
      int reversed = 0;
      for (int bit = 1; bit < kLanes; bit <<= 1)
        reversed = reversed * 2 + ((i & bit) ? 1 : 0);
      sums[first + i] = t[0][reversed];
    }
  }
}

}  // namespace lenet::simd
