// Lane-wise minimum and maximum: the one place the vector code uses intrinsics. GCC turns
// `a < b ? a : b` on vectors into a compare and a blend (2 instructions) even where one
// instruction does exactly that; in the sigmoid's clamps that cost 16% (docs/performance.md).
//   min(a, b) = a < b ? a : b      max(a, b) = a > b ? a : b
// (x86's MINPS/MAXPS are defined this way, NaN cases included; other targets use the formula.)
#pragma once

#include "vec.hpp"

#if defined(__AVX512F__) || defined(__AVX__) || defined(__SSE2__)
#include <immintrin.h>
#endif

namespace lenet::simd {

#if defined(__AVX512F__)
// The masked forms with every lane selected: GCC 12's _mm512_min_ps draws a false
// -Wuninitialized warning (GCC bug 105593); these compile to the same one instruction.
inline vfloat min(vfloat a, vfloat b) {
  return vfloat(_mm512_mask_min_ps(__m512(a), 0xFFFF, __m512(a), __m512(b)));
}
inline vfloat max(vfloat a, vfloat b) {
  return vfloat(_mm512_mask_max_ps(__m512(a), 0xFFFF, __m512(a), __m512(b)));
}
#elif defined(__AVX__)
inline vfloat min(vfloat a, vfloat b) {
  return vfloat(_mm256_min_ps(__m256(a), __m256(b)));
}
inline vfloat max(vfloat a, vfloat b) {
  return vfloat(_mm256_max_ps(__m256(a), __m256(b)));
}
#elif defined(__SSE2__)
inline vfloat min(vfloat a, vfloat b) {
  return vfloat(_mm_min_ps(__m128(a), __m128(b)));
}
inline vfloat max(vfloat a, vfloat b) {
  return vfloat(_mm_max_ps(__m128(a), __m128(b)));
}
#else
inline vfloat min(vfloat a, vfloat b) {
  return a < b ? a : b;
}
inline vfloat max(vfloat a, vfloat b) {
  return a > b ? a : b;
}
#endif

}  // namespace lenet::simd
