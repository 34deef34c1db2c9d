// LEARCH (maps/learch.hpp) and its regression trees (maps/regression_tree.hpp): on hand-made terrain
// whose true cost is an interaction of two features, through the pipeline, and through the model file.
#include "maps/training/training_support.hpp"

#include <mmp/core/error.hpp>
#include <mmp/learners/batch_subgradient.hpp>
#include <mmp/maps/training/learch.hpp>
#include <mmp/maps/training/pipeline.hpp>
#include <mmp/maps/regression_tree.hpp>
#include <mmp/planning/grid_planner.hpp>
#include <mmp/planning/path.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>

using namespace mmp;

namespace {

constexpr int kSide = 48;  // cells a side
constexpr int kPatch = 4;  // cells a patch side

struct Terrain {
  std::shared_ptr<const FeatureMap> map;
  std::vector<double> true_costs;
  std::vector<std::vector<int>> paths;  // optimal under true_costs
};

// Patches of kPatch x kPatch cells, each with features a and b drawn uniformly from [0, 1] (and the
// bias 1); the true cost is 1 where both exceed 0.5 and 10 elsewhere.  A linear log-cost
// w0 + wa a + wb b has straight level lines, the cheap quadrant a corner: (0.55, 0.55) is cheap and
// (0.95, 0.2) dear, yet any plane with wa < 0 and 0.4 |wa| > 0.35 |wb| prices the second lower, and
// planes with wa >= 0 or wb >= 0 price part of the quadrant above some dear cells.  Paths are optimal
// between seeded pairs at least kSide / 2 cells apart.
Terrain patchwork(std::uint64_t seed, int paths) {
  Random rng(seed);
  const int patches = kSide / kPatch;
  std::vector<float> patch_values(static_cast<std::size_t>(patches) * patches * 2);
  for (float& v : patch_values) v = static_cast<float>(rng.uniform());
  std::vector<float> values(static_cast<std::size_t>(kSide) * kSide * 3);
  Terrain t;
  t.true_costs.resize(static_cast<std::size_t>(kSide) * kSide);
  for (int r = 0; r < kSide; ++r) {
    for (int c = 0; c < kSide; ++c) {
      const std::size_t s = static_cast<std::size_t>(r) * kSide + c;
      const std::size_t p = static_cast<std::size_t>(r / kPatch) * patches + c / kPatch;
      const float a = patch_values[2 * p], b = patch_values[2 * p + 1];
      values[3 * s] = 1.0f;
      values[3 * s + 1] = a;
      values[3 * s + 2] = b;
      t.true_costs[s] = a > 0.5f && b > 0.5f ? 1.0 : 10.0;
    }
  }
  t.map = std::make_shared<FeatureMap>(kSide, kSide, 3, std::move(values), std::vector<std::string>{"bias", "a", "b"});
  GridPlanner planner(kSide, kSide);
  while (static_cast<int>(t.paths.size()) < paths) {
    const int start = static_cast<int>(rng.below(kSide * kSide)), goal = static_cast<int>(rng.below(kSide * kSide));
    if (std::max(std::abs(start / kSide - goal / kSide), std::abs(start % kSide - goal % kSide)) < kSide / 2) continue;
    t.paths.push_back(planner.plan(t.true_costs, start, goal).path);
  }
  return t;
}

struct Examples {
  std::vector<std::unique_ptr<PathExample>> owned;
  std::vector<const PathExample*> list;
};

// The terrains' paths as examples with exponential costs, a linear loss of radius 3 cells.
Examples examplesOf(const std::vector<Terrain>& terrains) {
  PathExample::Params params;
  params.loss = {LossShape::Linear, 3.0, 1.0};
  params.cost_form = CostForm::Exponential;
  Examples e;
  for (const Terrain& t : terrains) {
    for (const std::vector<int>& path : t.paths) {
      e.owned.push_back(std::make_unique<PathExample>(t.map, path, params));
      e.list.push_back(e.owned.back().get());
    }
  }
  return e;
}

// exp(w . f + trees) of every cell: the costs of a LEARCH model.
std::vector<double> modelCosts(const FeatureMap& map, const Eigen::VectorXd& w, const TreeEnsemble& trees) {
  std::vector<double> costs;
  logCosts(map, w, trees, costs);
  for (double& c : costs) c = std::exp(c);
  return costs;
}

// Mean over the terrains' paths of the true cost of the plan under `costs` over the path's.
double meanCostRatio(const std::vector<Terrain>& terrains, const std::function<std::vector<double>(const FeatureMap&)>& costs) {
  double sum = 0.0;
  int count = 0;
  for (const Terrain& t : terrains) {
    const std::vector<double> c = costs(*t.map);
    GridPlanner planner(kSide, kSide);
    for (const std::vector<int>& path : t.paths) {
      const PlanResult plan = planner.plan(c, path.front(), path.back());
      REQUIRE(plan.status == PlanStatus::Success);
      sum += pathIntegral(plan.path, kSide, t.true_costs) / pathIntegral(path, kSide, t.true_costs);
      ++count;
    }
  }
  return sum / count;
}

// The first `count` trees of an ensemble.
TreeEnsemble firstTrees(TreeEnsemble trees, std::size_t count) {
  trees.truncate(count);
  return trees;
}

// The LEARCH objective and sum_i beta_i C(y_i) of a model, computed here: A* on costs made here.
std::pair<double, double> objectiveOf(const Examples& examples, const Eigen::VectorXd& w, const TreeEnsemble& trees) {
  double objective = 0.0, demonstrated = 0.0;
  for (const PathExample* e : examples.list) {
    std::vector<double> log_costs;
    logCosts(e->map(), w, trees, log_costs);
    std::vector<double> costs(log_costs.size()), augmented(log_costs.size());
    for (std::size_t s = 0; s < costs.size(); ++s) {
      costs[s] = std::exp(log_costs[s]);
      augmented[s] = std::exp(log_costs[s] - e->loss()[s]);
    }
    GridPlanner planner(e->map().rows(), e->map().cols());
    const double cost = pathIntegral(e->demonstration(), e->map().cols(), costs);
    objective += e->beta() * (cost - planner.plan(augmented, e->start(), e->goal()).cost);
    demonstrated += e->beta() * cost;
  }
  return {objective, demonstrated};
}

// The lowest and highest cost of the terrains' cells under a LEARCH model.
std::array<double, 2> costRange(const std::vector<Terrain>& terrains, const Eigen::VectorXd& w, const TreeEnsemble& trees) {
  std::array<double, 2> range = {std::numeric_limits<double>::infinity(), 0.0};
  for (const Terrain& t : terrains) {
    for (double c : modelCosts(*t.map, w, trees)) range = {std::min(range[0], c), std::max(range[1], c)};
  }
  return range;
}

// Leaf values and samples per leaf: where each sample lands.
std::vector<int> leafCounts(const RegressionTree& tree, const Eigen::MatrixXf& samples) {
  std::vector<int> counts(tree.nodes().size(), 0);
  for (Eigen::Index i = 0; i < samples.rows(); ++i) {
    std::size_t node = 0;
    while (tree.nodes()[node].feature >= 0) {
      const RegressionTree::Node& n = tree.nodes()[node];
      node = static_cast<std::size_t>(samples(i, n.feature) <= n.threshold ? n.left : n.right);
    }
    ++counts[node];
  }
  return counts;
}

}  // namespace

