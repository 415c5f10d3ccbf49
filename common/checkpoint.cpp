#include "checkpoint.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>

#include "error.hpp"
#include "network.hpp"

namespace lenet {
namespace {

constexpr char kMagic[8] = {'L', 'E', 'N', 'E', 'T', 'C', 'K', '1'};

void put_u32_le(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i)
    out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint32_t get_u32_le(const std::string& in, size_t at) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i)
    v |= uint32_t{static_cast<unsigned char>(in[at + i])} << (8 * i);
  return v;
}

uint32_t crc_of(const std::string& bytes, size_t n) {
  return static_cast<uint32_t>(
      crc32(0L, reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uInt>(n)));
}

}  // namespace

void write_file_atomic(const std::string& path, const std::string& bytes) {
  const std::string tmp = path + ".tmp";
  const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) throw Error(path + ": cannot write: " + std::strerror(errno));
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      const int err = errno;
      close(fd);
      unlink(tmp.c_str());
      throw Error(path + ": cannot write: " + std::strerror(err));
    }
    done += static_cast<size_t>(n);
  }
  if (fsync(fd) != 0 || close(fd) != 0 || rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    unlink(tmp.c_str());
    throw Error(path + ": cannot write: " + std::strerror(err));
  }
}

void save_checkpoint(const std::string& path, const std::vector<float>& params) {
  std::string out(kMagic, sizeof kMagic);
  put_u32_le(out, static_cast<uint32_t>(params.size()));
  for (float p : params) {
    uint32_t bits;
    std::memcpy(&bits, &p, 4);
    put_u32_le(out, bits);
  }
  put_u32_le(out, crc_of(out, out.size()));
  write_file_atomic(path, out);
}

std::vector<float> load_checkpoint(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) throw Error(path + ": cannot open checkpoint: no such file");
  if (!S_ISREG(st.st_mode)) throw Error(path + ": checkpoint is not a regular file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot open checkpoint for reading");
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());

  const size_t expected = sizeof kMagic + 4 + 4 * size_t{kParamCount} + 4;
  if (bytes.size() < sizeof kMagic || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0) {
    throw Error(path + ": not a lenet checkpoint (magic is not LENETCK1)");
  }
  if (bytes.size() < sizeof kMagic + 4) throw Error(path + ": checkpoint truncated");
  const uint32_t count = get_u32_le(bytes, sizeof kMagic);
  if (count != kParamCount) {
    throw Error(path + ": checkpoint holds " + std::to_string(count) + " parameters, expected " +
                std::to_string(kParamCount));
  }
  if (bytes.size() != expected) {
    throw Error(path + ": checkpoint is " + std::to_string(bytes.size()) + " bytes, expected " +
                std::to_string(expected));
  }
  const uint32_t stored = get_u32_le(bytes, expected - 4);
  if (stored != crc_of(bytes, expected - 4)) {
    throw Error(path + ": checkpoint CRC-32 mismatch (file corrupt)");
  }
  std::vector<float> params(kParamCount);
  for (int i = 0; i < kParamCount; ++i) {
    const uint32_t bits = get_u32_le(bytes, sizeof kMagic + 4 + 4 * size_t(i));
    std::memcpy(&params[i], &bits, 4);
  }
  return params;
}

}  // namespace lenet
