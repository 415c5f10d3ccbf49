// lenet-bench-layers --checked LAYER/KERNELS --calls N [--seed S] --out FILE: a timed loop for
// a grader, which times the whole process from outside and compares FILE with the reference's.
// Each call gets other inputs, so that no call can reuse an earlier one's result, and the calls
// whose result goes into FILE's checksum are drawn from S, the grader's secret of one grading:
// no call can be skipped without the risk of being one of them.
#pragma once

namespace lenet {

// Runs the mode when argv asks for it: returns the process's exit code, or -1 when argv does
// not start with --checked (then the benchmarks run as usual).
int run_checked(int argc, char** argv);

}  // namespace lenet
