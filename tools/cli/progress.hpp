// Progress on stderr: a one-line bar when stderr is a terminal, else a plain line at most every 30 s;
// both with the time the stage has taken and, once it means something, the time it still needs.
#pragma once

#include <string>

namespace mmp::tools {

/// A duration in whole seconds (rounded): "0:07", "12:05", "1:02:03".
std::string durationText(double seconds);

/*!
    ensures: the time left if the rest of the stage goes at the rate it has gone since the first
             report, `done_since` units in `elapsed` seconds, with `remaining` units to go: "ETA 0:42",
             rounded up to whole seconds under a minute, to 10 s under ten minutes, to whole minutes
             beyond (a noisy rate does not make the figure flicker); "" when it would mean nothing:
             an unknown total (remaining < 0), nothing done yet, or under a second elapsed.
             The mean rate over the whole stage, not the last step's, so one slow or fast step moves
             it little.
!*/
std::string etaText(double elapsed, long done_since, long remaining);

class Progress {
 public:
  explicit Progress(std::string label);
  ~Progress();
  /// done of total, with a short status text; redraws at most every 100 ms.  After the stage's first
  /// second the line shows the time elapsed and the ETA (etaText).  total <= 0: the total is unknown,
  /// and the line shows done (when > 0) and the time elapsed, without a bar or an ETA.
  void update(long done, long total, const std::string& status = "");
  /// The same under another label: a new stage starts on a fresh line (and a fresh clock).
  void update(const std::string& label, long done, long total, const std::string& status);
  void finish();

 private:
  std::string timing(double t, long done, long total) const;

  std::string label_;
  bool enabled_;
  bool drawn_ = false;
  double last_draw_ = -1.0;
  double last_line_;  // when not on a terminal: the last plain line
  // The stage's first report: its time and units done, the origin of its rate.
  double stage_start_ = -1.0;
  long stage_done_ = 0;
  long last_done_ = 0;
};

}  // namespace mmp::tools
