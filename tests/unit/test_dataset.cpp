// The IDX loader: good files in both spellings, plain and gzip, and every malformed file we
// could think of, each rejected with a one-line message naming the file.
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "../../common/dataset.hpp"
#include "../../common/error.hpp"
#include "../../common/huge_pages.hpp"
#include "catch.hpp"
#include "test_files.hpp"

using namespace lenet;
using namespace lenet::test;

namespace {

// Loads images + labels and returns the error message ("" if it loaded).
std::string load_error(const std::string& images, const std::string& labels) {
  try {
    load_idx(images, labels);
  } catch (const Error& e) {
    const std::string msg = e.what();
    CHECK(msg.find('\n') == std::string::npos);  // one line
    return msg;
  }
  return "";
}

}  // namespace

TEST_CASE("IDX: good plain and gzip files load, in both spellings", "[idx]") {
  TempDir dir;
  write_file(dir.file("train-images-idx3-ubyte"), idx_images(3));
  write_file(dir.file("train-labels-idx1-ubyte"), idx_labels({0, 9, 4}));
  write_gz(dir.file("t10k-images.idx3-ubyte.gz"), idx_images(2));
  write_gz(dir.file("t10k-labels.idx1-ubyte.gz"), idx_labels({1, 2}));
  const Dataset train = load_split(dir.path(), "train");
  CHECK(train.count == 3);
  CHECK(train.label(1) == 9);
  CHECK(train.image(2)[5] == static_cast<uint8_t>((2 * 784 + 5) * 7 % 256));
  const Dataset test = load_split(dir.path(), "t10k");
  CHECK(test.count == 2);
  CHECK(test.label(1) == 2);
}

TEST_CASE("IDX: the shipped real data set loads", "[idx]") {
  const Dataset d = load_split(std::string(LENET_VECTORS_DIR) + "/data", "train");
  CHECK(d.count == 128);
}

TEST_CASE("IDX: malformed files are rejected with a one-line error naming the file", "[idx]") {
  TempDir dir;
  const std::string img = dir.file("img"), lab = dir.file("lab");
  write_file(lab, idx_labels({1, 2, 3}));

  SECTION("truncated pixels") {
    write_file(img, idx_images(3, 28, 28, 0x803, 3 * 784 - 10));
    CHECK_THAT(load_error(img, lab), contains(img) && contains("truncated"));
  }
  SECTION("truncated header") {
    write_file(img, idx_images(3).substr(0, 6));
    CHECK_THAT(load_error(img, lab), contains("truncated"));
  }
  SECTION("wrong magic") {
    write_file(img, idx_images(3, 28, 28, 0x801));
    CHECK_THAT(load_error(img, lab), contains("magic"));
  }
  SECTION("trailing bytes") {
    write_file(img, idx_images(3) + "xx");
    CHECK_THAT(load_error(img, lab), contains("trailing"));
  }
  SECTION("not 28x28") {
    write_file(img, idx_images(3, 32, 32));
    CHECK_THAT(load_error(img, lab), contains("32x32"));
  }
  SECTION("no images") {
    write_file(img, idx_images(0));
    CHECK_THAT(load_error(img, lab), contains("no images"));
  }
  SECTION("an absurd count in a small file fails without a huge allocation") {
    write_file(img, idx_images(1u << 30, 28, 28, 0x803, 1000));
    CHECK_THAT(load_error(img, lab), contains("truncated"));
    write_file(img, idx_images(0x80000000u, 28, 28, 0x803, 1000));
    CHECK_THAT(load_error(img, lab), contains("too many"));
  }
  SECTION("empty file") {
    write_file(img, "");
    CHECK_THAT(load_error(img, lab), contains(img));
  }
  SECTION("a directory where a file is expected") {
    CHECK_THAT(load_error(dir.path(), lab), contains("not a regular file"));
  }
  SECTION("a missing file") {
    CHECK_THAT(load_error(dir.file("nope"), lab), contains("no such file"));
  }
  SECTION("label out of range") {
    write_file(img, idx_images(3));
    write_file(lab, idx_labels({1, 11, 3}));
    CHECK_THAT(load_error(img, lab), contains("label 11") && contains(lab));
  }
  SECTION("image and label counts differ") {
    write_file(img, idx_images(4));
    CHECK_THAT(load_error(img, lab), contains("3 labels") && contains("4 images"));
  }
  SECTION("corrupt gzip data") {
    write_gz(img, idx_images(3));
    std::string bytes;
    {
      std::ifstream in(img, std::ios::binary);
      bytes.assign(std::istreambuf_iterator<char>(in), {});
    }
    for (size_t i = 20; i < bytes.size() - 8; i += 3)
      bytes[i] = static_cast<char>(~bytes[i]);
    write_file(img, bytes);
    CHECK_THAT(load_error(img, lab), contains(img));
  }
  SECTION("a large gzip file cut inside its 8-byte trailer") {
    // Incompressible pixels, so that the compressed data spans many of zlib's reads (a small
    // file was caught even before the loader asked zlib for one byte past the payload).
    std::string pixels = idx_images(100);
    uint64_t state = 1;
    for (size_t i = 16; i < pixels.size(); ++i)
      pixels[i] =
          static_cast<char>((state = state * 6364136223846793005u + 1442695040888963407u) >> 56);
    write_gz(img, pixels);
    std::string bytes;
    {
      std::ifstream in(img, std::ios::binary);
      bytes.assign(std::istreambuf_iterator<char>(in), {});
    }
    REQUIRE(bytes.size() > 70000);
    for (size_t cut : {1, 4, 8}) {
      write_file(img, bytes.substr(0, bytes.size() - cut));
      CHECK_THAT(load_error(img, lab), contains(img) && contains("truncated"));
    }
  }
}

