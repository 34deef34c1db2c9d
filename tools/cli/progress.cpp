#include "progress.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <unistd.h>

namespace mmp::tools {

static double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string durationText(double seconds) {
  const long s = std::lround(std::max(0.0, seconds));
  char buffer[32];
  if (s < 3600) std::snprintf(buffer, sizeof buffer, "%ld:%02ld", s / 60, s % 60);
  else std::snprintf(buffer, sizeof buffer, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
  return buffer;
}

std::string etaText(double elapsed, long done_since, long remaining) {
  if (remaining < 0 || done_since <= 0 || !(elapsed >= 1.0)) return "";
  const double left = elapsed / static_cast<double>(done_since) * static_cast<double>(remaining);
  const double step = left < 60.0 ? 1.0 : left < 600.0 ? 10.0 : 60.0;
  return "ETA " + durationText(std::ceil(left / step) * step);
}

Progress::Progress(std::string label)
    : label_(std::move(label)), enabled_(::isatty(STDERR_FILENO) == 1), last_line_(now()) {}

Progress::~Progress() { finish(); }

// "0:12 elapsed, ETA 0:30", without the ETA while it means nothing; "" in the stage's first second.
std::string Progress::timing(double t, long done, long total) const {
  if (t - stage_start_ < 1.0) return "";
  const std::string eta = etaText(t - stage_start_, done - stage_done_, total > 0 ? std::max(0L, total - done) : -1);
  return durationText(t - stage_start_) + " elapsed" + (eta.empty() ? "" : ", " + eta);
}

// The parts that are not empty, one space apart.
static std::string joined(std::initializer_list<std::string> parts) {
  std::string line;
  for (const std::string& part : parts) {
    if (!part.empty()) line += (line.empty() ? "" : " ") + part;
  }
  return line;
}

void Progress::update(long done, long total, const std::string& status) {
  const double t = now();
  if (stage_start_ < 0.0 || done < last_done_) stage_start_ = t, stage_done_ = done;  // a stage (re)starts
  last_done_ = done;
  const std::string time = timing(t, done, total);
  if (!enabled_) {  // a log file: a plain line at most every 30 s, so long runs show they are alive
    if (t - last_line_ < 30.0) return;
    last_line_ = t;
    const std::string count = total > 0 ? std::to_string(done) + "/" + std::to_string(total) : std::to_string(done) + " done";
    std::fprintf(stderr, "%s\n", joined({label_, count, time.empty() ? "" : "(" + time + ")", status}).c_str());
    std::fflush(stderr);
    return;
  }
  if ((total <= 0 || done < total) && t - last_draw_ < 0.1) return;
  last_draw_ = t;
  char label[256];
  std::snprintf(label, sizeof label, "%-18s", label_.c_str());
  std::string progress;
  if (total <= 0) {
    progress = done > 0 ? std::to_string(done) + " done" : "";
  } else {
    constexpr int kWidth = 30;
    const double fraction = std::min(1.0, static_cast<double>(done) / static_cast<double>(total));
    const int filled = static_cast<int>(fraction * kWidth);
    char bar[64];
    std::snprintf(bar, sizeof bar, "[%s%s] %5.1f%%", std::string(filled, '#').c_str(), std::string(kWidth - filled, ' ').c_str(),
                  100.0 * fraction);
    progress = bar;
  }
  std::fprintf(stderr, "\r%s\033[K", joined({label, progress, time, status}).c_str());
  std::fflush(stderr);
  drawn_ = true;
}

void Progress::update(const std::string& label, long done, long total, const std::string& status) {
  if (label != label_) {
    finish();
    label_ = label;
    last_draw_ = -1.0;  // a new bar draws at once; log lines keep their 30 s
    stage_start_ = -1.0;
  }
  update(done, total, status);
}

void Progress::finish() {
  if (enabled_ && drawn_) std::fprintf(stderr, "\r\033[K");
  drawn_ = false;
}

}  // namespace mmp::tools
