// lenet-bench-layers --checked LAYER/KERNELS --calls N --out FILE: a timed loop for a grader,
// which times the whole process from outside and compares FILE with the reference's. Each call
// gets other inputs, so that no call can reuse an earlier one's result, and each call's result
// goes into FILE's checksum, so that every call must be computed.
#pragma once

namespace lenet {

// Runs the mode when argv asks for it: returns the process's exit code, or -1 when argv does
// not start with --checked (then the benchmarks run as usual).
int run_checked(int argc, char** argv);

}  // namespace lenet
