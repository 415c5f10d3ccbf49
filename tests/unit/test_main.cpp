// The tests' main, the same for Catch2 2 and 3 (tests/unit/catch.hpp).
#define CATCH_CONFIG_RUNNER
#include "catch.hpp"

int main(int argc, char** argv) {
  return Catch::Session().run(argc, argv);
}
