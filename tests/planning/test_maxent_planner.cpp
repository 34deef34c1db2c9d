#include "planning_support.hpp"
#include <mmp/core/numbers.hpp>
#include "support.hpp"

#include <mmp/core/error.hpp>
#include <mmp/planning/demonstrations.hpp>
#include <mmp/planning/maxent_planner.hpp>
#include <mmp/planning/path.hpp>
#include <mmp/planning/path_example.hpp>

#include <doctest/doctest.h>

#include <functional>

using namespace mmp;

namespace {


double stepWeight(int a, int b, int cols, const std::vector<double>& costs) {
  const bool diagonal = a / cols != b / cols && a % cols != b % cols;
  return std::exp(-(diagonal ? std::sqrt(2.0) : 1.0) * (costs[a] + costs[b]) / 2.0);
}

std::vector<int> neighbours(int s, int rows, int cols, const std::vector<double>& costs) {
  std::vector<int> out;
  for (int dr = -1; dr <= 1; ++dr) {
    for (int dc = -1; dc <= 1; ++dc) {
      const int r = s / cols + dr, c = s % cols + dc;
      if ((dr != 0 || dc != 0) && r >= 0 && r < rows && c >= 0 && c < cols && std::isfinite(costs[r * cols + c])) {
        out.push_back(r * cols + c);
      }
    }
  }
  return out;
}

// The model by linear algebra on the whole (tiny) graph, independent of the sweeps: with A the step
// weights between cells other than the goal, N = (I - A)^-1 counts the weighted walks, z = N a_goal,
// Z = z(start), and a step a -> b is taken N(start, a) A(a, b) z(b) / Z times in expectation.
struct Reference {
  double log_partition = 0.0;
  double spectral_radius = 0.0;
  std::vector<double> visits;
};

Reference reference(int rows, int cols, const std::vector<double>& costs, int start, int goal) {
  const int n = rows * cols;
  Eigen::MatrixXd a = Eigen::MatrixXd::Zero(n, n);
  Eigen::VectorXd to_goal = Eigen::VectorXd::Zero(n);
  for (int s = 0; s < n; ++s) {
    if (s == goal || !std::isfinite(costs[s])) continue;
    for (int b : neighbours(s, rows, cols, costs)) (b == goal ? to_goal[s] : a(s, b)) = stepWeight(s, b, cols, costs);
  }
  Reference ref;
  ref.spectral_radius = a.eigenvalues().cwiseAbs().maxCoeff();
  const Eigen::MatrixXd walks = (Eigen::MatrixXd::Identity(n, n) - a).inverse();
  Eigen::VectorXd z = walks * to_goal;
  z[goal] = 1.0;
  ref.log_partition = std::log(z[start]);
  ref.visits.assign(n, 0.0);
  for (int s = 0; s < n; ++s) {
    if (s == goal || !std::isfinite(costs[s])) continue;
    for (int b : neighbours(s, rows, cols, costs)) {
      const double count = walks(start, s) * stepWeight(s, b, cols, costs) * z[b] / z[start];
      const double half = count * (s / cols != b / cols && s % cols != b % cols ? std::sqrt(2.0) : 1.0) / 2.0;
      ref.visits[s] += half;
      ref.visits[b] += half;
    }
  }
  return ref;
}

}  // namespace

