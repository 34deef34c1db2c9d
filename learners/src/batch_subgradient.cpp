#include <mmp/learners/batch_subgradient.hpp>

#include <mmp/core/error.hpp>
#include <mmp/core/likelihood_objective.hpp>
#include <mmp/learners/learner_run.hpp>

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
  if (params_.processes && params_.objective == TrainingObjective::Likelihood) {
    throw InvalidArgument("batch subgradient: data-parallel training (processes) takes the margin objective; the "
                          "likelihood objective runs in one process");
  }
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
  // With processes, `stop` carries this process's wish to stop (out of time) into the iteration's one
  // sum and comes back as whether any process wished it.
  bool stop = false;
  const auto evaluate = [&](const Eigen::VectorXd& at, Eigen::VectorXd* g) {
    if (likelihood) return likelihood->evaluate(at, g, &pool);
    if (params_.processes) return margin.evaluate(at, g, &pool, *params_.processes, stop).value;
    return margin.evaluate(at, g, &pool).value;
  };
  IterateAverage average(params_.averaging);
  Eigen::VectorXd g(d), next(d), good;
  LearnerRun run(*this, params_.stop, params_.stop.tolerance > 0.0,
                  "reached max_iterations = " + std::to_string(params_.stop.max_iterations));
  for (long t = 1; t <= params_.stop.max_iterations; ++t) {
    stop = run.outOfTime();
    if (stop && !params_.processes) break;
    // 1) all loss-augmented oracles (or marginals) at w_t, 2) c(w_t) and g (eq. 6, or the gradient)
    double value = 0.0;
    try {
      value = evaluate(w, &g);
    } catch (const NumericalError& e) {
      run.fail("iteration " + std::to_string(t) + ": " + e.what() + "; kept the weights of iteration " + std::to_string(t - 1));
      if (good.size() == d) weights_ = good;  // the last weights the oracles could plan on
      break;
    }
    if (stop) break;  // some process ran out of time: all stop before this iteration's step
    good = w;
    if (!std::isfinite(value) || !g.allFinite()) {
      run.fail("the objective or subgradient is not finite at iteration " + std::to_string(t) +
               "; kept the weights of iteration " + std::to_string(t - 1));
      break;
    }
    iterations_ = t;
    if (!run.trace({t, value, w.norm(), elapsed()}, "at iteration", t)) break;
    // 3) projected step (eq. 7)
    next = w - params_.steps.stepSize(t) * g;
    params_.projection->project(next);
    if (run.refuses(next, "the step of iteration", t, "kept the last good weights")) break;
    w.swap(next);
    weights_ = w;
    average.add(w);
    if (run.movedLessThanTolerance(next, w)) {
      run.succeed("step below tolerance at iteration " + std::to_string(t));
      break;
    }
  }
  if (params_.averaging != Averaging::None && average.count() > 0 && run.info() != Info::NumericalIssue) {
    weights_ = average.mean();
  }
  try {
    objective_ = evaluate(weights_, nullptr);
  } catch (const NumericalError&) {
    objective_ = std::numeric_limits<double>::quiet_NaN();  // the starting point itself overflowed
  }
  run.finish();
  return weights_;
}

}  // namespace mmp