TEST_CASE("regression trees: a stump takes the brute-force best split, a depth-2 tree fits an AND exactly") {
  Random rng(3);
  const int n = 300;
  Eigen::MatrixXf samples(n, 3);
  Eigen::VectorXd targets(n), weights(n);
  for (int i = 0; i < n; ++i) {
    for (int k = 0; k < 3; ++k) samples(i, k) = static_cast<float>(rng.below(11)) / 10.0f;  // 11 levels: every midpoint a candidate
    targets[i] = samples(i, 0) > 0.3f && samples(i, 1) > 0.6f ? 1.0 : -1.0;
    weights[i] = rng.uniform(0.1, 2.0);
  }
  SUBCASE("stump") {
    // Brute force: every feature and midpoint, weighted squared error of the two weighted means.
    double best = std::numeric_limits<double>::infinity();
    int best_feature = -1;
    double best_threshold = 0.0;
    for (int k = 0; k < 3; ++k) {
      for (int level = 0; level < 10; ++level) {
        const double t = (level + 0.5) / 10.0;
        double w[2] = {0, 0}, s[2] = {0, 0};
        for (int i = 0; i < n; ++i) {
          const int side = samples(i, k) <= t ? 0 : 1;
          w[side] += weights[i], s[side] += weights[i] * targets[i];
        }
        if (w[0] == 0.0 || w[1] == 0.0) continue;
        double error = 0.0;
        for (int i = 0; i < n; ++i) {
          const int side = samples(i, k) <= t ? 0 : 1;
          error += weights[i] * std::pow(targets[i] - s[side] / w[side], 2);
        }
        if (error < best - 1e-9) best = error, best_feature = k, best_threshold = t;
      }
    }
    const RegressionTree stump = RegressionTree::fit(samples, targets, weights, {1, 1, 32});
    REQUIRE(stump.nodes().size() == 3);
    CHECK(stump.nodes()[0].feature == best_feature);
    CHECK(stump.nodes()[0].threshold == doctest::Approx(best_threshold).epsilon(1e-6));
  }
  SUBCASE("depth 2 fits the AND; leaves keep min_leaf_samples and stay within the targets' range") {
    const RegressionTree tree = RegressionTree::fit(samples, targets, weights, {2, 1, 32});
    for (int i = 0; i < n; ++i) {
      REQUIRE(tree.predict([&](int k) { return samples(i, k); }) == doctest::Approx(targets[i]));
    }
    for (const int m : {5, 40}) {
      const RegressionTree limited = RegressionTree::fit(samples, targets, weights, {3, m, 4});
      const std::vector<int> counts = leafCounts(limited, samples);
      for (std::size_t node = 0; node < counts.size(); ++node) {
        if (limited.nodes()[node].feature < 0) CHECK(counts[node] >= m);
      }
      CHECK(limited.range()[0] >= -1.0);
      CHECK(limited.range()[1] <= 1.0);
    }
  }
  SUBCASE("bad input and malformed trees are refused by name") {
    CHECK_THROWS_WITH_AS(RegressionTree::fit(samples, targets, -weights, {2, 1, 32}),
                         doctest::Contains("the weight of sample 0"), InvalidArgument);
    CHECK_THROWS_WITH_AS(RegressionTree::fit(samples, targets, weights, {0, 1, 32}), doctest::Contains("depth 0"),
                         InvalidArgument);
    using Node = RegressionTree::Node;
    const Node leaf{-1, 0.0, -1, -1, 0.5};
    CHECK_THROWS_WITH_AS(RegressionTree({}, 3), doctest::Contains("no node"), InvalidArgument);
    CHECK_THROWS_WITH_AS(RegressionTree({{3, 0.5, 1, 2, 0.0}, leaf, leaf}, 3),
                         doctest::Contains("tree node 0 splits on feature 3, outside [0, 3)"), InvalidArgument);
    CHECK_THROWS_WITH_AS(RegressionTree({{0, 0.5, 0, 2, 0.0}, leaf, leaf}, 3),
                         doctest::Contains("tree node 0 has child 0; a child must come after its node"), InvalidArgument);
    CHECK_THROWS_WITH_AS(RegressionTree({{0, 0.5, 1, 3, 0.0}, leaf, leaf}, 3), doctest::Contains("has child 3"),
                         InvalidArgument);
    CHECK_THROWS_WITH_AS(RegressionTree({{-1, 0.0, 1, -1, 0.0}, leaf}, 3),
                         doctest::Contains("tree node 0 is a leaf (feature -1) but has children"), InvalidArgument);
    CHECK_THROWS_WITH_AS(RegressionTree({{0, std::numeric_limits<double>::quiet_NaN(), 1, 2, 0.0}, leaf, leaf}, 3),
                         doctest::Contains("not finite"), InvalidArgument);
  }
}

