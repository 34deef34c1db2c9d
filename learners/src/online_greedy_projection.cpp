#include <mmp/learners/online_greedy_projection.hpp>

#include <mmp/core/error.hpp>
#include <mmp/core/likelihood_objective.hpp>
#include <mmp/core/random.hpp>
#include <mmp/core/thread_pool.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace mmp {

OnlineGreedyProjection::OnlineGreedyProjection(Params params) : params_(std::move(params)) {
  validate(ObjectiveParams{params_.lambda, params_.q});
  if (!(params_.lambda > 0.0)) throw InvalidArgument("online greedy projection: lambda must be > 0 (steps are 1/(lambda t))");
  if (!params_.projection) throw InvalidArgument("online greedy projection: projection is null (use noProjection())");
  if (params_.stop.max_iterations < 1) throw InvalidArgument("online greedy projection: max_iterations (epochs) must be >= 1");
  if (params_.batch < 1) throw InvalidArgument("online greedy projection: batch (examples per step) must be >= 1");
  if (params_.threads < 0) throw InvalidArgument("online greedy projection: threads must be >= 0 (0: all cores)");
}

double OnlineGreedyProjection::meanLoss() const {
  return prediction_losses_.empty() ? 0.0 : cumulative_loss_ / static_cast<double>(prediction_losses_.size());
}

