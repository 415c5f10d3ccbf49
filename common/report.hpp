// What a finished run reports: the NPB-style summary block, the CSV row, the timing table,
// and the parameter checksums that let two backends be compared.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backend.hpp"
#include "options.hpp"

namespace lenet {

// sum_i (i + 1) * p[i] in double, index order: a reordered or shifted vector changes it.
double param_checksum(const std::vector<float>& params);
// zlib's CRC-32 of the little-endian bytes: equal CRCs mean (almost surely) identical bits.
uint32_t param_crc32(const std::vector<float>& params);

struct RunResult {
  BackendInfo info;
  Options opts;
  int train_images = 0, test_images = 0;
  double load_seconds = 0;
  double train_seconds = 0;  // all epochs, training loop only
  double final_loss = 0;     // mean training loss of the last epoch
  LayerTimes times;          // the backend's timers (communication is always measured)
  EvalResult eval;
  std::vector<float> params;
  std::string verification = "NOT PERFORMED";  // SUCCESSFUL / UNSUCCESSFUL / NOT PERFORMED
  std::string verification_detail;
  double max_abs_diff = -1;  // vs the --verify checkpoint; -1 when not performed
  bool bit_identical = false;

  double seconds_per_epoch() const;
  double images_per_second() const;
};

std::string summary_block(const RunResult& r);
// Appends one row (with a header when the file is new), rewriting the file atomically.
void append_csv(const std::string& path, const RunResult& r);
std::string timing_table(const LayerTimes& t, int epochs);

}  // namespace lenet