TEST_CASE("LEARCH learns an interaction of two features that no linear log-cost can express" * doctest::test_suite("long")) {
  const std::vector<Terrain> train = {patchwork(1, 10), patchwork(2, 10)};
  const std::vector<Terrain> holdout = {patchwork(3, 20), patchwork(4, 20)};
  const Examples examples = examplesOf(train);

  LearchSettings settings;
  settings.threads = 1;
  const LearchResult boosted = learch(examples.list, Eigen::VectorXd::Zero(3), settings);
  CHECK(boosted.info == Info::Success);
  CHECK(boosted.trees.size() == 30);
  const double learch_ratio =
      meanCostRatio(holdout, [&](const FeatureMap& m) { return modelCosts(m, boosted.weights, boosted.trees); });

  // The linear log-cost as the pipeline learns it (exponential costs, batch subgradient), given its
  // best of three step sizes on the holdout pairs themselves.  (A grid over (wa, wb) in [-8, 8]^2,
  // step 0.5, found none below 1.161 on these pairs; the bias only scales every cost.)
  double linear_ratio = std::numeric_limits<double>::infinity();
  const ExampleList list(examples.list.begin(), examples.list.end());
  for (const double step : {0.3, 1.0, 3.0}) {
    BatchSubgradient::Params p;
    p.lambda = 1e-4;
    p.steps = StepSchedule::constant(step);
    p.stop.max_iterations = 400;
    p.averaging = Averaging::LateWeighted;
    BatchSubgradient learner(p);
    const Eigen::VectorXd w = learner.train(list, Eigen::VectorXd::Zero(3));
    linear_ratio = std::min(linear_ratio, meanCostRatio(holdout, [&](const FeatureMap& m) { return modelCosts(m, w, {}); }));
  }
  const double uniform_ratio =
      meanCostRatio(holdout, [](const FeatureMap& m) { return std::vector<double>(static_cast<std::size_t>(m.cells()), 1.0); });
  MESSAGE("holdout cost ratio on 40 pairs: LEARCH " << learch_ratio << " (" << boosted.trees.size()
                                                    << " trees), linear log-cost " << linear_ratio << ", uniform "
                                                    << uniform_ratio);
  CHECK(learch_ratio < linear_ratio - 0.05);
  CHECK(linear_ratio < uniform_ratio);
  // Training: the prediction loss falls from the start (uniform costs) to the model.
  CHECK(boosted.rounds.back().prediction_loss < 0.5 * boosted.rounds.front().prediction_loss);
}

