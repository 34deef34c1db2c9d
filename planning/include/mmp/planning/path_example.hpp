// PathExample: one demonstrated path on a feature map, as a StructuredExample (maximum margin
// planning, Ratliff, Bagnell and Zinkevich 2006/2007, sec. 6.2 of the subgradient paper).
//
// SIGN CONVENTION (the contract maximises a score): psi(y) = -F(y), F(y) the trapezoid integral of
// the cell features along y, so w . psi(y) = -cost(y) and the oracle's argmax is the cheapest path.
// Loss-augmented inference with weight s plans on the cell costs w.f(cell) - s l(cell) with exact A*.
// With CostForm::Exponential the costs are exp(w.f) and the loss-augmented ones exp(w.f - s l); psi
// stays -F(y), so a subgradient step moves the LOG-costs along the cells of the demonstration and of
// the plan: the exponentiated functional gradient of Ratliff, Silver and Bagnell (2009) restricted to
// linear log-costs.  The objective the contract implies is then a surrogate, not eq. 4 of the paper.
// beta_i = max(1, |y_i|)^-q with |y_i| the demonstration's length in cells (optional), so that long
// and short demonstrations weigh the same.
//
// The same example is a MarginalExample: the Maximum Entropy IRL model P(y) proportional to
// exp(-cost(y)) over the walks from start to goal (maxent_planner.hpp for the path set, when it is
// normalisable and what a finite region margin changes), with E[psi] = -E[F(y)] by the same trapezoid
// counts as F of a single path, so the likelihood objective and the margin one see the same psi.  With
// CostForm::Exponential the model is over the costs exp(w.f) and E[psi] stays -E[F]: the surrogate of
// the margin case (a step moves the log-costs along the expected visitation), not the exact gradient
// of log Z.
#pragma once

#include <mmp/core/feature_map.hpp>
#include <mmp/core/marginals.hpp>
#include <mmp/core/oracle.hpp>
#include <mmp/planning/grid_planner.hpp>
#include <mmp/planning/loss.hpp>
#include <mmp/planning/maxent_planner.hpp>

#include <memory>

namespace mmp {

class PathExample final : public StructuredExample, public MarginalExample {
 public:
  struct Params {
    Connectivity connectivity = Connectivity::Eight;
    LossParams loss;
    bool length_weighting = true;  ///< beta_i = max(1, |y_i|)^-q, else 1
    int q = 1;                     ///< the q of beta_i (match the learner's q)
    /// Optional per-cell factors in [0, 1] of the loss map (null = 1 everywhere), e.g. how bad a
    /// cell's class is, so the margin grows where straying costs the most.
    std::shared_ptr<const std::vector<double>> loss_weights;
    CostForm cost_form = CostForm::Linear;  ///< cell costs w.f, or exp(w.f)
    /// The soft planner of marginals(): region margin, tolerance, sweeps (its connectivity is this
    /// example's).
    MaxEntPlanner::Params maxent;
  };

  /// requires: a valid demonstration on the map (validatePath); throws mmp::InvalidArgument naming
  /// the offending index and cell otherwise.  start and goal are the demonstration's ends.
  PathExample(std::shared_ptr<const FeatureMap> map, std::vector<int> demonstration, Params params);

  Eigen::Index dimension() const override { return map_->features(); }

  /*!
      ensures (in addition to the contract)
          - output = the planned path's cells, start to goal
          - throws mmp::InvalidArgument if some passable cell's cost w.f - loss_weight * l is not > 0
            (naming the cell): constrain w with positiveCostProjection instead of clamping (linear
            costs); throws mmp::NumericalError if an exponential cost overflows to inf or underflows
            to 0 (naming the cell), which the learners answer by keeping their last good weights
  !*/
  void solve(const Eigen::VectorXd& w, double loss_weight, OracleResult& result) const override;

  /*!
      ensures (in addition to the MarginalExample contract)
          - the model of the file comment at the costs of plan(w): log_partition = log Z,
            expected_psi = -sum_s visits(s) f(s), psi_target = -F(y_i), beta = beta()
          - throws mmp::InvalidArgument naming the start, goal and reason when the soft planner
            fails (a cost <= 0, Z infinite at w, no convergence)
  !*/
  void marginals(const Eigen::VectorXd& w, MarginalResult& result) const override;

  /*!
      The soft planner on log-costs that need not be linear in the features (LEARCH): the model on
      the cell costs exp(log_costs[s]), +inf on blocked cells; failures are in the result's status.
      requires: log_costs.size() == map().cells() (else mmp::InvalidArgument)
  !*/
  SoftPlanResult softPlanLogCosts(const std::vector<double>& log_costs) const;

  /// The cell costs solve() plans on: w.f - loss_weight l, or exp of it, +inf on blocked cells.  Each
  /// thread keeps the scores w.f of the last map and w it scored (8 bytes a cell) and reuses them for
  /// the next call on the same map and w: an online step's prediction and loss-augmented calls, or a
  /// batch pass's examples of one map, score the map once a thread.
  void augmentedCosts(const Eigen::VectorXd& w, double loss_weight, std::vector<double>& costs) const;

  /// Plain prediction: the cheapest path under w (A* on w.f, or exp(w.f)), with its cost and expansions.
  PlanResult plan(const Eigen::VectorXd& w) const;

  /*!
      Planning on log-costs that need not be linear in the features (LEARCH, maps/learch.hpp).
      requires: log_costs.size() == map().cells() (else mmp::InvalidArgument)
      ensures: A* on the cell costs exp(log_costs[s] - loss_weight l(s)), +inf on blocked cells: with
               log_costs = w.f the search of solve(w, loss_weight) (and of plan(w) for weight 0) under
               CostForm::Exponential, whatever params.cost_form says.  A failed search (e.g. a cost
               that overflowed to +inf cutting the goal off, or one that underflowed to 0) is in the
               result's status, not thrown.
  !*/
  PlanResult planLogCosts(const std::vector<double>& log_costs, double loss_weight) const;

  const FeatureMap& map() const { return *map_; }
  const std::vector<int>& demonstration() const { return demonstration_; }
  const std::vector<double>& loss() const { return loss_; }
  /// L(y) of any path on this map: the trapezoid integral of the loss map.
  double pathLoss(const std::vector<int>& path) const;
  /// pathLoss(path) per cell of demonstration, pathLoss / max(1, |y|): the prediction loss training
  /// reports and learners compare across demonstrations of different lengths.
  double predictionLoss(const std::vector<int>& path) const;
  /// beta_i, the weight of this example's term (see the file comment).
  double beta() const { return beta_; }
  int start() const { return demonstration_.front(); }
  int goal() const { return demonstration_.back(); }

 private:
  PlanResult planOn(const std::vector<double>& costs) const;
  SoftPlanResult softPlanOn(const std::vector<double>& costs) const;
  std::vector<double> exponentiated(const std::vector<double>& log_costs, double loss_weight) const;

  std::shared_ptr<const FeatureMap> map_;
  std::vector<int> demonstration_;
  Params params_;
  std::vector<double> loss_;   // per cell
  Eigen::VectorXd target_features_;  // F(y_i)
  double beta_ = 1.0;
};

}  // namespace mmp
