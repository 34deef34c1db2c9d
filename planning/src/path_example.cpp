#include <mmp/planning/path_example.hpp>

#include <mmp/core/error.hpp>
#include <mmp/planning/path.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace mmp {

PathExample::PathExample(std::shared_ptr<const FeatureMap> map, std::vector<int> demonstration, Params params)
    : map_(std::move(map)), demonstration_(std::move(demonstration)), params_(params) {
  if (!map_) throw InvalidArgument("path example: the feature map is null");
  if (params_.q != 1 && params_.q != 2) throw InvalidArgument("path example: q must be 1 or 2");
  validatePath(demonstration_, map_->rows(), map_->cols(), params_.connectivity, map_->blocked());
  loss_ = lossMap(map_->rows(), map_->cols(), demonstration_, params_.loss);
  if (params_.loss_weights) {
    const std::vector<double>& weights = *params_.loss_weights;
    if (weights.size() != loss_.size()) {
      throw InvalidArgument("path example: " + std::to_string(weights.size()) + " loss weights for " +
                            std::to_string(loss_.size()) + " cells");
    }
    for (std::size_t s = 0; s < loss_.size(); ++s) {
      if (!(weights[s] >= 0.0 && weights[s] <= 1.0)) {
        throw InvalidArgument("path example: the loss weight of cell " + std::to_string(s) + " is " +
                              std::to_string(weights[s]) + ", outside [0, 1]");
      }
      loss_[s] *= weights[s];
    }
  }
  pathFeatures(demonstration_, *map_, target_features_);
  if (params_.length_weighting) {
    beta_ = std::pow(std::max(1.0, pathLength(demonstration_, map_->cols())), -params_.q);
  }
}

double PathExample::pathLoss(const std::vector<int>& path) const { return pathIntegral(path, map_->cols(), loss_); }

PlanResult PathExample::planOn(const std::vector<double>& costs) const {
  // One planner per thread, reused while the grid size stays the same: solve() stays const and
  // thread-safe, and repeated oracle calls allocate no search state.
  thread_local std::unique_ptr<GridPlanner> planner;
  if (!planner || planner->rows() != map_->rows() || planner->cols() != map_->cols() ||
      planner->params().connectivity != params_.connectivity) {
    GridPlanner::Params params;
    params.connectivity = params_.connectivity;
    planner = std::make_unique<GridPlanner>(map_->rows(), map_->cols(), params);
  }
  return planner->plan(costs, start(), goal());
}

double PathExample::predictionLoss(const std::vector<int>& path) const {
  return pathLoss(path) / std::max(1.0, pathLength(demonstration_, map_->cols()));
}

PlanResult PathExample::plan(const Eigen::VectorXd& w) const {
  std::vector<double> costs;
  map_->costs(w, costs, params_.cost_form);
  return planOn(costs);
}

std::vector<double> PathExample::exponentiated(const std::vector<double>& log_costs, double loss_weight) const {
  if (log_costs.size() != loss_.size()) {
    throw InvalidArgument("path example: " + std::to_string(log_costs.size()) + " log-costs for " +
                          std::to_string(loss_.size()) + " cells");
  }
  std::vector<double> costs(log_costs.size());
  for (std::size_t s = 0; s < costs.size(); ++s) {
    costs[s] = map_->isBlocked(static_cast<int>(s)) ? std::numeric_limits<double>::infinity()
                                                    : std::exp(log_costs[s] - loss_weight * loss_[s]);
  }
  return costs;
}

PlanResult PathExample::planLogCosts(const std::vector<double>& log_costs, double loss_weight) const {
  return planOn(exponentiated(log_costs, loss_weight));
}

SoftPlanResult PathExample::softPlanOn(const std::vector<double>& costs) const {
  // One soft planner per thread, as planOn keeps one A* planner.
  thread_local std::unique_ptr<MaxEntPlanner> planner;
  MaxEntPlanner::Params params = params_.maxent;
  params.connectivity = params_.connectivity;
  if (!planner || planner->rows() != map_->rows() || planner->cols() != map_->cols() ||
      planner->params().connectivity != params.connectivity || planner->params().region_margin != params.region_margin ||
      planner->params().tolerance != params.tolerance || planner->params().max_sweeps != params.max_sweeps) {
    planner = std::make_unique<MaxEntPlanner>(map_->rows(), map_->cols(), params);
  }
  return planner->solve(costs, start(), goal());
}

SoftPlanResult PathExample::softPlanLogCosts(const std::vector<double>& log_costs) const {
  return softPlanOn(exponentiated(log_costs, 0.0));
}

