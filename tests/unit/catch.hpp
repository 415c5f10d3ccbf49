// The one place that knows which Catch2 generation the tests are built with (tests/CMakeLists.txt
// sets LENET_CATCH2_MAJOR). Catch2 2 (Debian 12) is one header; Catch2 3 (Debian 13, Ubuntu
// 24.04, the copy CMake fetches) is split into parts and renames the two things the tests use
// besides the macros: Approx, and the substring matcher, spelled contains() here for both.
// A file with main() defines CATCH_CONFIG_RUNNER before including this.
#pragma once

#include <string>

#if LENET_CATCH2_MAJOR >= 3
#include <catch2/catch_approx.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#ifdef CATCH_CONFIG_RUNNER
#include <catch2/catch_session.hpp>
#endif
using Catch::Approx;
inline auto contains(const std::string& text) {
  return Catch::Matchers::ContainsSubstring(text);
}
#else
#include <catch2/catch.hpp>
inline auto contains(const std::string& text) {
  return Catch::Matchers::Contains(text);
}
#endif
