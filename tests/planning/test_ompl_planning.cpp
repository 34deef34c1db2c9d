#include "planning_support.hpp"
#include <mmp/core/numbers.hpp>
#include "support.hpp"

#include <mmp/core/error.hpp>
#include <mmp/planning/cost_field.hpp>
#include <mmp/planning/grid_planner.hpp>
#include <mmp/planning/ompl_objective.hpp>
#include <mmp/planning/ompl_planning.hpp>

#include <ompl/base/ScopedState.h>
#include <ompl/base/goals/GoalState.h>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

using namespace mmp;
namespace ob = ompl::base;

namespace {


using mmp::test::sharedGrid;

ob::ScopedState<> stateAt(const ob::SpaceInformationPtr& si, CellPoint p) {
  ob::ScopedState<> s(si);
  s[0] = p.u;
  s[1] = p.v;
  return s;
}

CellPoint centre(int r, int c) { return {c + 0.5, r + 0.5}; }

// Brute force, independent of the traversal in cost_field.cpp: the cells (by floor) of points every
// 1/200 cell along a -> b; the first one outside the grid or impassable, or -2 if none is.
int firstBadCell(const CostGrid& grid, CellPoint a, CellPoint b) {
  const int n = static_cast<int>(std::ceil(std::hypot(b.u - a.u, b.v - a.v) * 200.0)) + 1;
  for (int k = 0; k <= n; ++k) {
    const double t = static_cast<double>(k) / n;
    const double u = a.u + t * (b.u - a.u), v = a.v + t * (b.v - a.v);
    if (!(u >= 0.0 && v >= 0.0 && u < grid.cols && v < grid.rows)) return -1;
    const int cell = static_cast<int>(v) * grid.cols + static_cast<int>(u);
    if (grid.blocked(cell)) return cell;
  }
  return -2;
}

// A random-cost grid with a wall of impassable cells across it (a column) and one gap of `gap` cells,
// plus a sprinkle of impassable cells; start and goal on either side of the wall.
struct WallScene {
  CostGrid grid;
  CellPoint start, goal;
};

WallScene wallScene(Random& rng, int rows, int cols, int gap) {
  WallScene scene;
  scene.grid.rows = rows;
  scene.grid.cols = cols;
  scene.grid.costs = test::randomCosts(rng, rows * cols, 0.5, 4.0, 0.05);
  const int wall = cols / 2, gap_row = test::randomInt(rng, 1, rows - gap - 1);
  for (int r = 0; r < rows; ++r) {
    if (r < gap_row || r >= gap_row + gap) scene.grid.costs[static_cast<std::size_t>(r) * cols + wall] = kInf;
  }
  for (int r = gap_row; r < gap_row + gap; ++r) {
    for (int c = wall - 1; c <= wall + 1; ++c) scene.grid.costs[static_cast<std::size_t>(r) * cols + c] = 1.0;
  }
  const int r0 = test::randomInt(rng, 0, rows - 1), r1 = test::randomInt(rng, 0, rows - 1);
  scene.grid.costs[static_cast<std::size_t>(r0) * cols + 1] = 1.0;
  scene.grid.costs[static_cast<std::size_t>(r1) * cols + cols - 2] = 1.0;
  scene.start = centre(r0, 1);
  scene.goal = centre(r1, cols - 2);
  return scene;
}

int cellOf(const CostGrid& grid, CellPoint p) { return static_cast<int>(p.v) * grid.cols + static_cast<int>(p.u); }

// Everything every returned path must satisfy.
void checkPath(const CostGrid& grid, const OmplResult& result, CellPoint start, CellPoint goal) {
  REQUIRE(result.path.size() >= 2);
  CHECK(result.path.front().u == start.u);
  CHECK(result.path.front().v == start.v);
  if (result.status == OmplStatus::Success) {
    CHECK(std::hypot(result.path.back().u - goal.u, result.path.back().v - goal.v) < 1e-9);
  }
  for (std::size_t i = 1; i < result.path.size(); ++i) {
    CAPTURE(i);
    CHECK(firstBadCell(grid, result.path[i - 1], result.path[i]) == -2);
  }
  CHECK(result.cost == doctest::Approx(polylineCost(grid, result.path)).epsilon(1e-12));
  CHECK(result.cost >= smallestCost(grid) * std::hypot(result.path.back().u - start.u, result.path.back().v - start.v) * (1 - 1e-12));
}

}  // namespace

