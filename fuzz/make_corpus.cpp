// Writes the seed corpus: a few small valid and nearly valid files per target, made by the real
// writers (save_checkpoint) and by join_idx_input, so they keep up with the formats.
// Usage: lenet_fuzz_corpus DIR  (writes DIR/idx/* and DIR/checkpoint/*; fuzz/README.md)
#include <cstdio>
#include <filesystem>
#include <vector>

#include "fuzz_inputs.hpp"

using namespace lenet;
using namespace lenet::fuzz;

namespace {

// An IDX image file of `count` images (a smooth pattern, so that gzip shrinks it) + extra bytes.
std::string images(uint32_t count, uint32_t rows = kImageSide, uint32_t magic = 0x803,
                   size_t pixels = ~size_t{0}) {
  std::string s = be32(magic) + be32(count) + be32(rows) + be32(rows);
  if (pixels == ~size_t{0}) pixels = size_t{count} * rows * rows;
  for (size_t i = 0; i < pixels; ++i)
    s += static_cast<char>(i % kImageSide * 9);
  return s;
}

std::string labels(const std::string& values, uint32_t count) {
  return be32(0x801) + be32(count) + values;
}

std::string gzipped(const ScratchDir& dir, const std::string& bytes) {
  write_file(dir.file("gz"), bytes, true);
  return read_file(dir.file("gz"));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
    return 2;
  }
  const std::filesystem::path out = argv[1];
  std::filesystem::create_directories(out / "idx");
  std::filesystem::create_directories(out / "checkpoint");
  const ScratchDir dir;
  const auto idx = [&](const char* name, IdxInput in) {
    write_file(out / "idx" / name, join_idx_input(in));
  };
  const std::string one = images(1), seven = labels("\x07", 1);
  idx("good-plain", {one, seven});
  idx("good-gzip-flags", {one, seven, true, true});
  idx("good-raw-gz", {gzipped(dir, one), gzipped(dir, seven)});
  idx("bad-label-10", {one, labels("\x0a", 1)});
  idx("bad-count-mismatch", {one, labels("\x01\x02", 2)});
  idx("bad-trailing-byte", {one + "x", seven});
  idx("bad-magic", {images(1, kImageSide, 0x804, 0), seven});
  idx("bad-32x32", {images(1, 32, 0x803, 0), seven});
  idx("bad-huge-count", {images(1u << 30, kImageSide, 0x803, 0), seven});
  idx("bad-empty", {});

  std::vector<float> params(kParamCount);
  for (size_t i = 0; i < params.size(); ++i)
    params[i] = static_cast<float>(i % 97) / 97.0f - 0.5f;
  TrainingPosition p;
  p.epoch = 1, p.step = 3, p.seed = 7, p.batch = 16, p.lr = 0.1f, p.train_count = 128;
  p.train_crc = 0x12345678, p.loss_sum = 42.5;
  const auto ck = [&](const char* name, const std::string& bytes) {
    write_file(out / "checkpoint" / name, bytes);
  };
  save_checkpoint(dir.file("v1"), params);
  save_checkpoint(dir.file("v2"), params, p);
  const std::string v1 = read_file(dir.file("v1")), v2 = read_file(dir.file("v2"));
  ck("good-v1", v1);
  ck("good-v2", v2);
  ck("bad-v2-header-only", v2.substr(0, 12));
  ck("bad-param-count", v1.substr(0, 8) + "\x05" + v1.substr(9, 3));
  ck("bad-magic", "LENETCK3");
  return 0;
}
