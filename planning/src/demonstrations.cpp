#include <mmp/planning/demonstrations.hpp>

#include <mmp/core/error.hpp>
#include <mmp/core/random.hpp>
#include <mmp/planning/maxent_planner.hpp>
#include <mmp/planning/path.hpp>

#include <cmath>
#include <memory>

namespace mmp {

NoiseKind parseNoiseKind(const std::string& text) {
  if (text == "none") return NoiseKind::None;
  if (text == "boltzmann") return NoiseKind::Boltzmann;
  if (text == "waypoints") return NoiseKind::Waypoints;
  throw InvalidArgument("unknown demonstration noise '" + text + "' (valid: none, boltzmann, waypoints)");
}

const char* describe(NoiseKind kind) {
  switch (kind) {
    case NoiseKind::None: return "none";
    case NoiseKind::Boltzmann: return "boltzmann";
    case NoiseKind::Waypoints: return "waypoints";
  }
  return "unknown";
}

namespace {

// The imperfect path between the ends of an optimal one (the file comment of the header), or an
// empty path when no waypoint connected to both ends could be drawn.
class NoisyDemonstrator {
 public:
  NoisyDemonstrator(int rows, int cols, const std::vector<double>& costs, const DemonstrationParams& params)
      : rows_(rows), cols_(cols), costs_(costs), noise_(params.noise), rng_(params.seed * 0x9E3779B97F4A7C15ULL + 0x632BE59BD9B4E019ULL) {
    if (noise_.kind == NoiseKind::Boltzmann) {
      if (!(noise_.temperature > 0.0) || !std::isfinite(noise_.temperature)) {
        throw InvalidArgument("demonstrations: the Boltzmann temperature must be finite and > 0");
      }
      scaled_ = costs;
      for (double& c : scaled_) c /= noise_.temperature;
      MaxEntPlanner::Params soft;
      soft.connectivity = params.connectivity;
      soft_ = std::make_unique<MaxEntPlanner>(rows, cols, soft);
    }
    if (noise_.kind == NoiseKind::Waypoints && (noise_.waypoints < 1 || !(noise_.spread >= 0.0))) {
      throw InvalidArgument("demonstrations: waypoint noise needs waypoints >= 1 and spread >= 0");
    }
  }

  std::vector<int> path(const std::vector<int>& optimal, GridPlanner& planner) {
    const int start = optimal.front(), goal = optimal.back();
    if (noise_.kind == NoiseKind::Boltzmann) {
      const SoftPlanResult r = soft_->solve(scaled_, start, goal);
      if (r.status != SoftPlanStatus::Success) {
        throw InvalidArgument("demonstrations: Boltzmann noise at temperature " + std::to_string(noise_.temperature) +
                              ": " + describe(r.status) + ": " + r.message +
                              " (costs / temperature; lower the temperature)");
      }
      return soft_->sample(rng_);
    }
    std::vector<int> out{start};
    int from = start;
    const double r0 = start / cols_, c0 = start % cols_, r1 = goal / cols_, c1 = goal % cols_;
    const double radius = noise_.spread * std::hypot(r1 - r0, c1 - c0);
    for (int k = 1; k <= noise_.waypoints + 1; ++k) {
      int to = goal;
      PlanResult leg;
      for (int attempt = 0; k <= noise_.waypoints; ++attempt) {
        if (attempt == 100) return {};
        const double share = static_cast<double>(k) / (noise_.waypoints + 1);
        const double angle = rng_.uniform(0.0, 2.0 * M_PI), distance = radius * std::sqrt(rng_.uniform());
        const int r = static_cast<int>(std::lround(r0 + share * (r1 - r0) + distance * std::sin(angle)));
        const int c = static_cast<int>(std::lround(c0 + share * (c1 - c0) + distance * std::cos(angle)));
        if (r < 0 || r >= rows_ || c < 0 || c >= cols_ || !std::isfinite(costs_[static_cast<std::size_t>(r * cols_ + c)])) continue;
        to = r * cols_ + c;
        if (to == from) continue;
        leg = planner.plan(costs_, from, to);
        if (leg.status == PlanStatus::Success) break;
      }
      if (k > noise_.waypoints) leg = planner.plan(costs_, from, to);
      if (leg.status != PlanStatus::Success) return {};
      out.insert(out.end(), leg.path.begin() + 1, leg.path.end());
      from = to;
    }
    return out;
  }

 private:
  int rows_, cols_;
  const std::vector<double>& costs_;
  DemonstrationNoise noise_;
  Random rng_;
  std::vector<double> scaled_;
  std::unique_ptr<MaxEntPlanner> soft_;
};

}  // namespace

std::vector<Demonstration> generateDemonstrations(int rows, int cols, const std::vector<double>& costs,
                                                  const DemonstrationParams& params) {
  if (costs.size() != static_cast<std::size_t>(rows) * cols) {
    throw InvalidArgument("demonstrations: the cost grid has " + std::to_string(costs.size()) + " cells, expected " +
                          std::to_string(rows) + " x " + std::to_string(cols));
  }
  std::vector<int> passable;
  for (int s = 0; s < rows * cols; ++s) {
    if (std::isfinite(costs[static_cast<std::size_t>(s)])) passable.push_back(s);
  }
  std::vector<Demonstration> out;
  if (passable.size() < 2) return out;
  GridPlanner::Params planner_params;
  planner_params.connectivity = params.connectivity;
  GridPlanner planner(rows, cols, planner_params);
  Random rng(params.seed);
  std::unique_ptr<NoisyDemonstrator> noisy;
  if (params.noise.kind != NoiseKind::None) noisy = std::make_unique<NoisyDemonstrator>(rows, cols, costs, params);
  for (int attempt = 0; attempt < params.max_attempts && static_cast<int>(out.size()) < params.count; ++attempt) {
    const int start = passable[rng.below(passable.size())], goal = passable[rng.below(passable.size())];
    const double dr = start / cols - goal / cols, dc = start % cols - goal % cols;
    if (start == goal || std::hypot(dr, dc) < params.min_separation) continue;
    PlanResult plan = planner.plan(costs, start, goal);
    if (plan.status == PlanStatus::InvalidInput) throw InvalidArgument("demonstrations: " + plan.message);
    if (plan.status != PlanStatus::Success) continue;
    if (!noisy) {
      out.push_back({std::move(plan.path), plan.cost, plan.cost});
      continue;
    }
    std::vector<int> path = noisy->path(plan.path, planner);
    if (path.empty()) continue;
    const double cost = pathIntegral(path, cols, costs);
    out.push_back({std::move(path), cost, plan.cost});
  }
  return out;
}

}  // namespace mmp
