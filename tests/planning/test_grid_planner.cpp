#include "planning_support.hpp"
#include "support.hpp"

#include <mmp/planning/grid_planner.hpp>
#include <mmp/planning/path.hpp>
#include <mmp/planning/bucket_queue.hpp>

#include <doctest/doctest.h>

#include <algorithm>

using namespace mmp;

TEST_CASE("A* cost equals a brute-force Dijkstra on hundreds of random grids (8 and 4 neighbours)") {
  Random rng(2024);
  int successes = 0, no_paths = 0, same_cell = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const int rows = test::randomInt(rng, 1, 64), cols = test::randomInt(rng, 1, 64), n = rows * cols;
    const bool eight = trial % 4 != 0;
    std::vector<double> costs = test::randomCosts(rng, n, trial % 3 == 0 ? 0.01 : 0.5, trial % 3 == 0 ? 100.0 : 3.0, rng.uniform(0.0, 0.45));
    const int start = test::randomInt(rng, 0, n - 1), goal = trial % 10 == 0 ? start : test::randomInt(rng, 0, n - 1);
    costs[start] = 1.0;
    costs[goal] = 2.0;
    GridPlanner::Params params;
    params.connectivity = eight ? Connectivity::Eight : Connectivity::Four;
    GridPlanner planner(rows, cols, params);
    const PlanResult result = planner.plan(costs, start, goal);
    const double reference = test::referenceDistances(rows, cols, costs, start, eight ? 8 : 4)[goal];
    CAPTURE(trial);
    if (!std::isfinite(reference)) {
      CHECK(result.status == PlanStatus::NoPath);
      CHECK(result.path.empty());
      ++no_paths;
      continue;
    }
    REQUIRE(result.status == PlanStatus::Success);
    CHECK(result.cost == doctest::Approx(reference).epsilon(1e-12));
    CHECK(result.path.front() == start);
    CHECK(result.path.back() == goal);
    CHECK_NOTHROW(validatePath(result.path, rows, cols, params.connectivity));
    CHECK(pathIntegral(result.path, cols, costs) == doctest::Approx(result.cost).epsilon(1e-12));
    same_cell += start == goal;
    ++successes;
  }
  // The random draw covers every case the test claims to cover.
  CHECK(successes > 200);
  CHECK(no_paths > 10);
  CHECK(same_cell > 10);
}

TEST_CASE("a full search gives every cell's optimal cost, and searches reuse state correctly") {
  Random rng(5);
  GridPlanner planner(40, 50);
  for (int trial = 0; trial < 10; ++trial) {
    const std::vector<double> costs = test::randomCosts(rng, 2000, 0.2, 5.0, 0.2);
    const int start = static_cast<int>(std::find_if(costs.begin(), costs.end(), [](double c) { return std::isfinite(c); }) -
                                       costs.begin());
    REQUIRE(planner.plan(costs, start, -1).status == PlanStatus::Success);
    const std::vector<double> reference = test::referenceDistances(40, 50, costs, start);
    for (int s = 0; s < 2000; ++s) {
      if (std::isfinite(reference[s])) {
        CHECK(planner.distance(s) == doctest::Approx(reference[s]).epsilon(1e-12));
      } else {
        CHECK(planner.distance(s) == std::numeric_limits<double>::infinity());
      }
    }
  }
  CHECK(planner.stateBytes() >= 12u * 2000u);
}

TEST_CASE("bad planner input is a status with a message naming the cell, never an exception") {
  GridPlanner planner(3, 4);
  std::vector<double> costs(12, 1.0);
  auto expectInvalid = [&](const std::vector<double>& c, int start, int goal, const std::string& text) {
    const PlanResult r = planner.plan(c, start, goal);
    CHECK(r.status == PlanStatus::InvalidInput);
    CHECK_MESSAGE(r.message.find(text) != std::string::npos, r.message);
  };
  expectInvalid(costs, -1, 3, "start -1 is off the grid");
  expectInvalid(costs, 0, 12, "goal 12 is off the grid");
  std::vector<double> bad = costs;
  bad[5] = std::nan("");
  expectInvalid(bad, 0, 3, "cell 5 (row 1, col 1) has cost nan");
  bad[5] = 0.0;
  expectInvalid(bad, 0, 3, "cell 5 (row 1, col 1) has cost 0");
  bad[5] = -2.0;
  expectInvalid(bad, 0, 3, "costs must be > 0");
  bad = costs;
  bad[0] = std::numeric_limits<double>::infinity();
  expectInvalid(bad, 0, 3, "start cell 0 (row 0, col 0) is impassable");
  expectInvalid(bad, 3, 0, "goal cell 0 (row 0, col 0) is impassable");
  expectInvalid(std::vector<double>(5, 1.0), 0, 3, "cost grid has 5 cells");
  // A wall of impassable cells: NoPath, with a message.
  bad = costs;
  for (int r = 0; r < 3; ++r) bad[r * 4 + 2] = std::numeric_limits<double>::infinity();
  const PlanResult walled = planner.plan(bad, 0, 3);
  CHECK(walled.status == PlanStatus::NoPath);
  CHECK(walled.message.find("not reachable") != std::string::npos);
}

TEST_CASE("the budget callback cancels a search") {
  GridPlanner::Params params;
  params.check_every = 100;
  long last_seen = 0;
  params.keep_going = [&](long expansions) {
    last_seen = expansions;
    return expansions < 300;
  };
  GridPlanner planner(100, 100, params);
  const PlanResult r = planner.plan(std::vector<double>(10000, 1.0), 0, -1);  // a full search
  CHECK(r.status == PlanStatus::Cancelled);
  CHECK(last_seen == 300);
  CHECK(r.expansions == 300);
}

TEST_CASE("the bucket queue pops a monotone sequence in exact key order (ordered mode)") {
  Random rng(3);
  for (double width : {0.01, 1.0, 7.0}) {
    BucketQueue<true> queue;
    queue.reset(0.0, width, 10.0);
    std::vector<double> popped, keys;
    double last = 0.0;
    for (int round = 0; round < 2000; ++round) {
      for (int k = 0; k < 3; ++k) {
        keys.push_back(last + (k == 0 ? 0.0 : rng.uniform(0.0, 10.0)));
        queue.push(keys.back(), static_cast<std::uint32_t>(keys.size() - 1));
      }
      const std::uint32_t cell = queue.pop();
      const double key = keys[cell];
      CHECK(key >= last);
      last = key;
      popped.push_back(key);
    }
    while (!queue.empty()) popped.push_back(keys[queue.pop()]);
    CHECK(std::is_sorted(popped.begin(), popped.end()));
    CHECK(popped.size() == 6000);
  }
}

TEST_CASE("A* stays exact when the cost range forces wide buckets") {
  Random rng(9);
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<double> costs = test::randomCosts(rng, 30 * 30, 1e-3, 1e3, 0.1);
    costs[0] = 1e-4;  // a range of 10^7: wider buckets than the smallest step
    costs[899] = 1e3;
    GridPlanner planner(30, 30);
    const PlanResult r = planner.plan(costs, 0, 899);
    const std::vector<double> reference = test::referenceDistances(30, 30, costs, 0);
    if (!std::isfinite(reference[899])) continue;
    CHECK(r.cost == doctest::Approx(reference[899]).epsilon(1e-12));
    planner.plan(costs, 0, -1);
    for (int s = 0; s < 900; ++s) {
      if (std::isfinite(reference[s])) CHECK(planner.distance(s) == doctest::Approx(reference[s]).epsilon(1e-12));
    }
  }
}
