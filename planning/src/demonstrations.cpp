#include <mmp/planning/demonstrations.hpp>

#include <mmp/core/error.hpp>
#include <mmp/core/random.hpp>

#include <cmath>

namespace mmp {

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
  for (int attempt = 0; attempt < params.max_attempts && static_cast<int>(out.size()) < params.count; ++attempt) {
    const int start = passable[rng.below(passable.size())], goal = passable[rng.below(passable.size())];
    const double dr = start / cols - goal / cols, dc = start % cols - goal % cols;
    if (start == goal || std::hypot(dr, dc) < params.min_separation) continue;
    PlanResult plan = planner.plan(costs, start, goal);
    if (plan.status == PlanStatus::InvalidInput) throw InvalidArgument("demonstrations: " + plan.message);
    if (plan.status == PlanStatus::Success) out.push_back({std::move(plan.path), plan.cost});
  }
  return out;
}

}  // namespace mmp
