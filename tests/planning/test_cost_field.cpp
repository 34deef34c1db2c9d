#include "planning_support.hpp"
#include <mmp/core/numbers.hpp>
#include "support.hpp"

#include <mmp/core/error.hpp>
#include <mmp/planning/cost_field.hpp>
#include <mmp/planning/grid_planner.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <set>

using namespace mmp;

namespace {


CostGrid gridOf(int rows, int cols, std::vector<double> costs) {
  CostGrid grid;
  grid.rows = rows;
  grid.cols = cols;
  grid.costs = std::move(costs);
  return grid;
}

// The cells (by floor, the half-open convention) of points sampled every 1/200 cell along a -> b.
std::set<int> sampledCells(int rows, int cols, CellPoint a, CellPoint b) {
  const double length = std::hypot(b.u - a.u, b.v - a.v);
  const int n = static_cast<int>(std::ceil(length * 200.0)) + 1;
  std::set<int> cells;
  for (int k = 0; k <= n; ++k) {
    const double t = static_cast<double>(k) / n;
    const double u = a.u + t * (b.u - a.u), v = a.v + t * (b.v - a.v);
    const int c = static_cast<int>(std::floor(u)), r = static_cast<int>(std::floor(v));
    cells.insert(r >= 0 && r < rows && c >= 0 && c < cols ? r * cols + c : -1);
  }
  return cells;
}

// Distance from the closed square of cell (r, c) to the segment a -> b, sampled finely enough for a
// loose upper-bound check.
double squareDistance(int r, int c, CellPoint a, CellPoint b) {
  double best = kInf;
  for (int k = 0; k <= 4000; ++k) {
    const double t = k / 4000.0, u = a.u + t * (b.u - a.u), v = a.v + t * (b.v - a.v);
    const double du = std::max({c - u, 0.0, u - (c + 1)}), dv = std::max({r - v, 0.0, v - (r + 1)});
    best = std::min(best, std::hypot(du, dv));
  }
  return best;
}

}  // namespace

TEST_CASE("the interpolated cost is the cell's cost at its centre and a passable average in between") {
  Random rng(11);
  for (int trial = 0; trial < 50; ++trial) {
    const int rows = test::randomInt(rng, 1, 12), cols = test::randomInt(rng, 1, 12);
    const CostGrid grid = gridOf(rows, cols, test::randomCosts(rng, rows * cols, 0.1, 20.0, 0.3));
    double lo = kInf, hi = 0.0;
    for (double c : grid.costs) {
      if (c < kInf) lo = std::min(lo, c), hi = std::max(hi, c);
    }
    for (int s = 0; s < rows * cols; ++s) {
      const double at = interpolatedCost(grid, {s % cols + 0.5, s / cols + 0.5});
      if (grid.blocked(s)) continue;
      CHECK(at == grid.costs[s]);  // exactly
    }
    for (int k = 0; k < 200; ++k) {
      // Anywhere in the closed extent and a little beyond (clamped).
      const CellPoint p{rng.uniform(-0.5, cols + 0.5), rng.uniform(-0.5, rows + 0.5)};
      const double c = interpolatedCost(grid, p);
      const int r0 = std::clamp(static_cast<int>(std::floor(p.v)), 0, rows - 1), c0 = std::clamp(static_cast<int>(std::floor(p.u)), 0, cols - 1);
      if (!grid.blocked(r0 * cols + c0)) {
        CHECK(c < kInf);  // a point of a passable cell always has a passable centre with weight >= 1/4
      }
      if (c < kInf) {
        CHECK(c >= lo * (1 - 1e-12));
        CHECK(c <= hi * (1 + 1e-12));
      }
    }
  }
  // Impassable centres are left out and the remaining weights renormalised.
  const CostGrid two = gridOf(1, 2, {3.0, kInf});
  CHECK(interpolatedCost(two, {0.9, 0.5}) == doctest::Approx(3.0));
  CHECK(interpolatedCost(two, {1.5, 0.5}) == kInf);
  const CostGrid pair = gridOf(1, 2, {2.0, 4.0});
  CHECK(interpolatedCost(pair, {1.0, 0.5}) == doctest::Approx(3.0));
  CHECK(interpolatedCost(pair, {1.25, 0.2}) == doctest::Approx(3.5));
  CHECK(interpolatedCost(pair, {-3.0, 0.5}) == 2.0);  // clamped at the border
  CHECK(interpolatedCost(pair, {NAN, 0.5}) == kInf);
}

