// LearnerRun: the bookkeeping every Learner::train() shares, so that train() holds its algorithm
// alone -- the status a run ends with when its pass budget runs out, the time budget, the progress
// callback and the trace, the weight check, and the final status and message.
//
//   LearnerRun run(*this, params_.stop, params_.stop.tolerance > 0.0, "reached max_iterations = 100");
//   for (long t = 1; t <= params_.stop.max_iterations; ++t) {
//     if (run.outOfTime()) break;
//     ...                                                    // the algorithm's step
//     if (!run.trace({t, value, w.norm(), elapsed()}, "at iteration", t)) break;
//     if (run.refuses(next, "the step of iteration", t, "kept the last good weights")) break;
//   }
//   run.finish();                                           // Learner::info(), message(), seconds()
//
// Which weights a stopped run keeps (the last iterate, the best one, the last pass's) stays with each
// learner: they differ.  A run of one train() call; not thread-safe.
#pragma once

#include <mmp/learners/learner.hpp>

#include <string>
#include <string_view>

namespace mmp {

class LearnerRun {
 public:
  /// How the time budget reads in messages: std::to_string ("0.500000") or numberText ("0.5").
  enum class BudgetText { Fixed, Short };

  /*!
      ensures
          - until something stops the run, its status is the one it ends with when its pass budget
            runs out: NoConvergence if tolerance_set (the tolerance was not met), else Success,
            with the message `exhausted`
  !*/
  LearnerRun(Learner& learner, const StopCriteria& stop, bool tolerance_set, std::string exhausted,
              BudgetText budget_text = BudgetText::Fixed);

  /// Whether the time budget has run out; if it has, the run stops with NoConvergence and "time
  /// budget of B s ran out" (" <when> <number>" appended when `when` is given: "at round 12").
  bool outOfTime(std::string_view when = {}, long number = 0);
  /// Passes the record to the learner's callback.  Returns false, the run stopped with NoConvergence
  /// and "stopped by the callback <when> <number>", if the callback asks to stop -- unless the run had
  /// stopped already, whose reason stands.
  bool report(const TraceRecord& record, std::string_view when, long number);
  /// Appends the record to the learner's trace, then report().
  bool trace(const TraceRecord& record, std::string_view when, long number);
  /// Whether w may not be kept (not finite, or the learner's weight check refuses it); if so the run
  /// stops with NumericalIssue and "<what> <number> <why>; <kept>", e.g. "the step of round 3 is
  /// not finite; kept the last good weights".
  bool refuses(const Eigen::VectorXd& w, std::string_view what, long number, std::string_view kept);
  /// Whether a step or epoch from `before` to `w` moved w by at most tolerance * max(1, |w|)
  /// (StopCriteria::tolerance; never when the tolerance is 0).
  bool movedLessThanTolerance(const Eigen::VectorXd& before, const Eigen::VectorXd& w) const;

  /// Stops the run with Success (a tolerance was met) or NumericalIssue (a step or oracle failed).
  void succeed(std::string message) { stop(Info::Success, std::move(message)); }
  void fail(std::string message) { stop(Info::NumericalIssue, std::move(message)); }
  void stop(Info info, std::string message);

  bool stopped() const { return stopped_; }
  Info info() const { return info_; }
  const std::string& message() const { return message_; }
  /// The learner's report: info(), message() and seconds() become the run's.
  void finish();

 private:
  Learner& learner_;
  StopCriteria stop_;
  BudgetText budget_text_;
  Info info_;
  std::string message_;
  bool stopped_ = false;
};

}  // namespace mmp
