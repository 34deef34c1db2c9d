#include <mmp/planning/ompl_objective.hpp>
#include <mmp/core/numbers.hpp>

#include "constants.hpp"

#include <mmp/core/error.hpp>
#include <mmp/planning/cost_field.hpp>

#include "ompl_internal.hpp"

#include <ompl/base/goals/GoalRegion.h>
#include <ompl/base/samplers/informed/RejectionInfSampler.h>
#include <ompl/base/spaces/RealVectorStateSpace.h>
#include <ompl/util/Console.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>
#include <string>

namespace mmp {
namespace {

namespace ob = ompl::base;


void setCellPoint(ob::State* state, CellPoint p) {
  double* values = state->as<ob::RealVectorStateSpace::StateType>()->values;
  values[0] = p.u;
  values[1] = p.v;
}

}  // namespace

void detail::silenceOmpl() {
  static std::once_flag once;
  std::call_once(once, [] {
    ompl::msg::noOutputHandler();
    ompl::msg::setLogLevel(ompl::msg::LOG_NONE);
  });
}

std::shared_ptr<const CostGrid> detail::checkedGrid(std::shared_ptr<const CostGrid> grid) {
  if (!grid || grid->rows <= 0 || grid->cols <= 0) {
    throw InvalidArgument("OMPL grid objects need a non-empty cost grid" +
                          (grid ? " (this one has " + std::to_string(grid->rows) + " x " + std::to_string(grid->cols) + " cells)"
                                : std::string(" (got none)")));
  }
  if (grid->costs.size() != static_cast<std::size_t>(grid->rows) * static_cast<std::size_t>(grid->cols)) {
    throw InvalidArgument("cost grid of " + std::to_string(grid->rows) + " x " + std::to_string(grid->cols) + " cells holds " +
                          std::to_string(grid->costs.size()) + " costs");
  }
  return grid;
}

CellPoint cellPointOf(const ob::State* state) {
  const double* values = state->as<ob::RealVectorStateSpace::StateType>()->values;
  return {values[0], values[1]};
}

GridCostObjective::GridCostObjective(const ob::SpaceInformationPtr& si, std::shared_ptr<const CostGrid> grid)
    : ob::StateCostIntegralObjective(si, true), grid_(detail::checkedGrid(std::move(grid))), smallest_cost_(mmp::smallestCost(*grid_)) {
  if (!(smallest_cost_ < kInf)) throw InvalidArgument("GridCostObjective: every cell of the cost grid is impassable");
  double largest = 0.0;
  for (double c : grid_->costs) {
    if (c < kInf) largest = std::max(largest, c);
  }
  impassable_stand_in_ = 1e6 * largest;
  description_ = "mmp cost-grid integral";
  // Cost to go: the cheapest cost per cell times the straight distance to the goal region, a lower
  // bound on every path's remaining cost (as motionCostHeuristic is for one motion).
  const double lowest = smallest_cost_;
  setCostToGoHeuristic([lowest](const ob::State* state, const ob::Goal* goal) {
    const auto* region = dynamic_cast<const ob::GoalRegion*>(goal);
    return ob::Cost(region ? lowest * std::max(0.0, region->distanceGoal(state)) : 0.0);
  });
}

ob::Cost GridCostObjective::stateCost(const ob::State* s) const { return ob::Cost(interpolatedCost(*grid_, cellPointOf(s))); }

ob::Cost GridCostObjective::motionCost(const ob::State* s1, const ob::State* s2) const {
  return ob::Cost(segmentCost(*grid_, cellPointOf(s1), cellPointOf(s2), impassable_stand_in_));
}

ob::Cost GridCostObjective::motionCostHeuristic(const ob::State* s1, const ob::State* s2) const {
  const CellPoint a = cellPointOf(s1), b = cellPointOf(s2);
  return ob::Cost(smallest_cost_ * std::hypot(b.u - a.u, b.v - a.v));
}

GridValidityChecker::GridValidityChecker(const ob::SpaceInformationPtr& si, std::shared_ptr<const CostGrid> grid)
    : ob::StateValidityChecker(si), grid_(detail::checkedGrid(std::move(grid))) {}

bool GridValidityChecker::isValid(const ob::State* state) const { return pointPassable(*grid_, cellPointOf(state)); }

GridMotionValidator::GridMotionValidator(const ob::SpaceInformationPtr& si, std::shared_ptr<const CostGrid> grid)
    : ob::MotionValidator(si), grid_(detail::checkedGrid(std::move(grid))) {}

bool GridMotionValidator::checkMotion(const ob::State* s1, const ob::State* s2) const {
  return segmentPassable(*grid_, cellPointOf(s1), cellPointOf(s2));
}

bool GridMotionValidator::checkMotion(const ob::State* s1, const ob::State* s2,
                                      std::pair<ob::State*, double>& last_valid) const {
  const CellPoint a = cellPointOf(s1), b = cellPointOf(s2);
  double blocked_at = 0.0;
  if (segmentPassable(*grid_, a, b, &blocked_at)) return true;
  // Back off from the entry into the first blocked cell by a millionth of a cell; if rounding still
  // lands in a blocked cell (or there is no room), fall back to s1.
  const double length = std::hypot(b.u - a.u, b.v - a.v);
  double t = length > 0.0 ? std::max(0.0, blocked_at - 1e-6 / length) : 0.0;
  const CellPoint p{a.u + t * (b.u - a.u), a.v + t * (b.v - a.v)};
  if (t <= 0.0 || !segmentPassable(*grid_, a, p)) t = 0.0;
  if (last_valid.first) {
    if (t > 0.0) {
      setCellPoint(last_valid.first, p);
    } else {
      si_->copyState(last_valid.first, s1);
    }
  }
  last_valid.second = t;
  return false;
}

ob::SpaceInformationPtr gridSpaceInformation(std::shared_ptr<const CostGrid> grid) {
  grid = detail::checkedGrid(std::move(grid));
  detail::silenceOmpl();
  auto space = std::make_shared<ob::RealVectorStateSpace>(2);
  ob::RealVectorBounds bounds(2);
  bounds.setLow(0, 0.0);
  bounds.setHigh(0, grid->cols);
  bounds.setLow(1, 0.0);
  bounds.setHigh(1, grid->rows);
  space->setBounds(bounds);
  auto si = std::make_shared<ob::SpaceInformation>(space);
  si->setStateValidityChecker(std::make_shared<GridValidityChecker>(si, grid));
  si->setMotionValidator(std::make_shared<GridMotionValidator>(si, grid));
  si->setup();
  return si;
}

ob::InformedSamplerPtr GridCostObjective::allocInformedStateSampler(const ob::ProblemDefinitionPtr& problem,
                                                                   unsigned int max_calls) const {
  return std::make_shared<ob::RejectionInfSampler>(problem, std::min(max_calls, kInformedSampleDraws));
}

}  // namespace mmp
