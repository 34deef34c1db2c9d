#include "planning_support.hpp"
#include "support.hpp"

#include <mmp/core/error.hpp>
#include <mmp/core/objective.hpp>
#include <mmp/planning/loss.hpp>
#include <mmp/planning/path.hpp>
#include <mmp/planning/path_example.hpp>

#include <doctest/doctest.h>

#include <tuple>

using namespace mmp;

namespace {

// A demonstration: the optimal path between two corners under random positive costs.
std::vector<int> somePath(Random& rng, int rows, int cols) {
  GridPlanner planner(rows, cols);
  return planner.plan(test::randomCosts(rng, rows * cols, 0.5, 2.0, 0.0), 0, rows * cols - 1).path;
}

// Length-weighted parameters with the given moves, loss and q (the others at their defaults).
PathExample::Params exampleParams(Connectivity connectivity, LossParams loss, int q) {
  PathExample::Params params;
  params.connectivity = connectivity;
  params.loss = loss;
  params.q = q;
  return params;
}

Eigen::VectorXd positiveWeights(Random& rng, int d, double bias) {
  Eigen::VectorXd w = test::randomVector(rng, d).cwiseAbs();
  w[0] = bias;
  return w;
}

}  // namespace

TEST_CASE("the distance transform equals brute force and the loss is zero on the path, bounded by scale") {
  Random rng(1);
  for (int trial = 0; trial < 20; ++trial) {
    const int rows = 5 + trial, cols = 30 - trial;
    const std::vector<int> path = somePath(rng, rows, cols);
    const std::vector<double> d = distanceToPath(rows, cols, path);
    for (int s = 0; s < rows * cols; ++s) {
      double best = 1e300;
      for (int p : path) best = std::min(best, std::hypot(s / cols - p / cols, s % cols - p % cols));
      CHECK(d[s] == doctest::Approx(best).epsilon(1e-9));
    }
    for (LossShape shape : {LossShape::Linear, LossShape::Step, LossShape::Gaussian}) {
      const std::vector<double> loss = lossMap(rows, cols, path, {shape, 2.5, 3.0});
      for (int p : path) CHECK(loss[p] == 0.0);
      for (double l : loss) CHECK((l >= 0.0 && l <= 3.0));
    }
  }
  CHECK_THROWS_AS(lossMap(3, 3, {0}, {LossShape::Linear, 0.0, 1.0}), InvalidArgument);
  CHECK_THROWS_WITH_AS(parseLossShape("hinge"), doctest::Contains("valid: linear, step, gaussian"), InvalidArgument);
}

TEST_CASE("polylines rasterise into connected paths through their points") {
  Random rng(2);
  for (Connectivity connectivity : {Connectivity::Eight, Connectivity::Four}) {
    for (int trial = 0; trial < 50; ++trial) {
      std::vector<std::pair<int, int>> points;
      for (int k = 0; k < 4; ++k) {
        const int x = test::randomInt(rng, 0, 39), y = test::randomInt(rng, 0, 39);
        points.push_back({x, y});
      }
      const std::vector<int> path = rasterizePolyline(points, 40, connectivity);
      std::vector<int> no_repeats;
      for (int s : path) {
        if (no_repeats.empty() || no_repeats.back() != s) no_repeats.push_back(s);
      }
      CHECK_NOTHROW(validatePath(no_repeats, 40, 40, connectivity));
      for (const auto& [r, c] : points) CHECK(std::find(path.begin(), path.end(), r * 40 + c) != path.end());
    }
  }
}

