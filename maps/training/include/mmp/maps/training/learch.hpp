// LEARCH: a nonlinear cost map learned from demonstrations by the exponentiated functional gradient
// of maximum margin planning (Ratliff, Silver and Bagnell 2009, "Learning to search: functional
// gradient techniques for imitation learning"; the MMP objective of sec. 6 of the subgradient paper).
//
// The log-cost of a cell is a linear start plus boosted regression trees (regression_tree.hpp):
//     log c(s) = w0 . f(s) + sum_t eta_t h_t(f(s)),      c(s) = exp(log c(s)) > 0.
// With no tree this is CostForm::Exponential's exp(w . f); the subgradient learners move w0 only.
// Round t (t = 1, 2, ...), on the model of the t - 1 trees so far:
//   1) oracle: for every example i, y*_i = the cheapest path under exp(log c - l_i) (loss-augmented
//      A*, PathExample::planLogCosts with loss weight 1: the loss map l_i holds the loss scale and
//      the per-cell loss weights), and y_pred_i under c (plain A*);
//   2) objective R = sum_i beta_i [C(y_i) - C_aug(y*_i)], C the path cost (trapezoid rule) under c and
//      C_aug under exp(log c - l_i): the MMP hinge of the exponentiated form.  l_i is 0 on y_i, so
//      C_aug(y_i) = C(y_i) and R >= 0, 0 iff every demonstration is loss-augmented optimal.  The
//      prediction loss is the mean of L_i(y_pred_i) / max(1, |y_i|);
//   3) functional gradient: per cell, beta_i times its visitation by y*_i minus its visitation by y_i
//      (the trapezoid weights of F(y)), summed over the examples of a map: g(s);
//   4) the gradient projected on the trees: h_t is fitted to the cells with g(s) != 0, features f(s)
//      -> target sign g(s) (+1: a plan goes there, raise the cost; -1: a demonstration does, lower
//      it), weight |g(s)| -- at most `samples` cells, a seeded draw when there are more;
//   5) log c += eta_t h_t with eta_t = step / sqrt(t).
// Why a round is safe: a leaf value is a weighted mean of +-1 targets, so |h_t| <= 1 and a round moves
// every log-cost by at most eta_t.  Every path cost then changes by a factor in [e^-eta_t, e^eta_t],
// and since min_y C_aug(y) <= C(y_i),
//     R_t - R_{t-1} <= (e^eta_t - e^-eta_t) sum_i beta_i C_{t-1}(y_i).
// Bounded costs: after each round the costs of the passable training cells are checked; if one is not
// finite, a loss-augmented one could underflow to 0, or highest / lowest exceeds max_cost_ratio, the
// round is undone and training stops with Info::NumericalIssue and a message saying so: the result
// is the model of the last good round.
//
//   LearchSettings s;
//   s.rounds = 30;
//   const LearchResult r = learch(examples, Eigen::VectorXd::Zero(d), s);  // from uniform costs
//   CostModel model(stack, r.weights, r.trees);                            // cost_model.hpp
//
// The result depends only on the examples, the start and the settings (not on the thread count).
#pragma once

#include <mmp/learners/learner.hpp>
#include <mmp/maps/regression_tree.hpp>
#include <mmp/planning/path_example.hpp>

#include <Eigen/Dense>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace mmp {

struct LearchSettings {
  /// The pipeline's start: the weights of the linear learner of learner.kind, trained with
  /// exponential costs (learner.costs does not apply to LEARCH); else uniform costs (w0 = 0).
  bool from_linear = false;
  int rounds = 30;              ///< trees to add, >= 1
  double step = 0.5;            ///< eta_t = step / sqrt(t), > 0
  int depth = 3;                ///< splits from a tree's root to a leaf, in [1, 16]
  int min_leaf_samples = 10;    ///< cells in each leaf, >= 1
  int samples = 20000;          ///< the most cells a tree is fitted to, >= 1
  double max_cost_ratio = 1e6;  ///< highest / lowest passable training cost allowed, > 1
  std::uint64_t seed = 1;       ///< of the draw of cells when a round has more than `samples`
  int threads = 0;              ///< oracle calls at once (0 = all cores); the results do not depend on it
  /// Margin: the objective of the file comment.  Likelihood: Maximum Entropy IRL (maxent_planner.hpp) -- step 1 is the
  /// soft planner's expected visits instead of the loss-augmented plan, R = sum_i beta_i [C(y_i) +
  /// log Z_i] (the negative log-likelihood, >= 0), the gradient beta_i (expected visits - visits of
  /// y_i); a round whose lowest training cost falls below kMaxEntSafeCost is undone (the model may
  /// not be normalisable there), and the start must keep every cost above it.
  TrainingObjective objective = TrainingObjective::Margin;

