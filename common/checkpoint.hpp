// The parameter checkpoint that every backend reads and writes (format v1, docs/checkpoints.md):
//   8 bytes "LENETCK1", uint32 LE count (2343), count float32 LE parameters in spec order,
//   uint32 LE CRC-32 (zlib's) of all preceding bytes.
#pragma once

#include <string>
#include <vector>

namespace lenet {

// Writes to a temporary file beside `path`, flushes it to disk, then renames it over `path`, so a
// crash leaves either the old file or the new one, never half of one.
void save_checkpoint(const std::string& path, const std::vector<float>& params);

// Throws lenet::Error naming the file on a wrong magic, count, length or CRC.
std::vector<float> load_checkpoint(const std::string& path);

// Writes `bytes` to `path` through a temporary file + fsync + rename.
void write_file_atomic(const std::string& path, const std::string& bytes);

}  // namespace lenet
