#include <mmp/learners/learner.hpp>

namespace mmp {

std::string describe(Info info) {
  switch (info) {
    case Info::Success: return "Success";
    case Info::NoConvergence: return "NoConvergence";
    case Info::NumericalIssue: return "NumericalIssue";
    case Info::InvalidInput: return "InvalidInput";
  }
  return "?";
}

void LearnerBase::start() {
  start_ = std::chrono::steady_clock::now();
  info_ = Info::InvalidInput;
  message_ = "running";
  iterations_ = 0;
  trace_.clear();
  seconds_ = 0.0;
}

double LearnerBase::elapsed() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

bool LearnerBase::report(const TraceRecord& record) { return !callback_ || callback_(record); }

void LearnerBase::finish(Info info, std::string message) {
  info_ = info;
  message_ = std::move(message);
  seconds_ = elapsed();
}

}  // namespace mmp
