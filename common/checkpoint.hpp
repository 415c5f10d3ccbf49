// Checkpoints (docs/checkpoints.md). Every loader accepts both versions.
//   v1 "LENETCK1", the interchange file: uint32 LE count (2343), count float32 LE parameters in
//      spec order, uint32 LE CRC-32 (zlib's) of all preceding bytes.
//   v2 "LENETCK2", for resuming: the same count and parameters, then the training position
//      (TrainingPosition, fields little-endian in declaration order), then one CRC-32 over all.
// Both are written to a temporary file, flushed to disk and renamed, so that a crash leaves the
// old file or the new one, never half of one.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace lenet {

// Where a run stands: enough to continue it so that it ends bit-identical to an uninterrupted
// run, and to refuse continuing it with other data or options.
struct TrainingPosition {
  uint32_t epoch = 0;  // the epoch in progress (from 0)
  uint32_t step = 0;   // batches of that epoch already applied
  uint64_t seed = 0;
  uint32_t batch = 0;
  float lr = 0;
  uint32_t shuffle = 1;
  uint32_t train_count = 0;  // the training set's identity: its size and
  uint32_t train_crc = 0;    // the CRC-32 of its pixels and labels
  double loss_sum = 0;       // the epoch's loss sum so far, so the reported loss is the same too
};

struct Checkpoint {
  std::vector<float> params;
  std::optional<TrainingPosition> position;  // v2 only
};

void save_checkpoint(const std::string& path, const std::vector<float>& params);  // v1
void save_checkpoint(const std::string& path, const std::vector<float>& params,
                     const TrainingPosition& position);  // v2

// Throws lenet::Error naming the file on a wrong magic, count, length or CRC.
Checkpoint read_checkpoint(const std::string& path);
inline std::vector<float> load_checkpoint(const std::string& path) {
  return read_checkpoint(path).params;
}

// Throws lenet::Error naming `flag` when `path` cannot be written (no such directory, no
// permission, a directory): called at start-up for every output, before any work.
void check_writable(const std::string& path, const std::string& flag);

// Writes `bytes` to `path` through a temporary file + fsync + rename.
void write_file_atomic(const std::string& path, const std::string& bytes);

}  // namespace lenet
