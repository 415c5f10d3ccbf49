#include "report.hpp"

#include <unistd.h>
#include <zlib.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>

#include "checkpoint.hpp"
#include "network.hpp"

#ifndef LENET_VERSION
#define LENET_VERSION "unknown"
#endif
#ifndef LENET_BUILD
#define LENET_BUILD "unknown"
#endif

namespace lenet {
namespace {

std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string hex32(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%08x", v);
  return buf;
}

double accuracy_percent(const EvalResult& e) {
  return e.count ? 100.0 * static_cast<double>(e.correct) / static_cast<double>(e.count) : 0.0;
}

double test_loss(const EvalResult& e) {
  return e.count ? e.loss_sum / e.count : 0.0;
}

// Where a run ran, for its CSV row: this host's name, and a variable of the Slurm job ("" outside
// one).
std::string host_name() {
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  return name;
}

std::string env_or_empty(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

// A CSV field in quotes, a quote inside doubled (RFC 4180): device names may hold both.
std::string csv_quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s)
    out += c == '"' ? "\"\"" : std::string(1, c);
  return out + '"';
}

}  // namespace

double param_checksum(const std::vector<float>& params) {
  double s = 0;
  for (size_t i = 0; i < params.size(); ++i)
    s += static_cast<double>(i + 1) * params[i];
  return s;
}

uint32_t param_crc32(const std::vector<float>& params) {
  std::string bytes(params.size() * 4, '\0');
  for (size_t i = 0; i < params.size(); ++i) {
    uint32_t bits;
    std::memcpy(&bits, &params[i], 4);
    for (int b = 0; b < 4; ++b)
      bytes[4 * i + b] = static_cast<char>((bits >> (8 * b)) & 0xff);
  }
  return static_cast<uint32_t>(
      crc32(0L, reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uInt>(bytes.size())));
}

double RunResult::epochs_trained() const {
  return train_images > 0 ? double(images_trained) / train_images : 0.0;
}

double RunResult::seconds_per_epoch() const {
  return images_trained > 0 ? train_seconds / epochs_trained() : 0.0;
}

double RunResult::images_per_second() const {
  return train_seconds > 0 ? double(images_trained) / train_seconds : 0.0;
}

std::string RunResult::verification_status() const {
  if (!verification) return "NOT PERFORMED";
  return verification->successful() ? "SUCCESSFUL" : "UNSUCCESSFUL";
}

std::string summary_block(const RunResult& r) {
  std::ostringstream out;
  auto line = [&](const char* key, const std::string& value) {
    char buf[64];
    std::snprintf(buf, sizeof buf, " %-22s = ", key);
    out << buf << value << "\n";
  };
  const BackendInfo& b = r.info;
  out << "\n ============================ lenet-parallel ============================\n";
  line("Backend", b.name);
  line("Kernels", b.kernels);
  line("Strategy", b.strategy);
  line("Threads", b.threads_worked > 0 && b.threads_worked < b.threads
                      ? std::to_string(b.threads) + " asked, " + std::to_string(b.threads_worked) +
                            " had work (the rest waited: too few chunks per batch)"
                      : std::to_string(b.threads));
  line("Ranks", std::to_string(b.ranks));
  line("Device", b.device);
  for (const auto& [key, value] : b.extra)
    line(key.c_str(), value);
  line("Data", r.opts.data_dir);
  line("Train images", std::to_string(r.train_images));
  line("Test images", std::to_string(r.test_images));
  line("Epochs", r.images_trained == static_cast<long long>(r.train_images) * r.opts.epochs
                     ? std::to_string(r.opts.epochs)
                     : std::to_string(r.opts.epochs) +
                           fmt(" (%.2f trained by this run)", r.epochs_trained()));
  line("Batch", std::to_string(r.opts.batch));
  line("Learning rate", fmt("%g", r.opts.lr));
  line("Seed", std::to_string(r.opts.seed));
  line("Shuffle", r.opts.shuffle ? "yes" : "no");
  line("Start", r.start);
  line("Load time (s)", fmt("%.3f", r.load_seconds));
  line("Time per epoch (s)", fmt("%.4f", r.seconds_per_epoch()));
  line("Images per second", fmt("%.0f", r.images_per_second()));
  line("Communication (s)", fmt("%.4f", r.times.comm));
  line("GFLOP/s", fmt("%.2f", r.images_per_second() * kFlopsPerSample * 1e-9));
  line("Final train loss", r.opts.epochs > 0 ? fmt("%.6f", r.final_loss) : "-");
  line("Test loss", fmt("%.6f", test_loss(r.eval)));
  line("Test accuracy (%)", fmt("%.2f", accuracy_percent(r.eval)));
  line("Param checksum", fmt("%.10e", param_checksum(r.params)));
  line("Param CRC-32", hex32(param_crc32(r.params)));
  line("Verification",
       r.verification_status() + (r.verification               ? r.verification->summary()
                                  : r.why_not_verified.empty() ? std::string()
                                                               : " (" + r.why_not_verified + ")"));
  line("Version", LENET_VERSION);
  line("Build", LENET_BUILD);
  out << " ========================================================================\n";
  return out.str();
}

