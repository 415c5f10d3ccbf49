// The kernels built into this binary (--kernels), and a factory for one of them.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "kernels.hpp"

namespace lenet {

// Their names, ref first; the last is --kernels' default (options.cpp).
std::vector<std::string> available_kernels();

// "ref", "simd" or "lanes"; throws lenet::Error naming --kernels for any other name.
std::unique_ptr<Kernels> make_kernels(const std::string& kernels);

}  // namespace lenet