TEST_CASE("the objective's cost of a straight motion between cell centres equals GridPlanner's cost of those cells") {
  // Every cell impassable except those of one row, column or diagonal line, so A* must take the line.
  Random rng(3);
  const int n = 15;
  const int directions[8][2] = {{0, 1}, {1, 0}, {1, 1}, {1, -1}, {0, -1}, {-1, 0}, {-1, -1}, {-1, 1}};
  int compared = 0;
  for (int trial = 0; trial < 160; ++trial) {
    const int dr = directions[trial % 8][0], dc = directions[trial % 8][1];
    const int length = 1 + trial / 8 % 12;
    const int r0 = dr >= 0 ? test::randomInt(rng, 0, n - 1 - dr * length) : test::randomInt(rng, length, n - 1);
    const int c0 = dc >= 0 ? test::randomInt(rng, 0, n - 1 - dc * length) : test::randomInt(rng, length, n - 1);
    std::vector<double> costs(n * n, kInf);
    for (int k = 0; k <= length; ++k) costs[(r0 + k * dr) * n + c0 + k * dc] = trial % 3 == 0 ? rng.uniform(0.01, 100.0) : rng.uniform(0.5, 5.0);
    const auto grid = sharedGrid(n, n, costs);
    GridPlanner planner(n, n);
    const int r1 = r0 + length * dr, c1 = c0 + length * dc;
    const PlanResult plan = planner.plan(costs, r0 * n + c0, r1 * n + c1);
    REQUIRE(plan.status == PlanStatus::Success);
    REQUIRE(plan.path.size() == static_cast<std::size_t>(length + 1));
    const auto si = gridSpaceInformation(grid);
    const GridCostObjective objective(si, grid);
    const auto a = stateAt(si, centre(r0, c0)), b = stateAt(si, centre(r1, c1));
    CAPTURE(trial);
    CHECK(objective.motionCost(a.get(), b.get()).value() == doctest::Approx(plan.cost).epsilon(1e-12));
    CHECK(objective.motionCost(b.get(), a.get()).value() == doctest::Approx(plan.cost).epsilon(1e-12));
    CHECK(si->checkMotion(a.get(), b.get()) == (dr == 0 || dc == 0 || length == 0));  // diagonals touch blocked corners
    ++compared;
  }
  CHECK(compared == 160);
}

TEST_CASE("the objective's state cost is the cell cost at a centre, its heuristics never exceed the true cost") {
  Random rng(8);
  for (int trial = 0; trial < 30; ++trial) {
    const int rows = test::randomInt(rng, 2, 30), cols = test::randomInt(rng, 2, 30);
    std::vector<double> costs = test::randomCosts(rng, rows * cols, trial % 2 ? 0.05 : 1.0, trial % 2 ? 80.0 : 2.0, 0.25);
    costs[0] = 1.0;
    const auto grid = sharedGrid(rows, cols, costs);
    const auto si = gridSpaceInformation(grid);
    const GridCostObjective objective(si, grid);
    CHECK(objective.smallestCost() == smallestCost(*grid));
    for (int s = 0; s < rows * cols; ++s) {
      if (grid->blocked(s)) continue;
      CHECK(objective.stateCost(stateAt(si, centre(s / cols, s % cols)).get()).value() == costs[s]);
    }
    ob::GoalState goal(si);
    const CellPoint goal_point{rng.uniform(0.0, cols), rng.uniform(0.0, rows)};
    goal.setState(stateAt(si, goal_point));
    for (int k = 0; k < 100; ++k) {
      const CellPoint pa{rng.uniform(0.0, cols), rng.uniform(0.0, rows)}, pb{rng.uniform(0.0, cols), rng.uniform(0.0, rows)};
      const auto a = stateAt(si, pa), b = stateAt(si, pb);
      const double cost = objective.motionCost(a.get(), b.get()).value();
      CHECK(cost == segmentCost(*grid, pa, pb, objective.impassableStandIn()));
      CHECK(cost < kInf);
      if (segmentCost(*grid, pa, pb) < kInf) CHECK(cost == segmentCost(*grid, pa, pb));
      CHECK(objective.motionCostHeuristic(a.get(), b.get()).value() <= cost * (1 + 1e-12));
      const double to_goal = objective.motionCost(a.get(), stateAt(si, goal_point).get()).value();
      CHECK(objective.costToGo(a.get(), &goal).value() <= to_goal * (1 + 1e-12));
    }
  }
}