TEST_CASE("a LEARCH round raises the objective by no more than its step allows, and reports what the model does") {
  // Leaf values are weighted means of +-1 targets, |h_t| <= 1: round t moves every log-cost by at most
  // eta_t, every path cost by a factor in [e^-eta_t, e^eta_t].  With C the demonstration's cost and
  // M = min_y C_aug(y) <= C before the round:
  //   R_t - R_{t-1} <= sum_i beta_i [(e^eta_t - 1) C_i + (1 - e^-eta_t) M_i] <= (e^eta_t - e^-eta_t) sum_i beta_i C_i.
  // A large step (eta_1 = 2) makes rounds that overshoot, so the bound is tested where it bites.
  const std::vector<Terrain> train = {patchwork(5, 6), patchwork(6, 6)};
  const Examples examples = examplesOf(train);
  LearchSettings settings;
  settings.step = 2.0;
  settings.rounds = 10;
  settings.max_cost_ratio = 1e12;
  settings.threads = 2;
  const Eigen::VectorXd start = Eigen::Vector3d(0.2, -0.5, 0.3);
  const LearchResult result = learch(examples.list, start, settings);
  REQUIRE(result.info == Info::Success);
  REQUIRE(result.trees.size() == 10);
  REQUIRE(result.rounds.size() == 11);
  CHECK(result.weights == start);
  double closest = -std::numeric_limits<double>::infinity();  // the largest increase over its bound
  for (std::size_t t = 0; t <= result.trees.size(); ++t) {
    CAPTURE(t);
    const TreeEnsemble model = firstTrees(result.trees, t);
    const auto [objective, demonstrated] = objectiveOf(examples, start, model);
    const LearchRound& round = result.rounds[t];
    CHECK(round.trees == static_cast<int>(t));
    CHECK(round.objective == doctest::Approx(objective).epsilon(1e-9));
    CHECK(round.objective >= 0.0);
    const std::array<double, 2> range = costRange(train, start, model);
    CHECK(round.lowest == range[0]);  // the saved model's costs, bit for bit
    CHECK(round.highest == range[1]);
    if (t == result.trees.size()) break;
    const double eta = result.trees.steps()[t];
    CHECK(eta == doctest::Approx(2.0 / std::sqrt(t + 1.0)));
    CHECK(result.rounds[t + 1].step == eta);
    CHECK(result.trees.trees()[t].range()[0] >= -1.0);
    CHECK(result.trees.trees()[t].range()[1] <= 1.0);
    const double bound = (std::exp(eta) - std::exp(-eta)) * demonstrated;
    CHECK(result.rounds[t + 1].objective - round.objective <= bound * (1 + 1e-12));
    closest = std::max(closest, (result.rounds[t + 1].objective - round.objective) / bound);
  }
  MESSAGE("largest rise of the objective in one round: " << closest << " of its bound");

  // The same model with any thread count, and a callback may stop it early.
  LearchSettings one = settings;
  one.threads = 1;
  const LearchResult again = learch(examples.list, start, one);
  Model a, b;
  result.trees.store(a);
  again.trees.store(b);
  CHECK(a.arrays == b.arrays);
  const LearchResult stopped = learch(examples.list, start, one, [](const LearchRound& r) { return r.trees < 2; });
  CHECK(stopped.trees.size() == 2);
  CHECK(stopped.message == "stopped by the callback with 2 trees");
}