  /// Throws mmp::InvalidArgument naming the first setting (as "learch.step") outside its range.
  void validate() const;
  /// One line: "30 rounds, step 0.5 / sqrt(t), depth 3, 10 cells a leaf, 20000 cells a round".
  std::string describe() const;
};

/// One model LEARCH evaluated: the start (trees 0) or the model after a round.
struct LearchRound {
  int trees = 0;                  ///< trees in the model
  double step = 0.0;              ///< eta of its last tree (0 for the start)
  double objective = 0.0;         ///< R of the file comment
  double prediction_loss = 0.0;   ///< mean L_i(y_pred_i) / max(1, |y_i|)
  double lowest = 0.0, highest = 0.0;  ///< the range of the passable training cells' costs
  double seconds = 0.0;           ///< since training started
};

/// A mark held against the demonstrations (CostModelTeacher::avoid and prefer on a LEARCH model): the
/// mean log-cost of its cells minus the mean log-cost of the demonstrations' cells is kept at least
/// (avoid) or at most (prefer) max / min(log margin, that gap at the start).  With `push`, a round in
/// which a mark breaks it adds, beside the cells drawn from the demonstrations' functional gradient, a
/// push on the mark's cells the size of one mean demonstration's (up for avoid, down for prefer), so
/// the round's tree learns it; a round in which every mark holds is the round without marks.
struct LearchMark {
  const FeatureMap* map = nullptr;
  std::vector<int> cells;  ///< passable cells of `map`
  bool avoid = true;
  double margin = 1.5;     ///< > 0: the cost ratio held (kAvoidMargin, kPreferMargin)
};

struct LearchResult {
  Eigen::VectorXd weights;          ///< w0, as given
  TreeEnsemble trees;               ///< the trees of the last good round
  std::vector<LearchRound> rounds;  ///< rounds[t]: the model with t trees (the last one is returned)
  Info info = Info::Success;        ///< NumericalIssue: stopped to keep the costs bounded
  std::string message;              ///< why training stopped
  std::vector<std::size_t> unmet_marks;  ///< the marks (indices) the returned model does not keep
};

/// Called after each model is evaluated; returning false stops training (the result is that model).
using LearchCallback = std::function<bool(const LearchRound&)>;

/*!
    requires: examples non-empty (their maps of one feature count); initial.size() == that count;
              settings valid (throws mmp::InvalidArgument naming what is wrong otherwise)
    ensures: the model of the file comment after settings.rounds rounds, or fewer if training
             stopped early (result.info and result.message say why: the costs would leave their
             bounds, every demonstration is loss-augmented optimal, or the callback asked);
             result.rounds.back() describes the returned model.  If the starting costs themselves
             are out of bounds, no tree is added and the message says so (rounds empty if they
             cannot even be planned on).
    start_trees: a model's trees to go on from (adapting a LEARCH model to new demonstrations,
             adaptation.hpp): the start's log-cost is initial . f + start_trees(f), the new trees are
             appended to them (result.trees holds both), their steps eta_t = step / sqrt(t) count t
             from the first new tree, and settings.rounds counts new trees.
    marks: held as LearchMark says (pushed only with `push`: without, the rounds are those without
             marks), on maps of the examples' feature count (else mmp::InvalidArgument);
             result.unmet_marks lists those the returned model does not keep (more rounds may).
!*/
LearchResult learch(const std::vector<const PathExample*>& examples, const Eigen::VectorXd& initial,
                    const LearchSettings& settings, const LearchCallback& callback = {},
                    const TreeEnsemble& start_trees = {}, const std::vector<LearchMark>& marks = {}, bool push = true);

/// log c(s) = w . f(s) + trees(f(s)) for every cell of the map, +inf on blocked cells.
/// requires: w.size() == map.features() (else mmp::InvalidArgument), the trees' features below it.
void logCosts(const FeatureMap& map, const Eigen::VectorXd& w, const TreeEnsemble& trees, std::vector<double>& out);

}  // namespace mmp
