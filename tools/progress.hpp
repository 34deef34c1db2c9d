// Progress on stderr: a one-line bar when stderr is a terminal, else a plain line at most every 30 s.
#pragma once

#include <string>

namespace mmp::tools {

class Progress {
 public:
  explicit Progress(std::string label);
  ~Progress();
  /// done of total, with a short status text; redraws at most every 100 ms.
  void update(long done, long total, const std::string& status = "");
  /// The same under another label: a new stage starts on a fresh line.
  void update(const std::string& label, long done, long total, const std::string& status);
  void finish();

 private:
  std::string label_;
  bool enabled_;
  bool drawn_ = false;
  double last_draw_ = -1.0;
  double last_line_;  // when not on a terminal: the last plain line
};

}  // namespace mmp::tools
