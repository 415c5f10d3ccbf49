// How one fuzz input becomes files for the loaders, and what counts as a correct outcome.
// Shared by the libFuzzer targets (fuzz_idx.cpp, fuzz_checkpoint.cpp), the seed generator
// (make_corpus.cpp) and tests/unit/test_regressions.cpp, which replays fuzz/corpus/ and
// fuzz/regressions/ in the ordinary test suite, so that all of them agree on the format.
//
// The rule: a loader either loads the file, and what it returns matches the bytes, or throws
// lenet::Error with one non-empty line naming the file. A crash, a sanitizer report, another
// exception type or a broken rule (`Outcome::bug`) is a bug.
#pragma once

#include <stdlib.h>
#include <sys/stat.h>
#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "checkpoint.hpp"
#include "dataset.hpp"
#include "error.hpp"
#include "network.hpp"

namespace lenet::fuzz {

// A private directory for the files of one process, removed when the object dies: in /dev/shm
// where there is one (no disk traffic for millions of runs), else in $TMPDIR or /tmp.
class ScratchDir {
 public:
  ScratchDir() {
    struct stat st;
    const std::string base = stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode)
                                 ? "/dev/shm"
                                 : std::filesystem::temp_directory_path().string();
    std::string tmpl = base + "/lenet-fuzz-XXXXXX";
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("cannot create a directory in " + base);
    path_ = tmpl;
  }
  ~ScratchDir() { std::filesystem::remove_all(path_); }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  std::string file(const std::string& name) const { return path_ + "/" + name; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// An IDX fuzz input holds two files:
//   byte 0      flags: bit 0 = gzip-compress the image file, bit 1 = the label file
//   bytes 1, 2  n, little-endian: the image file is the next n bytes (fewer if the input ends)
//   the rest    the label file
// (Without the flags the bytes are still written as they are, so raw .gz data is fuzzed too.)
struct IdxInput {
  std::string images, labels;
  bool gzip_images = false, gzip_labels = false;
};

inline IdxInput split_idx_input(std::string_view in) {
  IdxInput r;
  if (in.size() < 3) return r;  // two empty files
  const auto byte = [&](size_t i) { return static_cast<uint8_t>(in[i]); };
  r.gzip_images = byte(0) & 1;
  r.gzip_labels = byte(0) & 2;
  const size_t n = std::min<size_t>(byte(1) | byte(2) << 8, in.size() - 3);
  r.images = in.substr(3, n);
  r.labels = in.substr(3 + n);
  return r;
}

// The inverse of split_idx_input (images must be under 64 KiB), for writing seeds.
inline std::string join_idx_input(const IdxInput& r) {
  const size_t n = r.images.size();
  std::string out;
  out += static_cast<char>((r.gzip_images ? 1 : 0) | (r.gzip_labels ? 2 : 0));
  out += static_cast<char>(n & 0xff);
  out += static_cast<char>(n >> 8 & 0xff);
  return out + r.images + r.labels;
}

inline void write_file(const std::string& path, std::string_view bytes, bool gzip = false) {
  if (gzip) {
    gzFile f = gzopen(path.c_str(), "wb");
    if (!f ||
        (!bytes.empty() && gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size())) <= 0)) {
      throw std::runtime_error("cannot write " + path);
    }
    gzclose(f);
  } else {
    std::ofstream(path, std::ios::binary)
        .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// What one input did: loaded, or the loader's one-line error; `bug` says which rule it broke.
struct Outcome {
  bool loaded = false;
  std::string error;
  std::string bug;  // empty: as expected
};

// The rule for a rejected file: one non-empty line that names the file (dir is in its path).
inline Outcome rejected(const Error& e, const ScratchDir& dir) {
  Outcome o;
  o.error = e.what();
  if (o.error.empty()) o.bug = "empty error message";
  if (o.error.find_first_of("\r\n") != std::string::npos) o.bug = "multi-line error message";
  if (o.error.find(dir.path()) == std::string::npos) o.bug = "the error names no file";
  return o;
}

inline std::string be32(uint32_t v) {
  return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
          static_cast<char>(v)};
}

// What a file holds after decompression, as a strict reader sees it: plain bytes as they are;
// gzip data only if every member is complete (CRC-32 and length checked), and, as zlib does,
// ignoring bytes after the last member that do not start another one. nullopt: broken gzip.
inline std::optional<std::string> content(std::string_view file) {
  if (file.substr(0, 2) != "\x1f\x8b") return std::string(file);
  std::string out;
  while (file.substr(0, 2) == "\x1f\x8b") {
    z_stream z{};
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) throw std::bad_alloc();
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(file.data()));  // only read
    z.avail_in = static_cast<uInt>(file.size());
    int rc = Z_OK;
    while (rc == Z_OK) {
      char buf[4096];
      z.next_out = reinterpret_cast<Bytef*>(buf);
      z.avail_out = sizeof buf;
      rc = inflate(&z, Z_NO_FLUSH);
      out.append(buf, sizeof buf - z.avail_out);
    }
    file.remove_prefix(file.size() - z.avail_in);
    inflateEnd(&z);
    if (rc != Z_STREAM_END) return std::nullopt;
  }
  return out;
}