TEST_CASE("LEARCH stops before its costs leave their bounds, keeping the last good round and saying so") {
  const std::vector<Terrain> train = {patchwork(7, 6)};
  const Examples examples = examplesOf(train);
  LearchSettings settings;
  settings.step = 6.0;  // eta_t = 6 / sqrt(t): ln(1e6) = 13.8 is crossed within a few rounds
  settings.threads = 1;
  const LearchResult result = learch(examples.list, Eigen::VectorXd::Zero(3), settings);
  CHECK(result.info == Info::NumericalIssue);
  MESSAGE(result.message);
  CHECK(result.message.find("was undone") != std::string::npos);
  CHECK(result.message.find("> max_cost_ratio 1000000") != std::string::npos);
  CHECK(result.message.find("kept the model of the round before, with " + std::to_string(result.trees.size()) + " tree") !=
        std::string::npos);
  CHECK(result.trees.size() >= 1);
  CHECK(result.trees.size() < 30);
  REQUIRE(result.rounds.size() == result.trees.size() + 1);
  const std::array<double, 2> range = costRange(train, result.weights, result.trees);
  CHECK(range[1] / range[0] <= 1e6);
  CHECK(range[0] == result.rounds.back().lowest);
  CHECK(range[1] == result.rounds.back().highest);

  // Starting costs out of bounds: nothing added; if they cannot even be planned on, nothing evaluated.
  const LearchResult wide = learch(examples.list, Eigen::Vector3d(0.0, 20.0, 0.0), settings);
  CHECK(wide.info == Info::NumericalIssue);
  CHECK(wide.trees.empty());
  CHECK(wide.rounds.size() == 1);
  CHECK(wide.message.find("the starting costs are out of bounds") != std::string::npos);
  // Uniform costs e^80 = 5.5e34: a spread of 1, but beyond the ends every model keeps to (float32 rasters).
  const LearchResult high = learch(examples.list, Eigen::Vector3d(80.0, 0.0, 0.0), settings);
  CHECK(high.info == Info::NumericalIssue);
  CHECK(high.trees.empty());
  CHECK(high.message.find("outside [1e-30, 1e+30], the costs every model keeps to (CostLimits)") != std::string::npos);
  const LearchResult overflowing = learch(examples.list, Eigen::Vector3d(0.0, 800.0, 0.0), settings);
  CHECK(overflowing.rounds.empty());
  CHECK(overflowing.message.find("cannot be planned on: a passable training cell's cost is not finite") != std::string::npos);

  LearchSettings bad = settings;
  bad.step = 0.0;
  CHECK_THROWS_WITH_AS(learch(examples.list, Eigen::Vector3d::Zero(), bad), doctest::Contains("learch.step = 0 must be finite > 0"),
                       InvalidArgument);
  bad = settings;
  bad.max_cost_ratio = 1.0;
  CHECK_THROWS_WITH_AS(bad.validate(), doctest::Contains("learch.max_cost_ratio"), InvalidArgument);
  CHECK_THROWS_WITH_AS(learch(examples.list, Eigen::VectorXd::Zero(2), settings),
                       doctest::Contains("the start has 2 weights, the maps 3 features"), InvalidArgument);
}