TEST_CASE("the validators agree with a brute-force sampling: invalid motions are those that enter a blocked cell") {
  Random rng(19);
  int invalid = 0, valid = 0;
  for (int trial = 0; trial < 40; ++trial) {
    const int rows = test::randomInt(rng, 2, 25), cols = test::randomInt(rng, 2, 25);
    const auto grid = sharedGrid(rows, cols, test::randomCosts(rng, rows * cols, 0.5, 2.0, 0.2));
    const auto si = gridSpaceInformation(grid);
    for (int k = 0; k < 100; ++k) {
      const CellPoint pa{rng.uniform(0.0, cols), rng.uniform(0.0, rows)}, pb{rng.uniform(0.0, cols), rng.uniform(0.0, rows)};
      const auto a = stateAt(si, pa), b = stateAt(si, pb);
      CHECK(si->isValid(a.get()) == !grid->blocked(cellOf(*grid, pa)));
      if (!si->isValid(a.get())) continue;
      const bool sampled_clear = firstBadCell(*grid, pa, pb) == -2;
      const bool motion_valid = si->checkMotion(a.get(), b.get());
      CAPTURE(trial);
      // The validator is conservative at corners only: what a sampling sees blocked, it must refuse.
      if (!sampled_clear) CHECK_FALSE(motion_valid);
      ob::ScopedState<> last(si);
      std::pair<ob::State*, double> last_valid{last.get(), -1.0};
      CHECK(si->getMotionValidator()->checkMotion(a.get(), b.get(), last_valid) == motion_valid);
      if (!motion_valid) {
        CHECK(last_valid.second >= 0.0);
        CHECK(last_valid.second < 1.0);
        CHECK(si->isValid(last.get()));
        CHECK(si->checkMotion(a.get(), last.get()));
        ++invalid;
      } else {
        ++valid;
      }
    }
  }
  CHECK(invalid > 100);
  CHECK(valid > 100);
}

TEST_CASE("OMPL solutions never enter an impassable cell and cost what their polyline costs (every planner, seeds)") {
  Random rng(42);
  int successes = 0, runs = 0;
  for (OmplPlanner planner : omplPlanners()) {
    for (std::uint32_t seed : {1u, 2u}) {
      const WallScene scene = wallScene(rng, 30, 40, 3);
      OmplSettings settings;
      settings.planner = planner;
      settings.seed = seed;
      settings.budget_seconds = 0.2;
      settings.simplify = seed == 2;
      const OmplResult result = planOmpl(scene.grid, scene.start, scene.goal, settings);
      CAPTURE(plannerName(planner));
      CAPTURE(seed);
      CAPTURE(result.message);
      ++runs;
      if (result.status == OmplStatus::NoSolution) continue;
      REQUIRE(result.status != OmplStatus::InvalidInput);
      checkPath(scene.grid, result, scene.start, scene.goal);
      CHECK(result.states > 0);
      if (result.status == OmplStatus::Success) ++successes;
      if (!settings.simplify) CHECK_FALSE(result.simplified);
    }
  }
  // Budgets are wall clock, so a loaded machine may cut a run short; most must still succeed.
  CHECK(successes * 4 >= runs * 3);
}

