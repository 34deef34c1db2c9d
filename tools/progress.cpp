#include "progress.hpp"

#include <chrono>
#include <cstdio>
#include <unistd.h>

namespace mmp::tools {

static double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

Progress::Progress(std::string label)
    : label_(std::move(label)), enabled_(::isatty(STDERR_FILENO) == 1), last_line_(now()) {}

Progress::~Progress() { finish(); }

void Progress::update(long done, long total, const std::string& status) {
  const double t = now();
  if (!enabled_) {  // a log file: a plain line at most every 30 s, so long runs show they are alive
    if (t - last_line_ < 30.0) return;
    last_line_ = t;
    std::fprintf(stderr, "%s %ld/%ld %s\n", label_.c_str(), done, total, status.c_str());
    std::fflush(stderr);
    return;
  }
  if (done < total && t - last_draw_ < 0.1) return;
  last_draw_ = t;
  constexpr int kWidth = 30;
  const double fraction = total > 0 ? static_cast<double>(done) / static_cast<double>(total) : 1.0;
  const int filled = static_cast<int>(fraction * kWidth);
  std::fprintf(stderr, "\r%-18s [%.*s%*s] %5.1f%% %s\033[K", label_.c_str(), filled,
               "##############################", kWidth - filled, "", 100.0 * fraction, status.c_str());
  std::fflush(stderr);
  drawn_ = true;
}

void Progress::update(const std::string& label, long done, long total, const std::string& status) {
  if (label != label_) {
    finish();
    label_ = label;
    last_draw_ = -1.0;  // a new bar draws at once; log lines keep their 30 s
  }
  update(done, total, status);
}

void Progress::finish() {
  if (enabled_ && drawn_) std::fprintf(stderr, "\r\033[K");
  drawn_ = false;
}

}  // namespace mmp::tools