TEST_CASE("a LEARCH cost model: saved and loaded, tiled or not, the same costs within its bounds, and bad tree arrays refused by name") {
  test::TempDir dir;
  PipelineSettings config = test::syntheticSettings();
  config.train = {test::scene(1, 160), test::scene(2, 160)};
  config.demonstrations.per_region = 6;
  const TrainingData data = loadTrainingData(config);
  std::vector<std::unique_ptr<PathExample>> owned;
  std::vector<const PathExample*> examples;
  for (const Region& r : data.regions) {
    for (const std::vector<int>& demo : r.demonstrations) {
      owned.push_back(std::make_unique<PathExample>(r.map, demo, exampleParams(config)));
      examples.push_back(owned.back().get());
    }
  }
  LearchSettings settings;
  settings.rounds = 6;
  settings.threads = 1;
  const LearchResult result = learch(examples, Eigen::VectorXd::Zero(data.stack.features()), settings);
  REQUIRE(result.trees.size() == 6);
  const CostModel model(data.stack, result.weights, result.trees, {{"learner", "learch"}});
  CHECK(model.form() == CostForm::Exponential);

  // On the training maps the model's costs are those LEARCH planned on; the bound holds every cost.
  std::array<double, 2> range = {std::numeric_limits<double>::infinity(), 0.0};
  for (const Region& r : data.regions) {
    for (double c : model.costs(*r.map).costs) range = {std::min(range[0], c), std::max(range[1], c)};
  }
  CHECK(range[0] == result.rounds.back().lowest);
  CHECK(range[1] == result.rounds.back().highest);
  const std::array<double, 2> bounds = model.costBounds();
  CHECK(bounds[0] <= range[0]);
  CHECK(bounds[1] >= range[1]);

  // Saved and loaded: the same trees and the same costs, tiled or not.
  model.save(dir.file("learch.mmp"));
  const CostModel loaded = CostModel::load(dir.file("learch.mmp"));
  Model stored_a, stored_b;
  model.trees().store(stored_a);
  loaded.trees().store(stored_b);
  CHECK(stored_a.arrays == stored_b.arrays);
  CHECK(loaded.info().at("learner") == "learch");
  const cv::Mat image = test::syntheticImage(96, 120, 11);
  const CostGrid a = model.costs(image), b = loaded.costs(image);
  CHECK(a.costs == b.costs);  // bit for bit
  CHECK(loaded.costs(image, TileSettings{12, -1, 2}).costs == a.costs);
  CHECK(loaded.costs(loaded.features().map(image)).costs == a.costs);
  for (double c : a.costs) REQUIRE((c >= bounds[0] && c <= bounds[1]));
  std::vector<double> linear_only;
  model.features().map(image).costs(model.weights(), linear_only, CostForm::Exponential);
  CHECK(a.costs != linear_only);  // the trees are applied

  // A model without trees (a linear one, or one written before LEARCH) still loads, without trees.
  config.learner.batch.stop.max_iterations = 3;
  train(data, config).model.save(dir.file("linear.mmp"));
  CHECK(CostModel::load(dir.file("linear.mmp")).trees().empty());

  // Corrupted tree arrays (the checksum made to match): refused, naming the file and the fault.
  const Model saved = loadModel(dir.file("learch.mmp"));
  const std::size_t d = static_cast<std::size_t>(saved.weights.size());
  auto refusal = [&](const std::function<void(Model&)>& corrupt) {
    Model m = saved;
    corrupt(m);
    saveModel(dir.file("bad.mmp"), m);
    try {
      CostModel::load(dir.file("bad.mmp"));
    } catch (const DataError& e) {
      return std::string(e.what());
    }
    return std::string("loaded");
  };
  const std::string file = "'" + dir.file("bad.mmp") + "': ";
  CHECK(refusal([&](Model& m) { m.arrays["trees.feature"][0] = static_cast<double>(d); }) ==
        file + "array 'trees.feature' entry 0 (tree 0, node 0) is " + std::to_string(d) + "; expected an integer in [-1, " +
            std::to_string(d) + ")");
  const std::string loop = refusal([](Model& m) { m.arrays["trees.left"][0] = 0.0; });
  CHECK(loop.find(file + "tree 0 (entries 0 to ") == 0);
  CHECK(loop.find("tree node 0 has child 0; a child must come after its node") != std::string::npos);
  CHECK(refusal([](Model& m) { m.arrays["trees.right"][0] = 0.5; })
            .find("array 'trees.right' entry 0 (tree 0, node 0) is 0.5; expected an integer") != std::string::npos);
  CHECK(refusal([](Model& m) { m.arrays["trees.nodes"][0] = 1e9; })
            .find("array 'trees.nodes' entry 0 (tree 0's node count, with ") != std::string::npos);
  CHECK(refusal([](Model& m) {
          for (const char* name : {"trees.feature", "trees.left", "trees.right"}) m.arrays[name].push_back(-1.0);
          for (const char* name : {"trees.threshold", "trees.value"}) m.arrays[name].push_back(0.0);
        }).find("array 'trees.nodes' counts ") != std::string::npos);
  CHECK(refusal([](Model& m) { m.arrays["trees.threshold"].pop_back(); })
            .find("array 'trees.threshold' has ") != std::string::npos);
  CHECK(refusal([](Model& m) { m.arrays.erase("trees.value"); })
            .find(file + "the model has some trees.* arrays but not 'trees.value'") == 0);
  CHECK(refusal([](Model& m) { m.arrays["trees.steps"][1] = -0.5; })
            .find("array 'trees.steps' entry 1 is -0.5; a tree's step must be > 0") != std::string::npos);
  CHECK(refusal([](Model& m) { m.settings["costs"] = "linear"; })
            .find("it holds 6 trees (a LEARCH log-cost) but setting 'costs' is 'linear'") != std::string::npos);
  CHECK(refusal([](Model&) {}) == "loaded");
}

