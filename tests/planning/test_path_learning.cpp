#include "planning_support.hpp"
#include "support.hpp"

#include <mmp/core/error.hpp>
#include <mmp/learners/batch_subgradient.hpp>
#include <mmp/learners/online_greedy_projection.hpp>
#include <mmp/planning/demonstrations.hpp>
#include <mmp/planning/path.hpp>
#include <mmp/planning/path_example.hpp>

#include <doctest/doctest.h>

using namespace mmp;

namespace {

// Maps with a hidden true w; demonstrations are optimal paths under it.
struct World {
  std::vector<std::unique_ptr<PathExample>> train, holdout;
};

World makeWorld(std::uint64_t seed, const Eigen::VectorXd& true_w, const PathExample::Params& params) {
  Random rng(seed);
  World world;
  for (int m = 0; m < 10; ++m) {
    auto map = std::make_shared<FeatureMap>(test::smoothFeatureMap(rng, 32, 32, static_cast<int>(true_w.size())));
    std::vector<double> costs;
    map->costs(true_w, costs);
    DemonstrationParams demo;
    demo.count = 2;
    demo.min_separation = 20.0;
    demo.seed = seed * 100 + m;
    for (auto& d : generateDemonstrations(32, 32, costs, demo)) {
      (m < 6 ? world.train : world.holdout).push_back(std::make_unique<PathExample>(map, d.path, params));
    }
  }
  return world;
}

// Mean prediction loss per unit of demonstrated length on held-out examples.
double meanLoss(const std::vector<std::unique_ptr<PathExample>>& examples, const Eigen::VectorXd& w) {
  double sum = 0.0;
  for (const auto& e : examples) {
    sum += e->pathLoss(e->plan(w).path) / pathLength(e->demonstration(), e->map().cols());
  }
  return sum / static_cast<double>(examples.size());
}

}  // namespace

TEST_CASE("both learners learn a planner that reproduces held-out demonstrations" * doctest::test_suite("long")) {
  Eigen::VectorXd true_w(4);
  true_w << 0.2, 4.0, 0.0, 1.5;  // bias, then three terrain features
  PathExample::Params params;
  params.loss = {LossShape::Linear, 3.0, 1.0};
  const ProjectionPtr positive = positiveCostProjection(4, 0, params.loss.scale, 0.05);
  Eigen::VectorXd untrained = Eigen::VectorXd::Zero(4);
  untrained[0] = 1.0;  // uniform cost: straight lines

  // One small world decides little: over worlds 1..16 the learned planners' held-out loss ranged from
  // 0 to 0.53 of the straight lines' (0.19 on average). So the losses are pooled over eight worlds,
  // and each world only has to beat the straight lines.
  double untrained_sum = 0.0, batch_sum = 0.0, online_sum = 0.0;
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    CAPTURE(seed);
    const World world = makeWorld(seed, true_w, params);
    REQUIRE(world.train.size() >= 10);
    REQUIRE(world.holdout.size() >= 6);
    const ExampleList train = test::listOf(world.train);
    const double untrained_loss = meanLoss(world.holdout, untrained);

    BatchSubgradient::Params bp;
    // The true costs span a ratio of about 30 while the bias weight must stay above loss_max, so the
    // weights must grow large: weak regularisation and long steps.
    bp.lambda = 1e-4;
    bp.steps = StepSchedule::constant(30.0);
    bp.projection = positive;
    bp.averaging = Averaging::LateWeighted;
    bp.stop.max_iterations = 300;
    BatchSubgradient batch(bp);
    const double batch_loss = meanLoss(world.holdout, batch.train(train));

    OnlineGreedyProjection::Params op;
    op.lambda = 1e-4;
    op.projection = positive;
    op.averaging = Averaging::LateWeighted;
    op.stop.max_iterations = 60;
    OnlineGreedyProjection online(op);
    const double online_loss = meanLoss(world.holdout, online.train(train));

    CHECK(untrained_loss > 0.1);
    CHECK(batch_loss < untrained_loss);
    CHECK(online_loss < untrained_loss);
    untrained_sum += untrained_loss, batch_sum += batch_loss, online_sum += online_loss;
  }
  MESSAGE("held-out loss per cell of path, mean over 8 worlds: untrained " << untrained_sum / 8 << ", batch "
                                                                           << batch_sum / 8 << ", online "
                                                                           << online_sum / 8);
  CHECK(batch_sum < 0.4 * untrained_sum);
  CHECK(online_sum < 0.4 * untrained_sum);
}

TEST_CASE("exponential costs that overflow: the oracle says so by cell, and both learners keep their last good weights") {
  Eigen::VectorXd true_w(4);
  true_w << 0.2, 4.0, 0.0, 1.5;
  PathExample::Params params;
  params.loss = {LossShape::Linear, 3.0, 1.0};
  params.cost_form = CostForm::Exponential;
  const World world = makeWorld(3, true_w, params);
  const ExampleList train = test::listOf(world.train);
  OracleResult r;
  CHECK_THROWS_WITH_AS(world.train[0]->solve(Eigen::VectorXd::Constant(4, 800.0), 1.0, r),
                       doctest::Contains("the exponential cost of cell"), NumericalError);
  CHECK_THROWS_AS(world.train[0]->solve(Eigen::VectorXd::Constant(4, -800.0), 1.0, r), NumericalError);

  // Steps of 1e6: the first update sends exp(w . f) out of range.
  OnlineGreedyProjection::Params op;
  op.lambda = 1e-6;
  op.stop.max_iterations = 3;
  OnlineGreedyProjection online(op);
  const Eigen::VectorXd online_w = online.train(train);
  CHECK(online.info() == Info::NumericalIssue);
  CHECK(online.message().find("kept the last good weights") != std::string::npos);
  CHECK_NOTHROW(world.train[0]->solve(online_w, 1.0, r));  // the kept weights still plan

  BatchSubgradient::Params bp;
  bp.lambda = 1e-6;
  bp.steps = StepSchedule::constant(1e6);
  bp.stop.max_iterations = 5;
  BatchSubgradient batch(bp);
  const Eigen::VectorXd batch_w = batch.train(train);
  CHECK(batch.info() == Info::NumericalIssue);
  CHECK(batch.message().find("exponential cost of cell") != std::string::npos);
  CHECK_NOTHROW(world.train[0]->solve(batch_w, 1.0, r));
}
