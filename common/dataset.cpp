#include "dataset.hpp"

#include <sys/stat.h>
#include <zlib.h>

#include <algorithm>
#include <memory>

#include "error.hpp"
#include "huge_pages.hpp"

namespace lenet {
namespace {

constexpr uint32_t kImagesMagic = 0x00000803;  // unsigned byte, 3 dimensions
constexpr uint32_t kLabelsMagic = 0x00000801;  // unsigned byte, 1 dimension

bool is_regular_file(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// A file read through zlib, which passes plain files through unchanged.
class IdxFile {
 public:
  explicit IdxFile(const std::string& path) : path_(path) {
    struct stat st;
    if (stat(path.c_str(), &st) != 0) fail("cannot open: no such file");
    if (!S_ISREG(st.st_mode)) fail("is not a regular file");
    file_.reset(gzopen(path.c_str(), "rb"));
    if (!file_) fail("cannot open for reading");
  }

  [[noreturn]] void fail(const std::string& what) const { throw Error(path_ + ": " + what); }

  uint32_t read_u32_be(const char* field) {
    unsigned char b[4];
    if (read_some(b, 4) != 4) fail(std::string("truncated: no ") + field);
    return (uint32_t{b[0]} << 24) | (uint32_t{b[1]} << 16) | (uint32_t{b[2]} << 8) | b[3];
  }

  // Reads exactly n payload bytes, growing the buffer as data arrives so that a header claiming
  // a huge count cannot make us allocate more than the file really holds.
  std::vector<uint8_t> read_payload(uint64_t n, const char* what) {
    std::vector<uint8_t> out;
    constexpr uint64_t kChunk = 1 << 20;
    while (out.size() < n) {
      const size_t want = static_cast<size_t>(std::min<uint64_t>(kChunk, n - out.size()));
      // The last read asks for one byte more than the payload: the file must end there. In the
      // same read zlib meets the end of a gzip stream and checks its trailer; asked for exactly
      // the bytes that remain, it stops before and takes a trailer cut off for a clean end.
      const size_t ask = out.size() + want == n ? want + 1 : want;
      const size_t old = out.size();
      out.resize(old + ask);
      const size_t got = read_some(out.data() + old, ask);
      if (got < want) {
        fail("truncated: expected " + std::to_string(n) + " bytes of " + what + ", found " +
             std::to_string(old + got));
      }
      if (got > want) fail("has trailing bytes after the " + std::string(what));
      out.resize(old + want);
    }
    return out;
  }

 private:
  size_t read_some(void* dst, size_t n) {
    size_t total = 0;
    while (total < n) {
      const unsigned want = static_cast<unsigned>(std::min<size_t>(n - total, 1u << 30));
      const int got = gzread(file_.get(), static_cast<char*>(dst) + total, want);
      int code = Z_OK;
      if (got < 0) {
        std::string why = gzerror(file_.get(), &code);
        if (why.rfind(path_ + ": ", 0) == 0) why.erase(0, path_.size() + 2);  // zlib adds the path
        fail("corrupt or unreadable: " + why);
      }
      // zlib reports a gzip stream cut short (its CRC-32 never checked) as an end of file with
      // Z_BUF_ERROR, which a read that returned data may already have set: check every read.
      gzerror(file_.get(), &code);
      if (code == Z_BUF_ERROR) fail("truncated: the gzip data ends early");
      if (got == 0) break;
      total += static_cast<size_t>(got);
    }
    return total;
  }

  struct Closer {
    void operator()(gzFile f) const { gzclose(f); }
  };
  std::string path_;
  std::unique_ptr<gzFile_s, Closer> file_;
};

}  // namespace

Pixels Pixels::on_huge_pages(std::vector<uint8_t> bytes) {
  std::shared_ptr<void> buffer = huge_page_buffer(bytes.size());
  if (!buffer) return Pixels(std::move(bytes));
  std::copy(bytes.begin(), bytes.end(), static_cast<uint8_t*>(buffer.get()));
  Pixels v;
  v.data_ = static_cast<const uint8_t*>(buffer.get()), v.size_ = bytes.size();
  v.own_ = std::move(buffer);
  return v;
}

Dataset load_idx(const std::string& images_path, const std::string& labels_path) {
  Dataset d;
  d.images_path = images_path;

  IdxFile images(images_path);
  const uint32_t magic = images.read_u32_be("magic number");
  if (magic != kImagesMagic) {
    images.fail("wrong magic number " + std::to_string(magic) + " (an IDX image file has 2051)");
  }
  const uint32_t count = images.read_u32_be("image count");
  const uint32_t rows = images.read_u32_be("row count");
  const uint32_t cols = images.read_u32_be("column count");
  if (rows != kImageSide || cols != kImageSide) {
    images.fail("images are " + std::to_string(rows) + "x" + std::to_string(cols) +
                ", this network needs 28x28");
  }
  if (count == 0) images.fail("holds no images");
  if (count > (1u << 30)) images.fail("claims " + std::to_string(count) + " images: too many");
  d.count = static_cast<int>(count);
  d.pixels = Pixels::on_huge_pages(images.read_payload(uint64_t{count} * kImageSize, "pixels"));

  IdxFile labels(labels_path);
  const uint32_t lmagic = labels.read_u32_be("magic number");
  if (lmagic != kLabelsMagic) {
    labels.fail("wrong magic number " + std::to_string(lmagic) + " (an IDX label file has 2049)");
  }
  const uint32_t lcount = labels.read_u32_be("label count");
  if (lcount != count) {
    labels.fail("holds " + std::to_string(lcount) + " labels but " + images_path + " holds " +
                std::to_string(count) + " images");
  }
  d.labels = labels.read_payload(lcount, "labels");
  for (uint32_t i = 0; i < lcount; ++i) {
    if (d.labels[i] >= kClasses) {
      labels.fail("label " + std::to_string(d.labels[i]) + " at index " + std::to_string(i) +
                  " is out of range 0..9");
    }
  }
  return d;
}

Dataset load_split(const std::string& dir, const std::string& prefix) {
  struct stat st;
  if (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    throw Error("--data: '" + dir + "' is not a directory (run run_scripts/get_data.sh?)");
  }
  auto find = [&](const std::string& kind, const std::string& idx) {
    std::string tried;
    for (const char* sep : {"-", "."}) {
      for (const char* ext : {"", ".gz"}) {
        const std::string path = dir + "/" + prefix + "-" + kind + sep + idx + "-ubyte" + ext;
        if (is_regular_file(path)) return path;
        tried += (tried.empty() ? "" : ", ") + path;
      }
    }
    throw Error("--data: no " + prefix + " " + kind + " file in '" + dir + "' (tried " + tried +
                ")");
  };
  const std::string images = find("images", "idx3");
  const std::string labels = find("labels", "idx1");
  return load_idx(images, labels);
}

uint32_t dataset_crc(const Dataset& d) {
  uLong crc = crc32(0L, Z_NULL, 0);
  const auto add = [&crc](const uint8_t* bytes, size_t size) {
    for (size_t at = 0; at < size; at += 1u << 30) {
      const auto n = static_cast<uInt>(std::min<size_t>(size - at, 1u << 30));
      crc = crc32(crc, bytes + at, n);
    }
  };
  add(d.pixels.data(), d.pixels.size());
  add(d.labels.data(), d.labels.size());
  return static_cast<uint32_t>(crc);
}

void truncate(Dataset& d, int n) {
  d.count = n;
  d.pixels.keep_first(static_cast<size_t>(n) * kImageSize);
  d.labels.resize(n);
}

void apply_limit(Dataset& d, int n, const char* flag) {
  if (n > d.count) {
    throw Error(std::string(flag) + ": " + std::to_string(n) + " is more than the " +
                    std::to_string(d.count) + " images in " + d.images_path,
                2);
  }
  if (n > 0) truncate(d, n);
}

}  // namespace lenet