TEST_CASE("LEARCH in the pipeline: its settings are validated, the report and the model describe the run") {
  PipelineSettings config = test::syntheticSettings();
  config.train = {test::scene(1, 160), test::scene(2, 160)};
  config.demonstrations.per_region = 6;
  config.learner.hypothesis = CostHypothesis::Learch;
  config.learner.learch.rounds = 6;
  config.threads = 1;
  PipelineSettings bad = config;
  bad.source = "mine";
  bad.learner.learch.depth = 0;
  CHECK_THROWS_WITH_AS(validate(bad), "mine: learner.learch.depth = 0 must be in [1, 16]", ConfigError);
  const TrainingData data = loadTrainingData(config);
  const TrainedCostModel trained = train(data, config);
  const TrainingReport& report = trained.report;
  CHECK(report.hypothesis == CostHypothesis::Learch);
  CHECK(report.passes == 6);
  CHECK(report.pass_name == "round");
  CHECK(report.trace.size() == 7);
  CHECK(report.trace.back().iteration == 6);
  CHECK(report.trace.back().value == report.objective);
  CHECK(report.info == "Success: added 6 trees");
  CHECK(report.examples == 12);
  CHECK(report.largest_examples == 6);
  CHECK(trained.model.form() == CostForm::Exponential);
  CHECK(trained.model.trees().size() == 6);
  CHECK(trained.model.weights().isZero());  // from uniform costs
  CHECK(trained.model.info().at("learner") == "learch");
  CHECK(trained.model.info().at("learch_stop") == report.info);
  std::array<double, 2> range = {std::numeric_limits<double>::infinity(), 0.0};
  for (const Region& r : data.regions) {
    for (double c : trained.model.costs(*r.map).costs) range = {std::min(range[0], c), std::max(range[1], c)};
  }
  CHECK(range[0] == report.cost_range[0]);
  CHECK(range[1] == report.cost_range[1]);
}

