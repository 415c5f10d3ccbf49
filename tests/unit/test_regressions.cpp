// Replays the fuzzers' seed corpus (fuzz/corpus/) and every input they ever found a bug with
// (fuzz/regressions/) through the ordinary loaders, with the fuzz targets' own rule
// (fuzz/fuzz_inputs.hpp): each file loads, or is rejected with a one-line lenet::Error naming
// the file. No libFuzzer needed: this runs in every build.
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "../../fuzz/fuzz_inputs.hpp"
#include "catch.hpp"

namespace fs = std::filesystem;
using namespace lenet::fuzz;

namespace {

const fs::path kFuzzDir = fs::path(LENET_VECTORS_DIR) / ".." / ".." / "fuzz";

// The files of fuzz/corpus/<kind> and fuzz/regressions/<kind> (the latter may not exist yet).
std::vector<fs::path> inputs(const std::string& kind) {
  std::vector<fs::path> files;
  for (const char* set : {"corpus", "regressions"}) {
    const fs::path dir = kFuzzDir / set / kind;
    if (!fs::is_directory(dir)) continue;
    for (const auto& entry : fs::directory_iterator(dir)) {
      if (entry.is_regular_file()) files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

template <class Run>
void replay(const std::string& kind, Run run) {
  const auto files = inputs(kind);
  REQUIRE(files.size() >= 2);  // at least the seeds: a wrong path must not pass silently
  const ScratchDir dir;
  for (const auto& file : files) {
    const Outcome o = run(dir, read_file(file.string()));
    INFO(file.filename().string() << (o.loaded ? ": loaded" : ": " + o.error));
    CHECK(o.bug == "");
  }
}

}  // namespace

TEST_CASE("fuzz inputs: IDX files load or fail with a one-line error", "[fuzz][idx]") {
  replay("idx", run_idx);
}

TEST_CASE("fuzz inputs: checkpoints load or fail with a one-line error", "[fuzz][checkpoint]") {
  replay("checkpoint", run_checkpoint);
}

TEST_CASE("fuzz inputs: an IDX input splits into the two files it was joined from", "[fuzz]") {
  const IdxInput in{"image bytes", "label bytes", true, false};
  const IdxInput out = split_idx_input(join_idx_input(in));
  CHECK(out.images == in.images);
  CHECK(out.labels == in.labels);
  CHECK(out.gzip_images);
  CHECK_FALSE(out.gzip_labels);
  const std::string_view past_the_end(
      "\x00\xff\xff"
      "abc",
      6);  // claims 65535 image bytes
  CHECK(split_idx_input(past_the_end).images == "abc");
}