void PathExample::marginals(const Eigen::VectorXd& w, MarginalResult& result) const {
  std::vector<double> costs;
  augmentedCosts(w, 0.0, costs);
  const SoftPlanResult soft = softPlanOn(costs);
  if (soft.status != SoftPlanStatus::Success) {
    throw InvalidArgument("path example (start cell " + std::to_string(start()) + ", goal cell " +
                          std::to_string(goal()) + "): the maxent planner failed (" + describe(soft.status) +
                          "): " + soft.message);
  }
  Eigen::VectorXd& expected = result.expected_psi.resetDense(dimension());
  expected.setZero();
  for (std::size_t s = 0; s < soft.visits.size(); ++s) {
    if (soft.visits[s] != 0.0) map_->addCell(static_cast<int>(s), -soft.visits[s], expected);
  }
  result.psi_target.resetDense(dimension()) = -target_features_;
  result.log_partition = soft.log_partition;
  result.beta = beta_;
}

namespace {

// The scores w . f of the last map and w this thread scored.  An online step's prediction and
// loss-augmented calls score the same w on the same map, and so do a batch pass's examples of one
// map; one thread then scores the map once.  The map is the same if it is at the same address under
// the same live owner (the weak pointer keeps a freed map's address from passing for a new one); w
// is compared bit for bit.
struct LastScores {
  const FeatureMap* address = nullptr;
  std::weak_ptr<const FeatureMap> map;
  Eigen::VectorXd w;
  std::vector<double> scores;
};

const std::vector<double>& scoresOf(const std::shared_ptr<const FeatureMap>& map, const Eigen::VectorXd& w) {
  thread_local LastScores last;
  const bool same = last.address == map.get() && !last.map.owner_before(map) && !map.owner_before(last.map) &&
                    !last.map.expired() &&
                    last.w.size() == w.size() &&
                    std::memcmp(last.w.data(), w.data(), static_cast<std::size_t>(w.size()) * sizeof(double)) == 0;
  if (!same) {
    const CellScores score(*map, w);  // checks w's size
    last.map.reset();                 // a throw below leaves no half-made entry
    last.scores.resize(static_cast<std::size_t>(map->cells()));
    score.many(0, map->cells(), last.scores.data());
    last.w = w;
    last.map = map;
    last.address = map.get();
  }
  return last.scores;
}

}  // namespace

void PathExample::augmentedCosts(const Eigen::VectorXd& w, double loss_weight, std::vector<double>& costs) const {
  const std::vector<double>& scores = scoresOf(map_, w);
  const bool exponential = params_.cost_form == CostForm::Exponential;
  costs.resize(scores.size());
  for (std::size_t s = 0; s < costs.size(); ++s) {
    if (map_->isBlocked(static_cast<int>(s))) {
      costs[s] = std::numeric_limits<double>::infinity();
      continue;
    }
    // exp(w . f - s l): the loss discounts a cost by e^-(s l)
    const double exponent = loss_weight != 0.0 ? scores[s] - loss_weight * loss_[s] : scores[s];
    costs[s] = exponential ? std::exp(exponent) : exponent;
    if (exponential && !(costs[s] > 0.0 && costs[s] < std::numeric_limits<double>::infinity())) {
      throw NumericalError("path example: the exponential cost of cell " + std::to_string(s) + " is exp(" +
                           numberText(exponent) + "), outside the range of doubles: w has grown too large");
    }
  }
}

void PathExample::solve(const Eigen::VectorXd& w, double loss_weight, OracleResult& result) const {
  std::vector<double> costs;
  augmentedCosts(w, loss_weight, costs);
  const PlanResult plan = planOn(costs);
  if (plan.status != PlanStatus::Success) {
    throw InvalidArgument("path example (start cell " + std::to_string(start()) + ", goal cell " +
                          std::to_string(goal()) + "): the " + (loss_weight != 0.0 ? "loss-augmented " : "") +
                          "planner failed: " + plan.message +
                          (plan.status == PlanStatus::InvalidInput
                               ? ". Keep w in the positive-cost set (positiveCostProjection) instead of clamping"
                               : ""));
  }
  result.output = plan.path;
  Eigen::VectorXd& psi = result.psi_output.resetDense(dimension());
  pathFeatures(plan.path, *map_, psi);
  psi = -psi;  // psi(y) = -F(y): the contract maximises, the planner minimises
  result.psi_target.resetDense(dimension()) = -target_features_;
  result.loss = pathLoss(plan.path);  // recomputed from the returned path, not taken from the search
  result.beta = beta_;
}

}  // namespace mmp
