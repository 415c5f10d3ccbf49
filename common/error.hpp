// One error type for everything a user can get wrong (files, flags): its message is the
// single line the executables print before exiting non-zero.
#pragma once

#include <stdexcept>
#include <string>

namespace lenet {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message, int exit_code = 1)
      : std::runtime_error(message), exit_code_(exit_code) {}
  int exit_code() const { return exit_code_; }

 private:
  int exit_code_;
};

}  // namespace lenet
