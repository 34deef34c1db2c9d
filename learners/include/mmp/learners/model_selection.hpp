// Model selection over any learner: training with a per-pass curve of the model the learner would
// return if it stopped at that pass, and choosing lambda (and optionally the number of passes) by the
// error on held-out examples.  The caller says what "error" means through a function on weights, so
// this knows the oracle contract and LearnerSettings only, not what the examples are.
//
//   const TrainedWithCurve model = trainWithCurve(settings, examples, 20,
//       [&](long pass, const Eigen::VectorXd& w) { curve.push_back({pass, testError(w)}); });
//
//   HeldOutParams params;
//   params.lambdas = {0.03, 0.01, 0.003};
//   params.choose_passes = true;
//   const HeldOutChoice choice = chooseOnHeldOut(settings, fit, [&](const Eigen::VectorXd& w) {
//     return heldOutError(w); }, params);
//   // retrain on all the examples with choice.chosen
//
// Splitting the examples into a fit part and a held-out part is the caller's (it decides what is
// independent of what: words, images, demonstrations).
#pragma once

#include <mmp/learners/learner_settings.hpp>

#include <Eigen/Dense>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace mmp {

/// Called at a curve point with the pass count (online epochs or batch iterations) and the weights
/// training would return had it stopped after that many passes (the learner's iterate average).
using CurveCallback = std::function<void(long pass, const Eigen::VectorXd& w)>;

/// What trainWithCurve leaves behind.
struct TrainedWithCurve {
  Eigen::VectorXd w;            ///< the learner's result
  long iterations = 0;          ///< Learner::iterations(): online rounds or batch iterations
  /// Passes trained: online, the epochs budgeted; the others, the iterations or passes they ran (those
  /// that converge stop before their budget).
  long passes = 0;
  Formulation formulation = Formulation::Margin;  ///< Learner::formulation(): what the learner optimised
  std::string info;             ///< "success: <message>", plus ", objective <c(w)>" unless the learner is online
  double curve_seconds = 0.0;   ///< time spent in the curve callbacks (and their bookkeeping)
};

/*!
    requires
        - examples non-empty, of one dimension (Learner::train's contract)
        - if at_pass is set: points >= 1
    ensures
        - trains makeLearner(settings) on examples and returns its weights, iterations and info
        - if at_pass is set, calls it in increasing pass order for about `points` evenly spaced
          passes (every max(1, passes / points)-th) and once more for the last pass run if that
          was not among them; at_pass(p, w) sees exactly the w that training for p passes returns
        - the seconds spent in at_pass are reported in curve_seconds, not hidden in training
!*/
TrainedWithCurve trainWithCurve(const LearnerSettings& settings, const ExampleList& examples, int points,
                                const CurveCallback& at_pass);

/// The held-out error of one candidate lambda.
struct LambdaValidation {
  double lambda = 0.0;
  long passes = 0;                  ///< the best pass count for this lambda
  double error = 0.0;               ///< its held-out error
  std::vector<long> curve_passes;   ///< held-out error after each curve pass (if passes are chosen)
  std::vector<double> curve_error;
};

/// What to choose among and how.
struct HeldOutParams {
  std::vector<double> lambdas;      ///< the candidates, in order of preference on ties
  /// Also choose the number of passes (up to the settings' count) from a curve of up to 50 points:
  /// the model after p passes does not depend on the configured count, so one run per lambda serves.
  bool choose_passes = false;
  double tolerance = 0.0;           ///< take the fewest passes within this of the lowest error
  /// Up to this many more lambdas, one at a time, while the choice is the largest or smallest
  /// tried (beyondGridEdge): a grid whose edge wins has not bracketed the best lambda.
  int extend_at_edge = 0;
};

struct HeldOutChoice {
  LearnerSettings chosen;                    ///< the settings with the chosen lambda (and passes)
  std::vector<LambdaValidation> per_lambda;  ///< one per lambda tried: params.lambdas in order, then extensions
};

/// The next lambda of a grid search whose choice sits at the edge of the grid: if `chosen` is the
/// largest (smallest) of the distinct values in `tried`, and there are at least two, the value one
/// step beyond it, the step being the ratio to its neighbour (chosen^2 / neighbour); else nothing.
std::optional<double> beyondGridEdge(const std::vector<double>& tried, double chosen);

/// The error of weights w on the held-out examples (lower is better).
using WeightsError = std::function<double(const Eigen::VectorXd& w)>;

/*!
    requires
        - params.lambdas non-empty, each > 0; fit non-empty (Learner::train's contract)
    ensures
        - trains settings with each lambda on fit and records held_out_error of the result (and,
          with choose_passes, of the model after each curve pass) in per_lambda; then, up to
          params.extend_at_edge times, tries beyondGridEdge of the choice so far
        - chosen = settings with the lambda, and with choose_passes the pass count, of the fewest
          passes whose error is within params.tolerance of the lowest seen (the first lambda on ties)
        - throws mmp::InvalidArgument if params.lambdas is empty or params.extend_at_edge < 0
!*/
HeldOutChoice chooseOnHeldOut(const LearnerSettings& settings, const ExampleList& fit,
                              const WeightsError& held_out_error, const HeldOutParams& params);

}  // namespace mmp
