#include <mmp/learners/online_greedy_projection.hpp>

#include <mmp/core/error.hpp>
#include <mmp/core/likelihood_objective.hpp>
#include <mmp/core/random.hpp>
#include <mmp/core/thread_pool.hpp>
#include <mmp/learners/learner_run.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace mmp {
namespace {

/*!
    The weight check, once an epoch (Learner::setWeightCheck): it sees the model train() would
    return (the average, with averaging), as single rounds' iterates may stray far (the first step
    is 1 / lambda) and come back.  A refused model stops the run and the last accepted one stands.
!*/
class EpochCheck {
 public:
  explicit EpochCheck(const Eigen::VectorXd& start) : accepted_(start) {}

  /// Whether the model after `epoch` is refused (the run then stops).
  bool refuses(LearnerRun& run, const Eigen::VectorXd& model, long epoch) {
    if (run.refuses(model, "the model after epoch", epoch, kept(epoch))) {
      refused_ = true;
      return true;
    }
    accepted_ = model;
    return false;
  }
  /// An oracle that failed mid-epoch leaves the last iterate it could plan on, w, which no epoch's
  /// check has seen: it must pass the check too, or the last accepted model stands.
  void checkFailure(LearnerRun& run, const Eigen::VectorXd& w, long epoch) {
    const std::string failure = run.message();
    if (run.refuses(w, "the model after epoch", epoch, kept(epoch))) {
      run.fail(run.message() + " (" + failure + ")");
      refused_ = true;
    }
  }
  bool refused() const { return refused_; }
  const Eigen::VectorXd& accepted() const { return accepted_; }

 private:
  static std::string kept(long epoch) {
    return "kept the model of " + (epoch > 1 ? "epoch " + std::to_string(epoch - 1) : std::string("the starting point"));
  }

  Eigen::VectorXd accepted_;
  bool refused_ = false;
};

/*!
    The oracle calls of one step and their results, a slot per example of the mini-batch: each
    example's prediction at w (loss weight 0) and its loss-augmented answer, or its marginals for
    the likelihood objective (`marginal` non-empty).
!*/
class MiniBatch {
 public:
  MiniBatch(const ExampleList& examples, std::vector<const MarginalExample*> marginal, std::size_t batch, int threads)
      : examples_(examples), marginal_(std::move(marginal)), likelihood_(!marginal_.empty()), pool_(threads),
        predictions_(batch), augmented_(batch), marginals_(likelihood_ ? batch : 0) {}

  /// 1) predict with w before seeing the demonstrations; 2) the loss-augmented oracles (or
  /// marginals): of the m examples order[first], ..., all at w.  Throws what an oracle throws.
  void solve(const std::vector<std::size_t>& order, std::size_t first, std::size_t m, const Eigen::VectorXd& w) {
    m_ = m;
    // call 2j is example j's prediction, 2j + 1 its other call
    pool_.parallelFor(2 * m, [&](std::size_t call) {
      const std::size_t i = order[first + call / 2];
      if (call % 2 == 0) {
        examples_[i]->solve(w, 0.0, predictions_[call / 2]);
      } else if (likelihood_) {
        marginal_[i]->marginals(w, marginals_[call / 2]);
      } else {
        examples_[i]->solve(w, 1.0, augmented_[call / 2]);
      }
    });
  }
  std::size_t size() const { return m_; }
  /// L(y*) of the j-th example's prediction.
  double predictionLoss(std::size_t j) const { return predictions_[j].loss; }

  /// 3) next = (1 - eta lambda) w [+ eta lambda w0] - eta/m sum_j (q beta_j h_j^(q-1) (psi_j* - psi_j)), or with the
  /// likelihood's terms beta_j (E[psi_j] - psi_j); sparse psi touch only their entries.  With m = 1
  /// the scale is -eta exactly: the single-example learner, bit for bit.
  /// With a prior metric M the pull is eta lambda M (w - w0).
  void step(const Eigen::VectorXd& w, double eta, double lambda, int q, const Eigen::VectorXd& prior,
            const Eigen::MatrixXd& metric, Eigen::VectorXd& next) const {
    const double scale = -eta / static_cast<double>(m_);
    if (metric.size() > 0) {
      next = w - (eta * lambda) * (metric * (w - prior));
    } else {
      next = (1.0 - eta * lambda) * w;
      if (prior.size() > 0) next += (eta * lambda) * prior;  // lambda (w - w0): the pull toward the prior
    }
    for (std::size_t j = 0; j < m_; ++j) {
      if (likelihood_) {
        addLikelihoodGradient(marginals_[j], w, scale, next);
      } else {
        addTermSubgradient(augmented_[j], w, q, scale, next);
      }
    }
  }

