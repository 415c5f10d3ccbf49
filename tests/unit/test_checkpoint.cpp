// The LENETCK1 checkpoint: round trip, and each corruption rejected.
#include <fstream>

#include "../../common/checkpoint.hpp"
#include "../../common/error.hpp"
#include "../../common/rng.hpp"
#include "catch.hpp"
#include "test_files.hpp"

using namespace lenet;
using namespace lenet::test;

namespace {

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string load_error(const std::string& path) {
  try {
    load_checkpoint(path);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("checkpoint: save then load gives the same bits, no temp file left", "[checkpoint]") {
  TempDir dir;
  const auto params = init_params(5);
  save_checkpoint(dir.file("a.ck"), params);
  CHECK(load_checkpoint(dir.file("a.ck")) == params);
  CHECK_FALSE(std::filesystem::exists(dir.file("a.ck.tmp")));
  const std::string bytes = read_all(dir.file("a.ck"));
  REQUIRE(bytes.size() == 8 + 4 + 4 * 2343 + 4);
  CHECK(bytes.substr(0, 8) == "LENETCK1");
  CHECK(static_cast<unsigned char>(bytes[8]) == (2343 & 0xff));  // little-endian count
}

TEST_CASE("checkpoint: corrupt files are rejected", "[checkpoint]") {
  TempDir dir;
  save_checkpoint(dir.file("good.ck"), init_params(1));
  const std::string good = read_all(dir.file("good.ck"));
  const std::string bad = dir.file("bad.ck");

  std::string flipped = good;
  flipped[100] ^= 1;
  write_file(bad, flipped);
  CHECK_THAT(load_error(bad), contains("CRC") && contains(bad));

  write_file(bad, "LENETCK9" + good.substr(8));
  CHECK_THAT(load_error(bad), contains("magic"));

  write_file(bad, good.substr(0, good.size() - 5));
  CHECK_THAT(load_error(bad), contains("bytes"));

  std::string count = good;
  count[8] = 5;
  write_file(bad, count);
  CHECK_THAT(load_error(bad), contains("parameters"));

  write_file(bad, "");
  CHECK_THAT(load_error(bad), contains("magic"));
  CHECK_THAT(load_error(dir.file("none.ck")), contains("no such file"));
  CHECK_THAT(load_error(dir.path()), contains("not a regular file"));
}

TEST_CASE("checkpoint: v2 carries the training position; every loader accepts both",
          "[checkpoint]") {
  TempDir dir;
  const auto params = init_params(3);
  TrainingPosition p;
  p.epoch = 2, p.step = 17, p.seed = 99, p.batch = 8, p.lr = 0.3f, p.shuffle = 0;
  p.train_count = 128, p.train_crc = 0xdeadbeef, p.loss_sum = 12.5;
  save_checkpoint(dir.file("v2.ck"), params, p);
  CHECK(read_all(dir.file("v2.ck")).substr(0, 8) == "LENETCK2");
  const Checkpoint ck = read_checkpoint(dir.file("v2.ck"));
  CHECK(ck.params == params);
  REQUIRE(ck.position);
  CHECK(ck.position->epoch == 2);
  CHECK(ck.position->step == 17);
  CHECK(ck.position->seed == 99);
  CHECK(ck.position->batch == 8);
  CHECK(ck.position->lr == 0.3f);
  CHECK(ck.position->shuffle == 0);
  CHECK(ck.position->train_count == 128);
  CHECK(ck.position->train_crc == 0xdeadbeef);
  CHECK(ck.position->loss_sum == 12.5);
  CHECK(load_checkpoint(dir.file("v2.ck")) == params);  // the v1 entry point reads v2 too

  std::string bad = read_all(dir.file("v2.ck"));
  bad[bad.size() - 10] ^= 4;  // inside the position: the CRC covers it
  write_file(dir.file("bad.ck"), bad);
  CHECK_THAT(load_error(dir.file("bad.ck")), contains("CRC"));

  save_checkpoint(dir.file("v1.ck"), params);
  CHECK_FALSE(read_checkpoint(dir.file("v1.ck")).position);
}