TEST_CASE("maxent planner: log Z and expected visits equal the walk sums (I - A)^-1 on tiny grids") {
  Random rng(11);
  int compared = 0, divergent = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const int rows = test::randomInt(rng, 2, 5), cols = test::randomInt(rng, 2, 5);
    // costs from below the safe bound (some models diverge) to well above it
    std::vector<double> costs = test::randomCosts(rng, rows * cols, 0.6, 4.0, 0.15);
    const int start = 0, goal = rows * cols - 1;
    costs[start] = rng.uniform(0.6, 4.0);
    costs[goal] = rng.uniform(0.6, 4.0);
    MaxEntPlanner soft(rows, cols);
    const SoftPlanResult r = soft.solve(costs, start, goal);
    const Reference ref = reference(rows, cols, costs, start, goal);
    if (r.status == SoftPlanStatus::NoPath) {
      CHECK(!std::isfinite(test::referenceDistances(rows, cols, costs, start)[goal]));
      continue;
    }
    if (ref.spectral_radius >= 0.999) {  // Z infinite (or nearly): the sweeps must say so
      CHECK(r.status != SoftPlanStatus::Success);
      ++divergent;
      continue;
    }
    REQUIRE_MESSAGE(r.status == SoftPlanStatus::Success, r.message);
    ++compared;
    CHECK(r.log_partition == doctest::Approx(ref.log_partition).epsilon(1e-7));
    CHECK(r.log_partition >= -r.min_cost);  // the cheapest path is one of the walks
    for (int s = 0; s < rows * cols; ++s) CHECK(r.visits[s] == doctest::Approx(ref.visits[s]).epsilon(1e-6).scale(1.0));
  }
  CHECK(compared >= 30);
  CHECK(divergent >= 1);
}

TEST_CASE("maxent planner: equal to a direct enumeration of the walks on a 2 x 2 grid") {
  // Every cell of a 2 x 2 grid neighbours every other; enumerate the walks from 0 that end at their
  // first visit of 3, up to 18 steps: with costs >= 2.5 the longer ones weigh < 1e-12 of Z together.
  const std::vector<double> costs = {2.5, 3.0, 2.7, 2.6};
  double z = 0.0;
  std::vector<double> weighted_visits(4, 0.0);
  std::vector<int> walk{0};
  std::function<void(double)> extend = [&](double weight) {
    if (walk.back() == 3) {
      z += weight;
      addPathVisits(walk, 2, weight, weighted_visits);
      return;
    }
    if (walk.size() > 18) return;
    for (int b = 0; b < 4; ++b) {
      if (b == walk.back()) continue;
      const double w = weight * stepWeight(walk.back(), b, 2, costs);
      walk.push_back(b);
      extend(w);
      walk.pop_back();
    }
  };
  extend(1.0);
  MaxEntPlanner soft(2, 2);
  const SoftPlanResult r = soft.solve(costs, 0, 3);
  REQUIRE(r.status == SoftPlanStatus::Success);
  CHECK(r.log_partition == doctest::Approx(std::log(z)).epsilon(1e-10));
  for (int s = 0; s < 4; ++s) CHECK(r.visits[s] == doctest::Approx(weighted_visits[s] / z).epsilon(1e-9));
}

TEST_CASE("maxent planner: costs scaled up concentrate the visits on the A* path") {
  Random rng(12);
  for (int trial = 0; trial < 5; ++trial) {
    const int rows = 12, cols = 15;
    std::vector<double> costs = test::randomCosts(rng, rows * cols, 1.0, 3.0, 0.1);
    costs[0] = costs[rows * cols - 1] = 2.0;
    GridPlanner hard(rows, cols);
    const PlanResult best = hard.plan(costs, 0, rows * cols - 1);
    if (best.status != PlanStatus::Success) continue;
    for (double& c : costs) c *= 5000.0;
    MaxEntPlanner soft(rows, cols);
    const SoftPlanResult r = soft.solve(costs, 0, rows * cols - 1);
    REQUIRE(r.status == SoftPlanStatus::Success);
    std::vector<double> path_visits(costs.size(), 0.0);
    addPathVisits(best.path, cols, 1.0, path_visits);
    for (std::size_t s = 0; s < costs.size(); ++s) CHECK(std::abs(r.visits[s] - path_visits[s]) < 1e-3);
    CHECK(r.log_partition == doctest::Approx(-r.min_cost).epsilon(1e-6));
  }
}