// Loads an IDX input; a loaded data set must be consistent and be exactly what the files say.
inline Outcome run_idx(const ScratchDir& dir, std::string_view input) {
  const IdxInput in = split_idx_input(input);
  const std::string images = dir.file("images"), labels = dir.file("labels");
  write_file(images, in.images, in.gzip_images);
  write_file(labels, in.labels, in.gzip_labels);
  Dataset d;
  try {
    d = load_idx(images, labels);
  } catch (const Error& e) {
    return rejected(e, dir);
  }
  Outcome o;
  o.loaded = true;
  const auto n = static_cast<size_t>(d.count);
  if (d.count <= 0 || d.pixels.size() != n * kImageSize || d.labels.size() != n) {
    o.bug = "loaded a data set whose sizes disagree";
  }
  for (uint8_t l : d.labels) {
    if (l >= kClasses) o.bug = "loaded a label out of range";
  }
  // What we compressed ourselves reaches the loader as it was; other bytes may be gzip data.
  const auto held = [](const std::string& raw, bool gzipped) {
    return gzipped ? std::optional<std::string>(raw) : content(raw);
  };
  const std::string header = be32(0x803) + be32(d.count) + be32(kImageSide) + be32(kImageSide);
  if (held(in.images, in.gzip_images) != header + std::string(d.pixels.begin(), d.pixels.end())) {
    o.bug = "the images loaded are not what the file holds";
  }
  const std::string labels_header = be32(0x801) + be32(d.count);
  if (held(in.labels, in.gzip_labels) !=
      labels_header + std::string(d.labels.begin(), d.labels.end())) {
    o.bug = "the labels loaded are not what the file holds";
  }
  return o;
}

// Loads a checkpoint input; a loaded checkpoint, saved again, must give the same bytes.
inline Outcome run_checkpoint(const ScratchDir& dir, std::string_view input) {
  const std::string path = dir.file("checkpoint"), again = dir.file("again");
  write_file(path, input);
  Checkpoint ck;
  try {
    ck = read_checkpoint(path);
  } catch (const Error& e) {
    return rejected(e, dir);
  }
  Outcome o;
  o.loaded = true;
  if (ck.params.size() != kParamCount) o.bug = "loaded a wrong number of parameters";
  if (ck.position) {
    save_checkpoint(again, ck.params, *ck.position);
  } else {
    save_checkpoint(again, ck.params);
  }
  if (read_file(again) != input) o.bug = "saving the loaded checkpoint gives other bytes";
  return o;
}

}  // namespace lenet::fuzz
