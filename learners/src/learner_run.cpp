#include <mmp/learners/learner_run.hpp>

#include <mmp/core/error.hpp>

#include <algorithm>
#include <utility>

namespace mmp {
namespace {

// " <when> <number>", or "" without `when`.
std::string moment(std::string_view when, long number) {
  if (when.empty()) return std::string();
  return " " + std::string(when) + " " + std::to_string(number);
}

}  // namespace

LearnerRun::LearnerRun(Learner& learner, const StopCriteria& stop, bool tolerance_set, std::string exhausted,
                         BudgetText budget_text)
    : learner_(learner),
      stop_(stop),
      budget_text_(budget_text),
      info_(tolerance_set ? Info::NoConvergence : Info::Success),
      message_(std::move(exhausted)) {}

bool LearnerRun::outOfTime(std::string_view when, long number) {
  if (!(learner_.elapsed() > stop_.time_budget_seconds)) return false;
  const std::string budget = budget_text_ == BudgetText::Short ? numberText(stop_.time_budget_seconds)
                                                               : std::to_string(stop_.time_budget_seconds);
  stop(Info::NoConvergence, "time budget of " + budget + " s ran out" + moment(when, number));
  return true;
}

bool LearnerRun::report(const TraceRecord& record, std::string_view when, long number) {
  if (learner_.report(record)) return true;
  if (!stopped_) stop(Info::NoConvergence, "stopped by the callback" + moment(when, number));
  return false;
}

bool LearnerRun::trace(const TraceRecord& record, std::string_view when, long number) {
  learner_.trace_.push_back(record);
  return report(record, when, number);
}

bool LearnerRun::refuses(const Eigen::VectorXd& w, std::string_view what, long number, std::string_view kept) {
  const std::string why = learner_.rejected(w);
  if (why.empty()) return false;
  fail(std::string(what) + " " + std::to_string(number) + " " + why + "; " + std::string(kept));
  return true;
}

bool LearnerRun::movedLessThanTolerance(const Eigen::VectorXd& before, const Eigen::VectorXd& w) const {
  return stop_.tolerance > 0.0 && (w - before).norm() <= stop_.tolerance * std::max(1.0, w.norm());
}

void LearnerRun::stop(Info info, std::string message) {
  info_ = info;
  message_ = std::move(message);
  stopped_ = true;
}

void LearnerRun::finish() { learner_.finish(info_, message_); }

}  // namespace mmp
