// OnlineGreedyProjection: Zinkevich's Greedy Projection applied to maximum margin structured
// learning with steps 1/(lambda t) (sec. 3.2 of Ratliff, Bagnell and Zinkevich, 2007).
//
// At round t the learner sees example t, predicts with its current w (loss weight 0) and records
// that prediction's loss L_t(y_t*); only then does it use the demonstration: a loss-augmented
// oracle call gives the subgradient of c_t(w) = lambda/2 |w|^2 + beta_t h_t(w)^q and
//     w <- P_W[w - 1/(lambda t) g_t].
// Thm 3.2 bounds the cumulative prediction loss, which grows sublinearly on a realisable stream;
// cumulativeLoss() and the running mean in the trace show it.  Several epochs over a fixed
// training set turn it into a stochastic subgradient method for eq. 4 (average the iterates then).
//
// Mini-batches (Params::batch = k > 1): a step takes the next k examples of the epoch's order,
// predicts on each and calls each one's loss-augmented oracle, all at the same w, and steps along
// the mean of their terms' subgradients:
//     w <- P_W[w - 1/(lambda t) (lambda w + 1/m sum_{i in batch} q beta_i h_i^(q-1) (psi_i* - psi_i))]
// with t counting STEPS (not examples) and m = k, or what is left of the epoch for its last batch.
// The 1/(lambda t) schedule is kept per step: each mini-batch term is lambda-strongly convex, as a
// single example's is, so the schedule and its O(log T / T) guarantee carry over with T steps; a
// step's subgradient just has less variance.  An epoch makes ceil(n / k) steps instead of n.
// k = 1 is the learner above, bit for bit.
//
// The likelihood objective (Params::objective = Likelihood, mmp/core/likelihood_objective.hpp): the
// same rounds, predictions and schedule, with each example's marginal call in place of its
// loss-augmented one and its term's gradient beta_i (E_w[psi_i] - psi_i(y_i)) in place of eq. 6's
// subgradient; c_t(w) = lambda/2 |w|^2 + beta_t nll_t(w) is lambda-strongly convex as before.  The 2m oracle calls of a step run on Params::threads
// threads (k = 1 too: the prediction and the loss-augmented call at once); each result lands in its
// own slot and the sum runs in example order, so the weights do not depend on the thread count.
#pragma once

#include <mmp/core/averaging.hpp>
#include <mmp/core/objective.hpp>
#include <mmp/core/projection.hpp>
#include <mmp/core/step_schedule.hpp>
#include <mmp/learners/learner.hpp>

#include <cstdint>

namespace mmp {

class OnlineGreedyProjection : public Learner {
 public:
  struct Params {
    double lambda = 1e-2;  ///< > 0: strong convexity and the step 1/(lambda t)
    int q = 1;             ///< slack norm, 1 or 2 (the margin objective's; the likelihood has none)
    /// Margin (eq. 4, the oracles) or Likelihood (the examples' marginals); makeLearner sets it
    /// from LearnerSettings::objective.
    TrainingObjective objective = TrainingObjective::Margin;
    ProjectionPtr projection = noProjection();
    Averaging averaging = Averaging::None;
    StopCriteria stop;                ///< max_iterations counts epochs over the examples
    bool shuffle = false;             ///< visit each epoch in a new random order
    std::uint64_t seed = 1;           ///< for shuffle (mmp::Random: the same orders with every standard library)
    int batch = 1;                    ///< k >= 1: examples per step, their subgradients averaged
    int threads = 1;                  ///< oracle calls at once (>= 0, 0 = all cores); results do not depend on it
    /// The regulariser's centre w0: c_t(w) = lambda/2 |w - w0|^2 + beta_t h_t(w)^q, so each step pulls
    /// toward w0 instead of 0 (w <- P_W[w - 1/(lambda t) (lambda (w - w0) + ...)]): adapting a trained
    /// model to new examples, with lambda the prior's strength.  Empty: 0 (the learner above, bit for bit).
    Eigen::VectorXd prior;
    /// The prior's metric M (d x d, symmetric positive semi-definite, largest eigenvalue <= 1 so that the
    /// steps stay stable): the regulariser becomes lambda/2 (w - w0)^T M (w - w0) and its pull
    /// lambda M (w - w0).  Needs a prior.  Empty: the identity (above).
    Eigen::MatrixXd prior_metric;
  };

  explicit OnlineGreedyProjection(Params params);

  /*!
      Learner::train, and
      ensures
          - the result is the average of the iterates if averaging is on
          - predictionLosses()[j] is L(y*) of the j-th example visited, predicted before the step
            that uses that example (with k = 1: round j + 1)
          - iterations() counts steps: ceil(n / k) an epoch
  !*/
  const Eigen::VectorXd& train(const ExampleList& examples, Eigen::VectorXd initial = Eigen::VectorXd()) override;
  LearnerKind kind() const override { return LearnerKind::Online; }
  long passes() const override { return static_cast<long>(trace().size()); }
  const char* traceValueName() const override { return "running mean prediction loss per demonstration"; }
  const char* passName() const override { return "epoch"; }

  const std::vector<double>& predictionLosses() const { return prediction_losses_; }
  double cumulativeLoss() const { return cumulative_loss_; }
  double meanLoss() const;
  const Params& params() const { return params_; }

 private:
  Params params_;
  std::vector<double> prediction_losses_;
  double cumulative_loss_ = 0.0;
};

}  // namespace mmp
