// What lenet-tinydnn and lenet-dlib share: the project's data, initial parameters, epoch order,
// command line, timing and summary block around another library's training step. A peer is the
// network of docs/network.md as close as its library allows (docs/performance.md#peers lists
// every difference); its parameters are not the spec's, so nothing is verified bit for bit.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backend.hpp"

namespace lenet::peers {

// Images as float pixel / 255.0f (docs/network.md's input), labels as ints, in file order.
struct FloatSet {
  int count = 0;
  std::vector<float> pixels;  // count * 784
  std::vector<int> labels;
  const float* image(int i) const { return pixels.data() + static_cast<size_t>(i) * 784; }
};

class Peer {
 public:
  virtual ~Peer() = default;
  virtual BackendInfo info() const = 0;
  // Copies what the library can hold of the spec's initial parameters (init_params(seed)).
  virtual void set_spec_params(const std::vector<float>& spec) = 0;
  // Untimed set-up of one epoch (like the backends' begin_epoch): the visiting order.
  virtual void begin_epoch(const FloatSet& train, const std::vector<int32_t>& order) = 0;
  // The timed part: every SGD step of the epoch; returns the sum of the per-sample losses, each
  // taken before its batch's update.
  virtual double train_epoch(int batch, float lr) = 0;
  virtual EvalResult evaluate(const FloatSet& test) = 0;
  // The library's parameters, flattened in its own order (for the checksum and CRC only).
  virtual std::vector<float> params() = 0;
};

// Adds the peer's own flags (they may set what `create` reads), parses, trains, reports.
struct PeerSpec {
  std::string program;  // lenet-tinydnn, lenet-dlib
  std::string library;  // "tiny-dnn", "dlib"
  std::string threads_help;
  std::function<std::unique_ptr<Peer>(int threads)> create;
};

int run_peer(int argc, char** argv, const PeerSpec& spec);

// -log p[y] and the prediction (argmax, lowest index on a tie) from 10 logits or probabilities.
void score_logits(const float* z, int label, EvalResult& e);
void score_probabilities(const float* p, int label, EvalResult& e);

}  // namespace lenet::peers