TEST_CASE("where the straight line is the optimum, no OMPL path beats A*") {
  // Uniform costs and start, gap and goal on one row: A*'s straight row is the cheapest of all
  // paths, any-angle or not (cost >= smallest cost x length >= the row's cost); on random costs
  // an any-angle path may beat A* (see test_cost_field), so there only the lower bound is checked.
  const int rows = 21, cols = 41;
  std::vector<double> costs(rows * cols, 2.0);
  for (int r = 0; r < rows; ++r) {
    if (r < 9 || r > 11) costs[r * cols + 20] = kInf;
  }
  CostGrid grid;
  grid.rows = rows;
  grid.cols = cols;
  grid.costs = costs;
  const CellPoint start = centre(10, 2), goal = centre(10, 38);
  GridPlanner planner(rows, cols);
  const PlanResult plan = planner.plan(costs, 10 * cols + 2, 10 * cols + 38);
  REQUIRE(plan.status == PlanStatus::Success);
  CHECK(plan.cost == doctest::Approx(72.0));
  for (OmplPlanner p : {OmplPlanner::RRTstar, OmplPlanner::BITstar, OmplPlanner::PRMstar, OmplPlanner::FMTstar}) {
    OmplSettings settings;
    settings.planner = p;
    settings.budget_seconds = 0.2;
    const OmplResult result = planOmpl(grid, start, goal, settings);
    CAPTURE(plannerName(p));
    if (result.status != OmplStatus::Success) continue;
    checkPath(grid, result, start, goal);
    CHECK(result.cost >= plan.cost * (1 - 1e-12));
  }
}

TEST_CASE("an unreachable goal is a status, not an exception, and the same seed repeats FMT* exactly") {
  Random rng(5);
  WallScene scene = wallScene(rng, 20, 30, 2);
  for (int r = 0; r < 20; ++r) scene.grid.costs[r * 30 + 15] = kInf;  // close the gap
  OmplSettings settings;
  settings.budget_seconds = 0.1;
  for (OmplPlanner planner : {OmplPlanner::RRTstar, OmplPlanner::BITstar, OmplPlanner::PRMstar}) {
    settings.planner = planner;
    const OmplResult result = planOmpl(scene.grid, scene.start, scene.goal, settings);
    CAPTURE(plannerName(planner));
    CHECK(result.status != OmplStatus::Success);
    CHECK(result.status != OmplStatus::InvalidInput);
    CHECK_FALSE(result.message.empty());
    if (result.status == OmplStatus::ApproximateOnly) checkPath(scene.grid, result, scene.start, scene.goal);
    if (result.status == OmplStatus::NoSolution) CHECK(result.cost == kInf);
  }
  // Start == goal needs no planning.
  const OmplResult here = planOmpl(scene.grid, scene.start, scene.start, settings);
  CHECK(here.status == OmplStatus::Success);
  CHECK(here.cost == 0.0);

  // FMT* stops on its sample count, not the clock: with one seed, one path.
  const WallScene open = wallScene(rng, 20, 30, 4);
  settings.planner = OmplPlanner::FMTstar;
  settings.budget_seconds = 5.0;
  settings.seed = 1234;
  const OmplResult first = planOmpl(open.grid, open.start, open.goal, settings);
  const OmplResult second = planOmpl(open.grid, open.start, open.goal, settings);
  REQUIRE(first.status == OmplStatus::Success);
  REQUIRE(second.path.size() == first.path.size());
  for (std::size_t i = 0; i < first.path.size(); ++i) {
    CHECK(second.path[i].u == first.path[i].u);
    CHECK(second.path[i].v == first.path[i].v);
  }
  CHECK(second.cost == first.cost);
}

