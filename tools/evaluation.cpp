#include "evaluation.hpp"

#include <mmp/core/error.hpp>
#include <mmp/planning/loss.hpp>
#include <mmp/planning/path.hpp>

#include <algorithm>
#include <cmath>
#include <random>

namespace mmp::tools {

double percentile(std::vector<double> values, double q) {
  if (values.empty()) return 0.0;
  const std::size_t rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(values.size())));
  const std::size_t k = std::min(values.size() - 1, rank == 0 ? 0 : rank - 1);
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(k), values.end());
  return values[k];
}

PlanScorer::PlanScorer(const Region& region, int preferred, double impassable_cost, int cell_size)
    : region_(region), cell_size_(cell_size) {
  if (region.true_costs.empty()) throw InvalidArgument("plan scorer: region '" + region.spec.name + "' has no labels");
  if (!(impassable_cost > 0.0)) throw InvalidArgument("plan scorer: impassable_cost must be > 0");
  scoring_costs_ = region.true_costs;
  for (double& c : scoring_costs_) {
    if (std::isinf(c)) c = impassable_cost;
  }
  on_preferred_.resize(region.cell_labels.size());
  for (std::size_t s = 0; s < on_preferred_.size(); ++s) on_preferred_[s] = region.cell_labels[s] == preferred ? 1.0 : 0.0;
}

void PlanScorer::setReference(const std::vector<int>& reference) {
  reference_ = reference;
  reference_cost_ = pathIntegral(reference, region_.cols(), region_.true_costs);
  if (!std::isfinite(reference_cost_) || !(reference_cost_ > 0.0)) {
    throw InvalidArgument("plan scorer: the reference path's true cost is not finite and positive");
  }
  distance_ = distanceToPath(region_.rows(), region_.cols(), reference);
}

PlanScore PlanScorer::score(const std::vector<int>& plan) const {
  PlanScore s;
  const int cols = region_.cols();
  s.cost_ratio = pathIntegral(plan, cols, scoring_costs_) / reference_cost_;
  const double length = pathLength(plan, cols);
  s.preferred_share = length > 0.0 ? pathIntegral(plan, cols, on_preferred_) / length : on_preferred_[static_cast<std::size_t>(plan.front())];
  s.distances_px.reserve(plan.size());
  for (int cell : plan) {
    s.distances_px.push_back(distance_[static_cast<std::size_t>(cell)] * cell_size_);
    if (std::isinf(region_.true_costs[static_cast<std::size_t>(cell)])) s.feasible = false;
  }
  return s;
}

MethodSummary summarise(const std::vector<PlanScore>& scores) {
  MethodSummary m;
  m.pairs = static_cast<int>(scores.size());
  if (scores.empty()) return m;
  std::vector<double> ratios, distances;
  double share = 0.0, feasible = 0.0;
  for (const PlanScore& s : scores) {
    ratios.push_back(s.cost_ratio);
    distances.insert(distances.end(), s.distances_px.begin(), s.distances_px.end());
    share += s.preferred_share;
    feasible += s.feasible ? 1.0 : 0.0;
  }
  double ratio_sum = 0.0, distance_sum = 0.0;
  for (double r : ratios) ratio_sum += r;
  for (double d : distances) distance_sum += d;
  const double n = static_cast<double>(scores.size());
  m.cost_ratio_mean = ratio_sum / n;
  m.cost_ratio_p95 = percentile(ratios, 0.95);
  m.dist_mean_px = distances.empty() ? 0.0 : distance_sum / static_cast<double>(distances.size());
  m.dist_p95_px = percentile(distances, 0.95);
  m.preferred_share = share / n;
  m.feasible_share = feasible / n;
  return m;
}

PairedComparison comparePaired(const std::vector<PlanScore>& method, const std::vector<PlanScore>& other,
                               int resamples, std::uint64_t seed) {
  if (method.size() != other.size() || method.empty() || resamples < 1) {
    throw InvalidArgument("paired comparison: " + std::to_string(method.size()) + " and " +
                          std::to_string(other.size()) + " scores; needs the same non-zero number of pairs");
  }
  const std::size_t n = method.size();
  std::vector<double> gains(n);
  PairedComparison c;
  c.pairs = static_cast<int>(n);
  for (std::size_t k = 0; k < n; ++k) {
    gains[k] = other[k].cost_ratio - method[k].cost_ratio;
    c.gain += gains[k] / static_cast<double>(n);
  }
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::size_t> pick(0, n - 1);
  std::vector<double> means(static_cast<std::size_t>(resamples));
  for (double& mean : means) {
    double sum = 0.0;
    for (std::size_t k = 0; k < n; ++k) sum += gains[pick(rng)];
    mean = sum / static_cast<double>(n);
  }
  c.low = percentile(means, 0.025);
  c.high = percentile(means, 0.975);
  return c;
}

}  // namespace mmp::tools
