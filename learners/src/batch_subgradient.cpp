#include <mmp/learners/batch_subgradient.hpp>

#include <mmp/core/error.hpp>
#include <mmp/core/likelihood_objective.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace mmp {

BatchSubgradient::BatchSubgradient(Params params) : params_(std::move(params)) {
  validate(ObjectiveParams{params_.lambda, params_.q});
  if (!params_.projection) throw InvalidArgument("batch subgradient: projection is null (use noProjection())");
  if (params_.stop.max_iterations < 1) throw InvalidArgument("batch subgradient: max_iterations must be >= 1");
  if (params_.threads < 0) throw InvalidArgument("batch subgradient: threads must be >= 0");
}

const Eigen::VectorXd& BatchSubgradient::train(const ExampleList& examples, Eigen::VectorXd initial) {
  start(examples);
  const Objective margin(examples, {params_.lambda, params_.q});
  std::optional<LikelihoodObjective> likelihood;
  if (params_.objective == TrainingObjective::Likelihood) likelihood.emplace(examples, params_.lambda);
  const Eigen::Index d = margin.dimension();
  Eigen::VectorXd w = startingPoint(std::move(initial), d, *params_.projection, "batch subgradient");

  ThreadPool pool(params_.threads);
  // c(w) of the objective trained, and its (sub)gradient if g is given
  const auto evaluate = [&](const Eigen::VectorXd& at, Eigen::VectorXd* g) {
    return likelihood ? likelihood->evaluate(at, g, &pool) : margin.evaluate(at, g, &pool).value;
  };
  IterateAverage average(params_.averaging);
  Eigen::VectorXd g(d), next(d), good;
  Info info = params_.stop.tolerance > 0.0 ? Info::NoConvergence : Info::Success;
  std::string message = "reached max_iterations = " + std::to_string(params_.stop.max_iterations);
  for (long t = 1; t <= params_.stop.max_iterations; ++t) {
    if (elapsed() > params_.stop.time_budget_seconds) {
      info = Info::NoConvergence;
      message = "time budget of " + std::to_string(params_.stop.time_budget_seconds) + " s ran out";
      break;
    }
    // 1) all loss-augmented oracles (or marginals) at w_t, 2) c(w_t) and g (eq. 6, or the gradient)
    double value = 0.0;
    try {
      value = evaluate(w, &g);
    } catch (const NumericalError& e) {
      info = Info::NumericalIssue;
      message = "iteration " + std::to_string(t) + ": " + e.what() + "; kept the weights of iteration " + std::to_string(t - 1);
      if (good.size() == d) weights_ = good;  // the last weights the oracles could plan on
      break;
    }
    good = w;
    if (!std::isfinite(value) || !g.allFinite()) {
      info = Info::NumericalIssue;
      message = "the objective or subgradient is not finite at iteration " + std::to_string(t) +
                "; kept the weights of iteration " + std::to_string(t - 1);
      break;
    }
    iterations_ = t;
    const TraceRecord record{t, value, w.norm(), elapsed()};
    trace_.push_back(record);
    if (!report(record)) {
      info = Info::NoConvergence;
      message = "stopped by the callback at iteration " + std::to_string(t);
      break;
    }
    // 3) projected step (eq. 7)
    next = w - params_.steps.stepSize(t) * g;
    params_.projection->project(next);
    if (const std::string why = rejected(next); !why.empty()) {
      info = Info::NumericalIssue;
      message = "the step of iteration " + std::to_string(t) + " " + why + "; kept the last good weights";
      break;
    }
    const double moved = (next - w).norm();
    w.swap(next);
    weights_ = w;
    average.add(w);
    if (params_.stop.tolerance > 0.0 && moved <= params_.stop.tolerance * std::max(1.0, w.norm())) {
      info = Info::Success;
      message = "step below tolerance at iteration " + std::to_string(t);
      break;
    }
  }
  if (params_.averaging != Averaging::None && average.count() > 0 && info != Info::NumericalIssue) {
    weights_ = average.mean();
  }
  try {
    objective_ = evaluate(weights_, nullptr);
  } catch (const NumericalError&) {
    objective_ = std::numeric_limits<double>::quiet_NaN();  // the starting point itself overflowed
  }
  finish(info, message);
  return weights_;
}

}  // namespace mmp