TEST_CASE("bad input throws naming the problem, and planner names parse") {
  CostGrid grid;
  grid.rows = 4;
  grid.cols = 8;
  grid.costs.assign(32, 1.0);
  grid.costs[2 * 8 + 5] = kInf;
  const OmplSettings settings;
  CHECK_THROWS_WITH_AS(planOmpl(grid, {8.5, 1.5}, {1.5, 1.5}, settings),
                       doctest::Contains("start (u 8.5, v 1.5) is outside the grid: cell coordinates u in [0, 8), v in [0, 4)"),
                       InvalidArgument);
  CHECK_THROWS_WITH_AS(planOmpl(grid, {1.5, 1.5}, {1.5, -0.1}, settings), doctest::Contains("goal (u 1.5, v -0.1) is outside"),
                       InvalidArgument);
  CHECK_THROWS_WITH_AS(planOmpl(grid, {1.5, 1.5}, {NAN, 1.0}, settings), doctest::Contains("goal (u nan"), InvalidArgument);
  CHECK_THROWS_WITH_AS(planOmpl(grid, {1.5, 1.5}, {5.2, 2.9}, settings),
                       doctest::Contains("goal (u 5.2, v 2.9) lies in impassable cell 21 (row 2, col 5)"), InvalidArgument);
  OmplSettings no_time = settings;
  no_time.budget_seconds = 0.0;
  CHECK_THROWS_WITH_AS(planOmpl(grid, {1.5, 1.5}, {6.5, 1.5}, no_time), doctest::Contains("budget_seconds = 0 must be > 0"), InvalidArgument);
  no_time.budget_seconds = 1e308;  // now + budget would overflow the clock
  CHECK_THROWS_WITH_AS(planOmpl(grid, {1.5, 1.5}, {6.5, 1.5}, no_time),
                       doctest::Contains("budget_seconds = 1e+308 must be > 0 and at most 604800"), InvalidArgument);
  OmplSettings bad_range = settings;
  bad_range.range = -1.0;
  CHECK_THROWS_WITH_AS(planOmpl(grid, {1.5, 1.5}, {6.5, 1.5}, bad_range), doctest::Contains("range must be >= 0"), InvalidArgument);

  CostGrid empty;
  CHECK_THROWS_WITH_AS(planOmpl(empty, {0.5, 0.5}, {0.5, 0.5}, settings), doctest::Contains("empty cost grid (0 x 0 cells)"),
                       InvalidArgument);
  CostGrid short_costs = grid;
  short_costs.costs.pop_back();
  CHECK_THROWS_WITH_AS(planOmpl(short_costs, {0.5, 0.5}, {1.5, 0.5}, settings), doctest::Contains("4 x 8 cells holds 31 costs"),
                       InvalidArgument);
  CostGrid walls = grid;
  walls.costs.assign(32, kInf);
  CHECK_THROWS_WITH_AS(planOmpl(walls, {0.5, 0.5}, {1.5, 0.5}, settings),
                       doctest::Contains("every cell of the 4 x 8 cost grid is impassable"), InvalidArgument);
  CostGrid negative = grid;
  negative.costs[9] = -2.0;
  CHECK_THROWS_WITH_AS(planOmpl(negative, {0.5, 0.5}, {1.5, 0.5}, settings),
                       doctest::Contains("cell 9 (row 1, col 1) has cost -2; costs must be > 0"), InvalidArgument);
  CHECK_THROWS_AS(GridCostObjective(gridSpaceInformation(sharedGrid(1, 1, {1.0})), sharedGrid(1, 1, {kInf})), InvalidArgument);

  for (OmplPlanner planner : omplPlanners()) CHECK(parsePlannerName(plannerName(planner)) == planner);
  CHECK(parsePlannerName("BITstar") == OmplPlanner::BITstar);
  CHECK(parsePlannerName("FMT") == OmplPlanner::FMTstar);
  CHECK_THROWS_WITH_AS(parsePlannerName("astar"),
                       doctest::Contains("unknown OMPL planner \"astar\"; valid names: rrtstar, informedrrtstar, prmstar"),
                       InvalidArgument);
  CHECK_THROWS_WITH_AS(parsePlannerName("dijkstra"), doctest::Contains("fmtstar"), InvalidArgument);
}