TEST_CASE("IDX: a missing data directory or file names what was tried", "[idx]") {
  TempDir dir;
  try {
    load_split(dir.file("missing"), "train");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK_THAT(e.what(), contains("--data") && contains("not a directory"));
  }
  try {
    load_split(dir.path(), "train");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK_THAT(e.what(),
               contains("train-images-idx3-ubyte.gz") && contains("train-images.idx3-ubyte"));
  }
}

TEST_CASE("Pixels: copies share the bytes, and keep_first shortens one copy only", "[idx]") {
  Pixels a(std::vector<uint8_t>{1, 2, 3, 4});
  Pixels b = a;
  CHECK(b.data() == a.data());  // shared, not copied
  b.keep_first(2);
  CHECK(b.size() == 2);
  CHECK(a.size() == 4);
  CHECK(std::vector<uint8_t>(a.begin(), a.end()) == std::vector<uint8_t>{1, 2, 3, 4});
  Pixels c = std::move(a);  // a move is a copy: a keeps its bytes
  CHECK(a.size() == 4);
  CHECK(c.data() == a.data());
  CHECK(c[3] == 4);

  const uint8_t outside[] = {7, 8};
  const Pixels borrowed = Pixels::borrowed(outside, 2);
  CHECK(borrowed.data() == outside);
  CHECK(borrowed[1] == 8);
}

TEST_CASE("IDX: pixels on huge pages are the bytes, 2 MiB aligned", "[idx]") {
  std::vector<uint8_t> bytes(3 << 20);
  for (size_t i = 0; i < bytes.size(); ++i)
    bytes[i] = static_cast<uint8_t>(i * 7 + i / 251);
  const Pixels p = Pixels::on_huge_pages(bytes);
  REQUIRE(p.size() == bytes.size());
  CHECK(reinterpret_cast<uintptr_t>(p.data()) % (2u << 20) == 0);
  CHECK(std::equal(bytes.begin(), bytes.end(), p.begin()));
  const double share = huge_page_share(p.data(), p.size());
  CHECK(share >= 0);  // granted or not, as the kernel decides: a share, never a failure
  CHECK(share <= 1);
}