const Eigen::VectorXd& OnlineGreedyProjection::train(const ExampleList& examples, Eigen::VectorXd initial) {
  start(examples);
  prediction_losses_.clear();
  cumulative_loss_ = 0.0;
  const Eigen::Index d = commonDimension(examples);
  const bool likelihood = params_.objective == TrainingObjective::Likelihood;
  const std::vector<const MarginalExample*> marginal =
      likelihood ? marginalExamples(examples, "online greedy projection, likelihood objective")
                 : std::vector<const MarginalExample*>();
  Eigen::VectorXd w = startingPoint(std::move(initial), d, *params_.projection, "online greedy projection");

  const std::size_t n = examples.size();
  const std::size_t batch = std::min(n, static_cast<std::size_t>(params_.batch));
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  Random rng(params_.seed);
  IterateAverage average(params_.averaging);
  ThreadPool pool(params_.threads);
  std::vector<OracleResult> predictions(batch), augmented(batch);  // one slot per example of a step
  std::vector<MarginalResult> marginals(likelihood ? batch : 0);
  Eigen::VectorXd next(d), epoch_start, good;
  const StepSchedule steps = StepSchedule::inverseLambdaT(params_.lambda);
  Info info = params_.stop.tolerance > 0.0 ? Info::NoConvergence : Info::Success;
  std::string message = "ran " + std::to_string(params_.stop.max_iterations) + " epochs";
  long t = 0;
  bool stopped = false;
  // The weight check sees the model train() would return (the average, with averaging) once an
  // epoch: single rounds' iterates may stray far (the first step is 1 / lambda) and come back.
  Eigen::VectorXd accepted = w;
  bool refused = false;
  long epoch = 1;
  for (; epoch <= params_.stop.max_iterations && !stopped; ++epoch) {
    if (params_.shuffle) rng.shuffle(order.begin(), order.end());
    epoch_start = w;
    for (std::size_t first = 0; first < n && !stopped; first += batch) {
      if (elapsed() > params_.stop.time_budget_seconds) {
        info = Info::NoConvergence;
        message = "time budget of " + std::to_string(params_.stop.time_budget_seconds) + " s ran out at round " +
                  std::to_string(t);
        stopped = true;
        break;
      }
      ++t;
      const std::size_t m = std::min(batch, n - first);  // the epoch's last step may take fewer
      try {
        // 1) predict with the current w before seeing the demonstrations; 2) loss-augmented oracles
        //    (or marginals).  Call 2j is example j's prediction, 2j + 1 its other call, all at the same w.
        pool.parallelFor(2 * m, [&](std::size_t call) {
          const std::size_t i = order[first + call / 2];
          if (call % 2 == 0) {
            examples[i]->solve(w, 0.0, predictions[call / 2]);
          } else if (likelihood) {
            marginal[i]->marginals(w, marginals[call / 2]);
          } else {
            examples[i]->solve(w, 1.0, augmented[call / 2]);
          }
        });
      } catch (const NumericalError& e) {
        info = Info::NumericalIssue;
        message = "round " + std::to_string(t) + ": " + e.what() + "; kept the last good weights";
        if (good.size() == d) w = good;  // the last weights the oracle could plan on
        stopped = true;
        break;
      }
      good = w;
      for (std::size_t j = 0; j < m; ++j) {
        prediction_losses_.push_back(predictions[j].loss);
        cumulative_loss_ += predictions[j].loss;
      }
      // 3) the subgradient of the step's mean term, step 1/(lambda t) and project
      // w <- P[w - eta (lambda w + 1/m sum_j q beta_j h_j^(q-1) (psi_j* - psi_j))], formed on a copy
      // so that a non-finite step leaves the last good w in place; sparse psi touch only their
      // entries.  With m = 1 the scale is -eta exactly: the single-example learner, bit for bit.
      // The likelihood's term is beta_j (E[psi_j] - psi_j) instead.
      const double eta = steps.stepSize(t);
      const double scale = -eta / static_cast<double>(m);
      next = (1.0 - eta * params_.lambda) * w;
      for (std::size_t j = 0; j < m; ++j) {
        if (likelihood) {
          addLikelihoodGradient(marginals[j], w, scale, next);
        } else {
          addTermSubgradient(augmented[j], w, params_.q, scale, next);
        }
      }
      params_.projection->project(next);
      if (!next.allFinite()) {
        info = Info::NumericalIssue;
        message = "the step of round " + std::to_string(t) + " is not finite; kept the last good weights";
        stopped = true;
        break;
      }
      w.swap(next);
      average.add(w);
      iterations_ = t;
      if (callback_) {
        weights_ = w;
        if (!report({t, cumulative_loss_ / static_cast<double>(prediction_losses_.size()), w.norm(), elapsed()})) {
          info = Info::NoConvergence;
          message = "stopped by the callback at round " + std::to_string(t);
          stopped = true;
        }
      }
    }
    if (!prediction_losses_.empty()) {
      trace_.push_back({t, cumulative_loss_ / static_cast<double>(prediction_losses_.size()), w.norm(), elapsed()});
    }
    if (!stopped && weight_check_) {
      const Eigen::VectorXd model = params_.averaging != Averaging::None && average.count() > 0 ? average.mean() : w;
      if (const std::string why = rejected(model); !why.empty()) {
        info = Info::NumericalIssue;
        message = "the model after epoch " + std::to_string(epoch) + " " + why + "; kept the model of " +
                  (epoch > 1 ? "epoch " + std::to_string(epoch - 1) : std::string("the starting point"));
        refused = stopped = true;
        break;
      }
      accepted = model;
    }
    if (!stopped && params_.stop.tolerance > 0.0 &&
        (w - epoch_start).norm() <= params_.stop.tolerance * std::max(1.0, w.norm())) {
      info = Info::Success;
      message = "an epoch moved w less than the tolerance (epoch " + std::to_string(epoch) + ")";
      stopped = true;
    }
  }
  // An oracle that failed mid-epoch leaves the last iterate it could plan on, which no epoch's
  // weight check has seen (iterates may stray): it must pass the check too, or the last model the
  // check accepted stands.
  if (info == Info::NumericalIssue && !refused && weight_check_) {
    const long failed_epoch = epoch - 1;  // the loop stepped past the epoch that stopped
    if (const std::string why = rejected(w); !why.empty()) {
      message = "the model after epoch " + std::to_string(failed_epoch) + " " + why + "; kept the model of " +
                (failed_epoch > 1 ? "epoch " + std::to_string(failed_epoch - 1) : std::string("the starting point")) +
                " (" + message + ")";
      refused = true;
    }
  }
  weights_ = w;
  if (params_.averaging != Averaging::None && average.count() > 0 && info != Info::NumericalIssue) {
    weights_ = average.mean();
  }
  if (refused) weights_ = accepted;
  finish(info, message);
  return weights_;
}

}  // namespace mmp