TEST_CASE("path oracle: plain prediction is A*, the loss is recomputed, and y* never scores worse than y_i") {
  Random rng(3);
  for (int trial = 0; trial < 30; ++trial) {
    auto map = std::make_shared<FeatureMap>(test::smoothFeatureMap(rng, 20, 25, 4));
    const PathExample example(map, somePath(rng, 20, 25), exampleParams(Connectivity::Eight, {LossShape::Linear, 3.0, 1.0}, 1));
    const Eigen::VectorXd w = positiveWeights(rng, 4, 1.5);  // bias 1.5 > loss_max 1: costs stay positive
    OracleResult r;
    example.solve(w, 0.0, r);
    std::vector<double> costs;
    map->costs(w, costs);
    GridPlanner planner(20, 25);
    const PlanResult plain = planner.plan(costs, example.start(), example.goal());
    CHECK(-r.psi_output.dot(w) == doctest::Approx(plain.cost).epsilon(1e-10));

    example.solve(w, 1.0, r);
    // The loss is the trapezoid integral of the brute-force distance loss along the returned path.
    std::vector<double> loss(20 * 25);
    for (int s = 0; s < 20 * 25; ++s) {
      double best = 1e300;
      for (int p : example.demonstration()) best = std::min(best, std::hypot(s / 25 - p / 25, s % 25 - p % 25));
      loss[s] = std::min(1.0, best / 3.0);
    }
    CHECK(r.loss == doctest::Approx(pathIntegral(r.output, 25, loss)).epsilon(1e-9));
    // Under the augmented costs (cost - loss) the oracle's path is no worse than the demonstration.
    const double augmented_output = -r.psi_output.dot(w) - r.loss;
    const double augmented_demo = -r.psi_target.dot(w);
    CHECK(augmented_output <= augmented_demo + 1e-9);
    CHECK(hinge(r, w) >= 0.0);
    CHECK(r.beta == doctest::Approx(1.0 / pathLength(example.demonstration(), 25)));
  }
}

TEST_CASE("the oracle's costs are the same whether its thread has just scored the same map and w or not") {
  Random rng(11);
  auto map = std::make_shared<FeatureMap>(test::smoothFeatureMap(rng, 20, 25, 4));
  auto other = std::make_shared<FeatureMap>(test::smoothFeatureMap(rng, 20, 25, 4));
  const auto params = exampleParams(Connectivity::Eight, {LossShape::Linear, 3.0, 1.0}, 1);
  const PathExample a(map, somePath(rng, 20, 25), params), b(map, somePath(rng, 20, 25), params);
  const PathExample c(other, somePath(rng, 20, 25), params);
  const Eigen::VectorXd w1 = positiveWeights(rng, 4, 1.5), w2 = positiveWeights(rng, 4, 1.5);
  // What the costs must be: w . f - s l from the map's own cost pass.
  auto expected = [](const PathExample& e, const Eigen::VectorXd& w, double s) {
    std::vector<double> costs;
    e.map().costs(w, costs);
    for (std::size_t i = 0; i < costs.size(); ++i) costs[i] -= s * e.loss()[i];
    return costs;
  };
  std::vector<double> costs;
  // Each call after the first scores a map and w this thread has just scored, or not.
  const std::vector<std::tuple<const PathExample*, const Eigen::VectorXd*, double>> calls = {
      {&a, &w1, 1.0}, {&a, &w1, 0.0}, {&b, &w1, 1.0}, {&c, &w1, 1.0}, {&a, &w1, 1.0}, {&a, &w2, 1.0}, {&b, &w1, 0.0}};
  for (const auto& [example, w, s] : calls) {
    example->augmentedCosts(*w, s, costs);
    CHECK(costs == expected(*example, *w, s));
  }
  // A map freed and another made in its place (often at the same address) is scored anew.
  for (int trial = 0; trial < 5; ++trial) {
    auto fresh = std::make_shared<FeatureMap>(test::smoothFeatureMap(rng, 20, 25, 4));
    const PathExample e(fresh, somePath(rng, 20, 25), params);
    e.augmentedCosts(w1, 1.0, costs);
    CHECK(costs == expected(e, w1, 1.0));
  }
}

TEST_CASE("per-cell loss weights scale the loss map and are checked") {
  Random rng(5);
  auto map = std::make_shared<FeatureMap>(test::smoothFeatureMap(rng, 20, 25, 4));
  const std::vector<int> demo = somePath(rng, 20, 25);
  PathExample::Params params = exampleParams(Connectivity::Eight, {LossShape::Linear, 3.0, 1.0}, 1);
  const PathExample plain(map, demo, params);
  auto weights = std::make_shared<std::vector<double>>(20 * 25);
  for (double& x : *weights) x = rng.uniform();
  params.loss_weights = weights;
  const PathExample weighted(map, demo, params);
  for (int s = 0; s < 20 * 25; ++s) CHECK(weighted.loss()[s] == doctest::Approx(plain.loss()[s] * (*weights)[s]));
  // All-zero weights: no loss anywhere, so loss-augmented planning is plain planning.
  params.loss_weights = std::make_shared<std::vector<double>>(20 * 25, 0.0);
  const PathExample silent(map, demo, params);
  const Eigen::VectorXd w = positiveWeights(rng, 4, 1.5);
  OracleResult augmented;
  silent.solve(w, 1.0, augmented);
  CHECK(augmented.loss == 0.0);
  CHECK(augmented.output == silent.plan(w).path);

  params.loss_weights = std::make_shared<std::vector<double>>(20 * 25, 1.5);
  CHECK_THROWS_WITH_AS(PathExample(map, demo, params), doctest::Contains("outside [0, 1]"), InvalidArgument);
  params.loss_weights = std::make_shared<std::vector<double>>(7, 0.5);
  CHECK_THROWS_WITH_AS(PathExample(map, demo, params), doctest::Contains("7 loss weights for 500 cells"), InvalidArgument);
}

