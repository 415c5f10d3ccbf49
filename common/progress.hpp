// A one-line progress bar on stderr for long runs, redrawn at most 4 times a second, and only on
// a terminal (never into a log file or a pipe).
#pragma once

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "timer.hpp"

namespace lenet {

class Progress {
 public:
  explicit Progress(bool enabled) : enabled_(enabled && isatty(STDERR_FILENO)) {}

  // True when it is time to redraw (reading the loss may synchronise a device: ask first).
  bool due() {
    if (!enabled_) return false;
    const double now = now_seconds();
    if (now - last_ < 0.25) return false;
    last_ = now;
    return true;
  }

  void update(int epoch, int epochs, int done, int total, double loss_mean, double t0) {
    const int width = 30;
    const int filled = total ? width * done / total : width;
    std::fprintf(stderr, "\r epoch %d/%d [%-*s] %3d%%  loss %.4f  %.0f img/s ", epoch + 1, epochs,
                 width, std::string(filled, '#').c_str(), total ? 100 * done / total : 100,
                 loss_mean, done / std::max(now_seconds() - t0, 1e-9));
    std::fflush(stderr);
  }

  void clear() {
    if (enabled_) std::fprintf(stderr, "\r%*s\r", 80, "");
  }

 private:
  bool enabled_;
  double last_ = 0;
};

}  // namespace lenet
