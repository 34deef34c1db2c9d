// BatchSubgradient: Algorithm 1 of Ratliff, Bagnell and Zinkevich (2007), the subgradient method
// for maximum margin structured learning.
//
// Each iteration calls every example's loss-augmented oracle (in parallel on a small thread pool),
// forms the subgradient of eq. 6, steps w <- P_W[w - alpha_t g] (eq. 7) and records c(w) (eq. 4).
// The result does not depend on the thread count: terms are summed in example order.
// With Params::objective = Likelihood it calls every example's marginals instead and steps along the
// gradient of the likelihood objective (mmp/core/likelihood_objective.hpp); the rest is the same.
//
// Data-parallel: with Params::processes (mmp/core/process_group.hpp), every process runs the same
// training on the same examples, calls the oracles of its share only and sums the subgradient and
// loss with the others once per iteration; every decision (steps, stops, checks) then sees the same
// numbers on every process, so the processes stay in step.  The model is bit for bit the same at a
// fixed process and thread count, and equal to the single-process model up to the order of the sum.
// (OnlineGreedyProjection has no such mode: each of its steps needs the weights of the step before.)
//
// Use it when all examples fit in memory and a converged objective matters; for a stream of
// examples, or when each oracle call is expensive and a good answer is needed after one pass,
// prefer OnlineGreedyProjection.
#pragma once

#include <mmp/core/averaging.hpp>
#include <mmp/core/objective.hpp>
#include <mmp/core/process_group.hpp>
#include <mmp/core/projection.hpp>
#include <mmp/core/step_schedule.hpp>
#include <mmp/learners/learner.hpp>

#include <memory>

namespace mmp {

class BatchSubgradient : public Learner {
 public:
  struct Params {
    double lambda = 1e-2;  ///< regulariser of eq. 4, >= 0
    int q = 1;             ///< slack norm, 1 or 2 (the margin objective's; the likelihood has none)
    /// Margin (eq. 4, the oracles) or Likelihood (the examples' marginals); makeLearner sets it
    /// from LearnerSettings::objective.
    TrainingObjective objective = TrainingObjective::Margin;
    /// Constant (alpha <= 1/lambda for Thm 3.1) or gamma/t.
    StepSchedule steps = StepSchedule::gammaOverT(1.0);
    ProjectionPtr projection = noProjection();
    Averaging averaging = Averaging::None;
    StopCriteria stop;
    int threads = 1;  ///< oracle calls in parallel; 0 = all cores
    /// Processes sharing the examples (data-parallel; the margin objective only); null: this one.
    std::shared_ptr<ProcessGroup> processes;
  };

  explicit BatchSubgradient(Params params);

  /// Learner::train; the result is the average of the iterates if averaging is on, and objective()
  /// is c(weights()).
  const Eigen::VectorXd& train(const ExampleList& examples, Eigen::VectorXd initial = Eigen::VectorXd()) override;
  LearnerKind kind() const override { return LearnerKind::Batch; }
  long passes() const override { return iterations(); }
  double objective() const override { return objective_; }
  const char* traceValueName() const override {
    return params_.objective == TrainingObjective::Likelihood ? "objective c(w), likelihood" : "objective c(w), eq. 4";
  }
  const char* passName() const override { return "iteration"; }
  const Params& params() const { return params_; }

 private:
  Params params_;
  double objective_ = std::numeric_limits<double>::quiet_NaN();
};

}  // namespace mmp
