// What a finished run reports: the NPB-style summary block, the CSV row, the timing table,
// and the parameter checksums that let two backends be compared.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "backend.hpp"
#include "options.hpp"
#include "verify.hpp"

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
  double train_seconds = 0;  // the epochs this run trained, training loop only
  double final_loss = 0;     // mean training loss of the last epoch
  LayerTimes times;          // the backend's timers (communication is always measured)
  EvalResult eval;
  std::vector<float> params;
  std::optional<Verification> verification;  // with --verify only
  std::string why_not_verified;  // shown after NOT PERFORMED where there can be none (peers/)
  long long images_trained = 0;  // by this run: fewer than epochs x images when it resumed
  std::string start;             // where the parameters came from: "seed init", "checkpoint F", ...

  // SUCCESSFUL, UNSUCCESSFUL or NOT PERFORMED.
  std::string verification_status() const;

  double epochs_trained() const;  // images_trained in epochs, e.g. 1.5 after a resume
  double seconds_per_epoch() const;
  double images_per_second() const;
};

std::string summary_block(const RunResult& r);
// Appends one row (with a header when the file is new), rewriting the file atomically.
void append_csv(const std::string& path, const RunResult& r);
std::string timing_table(const LayerTimes& t, double epochs);

}  // namespace lenet
