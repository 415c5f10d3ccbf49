#include "checkpoint.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "error.hpp"
#include "network.hpp"

namespace lenet {
namespace {

constexpr size_t kMagicSize = 8;
constexpr size_t kParamsEnd = kMagicSize + 4 + 4 * size_t{kParamCount};
constexpr size_t kPositionSize = 4 + 4 + 8 + 4 + 4 + 4 + 4 + 4 + 8;

// Little-endian writer and reader for the fixed-width fields of both formats.
struct Writer {
  std::string out;
  template <class T>
  void put(T v) {
    unsigned char b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));  // this is a little-endian host (x86, Arm): bytes as stored
    out.append(reinterpret_cast<const char*>(b), sizeof(T));
  }
};

struct Reader {
  const std::string& in;
  size_t at;
  template <class T>
  T get() {
    T v;
    std::memcpy(&v, in.data() + at, sizeof(T));
    at += sizeof(T);
    return v;
  }
};

uint32_t crc_of(const std::string& bytes, size_t n) {
  return static_cast<uint32_t>(
      crc32(0L, reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uInt>(n)));
}

Writer params_block(const char* magic, const std::vector<float>& params) {
  Writer w;
  w.out.assign(magic, kMagicSize);
  w.put(static_cast<uint32_t>(params.size()));
  for (float p : params)
    w.put(p);
  return w;
}

void finish(const std::string& path, Writer& w) {
  w.put(crc_of(w.out, w.out.size()));
  write_file_atomic(path, w.out);
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

void check_writable(const std::string& path, const std::string& flag) {
  struct stat st;
  if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    throw Error(flag + ": " + path + " is a directory, not a file");
  }
  // Create (and remove again) the temporary file write_file_atomic() will write: the same
  // directory, the same permissions, so that a typo fails now and not after an hour of work.
  const std::string tmp = path + ".tmp";
  const bool existed = access(tmp.c_str(), F_OK) == 0;
  const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT, 0644);
  if (fd < 0) throw Error(flag + ": " + path + ": cannot write: " + std::strerror(errno));
  close(fd);
  if (!existed) unlink(tmp.c_str());
}

void save_checkpoint(const std::string& path, const std::vector<float>& params) {
  Writer w = params_block("LENETCK1", params);
  finish(path, w);
}

void save_checkpoint(const std::string& path, const std::vector<float>& params,
                     const TrainingPosition& p) {
  Writer w = params_block("LENETCK2", params);
  w.put(p.epoch), w.put(p.step), w.put(p.seed), w.put(p.batch), w.put(p.lr), w.put(p.shuffle);
  w.put(p.train_count), w.put(p.train_crc), w.put(p.loss_sum);
  finish(path, w);
}

Checkpoint read_checkpoint(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) throw Error(path + ": cannot open checkpoint: no such file");
  if (!S_ISREG(st.st_mode)) throw Error(path + ": checkpoint is not a regular file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot open checkpoint for reading");
  // At most one byte more than the longest checkpoint: a huge wrong file (a data set, a disk
  // image) is rejected at once instead of being read into memory.
  std::string bytes(kParamsEnd + kPositionSize + 4 + 1, '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  bytes.resize(static_cast<size_t>(in.gcount()));

  const std::string magic = bytes.substr(0, kMagicSize);
  if (magic != "LENETCK1" && magic != "LENETCK2") {
    throw Error(path + ": not a lenet checkpoint (magic is not LENETCK1 or LENETCK2)");
  }
  const bool v2 = magic == "LENETCK2";
  if (bytes.size() < kMagicSize + 4) throw Error(path + ": checkpoint truncated");
  Reader r{bytes, kMagicSize};
  const auto count = r.get<uint32_t>();
  if (count != kParamCount) {
    throw Error(path + ": checkpoint holds " + std::to_string(count) + " parameters, expected " +
                std::to_string(kParamCount));
  }
  const size_t expected = kParamsEnd + (v2 ? kPositionSize : 0) + 4;
  if (bytes.size() != expected) {
    throw Error(path + ": checkpoint is " + std::to_string(st.st_size) + " bytes, expected " +
                std::to_string(expected));
  }
  if (Reader{bytes, expected - 4}.get<uint32_t>() != crc_of(bytes, expected - 4)) {
    throw Error(path + ": checkpoint CRC-32 mismatch (file corrupt)");
  }
  Checkpoint ck;
  ck.params.resize(kParamCount);
  for (float& p : ck.params)
    p = r.get<float>();
  if (v2) {
    TrainingPosition p;
    p.epoch = r.get<uint32_t>(), p.step = r.get<uint32_t>(), p.seed = r.get<uint64_t>();
    p.batch = r.get<uint32_t>(), p.lr = r.get<float>(), p.shuffle = r.get<uint32_t>();
    p.train_count = r.get<uint32_t>(), p.train_crc = r.get<uint32_t>();
    p.loss_sum = r.get<double>();
    ck.position = p;
  }
  return ck;
}

}  // namespace lenet
