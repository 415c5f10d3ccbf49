// The distance between two floats in units in the last place: how many representable floats
// lie between them (0 for equal bits), for the exp accuracy tests.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>

// The float's bits as an integer that grows with the float's value, across zero too.
inline int64_t ordered_bits(float f) {
  int32_t i;
  std::memcpy(&i, &f, 4);
  return i < 0 ? int64_t{INT32_MIN} - i : i;
}

inline int64_t ulps_between(float a, float b) {
  return std::llabs(ordered_bits(a) - ordered_bits(b));
}