TEST_CASE("the polyline cost of A*'s cell-centre path equals A*'s cost, on hundreds of random grids") {
  Random rng(2025);
  int checked = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const int rows = test::randomInt(rng, 1, 40), cols = test::randomInt(rng, 1, 40), n = rows * cols;
    std::vector<double> costs = test::randomCosts(rng, n, trial % 2 ? 0.05 : 1.0, trial % 2 ? 50.0 : 3.0, rng.uniform(0.0, 0.35));
    const int start = test::randomInt(rng, 0, n - 1), goal = test::randomInt(rng, 0, n - 1);
    costs[start] = 1.0;
    costs[goal] = 2.0;
    const CostGrid grid = gridOf(rows, cols, costs);
    GridPlanner planner(rows, cols);
    const PlanResult plan = planner.plan(grid.costs, start, goal);
    if (plan.status != PlanStatus::Success) continue;
    CAPTURE(trial);
    CHECK(polylineCost(grid, cellCentres(plan.path, cols)) == doctest::Approx(plan.cost).epsilon(1e-12));
    ++checked;
  }
  CHECK(checked > 150);
}

TEST_CASE("a straight segment may take any angle, so it can cost less than the 8-neighbour optimum") {
  // Uniform cost 1: the knight's move (0, 0) -> (1, 2) costs sqrt 5 as a segment, 1 + sqrt 2 on the grid.
  const CostGrid grid = gridOf(2, 3, std::vector<double>(6, 1.0));
  GridPlanner planner(2, 3);
  const PlanResult plan = planner.plan(grid.costs, 0, 5);
  REQUIRE(plan.status == PlanStatus::Success);
  CHECK(plan.cost == doctest::Approx(1.0 + std::sqrt(2.0)));
  CHECK(segmentCost(grid, {0.5, 0.5}, {2.5, 1.5}) == doctest::Approx(std::sqrt(5.0)));
  CHECK(smallestCost(grid) * std::sqrt(5.0) <= segmentCost(grid, {0.5, 0.5}, {2.5, 1.5}) * (1 + 1e-12));
}

TEST_CASE("the cells on a segment contain every cell a dense sampling of it visits, and only cells it touches") {
  Random rng(77);
  for (int trial = 0; trial < 400; ++trial) {
    const int rows = test::randomInt(rng, 1, 20), cols = test::randomInt(rng, 1, 20);
    CellPoint a{rng.uniform(0.0, cols), rng.uniform(0.0, rows)}, b{rng.uniform(0.0, cols), rng.uniform(0.0, rows)};
    if (trial % 4 == 0) {  // integer and half-integer coordinates: edges, corners, centres
      a = {std::round(2 * a.u) / 2, std::round(2 * a.v) / 2};
      b = {std::round(2 * b.u) / 2, std::round(2 * b.v) / 2};
    }
    if (trial % 10 == 1) b.u = a.u;  // vertical
    CAPTURE(trial);
    CAPTURE(a.u);
    CAPTURE(a.v);
    CAPTURE(b.u);
    CAPTURE(b.v);
    const std::vector<int> cells = cellsOnSegment(rows, cols, a, b);
    for (int cell : sampledCells(rows, cols, a, b)) CHECK(std::find(cells.begin(), cells.end(), cell) != cells.end());
    for (std::size_t i = 0; i < cells.size(); ++i) {
      if (cells[i] < 0) continue;
      CHECK(squareDistance(cells[i] / cols, cells[i] % cols, a, b) < 1e-3);
      CHECK(std::count(cells.begin(), cells.end(), cells[i]) == 1);
    }
  }
  // Through a corner, both cells beside it count: a diagonal between two blocked cells is blocked.
  std::vector<int> corner = cellsOnSegment(2, 2, {0.5, 0.5}, {1.5, 1.5});
  std::sort(corner.begin(), corner.end());
  CHECK(corner == std::vector<int>{0, 1, 2, 3});
  const CostGrid squeeze = gridOf(2, 2, {1.0, kInf, kInf, 1.0});
  double blocked_at = -1.0;
  CHECK_FALSE(segmentPassable(squeeze, {0.5, 0.5}, {1.5, 1.5}, &blocked_at));
  CHECK(blocked_at == doctest::Approx(0.5));
  GridPlanner planner(2, 2);
  CHECK(planner.plan(squeeze.costs, 0, 3).status == PlanStatus::Success);  // the grid planner squeezes through
  CHECK(segmentPassable(gridOf(2, 2, std::vector<double>(4, 1.0)), {0.5, 0.5}, {1.5, 1.5}));
  CHECK_FALSE(segmentPassable(squeeze, {0.5, 0.5}, {2.5, 0.5}));  // leaves the grid
  CHECK_THROWS_WITH_AS(cellsOnSegment(2, 2, {0.5, 0.5}, {3.5, 0.5}), doctest::Contains("not within u in [0, 2]"), InvalidArgument);
}