TEST_CASE("exponential costs: the oracle plans on exp(w.f - s l) for any sign of w, psi stays -F(y)") {
  Random rng(5);
  for (int trial = 0; trial < 20; ++trial) {
    auto map = std::make_shared<FeatureMap>(test::smoothFeatureMap(rng, 20, 25, 4));
    PathExample::Params params = exampleParams(Connectivity::Eight, {LossShape::Linear, 3.0, 1.0}, 1);
    params.cost_form = CostForm::Exponential;
    const PathExample example(map, somePath(rng, 20, 25), params);
    const Eigen::VectorXd w = 2.0 * test::randomVector(rng, 4);  // mixed signs: linear costs would go negative
    std::vector<double> linear, exponential;
    map->costs(w, linear);
    map->costs(w, exponential, CostForm::Exponential);
    for (std::size_t s = 0; s < linear.size(); ++s) REQUIRE(exponential[s] == doctest::Approx(std::exp(linear[s])));

    GridPlanner planner(20, 25);
    const PlanResult plain = planner.plan(exponential, example.start(), example.goal());
    CHECK(example.plan(w).path == plain.path);
    std::vector<double> augmented(linear.size());
    for (std::size_t s = 0; s < linear.size(); ++s) augmented[s] = std::exp(linear[s] - 0.7 * example.loss()[s]);
    const PlanResult best = planner.plan(augmented, example.start(), example.goal());
    OracleResult r;
    example.solve(w, 0.7, r);
    CHECK(pathIntegral(r.output, 25, augmented) == doctest::Approx(best.cost).epsilon(1e-10));
    Eigen::VectorXd features;
    pathFeatures(r.output, *map, features);
    CHECK((r.psi_output.toDense() + features).norm() <= 1e-12);
    CHECK(r.loss == doctest::Approx(example.pathLoss(r.output)));
  }
}

TEST_CASE("planning on log-costs w.f is the exponential oracle's search, and blocked cells stay impassable") {
  Random rng(8);
  for (int trial = 0; trial < 10; ++trial) {
    auto map = std::make_shared<FeatureMap>(test::smoothFeatureMap(rng, 18, 22, 3));
    PathExample::Params params;
    params.loss = {LossShape::Linear, 3.0, 1.0};
    params.cost_form = trial % 2 == 0 ? CostForm::Exponential : CostForm::Linear;  // not used by planLogCosts
    const PathExample example(map, somePath(rng, 18, 22), params);
    const Eigen::VectorXd w = 2.0 * test::randomVector(rng, 3);
    std::vector<double> log_costs;
    map->costs(w, log_costs);
    PathExample::Params exponential = params;
    exponential.cost_form = CostForm::Exponential;
    const PathExample reference(map, example.demonstration(), exponential);
    OracleResult r;
    reference.solve(w, 1.0, r);
    CHECK(example.planLogCosts(log_costs, 1.0).path == r.output);
    CHECK(example.planLogCosts(log_costs, 0.0).path == reference.plan(w).path);
    CHECK(example.beta() == doctest::Approx(r.beta));
  }
  // A blocked cell is impassable whatever its log-cost; a wrong size is refused.
  auto map = std::make_shared<FeatureMap>(FeatureMap(3, 3, 1, std::vector<float>(9, 1.0f)));
  std::vector<std::uint8_t> blocked(9, 0);
  blocked[4] = 1;
  map->setBlocked(blocked);
  const PathExample example(map, {0, 1, 2}, PathExample::Params{});
  const PlanResult plan = example.planLogCosts(std::vector<double>(9, 0.0), 0.0);
  CHECK(std::find(plan.path.begin(), plan.path.end(), 4) == plan.path.end());
  CHECK(plan.path == std::vector<int>{0, 1, 2});
  CHECK_THROWS_WITH_AS(example.planLogCosts(std::vector<double>(8, 0.0), 0.0), doctest::Contains("8 log-costs for 9 cells"),
                       InvalidArgument);
}