TEST_CASE("LEARCH in the pipeline starts from the linear model's weights and is reproducible with any thread count") {
  PipelineSettings config = test::syntheticSettings();
  config.train = {test::scene(1, 128)};
  config.demonstrations.per_region = 6;
  config.learner.batch.stop.max_iterations = 10;
  config.learner.batch.steps = StepSchedule::constant(0.1);
  config.learner.hypothesis = CostHypothesis::Learch;
  config.learner.learch.from_linear = true;
  config.learner.learch.rounds = 4;
  const TrainingData data = loadTrainingData(config);
  PipelineSettings linear = config;
  linear.learner.hypothesis = CostHypothesis::Linear;
  linear.learner.costs = CostForm::Exponential;
  const Eigen::VectorXd start = train(data, linear).model.weights();
  auto model = [&](int threads) {
    PipelineSettings s = config;
    s.threads = threads;
    return train(data, s).model;
  };
  const CostModel one = model(1), two = model(2);
  CHECK(one.weights() == start);
  CHECK(one.trees().size() == 4);
  const CostGrid a = one.costs(*data.regions[0].map), b = two.costs(*data.regions[0].map);
  REQUIRE(a.costs.size() == b.costs.size());
  CHECK(std::memcmp(a.costs.data(), b.costs.data(), sizeof(double) * a.costs.size()) == 0);
}

TEST_CASE("LEARCH with the MaxEnt objective: the NLL falls, the costs stay normalisable, and it learns the interaction") {
  const std::vector<Terrain> train = {patchwork(1, 6)};
  const std::vector<Terrain> holdout = {patchwork(3, 10)};
  const Examples examples = examplesOf(train);
  LearchSettings settings;
  settings.threads = 1;
  settings.rounds = 12;
  settings.objective = TrainingObjective::Likelihood;
  Eigen::VectorXd start = Eigen::VectorXd::Zero(3);
  start[0] = std::log(kMaxEntSafeCost) + 1.0;
  const LearchResult boosted = learch(examples.list, start, settings);
  REQUIRE(boosted.rounds.size() >= 2);
  // R = sum_i beta_i [C(y_i) + log Z_i], recomputed here from the soft planner
  double nll = 0.0;
  for (const PathExample* e : examples.list) {
    std::vector<double> log_costs;
    logCosts(e->map(), boosted.weights, boosted.trees, log_costs);
    const SoftPlanResult soft = e->softPlanLogCosts(log_costs);
    REQUIRE(soft.status == SoftPlanStatus::Success);
    std::vector<double> costs = modelCosts(e->map(), boosted.weights, boosted.trees);
    nll += e->beta() * (pathIntegral(e->demonstration(), kSide, costs) + soft.log_partition);
  }
  CHECK(nll == doctest::Approx(boosted.rounds.back().objective).epsilon(1e-9));
  CHECK(boosted.rounds.back().objective < 0.8 * boosted.rounds.front().objective);
  for (const LearchRound& r : boosted.rounds) CHECK(r.lowest >= kMaxEntSafeCost);
  const double uniform_ratio =
      meanCostRatio(holdout, [](const FeatureMap& m) { return std::vector<double>(static_cast<std::size_t>(m.cells()), 1.0); });
  const double learned_ratio =
      meanCostRatio(holdout, [&](const FeatureMap& m) { return modelCosts(m, boosted.weights, boosted.trees); });
  MESSAGE("MaxEnt LEARCH holdout cost ratio " << learned_ratio << ", uniform " << uniform_ratio);
  CHECK(learned_ratio < uniform_ratio);
}