TEST_CASE("maxent planner: a region margin only drops walks, and a wide one changes nothing") {
  Random rng(13);
  const int rows = 20, cols = 24;
  for (int trial = 0; trial < 5; ++trial) {
    std::vector<double> costs = test::randomCosts(rng, rows * cols, 2.0, 5.0, 0.1);
    const int start = test::randomInt(rng, 0, rows * cols - 1), goal = test::randomInt(rng, 0, rows * cols - 1);
    costs[start] = costs[goal] = 3.0;
    if (start == goal) continue;
    MaxEntPlanner full(rows, cols);
    const SoftPlanResult exact = full.solve(costs, start, goal);
    if (exact.status == SoftPlanStatus::NoPath) continue;
    REQUIRE(exact.status == SoftPlanStatus::Success);
    double previous = -exact.min_cost;
    for (double margin : {0.0, 2.0, 8.0, 40.0, 400.0}) {
      MaxEntPlanner::Params params;
      params.region_margin = margin;
      MaxEntPlanner band(rows, cols, params);
      const SoftPlanResult r = band.solve(costs, start, goal);
      REQUIRE(r.status == SoftPlanStatus::Success);
      CHECK(r.log_partition >= previous - 1e-9);  // a wider region holds more walks
      CHECK(r.log_partition <= exact.log_partition + 1e-9);
      CHECK(r.region_cells <= exact.region_cells);
      previous = r.log_partition;
    }
    CHECK(previous == doctest::Approx(exact.log_partition).epsilon(1e-9));
  }
}

TEST_CASE("maxent planner: sampled walks visit cells as often as the expectation says") {
  const int rows = 3, cols = 4;
  Random rng(14);
  const std::vector<double> costs = test::randomCosts(rng, rows * cols, 1.9, 3.0, 0.0);
  MaxEntPlanner soft(rows, cols);
  const SoftPlanResult r = soft.solve(costs, 0, rows * cols - 1);
  REQUIRE(r.status == SoftPlanStatus::Success);
  const int samples = 20000;
  std::vector<double> counted(costs.size(), 0.0);
  for (int k = 0; k < samples; ++k) {
    const std::vector<int> walk = soft.sample(rng);
    CHECK_NOTHROW(validatePath(walk, rows, cols, Connectivity::Eight));
    CHECK(walk.front() == 0);
    CHECK(walk.back() == rows * cols - 1);
    addPathVisits(walk, cols, 1.0 / samples, counted);
  }
  for (std::size_t s = 0; s < costs.size(); ++s) CHECK(counted[s] == doctest::Approx(r.visits[s]).epsilon(0.03).scale(1.0));
}

TEST_CASE("maxent planner: divergence, unreachable goals and bad input are statuses, a wrong size throws") {
  MaxEntPlanner soft(6, 6);
  const SoftPlanResult cheap = soft.solve(std::vector<double>(36, 0.5), 0, 35);
  CHECK(cheap.status == SoftPlanStatus::NotNormalisable);
  CHECK(cheap.message.find("1.7776") != std::string::npos);
  std::vector<double> wall(36, 3.0);
  for (int r = 0; r < 6; ++r) wall[r * 6 + 3] = kInf;
  CHECK(soft.solve(wall, 0, 35).status == SoftPlanStatus::NoPath);
  CHECK(soft.solve(wall, 3, 35).status == SoftPlanStatus::InvalidInput);
  std::vector<double> negative(36, 3.0);
  negative[7] = -1.0;
  CHECK(soft.solve(negative, 0, 35).status == SoftPlanStatus::InvalidInput);
  CHECK_THROWS_AS(soft.solve(std::vector<double>(35, 3.0), 0, 34), InvalidArgument);
  MaxEntPlanner fresh(6, 6);
  Random rng(1);
  CHECK_THROWS_AS(fresh.sample(rng), InvalidArgument);
  CHECK_THROWS_AS(MaxEntPlanner(6, 6, MaxEntPlanner::Params{Connectivity::Eight, -1.0, 1e-9, 100}), InvalidArgument);
}