TEST_CASE("the path objective's subgradient matches a finite difference at generic w") {
  Random rng(4);
  std::vector<std::unique_ptr<PathExample>> examples;
  for (int i = 0; i < 4; ++i) {
    auto map = std::make_shared<FeatureMap>(test::smoothFeatureMap(rng, 15, 15, 3));
    examples.push_back(std::make_unique<PathExample>(map, somePath(rng, 15, 15),
                                                     exampleParams(Connectivity::Eight, {}, 1)));
  }
  for (int q : {1, 2}) {
    const Objective objective(test::listOf(examples), {0.05, q});
    for (int trial = 0; trial < 10; ++trial) {
      const Eigen::VectorXd w = positiveWeights(rng, 3, 2.0 + trial * 0.1);
      Eigen::VectorXd g;
      objective.evaluate(w, &g);
      Eigen::VectorXd fd(3);
      for (int k = 0; k < 3; ++k) {
        Eigen::VectorXd plus = w, minus = w;
        plus[k] += 1e-7;
        minus[k] -= 1e-7;
        fd[k] = (objective.evaluate(plus).value - objective.evaluate(minus).value) / 2e-7;
      }
      CAPTURE(q);
      CHECK((g - fd).norm() <= 1e-5 * std::max(1.0, g.norm()));
    }
  }
}

TEST_CASE("bad path input gives the documented errors") {
  Random rng(5);
  auto map = std::make_shared<FeatureMap>(test::smoothFeatureMap(rng, 6, 6, 2));
  const PathExample::Params params;
  CHECK_THROWS_WITH_AS(PathExample(map, {0, 1, 9}, params),
                       doctest::Contains("the step to path index 2, cell (row 1, col 3) from path index 1, cell (row 0, col 1)"),
                       InvalidArgument);
  CHECK_THROWS_WITH_AS(PathExample(map, {0, 1, 36}, params), doctest::Contains("index 2 holds cell 36, outside"),
                       InvalidArgument);
  CHECK_THROWS_AS(PathExample(map, {}, params), InvalidArgument);
  auto blocked = std::make_shared<FeatureMap>(*map);
  std::vector<std::uint8_t> mask(36, 0);
  mask[7] = 1;
  blocked->setBlocked(mask);
  CHECK_THROWS_WITH_AS(PathExample(blocked, {0, 7, 14}, params), doctest::Contains("path index 1, cell (row 1, col 1) is impassable"),
                       InvalidArgument);
  CHECK_THROWS_WITH_AS(PathExample(map, {0, 1, 2}, exampleParams(Connectivity::Four, {}, 3)), doctest::Contains("q must be 1 or 2"),
                       InvalidArgument);

  const PathExample example(map, {0, 7, 14, 21}, params);
  OracleResult r;
  // Costs w.f - l <= 0 somewhere: refused with the cell named, never clamped.
  CHECK_THROWS_WITH_AS(example.solve(Eigen::Vector2d(0.5, 0.0), 1.0, r), doctest::Contains("costs must be > 0"),
                       InvalidArgument);
  CHECK_THROWS_WITH_AS(example.solve(Eigen::Vector2d(0.5, 0.0), 1.0, r), doctest::Contains("positiveCostProjection"),
                       InvalidArgument);
  CHECK_THROWS_WITH_AS(example.solve(Eigen::Vector2d(std::nan(""), 1.0), 0.0, r), doctest::Contains("has cost nan"),
                       InvalidArgument);
  CHECK_THROWS_AS(example.solve(Eigen::Vector3d(1.0, 1.0, 1.0), 0.0, r), InvalidArgument);
  // The positive-cost projection puts the bias weight above loss_max + min_cost.
  const ProjectionPtr set = positiveCostProjection(2, 0, 1.0, 0.1);
  Eigen::VectorXd w(2);
  w << 0.5, -3.0;
  set->project(w);
  CHECK(w[0] == doctest::Approx(1.1));
  CHECK(w[1] == 0.0);
  CHECK_NOTHROW(example.solve(w, 1.0, r));
}
