#include "planning_support.hpp"
#include "support.hpp"

#include <mmp/planning/grid_planner.hpp>
#include <mmp/planning/path.hpp>
#include <mmp/planning/bucket_queue.hpp>
#include <mmp/planning/radix_queue.hpp>

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
  // Every open list and both neighbourhoods: a full search queues improved cells its own way
  // (BucketQueue::pushIf), so each is checked against brute force.
  for (const OpenList open_list : {OpenList::Automatic, OpenList::Buckets, OpenList::Radix, OpenList::Heap}) {
    for (const int connectivity : {8, 4}) {
      CAPTURE(static_cast<int>(open_list));
      CAPTURE(connectivity);
      Random rng(5);
      GridPlanner::Params params;
      params.open_list = open_list;
      params.connectivity = connectivity == 8 ? Connectivity::Eight : Connectivity::Four;
      GridPlanner planner(40, 50, params);
      for (int trial = 0; trial < 10; ++trial) {
        const std::vector<double> costs = test::randomCosts(rng, 2000, 0.2, 5.0, 0.2);
        const int start = static_cast<int>(std::find_if(costs.begin(), costs.end(), [](double c) { return std::isfinite(c); }) -
                                           costs.begin());
        REQUIRE(planner.plan(costs, start, -1).status == PlanStatus::Success);
        const std::vector<double> reference = test::referenceDistances(40, 50, costs, start, connectivity);
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
  }
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

TEST_CASE("every open list pops a monotone sequence bucket by bucket (the heap in exact key order), never a dropped push") {
  Random rng(3);
  for (double range : {1e-3, 1.0, 1e3, 1e9}) {
    const double width = 0.5;
    // Buckets (its ring covers the range only up to 1e3 here), the radix heap, the binary heap.
    for (int kind = 0; kind < 3; ++kind) {
      if (kind == 0 && range > 1e3) continue;
      BucketQueue buckets;
      RadixQueue radix;
      HeapQueue heap;
      if (kind == 0) buckets.reset(0.0, width, range + 1.0);
      radix.reset(0.0, width);
      heap.reset();
      auto push = [&](double key, std::uint32_t cell) {
        kind == 0 ? buckets.push(key, cell) : kind == 1 ? radix.push(key, cell) : heap.push(key, cell);
      };
      // A dropped push (pushIf(false, ...)), at any finite key, below the base too: never popped.
      const std::uint32_t dropped = 1u << 30;
      auto drop = [&](double key) {
        kind == 0 ? buckets.pushIf(false, key, dropped) : kind == 1 ? radix.pushIf(false, key, dropped) : heap.pushIf(false, key, dropped);
      };
      auto pop = [&] { return kind == 0 ? buckets.pop() : kind == 1 ? radix.pop() : heap.pop(); };
      auto empty = [&] { return kind == 0 ? buckets.empty() : kind == 1 ? radix.empty() : heap.empty(); };
      std::vector<double> popped, keys;
      double last = 0.0;
      for (int round = 0; round < 2000; ++round) {
        for (int k = 0; k < 3; ++k) {
          // ties with the last pop, keys an ulp below it (a heuristic's rounding), keys up to `range` above
          const double key = k == 0 ? last : k == 1 && round % 7 == 0 ? std::nextafter(last, 0.0) : last + rng.uniform(0.0, range);
          keys.push_back(key);
          push(key, static_cast<std::uint32_t>(keys.size() - 1));
          drop(k == 0 ? -last - 1.0 : key);
        }
        const std::uint32_t cell = pop();
        REQUIRE(cell != dropped);
        last = std::max(last, keys[cell]);
        popped.push_back(last);
      }
      while (!empty()) {
        const std::uint32_t cell = pop();
        REQUIRE(cell != dropped);
        popped.push_back(keys[cell]);
      }
      CAPTURE(kind);
      CAPTURE(range);
      CHECK(popped.size() == 6000);
      // The heap pops keys in order; the bucket queues pop bucket numbers in order (keys inside a
      // bucket in any order).
      std::vector<double> order(popped);
      if (kind != 2) {
        for (double& key : order) key = std::floor(key / width);
      }
      CHECK(std::is_sorted(order.begin(), order.end()));
    }
  }
}

namespace {

// The path the planner's tie rule defines (grid_planner.hpp), from brute-force optimal costs: walking
// back from the goal, the first neighbour in the rule's direction order whose optimal cost plus the
// step equals the cell's.
std::vector<int> tieRulePath(int rows, int cols, const std::vector<double>& costs, const std::vector<double>& dist, int start,
                             int goal, int connectivity) {
  // up-left, up-right, down-left, down-right, then up, down, left, right (4 neighbours: the last four)
  const int row_step[8] = {-1, -1, 1, 1, -1, 1, 0, 0}, col_step[8] = {-1, 1, -1, 1, 0, 0, -1, 1};
  std::vector<int> path{goal};
  for (int v = goal; v != start;) {
    int predecessor = -1;
    for (int k = connectivity == 8 ? 0 : 4; k < 8 && predecessor < 0; ++k) {
      const int r = v / cols + row_step[k], c = v % cols + col_step[k];
      if (r < 0 || r >= rows || c < 0 || c >= cols) continue;
      const int u = r * cols + c;
      const double length = k < 4 ? std::sqrt(2.0) : 1.0;
      if (dist[u] < dist[v] && dist[u] + length * (0.5 * costs[u] + 0.5 * costs[v]) == dist[v]) predecessor = u;
    }
    REQUIRE(predecessor >= 0);
    path.push_back(v = predecessor);
  }
  std::reverse(path.begin(), path.end());
  return path;
}

}  // namespace

TEST_CASE("the tie rule: the same optimal path whatever the open list, the one the rule defines") {
  // Costs drawn from a few values (and uniform grids), so that equally cheap paths abound; narrow
  // ranges run all four open lists, wide ones the three that take them.
  Random rng(28);
  int compared = 0, with_ties = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const int rows = test::randomInt(rng, 1, 48), cols = test::randomInt(rng, 1, 48), n = rows * cols;
    const int connectivity = trial % 4 == 0 ? 4 : 8;
    const bool wide = trial % 3 == 0 && trial % 5 != 0;
    const std::vector<double> levels = trial % 5 == 0 ? std::vector<double>{1.0}
                                       : wide          ? std::vector<double>{1e-3, 1.0, 1e4}
                                                       : std::vector<double>{1.0, 2.0, 3.0};
    std::vector<double> costs(static_cast<std::size_t>(n));
    const double blocked = rng.uniform(0.0, 0.3);
    for (double& c : costs) {
      c = rng.uniform() < blocked ? std::numeric_limits<double>::infinity()
                                  : levels[static_cast<std::size_t>(test::randomInt(rng, 0, static_cast<int>(levels.size()) - 1))];
    }
    const int start = test::randomInt(rng, 0, n - 1), goal = test::randomInt(rng, 0, n - 1);
    costs[start] = levels.front();
    costs[goal] = levels.back();
    const std::vector<double> dist = test::referenceDistances(rows, cols, costs, start, connectivity);
    if (!std::isfinite(dist[goal])) continue;
    const std::vector<int> expected = tieRulePath(rows, cols, costs, dist, start, goal, connectivity);
    CAPTURE(trial);
    for (OpenList open_list : {OpenList::Automatic, OpenList::Buckets, OpenList::Radix, OpenList::Heap}) {
      GridPlanner::Params params;
      params.connectivity = connectivity == 8 ? Connectivity::Eight : Connectivity::Four;
      params.open_list = open_list;
      GridPlanner planner(rows, cols, params);
      const PlanResult r = planner.plan(costs, start, goal);
      CAPTURE(static_cast<int>(open_list));
      if (open_list == OpenList::Buckets && wide) {
        CHECK(r.status == PlanStatus::InvalidInput);  // a range of 10^7 needs more buckets than the ring has
        CHECK(r.message.find("too wide for the ring of buckets") != std::string::npos);
        continue;
      }
      REQUIRE(r.status == PlanStatus::Success);
      CHECK(r.cost == dist[goal]);  // bit for bit
      CHECK(r.path == expected);
      ++compared;
    }
    // Were there ties to break?  Some cell of the path had two optimal predecessors.
    for (std::size_t i = 1; i < expected.size(); ++i) {
      int optimal = 0;
      const int v = expected[i];
      for (int dr = -1; dr <= 1; ++dr) {
        for (int dc = -1; dc <= 1; ++dc) {
          const int r = v / cols + dr, c = v % cols + dc;
          if ((dr == 0 && dc == 0) || (connectivity == 4 && dr != 0 && dc != 0) || r < 0 || r >= rows || c < 0 || c >= cols) continue;
          const int u = r * cols + c;
          const double length = dr != 0 && dc != 0 ? std::sqrt(2.0) : 1.0;
          optimal += dist[u] < dist[v] && dist[u] + length * (0.5 * costs[u] + 0.5 * costs[v]) == dist[v];
        }
      }
      if (optimal > 1) {
        ++with_ties;
        break;
      }
    }
  }
  CHECK(compared > 600);
  CHECK(with_ties > 100);
}

TEST_CASE("A* stays exact when the cost range is too wide for a ring of buckets (the radix heap)") {
  Random rng(9);
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<double> costs = test::randomCosts(rng, 30 * 30, 1e-3, 1e3, 0.1);
    costs[0] = 1e-4;  // a range of 10^7: too many buckets for the ring, so the open list is a radix heap
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

namespace {

/// Costs from a vector, on demand, counting the calls per cell.
struct CountingCosts : CellCosts {
  std::vector<double> costs;
  double lower, upper;
  mutable std::vector<int> calls;

  CountingCosts(std::vector<double> c, double lo, double hi) : costs(std::move(c)), lower(lo), upper(hi), calls(costs.size(), 0) {}
  double lowerBound() const override { return lower; }
  double upperBound() const override { return upper; }
  double cost(int s) const override {
    ++calls[static_cast<std::size_t>(s)];
    return costs[static_cast<std::size_t>(s)];
  }
  int evaluated() const { return static_cast<int>(std::count_if(calls.begin(), calls.end(), [](int c) { return c > 0; })); }
};

}  // namespace

TEST_CASE("lazy costs give the same optimal costs as the vector, asking each cell at most once") {
  Random rng(77);
  const double inf = std::numeric_limits<double>::infinity();
  int compared = 0, full_searches = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const int rows = test::randomInt(rng, 1, 40), cols = test::randomInt(rng, 1, 40), n = rows * cols;
    GridPlanner::Params params;
    params.connectivity = trial % 3 == 0 ? Connectivity::Four : Connectivity::Eight;
    const bool wide = trial % 4 == 0;
    std::vector<double> costs = test::randomCosts(rng, n, wide ? 0.01 : 0.5, wide ? 100.0 : 3.0, rng.uniform(0.0, 0.4));
    const int start = test::randomInt(rng, 0, n - 1), goal = trial % 5 == 0 ? -1 : test::randomInt(rng, 0, n - 1);
    costs[start] = 1.0;
    if (goal >= 0) costs[goal] = 2.0;
    double lo = inf, hi = 0.0;
    for (double c : costs) {
      if (std::isfinite(c)) lo = std::min(lo, c), hi = std::max(hi, c);
    }
    // Exact bounds, loose bounds, and an unknown upper bound (one exact heap).
    const int kind = trial % 3;
    CountingCosts lazy(costs, kind == 1 ? 0.5 * lo : lo, kind == 0 ? hi : kind == 1 ? 2.0 * hi : inf);
    GridPlanner vector_planner(rows, cols, params), lazy_planner(rows, cols, params);
    const PlanResult expected = vector_planner.plan(costs, start, goal);
    const PlanResult r = lazy_planner.plan(lazy, start, goal);
    CAPTURE(trial);
    REQUIRE(r.status == expected.status);
    CHECK(*std::max_element(lazy.calls.begin(), lazy.calls.end()) <= 1);
    if (goal < 0) {
      for (int s = 0; s < n; ++s) {
        if (std::isfinite(vector_planner.distance(s))) {
          CHECK(lazy_planner.distance(s) == doctest::Approx(vector_planner.distance(s)).epsilon(1e-12));
        } else {
          CHECK(lazy_planner.distance(s) == inf);
        }
      }
      ++full_searches;
    } else if (r.status == PlanStatus::Success) {
      CHECK(r.cost == doctest::Approx(expected.cost).epsilon(1e-12));
      CHECK(r.path.front() == start);
      CHECK(r.path.back() == goal);
      CHECK_NOTHROW(validatePath(r.path, rows, cols, params.connectivity));
      CHECK(pathIntegral(r.path, cols, costs) == doctest::Approx(r.cost).epsilon(1e-12));
      ++compared;
    }
  }
  CHECK(compared > 80);
  CHECK(full_searches > 20);
}

TEST_CASE("a point-to-point search with a good lower bound evaluates only part of the grid") {
  Random rng(12);
  const std::vector<double> costs = test::randomCosts(rng, 100 * 100, 1.0, 1.5, 0.0);
  CountingCosts lazy(costs, 1.0, 1.5);
  GridPlanner planner(100, 100);
  const int start = 10 * 100 + 10, goal = 40 * 100 + 30;
  const PlanResult r = planner.plan(lazy, start, goal);
  REQUIRE(r.status == PlanStatus::Success);
  CHECK(r.cost == doctest::Approx(GridPlanner(100, 100).plan(costs, start, goal).cost).epsilon(1e-12));
  CHECK(*std::max_element(lazy.calls.begin(), lazy.calls.end()) == 1);
  CHECK(lazy.evaluated() < 100 * 100 / 4);
  // The same planner serves a vector search and a lazy one again: no state leaks between them.
  CountingCosts again(costs, 1.0, 1.5);
  CHECK(planner.plan(again, start, goal).cost == doctest::Approx(r.cost).epsilon(1e-12));
  CHECK(again.evaluated() == lazy.evaluated());
}

TEST_CASE("bad lazy costs and bounds are InvalidInput naming the cell and the bound") {
  GridPlanner planner(3, 4);
  auto expectInvalid = [&](std::vector<double> costs, double lower, double upper, int start, int goal, const std::string& text) {
    CountingCosts lazy(std::move(costs), lower, upper);
    const PlanResult r = planner.plan(lazy, start, goal);
    CHECK(r.status == PlanStatus::InvalidInput);
    CHECK_MESSAGE(r.message.find(text) != std::string::npos, r.message);
    CHECK(*std::max_element(lazy.calls.begin(), lazy.calls.end()) <= 1);
  };
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> bad(12, 1.0);
  bad[5] = std::nan("");
  expectInvalid(bad, 1.0, 1.0, 0, 11, "cell 5 (row 1, col 1) has cost nan");
  bad[5] = 0.0;
  expectInvalid(bad, 1.0, 1.0, 0, 11, "cell 5 (row 1, col 1) has cost 0");
  bad[5] = -2.0;
  expectInvalid(bad, 1.0, 1.0, 0, -1, "costs must be > 0");
  bad[5] = 0.5;
  expectInvalid(bad, 1.0, inf, 0, 11, "cell 5 (row 1, col 1) has cost 0.500000, below the lower bound 1");
  bad[5] = 3.0;
  expectInvalid(bad, 1.0, 2.0, 0, 11, "cell 5 (row 1, col 1) has cost 3.000000, above the upper bound 2");
  bad[5] = inf;  // impassable is within any bounds
  CountingCosts walled(bad, 1.0, 1.0);
  CHECK(planner.plan(walled, 0, 11).status == PlanStatus::Success);
  expectInvalid(bad, 1.0, 1.0, 5, 11, "start cell 5 (row 1, col 1) is impassable");
  expectInvalid(bad, 1.0, 1.0, 0, 5, "goal cell 5 (row 1, col 1) is impassable");
  expectInvalid(std::vector<double>(12, 1.0), 0.0, 1.0, 0, 11, "need 0 < lower bound");
  expectInvalid(std::vector<double>(12, 1.0), 2.0, 1.0, 0, 11, "upper bound >= lower bound");
  expectInvalid(std::vector<double>(12, 1.0), 1.0, 1.0, 0, 12, "goal 12 is off the grid");
}