TEST_CASE("path example marginals: E[psi] is the gradient of log Z, and the likelihood is at most 1") {
  Random rng(15);
  for (CostForm form : {CostForm::Linear, CostForm::Exponential}) {
    auto map = std::make_shared<FeatureMap>(test::smoothFeatureMap(rng, 9, 11, 3));
    GridPlanner hard(9, 11);
    const std::vector<int> demo = hard.plan(test::randomCosts(rng, 99, 0.5, 2.0, 0.0), 0, 98).path;
    PathExample::Params params;
    params.cost_form = form;
    const PathExample example(map, demo, params);
    Eigen::VectorXd w = test::randomVector(rng, 3).cwiseAbs();
    w[0] = form == CostForm::Linear ? 2.0 : 0.7;  // every cost above the safe bound
    MarginalResult r;
    example.marginals(w, r);
    const Eigen::VectorXd target = r.psi_target.toDense();
    CHECK(r.beta == doctest::Approx(example.beta()));
    if (form == CostForm::Exponential) continue;  // w.psi is then no cost, E[psi] the surrogate of the file comment
    CHECK(r.log_partition >= w.dot(target));  // the demonstration is one of the walks
    const Eigen::VectorXd expected = r.expected_psi.toDense();
    for (int k = 0; k < 3; ++k) {
      const double h = 1e-5;
      MarginalResult up, down;
      Eigen::VectorXd wu = w, wd = w;
      wu[k] += h;
      wd[k] -= h;
      example.marginals(wu, up);
      example.marginals(wd, down);
      CHECK((up.log_partition - down.log_partition) / (2 * h) == doctest::Approx(expected[k]).epsilon(1e-5));
    }
  }
}

TEST_CASE("path example marginals: an unnormalisable w is an error naming the bound") {
  Random rng(16);
  auto map = std::make_shared<FeatureMap>(test::smoothFeatureMap(rng, 8, 8, 2));
  GridPlanner hard(8, 8);
  const PathExample example(map, hard.plan(std::vector<double>(64, 1.0), 0, 63).path, PathExample::Params{});
  MarginalResult r;
  CHECK_THROWS_WITH_AS(example.marginals(Eigen::Vector2d(0.3, 0.0), r), doctest::Contains("not normalisable"),
                       InvalidArgument);
}

TEST_CASE("noisy demonstrations: the same ends as the exact ones, valid paths, never cheaper, errors name the fix") {
  Random rng(17);
  const int rows = 30, cols = 30;
  std::vector<double> costs = test::randomCosts(rng, rows * cols, 1.0, 5.0, 0.05);
  DemonstrationParams params;
  params.count = 6;
  params.min_separation = 10.0;
  params.seed = 3;
  const std::vector<Demonstration> exact = generateDemonstrations(rows, cols, costs, params);
  REQUIRE(exact.size() == 6);
  for (NoiseKind kind : {NoiseKind::Boltzmann, NoiseKind::Waypoints}) {
    params.noise.kind = kind;
    params.noise.temperature = 0.5;
    params.noise.waypoints = 2;
    const std::vector<Demonstration> noisy = generateDemonstrations(rows, cols, costs, params);
    REQUIRE(noisy.size() == exact.size());
    double excess = 0.0;
    for (std::size_t i = 0; i < noisy.size(); ++i) {
      CHECK(noisy[i].path.front() == exact[i].path.front());
      CHECK(noisy[i].path.back() == exact[i].path.back());
      CHECK_NOTHROW(validatePath(noisy[i].path, rows, cols, Connectivity::Eight));
      for (int s : noisy[i].path) CHECK(std::isfinite(costs[s]));
      CHECK(noisy[i].optimal_cost == doctest::Approx(exact[i].cost));
      CHECK(noisy[i].cost >= noisy[i].optimal_cost - 1e-9);
      excess += noisy[i].cost - noisy[i].optimal_cost;
    }
    CHECK(excess > 0.0);  // some path is not optimal
    CHECK(describe(parseNoiseKind(describe(kind))) == std::string(describe(kind)));
  }
  params.noise.kind = NoiseKind::Boltzmann;
  params.noise.temperature = 5.0;  // costs / temperature down to 0.2: Z infinite
  CHECK_THROWS_WITH_AS(generateDemonstrations(rows, cols, costs, params), doctest::Contains("lower the temperature"),
                       InvalidArgument);
  CHECK_THROWS_WITH_AS(parseNoiseKind("gaussian"), doctest::Contains("valid: none, boltzmann, waypoints"), InvalidArgument);
}