void append_csv(const std::string& path, const RunResult& r) {
  std::string existing;
  if (std::ifstream in{path, std::ios::binary}) {
    std::ostringstream ss;
    ss << in.rdbuf();
    existing = ss.str();
  }
  std::ostringstream row;
  if (existing.empty()) {
    row << "timestamp,backend,kernels,strategy,threads,ranks,device,batch,lr,seed,epochs,"
           "train_images,test_images,seconds_per_epoch,images_per_s,gflops,test_accuracy,"
           "test_loss,final_loss,comm_seconds,checksum,param_crc32,verification,max_abs_diff,"
           "bit_identical";
    for (const LayerTimeField& f : kLayerTimeFields) {
      if (f.seconds != &LayerTimes::comm) row << ',' << f.column;
    }
    row << ",host,slurm_job_id,slurm_nnodes,hosts\n";
  }
  const std::time_t now = std::time(nullptr);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  const BackendInfo& b = r.info;
  // The device name may hold commas and quotes (GPU names); quote it.
  row << stamp << ',' << b.name << ',' << b.kernels << ',' << b.strategy << ',' << b.threads << ','
      << b.ranks << ',' << csv_quoted(b.device) << ',' << r.opts.batch << ','
      << fmt("%g", r.opts.lr) << ',' << r.opts.seed << ',' << r.opts.epochs << ',' << r.train_images
      << ',' << r.test_images << ',' << fmt("%.6f", r.seconds_per_epoch()) << ','
      << fmt("%.1f", r.images_per_second()) << ','
      << fmt("%.3f", r.images_per_second() * kFlopsPerSample * 1e-9) << ','
      << fmt("%.4f", accuracy_percent(r.eval)) << ',' << fmt("%.6f", test_loss(r.eval)) << ','
      << fmt("%.6f", r.final_loss) << ',' << fmt("%.6f", r.times.comm) << ','
      << fmt("%.10e", param_checksum(r.params)) << ',' << hex32(param_crc32(r.params)) << ','
      << r.verification_status() << ','
      << (r.verification ? fmt("%.3e", r.verification->max_abs()) : "") << ','
      << (!r.verification               ? ""
          : r.verification->identical() ? "yes"
                                        : "no");
  // Per-layer seconds per epoch (0 unless --timing); communication has its column above.
  for (const LayerTimeField& f : kLayerTimeFields) {
    if (f.seconds == &LayerTimes::comm) continue;
    const double s = r.times.*f.seconds;
    row << ',' << fmt("%.6f", r.images_trained > 0 ? s / r.epochs_trained() : 0.0);
  }
  // Where: rank 0's host, the Slurm job and its node count, the hosts the ranks ran on.
  row << ',' << host_name() << ',' << env_or_empty("SLURM_JOB_ID") << ','
      << env_or_empty("SLURM_JOB_NUM_NODES") << ',' << b.hosts << '\n';
  write_file_atomic(path, existing + row.str());
}

std::string timing_table(const LayerTimes& t, double epochs) {
  std::ostringstream out;
  const double total = t.total();
  auto row = [&](const char* name, double s) {
    char buf[96];
    std::snprintf(buf, sizeof buf, " %-14s %10.4f %10.4f %6.1f%%\n", name, s,
                  epochs > 0 ? s / epochs : 0.0, total > 0 ? 100.0 * s / total : 0.0);
    out << buf;
  };
  out << "\n Per-layer time     total(s)  per epoch   share\n";
  for (const LayerTimeField& f : kLayerTimeFields)
    row(f.row, t.*f.seconds);
  row("total", total);
  return out.str();
}

}  // namespace lenet