 private:
  const ExampleList& examples_;
  std::vector<const MarginalExample*> marginal_;
  bool likelihood_;
  ThreadPool pool_;
  std::vector<OracleResult> predictions_, augmented_;
  std::vector<MarginalResult> marginals_;
  std::size_t m_ = 0;
};

}  // namespace

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
  std::vector<const MarginalExample*> marginal;
  if (params_.objective == TrainingObjective::Likelihood) {
    marginal = marginalExamples(examples, "online greedy projection, likelihood objective");
  }
  Eigen::VectorXd w = startingPoint(std::move(initial), d, *params_.projection, "online greedy projection");
  if (params_.prior.size() > 0 && params_.prior.size() != d) {
    throw InvalidArgument("online greedy projection: the prior has " + std::to_string(params_.prior.size()) +
                          " weights, the examples " + std::to_string(d) + " features");
  }
  if (params_.prior_metric.size() > 0 &&
      (params_.prior.size() != d || params_.prior_metric.rows() != d || params_.prior_metric.cols() != d)) {
    throw InvalidArgument("online greedy projection: a prior metric needs a prior, both of the examples' " + std::to_string(d) +
                          " features");
  }

  const std::size_t n = examples.size();
  const std::size_t batch = std::min(n, static_cast<std::size_t>(params_.batch));
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  Random rng(params_.seed);
  IterateAverage average(params_.averaging);
  MiniBatch calls(examples, std::move(marginal), batch, params_.threads);
  Eigen::VectorXd next(d), epoch_start, good;
  const StepSchedule steps = StepSchedule::inverseLambdaT(params_.lambda);
  LearnerRun run(*this, params_.stop, params_.stop.tolerance > 0.0,
                  "ran " + std::to_string(params_.stop.max_iterations) + " epochs");
  long t = 0;
  EpochCheck check(w);
  long epoch = 1;
  for (; epoch <= params_.stop.max_iterations && !run.stopped(); ++epoch) {
    if (params_.shuffle) rng.shuffle(order.begin(), order.end());
    epoch_start = w;
    for (std::size_t first = 0; first < n && !run.stopped(); first += batch) {
      if (run.outOfTime("at round", t)) break;
      ++t;
      try {
        calls.solve(order, first, std::min(batch, n - first), w);  // the epoch's last step may take fewer
      } catch (const NumericalError& e) {
        run.fail("round " + std::to_string(t) + ": " + e.what() + "; kept the last good weights");
        if (good.size() == d) w = good;  // the last weights the oracle could plan on
        break;
      }
      good = w;
      for (std::size_t j = 0; j < calls.size(); ++j) {
        prediction_losses_.push_back(calls.predictionLoss(j));
        cumulative_loss_ += calls.predictionLoss(j);
      }
      // 3) the subgradient of the step's mean term, step 1/(lambda t) and project, formed on a copy
      //    so that a non-finite step leaves the last good w in place
      calls.step(w, steps.stepSize(t), params_.lambda, params_.q, params_.prior, params_.prior_metric, next);
      params_.projection->project(next);
      if (!next.allFinite()) {
        run.fail("the step of round " + std::to_string(t) + " is not finite; kept the last good weights");
        break;
      }
      w.swap(next);
      average.add(w);
      iterations_ = t;
      if (callback_) {
        weights_ = w;
        run.report({t, meanLoss(), w.norm(), elapsed()}, "at round", t);
      }
    }
    if (!prediction_losses_.empty()) trace_.push_back({t, meanLoss(), w.norm(), elapsed()});
    if (!run.stopped() && weight_check_) {
      const Eigen::VectorXd model = params_.averaging != Averaging::None && average.count() > 0 ? average.mean() : w;
      if (check.refuses(run, model, epoch)) break;
    }
    if (!run.stopped() && run.movedLessThanTolerance(epoch_start, w)) {
      run.succeed("an epoch moved w less than the tolerance (epoch " + std::to_string(epoch) + ")");
    }
  }
  if (run.info() == Info::NumericalIssue && !check.refused() && weight_check_) {
    check.checkFailure(run, w, epoch - 1);  // the loop stepped past the epoch that stopped
  }
  weights_ = w;
  if (params_.averaging != Averaging::None && average.count() > 0 && run.info() != Info::NumericalIssue) {
    weights_ = average.mean();
  }
  if (check.refused()) weights_ = check.accepted();
  run.finish();
  return weights_;
}

}  // namespace mmp
