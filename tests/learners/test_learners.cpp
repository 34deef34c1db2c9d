#include "support.hpp"

#include <mmp/core/error.hpp>
#include <mmp/learners/batch_subgradient.hpp>
#include <mmp/learners/learner_settings.hpp>
#include <mmp/learners/online_greedy_projection.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <numeric>

using namespace mmp;

namespace {

// A tiny ranking problem in R^2 whose optimum is found independently of the library: eq. 4 written
// out as a closed-form function of w, minimised by nested golden-section search (convex in each
// coordinate, and the inner minimum is convex in the outer coordinate).
struct TinyRanking {
  std::vector<Eigen::Vector2d> differences;
  std::vector<std::unique_ptr<RankingPair>> pairs;
  double lambda;
  int q;

  TinyRanking(std::uint64_t seed, double lambda_, int q_) : lambda(lambda_), q(q_) {
    Random rng(seed);
    for (int i = 0; i < 8; ++i) {
      const Eigen::VectorXd a = test::randomVector(rng, 2), b = test::randomVector(rng, 2);
      differences.push_back(a - b);
      pairs.push_back(std::make_unique<RankingPair>(a, b));
    }
  }
  double objective(double w1, double w2) const {
    double risk = 0.0;
    for (const auto& d : differences) risk += std::pow(std::max(0.0, 1.0 - (w1 * d[0] + w2 * d[1])), q);
    return 0.5 * lambda * (w1 * w1 + w2 * w2) + risk / static_cast<double>(differences.size());
  }
  double exactMinimum() const {
    const double radius = std::sqrt(2.0 / lambda) + 1.0;  // c(0) = 1 bounds |w*|^2 <= 2/lambda
    return test::goldenMinimum(
        [&](double w1) { return test::goldenMinimum([&](double w2) { return objective(w1, w2); }, -radius, radius); },
        -radius, radius);
  }
};

// An example that cannot be solved once w[0] exceeds 0.5: its oracle answers NaN features.
class PoisonedExample final : public StructuredExample {
 public:
  Eigen::Index dimension() const override { return 2; }
  void solve(const Eigen::VectorXd& w, double loss_weight, OracleResult& r) const override {
    const bool poisoned = w[0] > 0.5;
    r.output = {loss_weight > 0.0 ? 1 : 0};
    r.psi_output.resetDense(2) << (poisoned ? std::nan("") : -1.0), 0.0;
    r.psi_target.resetDense(2) << 0.0, 0.0;
    r.loss = 1.0;
  }
};

// Labels are argmax of a hidden W x with a margin of at least 0.5, so the stream is separable.
std::vector<std::unique_ptr<MulticlassExample>> separableStream(std::uint64_t seed, int n, int classes, int features) {
  Random rng(seed);
  const Eigen::MatrixXd hidden = Eigen::MatrixXd::NullaryExpr(classes, features, [&] {
    return rng.normal();
  });
  std::vector<std::unique_ptr<MulticlassExample>> out;
  while (static_cast<int>(out.size()) < n) {
    const Eigen::VectorXd x = test::randomVector(rng, features);
    const Eigen::VectorXd scores = hidden * x;
    Eigen::Index best;
    const double top = scores.maxCoeff(&best);
    double second = -std::numeric_limits<double>::infinity();
    for (Eigen::Index y = 0; y < classes; ++y) {
      if (y != best) second = std::max(second, scores[y]);
    }
    if (top - second >= 0.5) out.push_back(std::make_unique<MulticlassExample>(x, static_cast<int>(best), classes));
  }
  return out;
}

}  // namespace

TEST_CASE("both learners reach the exact optimum of a tiny strongly convex problem (q = 1 and 2)") {
  for (int q : {1, 2}) {
    const TinyRanking problem(21 + q, 0.2, q);
    const double exact = problem.exactMinimum();
    const ExampleList list = test::listOf(problem.pairs);
    // c(0) = 1 bounds |w*| by sqrt(2/lambda): projecting onto that ball (as Pegasos does) leaves the
    // optimum unchanged and keeps the first 1/(lambda t) steps of the squared hinge from overshooting.
    const auto ball = std::make_shared<L2BallProjection>(std::sqrt(2.0 / problem.lambda));

    BatchSubgradient::Params bp;
    bp.lambda = problem.lambda;
    bp.q = q;
    bp.steps = StepSchedule::gammaOverT(1.0 / problem.lambda);
    bp.averaging = Averaging::LateWeighted;
    bp.projection = ball;
    bp.stop.max_iterations = 20000;
    BatchSubgradient batch(bp);
    batch.train(list);

    OnlineGreedyProjection::Params op;
    op.lambda = problem.lambda;
    op.q = q;
    op.averaging = Averaging::LateWeighted;
    op.projection = ball;
    op.stop.max_iterations = 5000;  // epochs: 40000 rounds
    OnlineGreedyProjection online(op);
    const Eigen::VectorXd w_online = online.train(list);
    const double online_value = Objective(list, {problem.lambda, q}).evaluate(w_online).value;

    CAPTURE(q);
    CAPTURE(exact);
    CHECK(batch.info() == Info::Success);
    CHECK(batch.objective() == doctest::Approx(problem.objective(batch.weights()[0], batch.weights()[1])).epsilon(1e-12));
    CHECK(std::abs(batch.objective() - exact) <= 1e-3 * exact);
    CHECK(std::abs(online_value - exact) <= 1e-3 * exact);
    CHECK(std::abs(online_value - batch.objective()) <= 1e-3 * batch.objective());
    CHECK(batch.objective() >= exact - 1e-9);  // nothing beats the optimum
  }
}

TEST_CASE("batch results are identical, bit for bit, with 1 and 2 threads") {
  Random rng(5);
  auto examples = test::randomMulticlass(rng, 300, 6, 10);
  Eigen::VectorXd weights[2];
  double objectives[2];
  for (int threads : {1, 2}) {
    BatchSubgradient::Params p;
    p.lambda = 0.01;
    p.steps = StepSchedule::constant(0.5);
    p.averaging = Averaging::Uniform;
    p.stop.max_iterations = 40;
    p.threads = threads;
    BatchSubgradient learner(p);
    weights[threads - 1] = learner.train(test::listOf(examples));
    objectives[threads - 1] = learner.objective();
  }
  CHECK(weights[0].size() == 60);
  CHECK(weights[0].norm() > 0.0);
  CHECK(weights[0] == weights[1]);
  CHECK(objectives[0] == objectives[1]);
}

TEST_CASE("online Greedy Projection: cumulative loss grows sublinearly on a separable stream") {
  const auto stream = separableStream(3, 3000, 4, 6);
  OnlineGreedyProjection::Params p;
  p.lambda = 1e-3;
  p.stop.max_iterations = 1;
  OnlineGreedyProjection learner(p);
  long callbacks = 0;
  learner.setCallback([&](const TraceRecord& r) {
    ++callbacks;
    CHECK(r.iteration == callbacks);
    return true;
  });
  learner.train(test::listOf(stream));
  const auto& losses = learner.predictionLosses();
  REQUIRE(losses.size() == 3000);
  CHECK(callbacks == 3000);
  double first = 0.0, last = 0.0;
  for (int t = 0; t < 300; ++t) first += losses[t], last += losses[2700 + t];
  CAPTURE(first / 300.0);
  CAPTURE(last / 300.0);
  CHECK(last < first);
  CHECK(last / 300.0 < 0.5 * first / 300.0);
  CHECK(learner.cumulativeLoss() == doctest::Approx(std::accumulate(losses.begin(), losses.end(), 0.0)));
  CHECK(learner.info() == Info::Success);
}

TEST_CASE("online Greedy Projection with a prior: its first step is the plain learner's step added to the prior, and a strong prior holds") {
  Random rng(17);
  auto examples = test::randomMulticlass(rng, 1, 4, 5);
  const ExampleList list = test::listOf(examples);
  const Eigen::VectorXd prior = test::randomVector(rng, list.front()->dimension());
  OnlineGreedyProjection::Params p;
  p.lambda = 0.5;
  p.stop.max_iterations = 1;
  OnlineGreedyProjection plain(p);
  // from the prior, the plain step is (1 - eta lambda) w - eta g = -eta g with eta = 1 / lambda
  const Eigen::VectorXd plain_step = plain.train(list, prior);
  p.prior = prior;
  OnlineGreedyProjection pulled(p);
  const Eigen::VectorXd with_prior = pulled.train(list, prior);
  for (Eigen::Index k = 0; k < prior.size(); ++k) CHECK(with_prior[k] == doctest::Approx(prior[k] + plain_step[k]));

  auto many = test::randomMulticlass(rng, 50, 4, 5);
  p.lambda = 1e9;
  p.stop.max_iterations = 5;
  OnlineGreedyProjection strong(p);
  CHECK((strong.train(test::listOf(many), prior) - prior).norm() < 1e-6 * prior.norm());
  p.prior = Eigen::VectorXd::Zero(prior.size() + 1);
  OnlineGreedyProjection wrong(p);
  CHECK_THROWS_WITH_AS(wrong.train(test::listOf(many)), doctest::Contains("the prior has"), InvalidArgument);
}

TEST_CASE("a step that turns NaN never overwrites the last good weights") {
  PoisonedExample poisoned;
  const ExampleList list = {&poisoned};
  BatchSubgradient::Params bp;
  bp.lambda = 0.1;
  bp.steps = StepSchedule::constant(0.3);
  bp.stop.max_iterations = 50;
  BatchSubgradient batch(bp);
  batch.train(list);
  CHECK(batch.info() == Info::NumericalIssue);
  CHECK(batch.weights().allFinite());
  CHECK(batch.weights()[0] > 0.5);  // the last finite iterate, the one whose oracle failed
  CHECK(batch.message().find("kept") != std::string::npos);

  OnlineGreedyProjection::Params op;
  op.lambda = 0.1;
  op.stop.max_iterations = 50;
  OnlineGreedyProjection online(op);
  online.train(list);
  CHECK(online.info() == Info::NumericalIssue);
  CHECK(online.weights().allFinite());
}

// An example whose hinge 100 - w[0] stays open: every step raises w[0], towards 1 / lambda.
class RisingExample final : public StructuredExample {
 public:
  Eigen::Index dimension() const override { return 2; }
  void solve(const Eigen::VectorXd&, double loss_weight, OracleResult& r) const override {
    r.output = {loss_weight > 0.0 ? 1 : 0};
    r.psi_output.resetDense(2) << -1.0, 0.0;
    r.psi_target.resetDense(2) << 0.0, 0.0;
    r.loss = loss_weight > 0.0 ? 100.0 : 0.0;
  }
};

TEST_CASE("every learner stops at the last weights the weight check accepts, and says why") {
  RisingExample rising;
  const ExampleList list = {&rising};
  for (LearnerKind kind : {LearnerKind::Batch, LearnerKind::Online, LearnerKind::CuttingPlane}) {
    CAPTURE(describe(kind));
    LearnerSettings settings;
    settings.kind = kind;
    settings.setLambda(0.1);
    settings.setPasses(200);
    settings.batch.steps = StepSchedule::constant(0.1);
    // Without a check w[0] runs far: the bound below is half of where it ends.
    const double bound = makeLearner(settings)->train(list)[0] / 2.0;
    REQUIRE(bound > 1.0);
    const std::unique_ptr<Learner> learner = makeLearner(settings);
    learner->setWeightCheck([bound](const Eigen::VectorXd& w) {
      return w[0] > bound ? "puts w[0] = " + std::to_string(w[0]) + " above the bound" : std::string();
    });
    const Eigen::VectorXd w = learner->train(list);
    CHECK(learner->info() == Info::NumericalIssue);
    CHECK(w[0] <= bound);
    CHECK(learner->message().find("above the bound; kept the") != std::string::npos);
    if (kind == LearnerKind::Batch) CHECK(w[0] > bound / 2.0);  // small steps: it stopped near the bound
  }
}

TEST_CASE("stopping by tolerance, time budget and callback is reported through info()") {
  // Ranking pairs with q = 2: the squared hinge is smooth, so constant steps converge and the
  // tolerance on the step length is met.
  const TinyRanking problem(6, 1.0, 2);
  const ExampleList list = test::listOf(problem.pairs);
  BatchSubgradient::Params p;
  p.lambda = 1.0;
  p.q = 2;
  p.steps = StepSchedule::constant(0.05);  // below 2/L for this problem's gradient Lipschitz constant
  p.stop.max_iterations = 100000;
  p.stop.tolerance = 1e-10;
  BatchSubgradient converging(p);
  converging.train(list);
  CHECK(converging.info() == Info::Success);
  CHECK(converging.iterations() < 100000);

  p.stop.tolerance = 1e-300;
  p.stop.max_iterations = 3;
  BatchSubgradient capped(p);
  capped.train(list);
  CHECK(capped.info() == Info::NoConvergence);
  CHECK(capped.iterations() == 3);
  CHECK(capped.trace().size() == 3);

  p.stop.time_budget_seconds = 0.0;
  BatchSubgradient timed(p);
  timed.train(list);
  CHECK(timed.info() == Info::NoConvergence);
  CHECK(timed.message().find("time budget") != std::string::npos);

  p.stop = StopCriteria{};
  BatchSubgradient cancelled(p);
  cancelled.setCallback([](const TraceRecord& r) { return r.iteration < 4; });
  cancelled.train(list);
  CHECK(cancelled.iterations() == 4);
  CHECK(cancelled.message().find("callback") != std::string::npos);
}

TEST_CASE("online mini-batches: k = 1 is the single-example learner bit for bit, and no result depends on the threads") {
  Random rng(11);
  auto examples = test::randomMulticlass(rng, 50, 4, 5);
  const ExampleList list = test::listOf(examples);
  const auto box = std::make_shared<BoxProjection>(BoxProjection::nonnegative(20));
  OnlineGreedyProjection::Params p;
  p.lambda = 0.05;
  p.projection = box;
  p.shuffle = true;
  p.seed = 4;
  p.stop.max_iterations = 3;

  // The single-example learner written out: shuffled order, predict, loss-augmented call,
  // w <- P[(1 - eta lambda) w - eta g_t] with eta = 1/(lambda t), the last iterate returned.
  Eigen::VectorXd w = Eigen::VectorXd::Zero(20), next;
  std::vector<std::size_t> order(list.size());
  std::iota(order.begin(), order.end(), 0);
  Random shuffler(p.seed);
  std::vector<double> losses;
  OracleResult prediction, augmented;
  long t = 0;
  for (long epoch = 0; epoch < p.stop.max_iterations; ++epoch) {
    shuffler.shuffle(order.begin(), order.end());
    for (std::size_t i : order) {
      list[i]->solve(w, 0.0, prediction);
      list[i]->solve(w, 1.0, augmented);
      losses.push_back(prediction.loss);
      const double eta = 1.0 / (p.lambda * static_cast<double>(++t));
      next = (1.0 - eta * p.lambda) * w;
      addTermSubgradient(augmented, w, p.q, -eta, next);
      box->project(next);
      w.swap(next);
    }
  }
  REQUIRE(w.norm() > 0.0);

  for (int threads : {1, 2, 3}) {
    OnlineGreedyProjection::Params single = p;
    single.threads = threads;
    OnlineGreedyProjection learner(single);
    CAPTURE(threads);
    CHECK(learner.train(list) == w);
    CHECK(learner.predictionLosses() == losses);
    CHECK(learner.iterations() == 150);
  }

  // k = 4 (50 = 12 x 4 + 2: each epoch ends with a step of 2): the same weights with any thread
  // count, ceil(50 / 4) = 13 steps an epoch, a prediction per example, and not the k = 1 weights.
  Eigen::VectorXd batched[3];
  for (int threads : {1, 2, 0}) {
    OnlineGreedyProjection::Params mini = p;
    mini.batch = 4;
    mini.threads = threads;
    OnlineGreedyProjection learner(mini);
    long callbacks = 0;
    learner.setCallback([&](const TraceRecord& r) {
      CHECK(r.iteration == ++callbacks);
      return true;
    });
    batched[threads == 0 ? 2 : threads - 1] = learner.train(list);
    CAPTURE(threads);
    CHECK(learner.iterations() == 39);
    CHECK(callbacks == 39);
    CHECK(learner.predictionLosses().size() == 150);
    CHECK(box->contains(learner.weights()));
  }
  CHECK(batched[0] == batched[1]);
  CHECK(batched[0] == batched[2]);
  CHECK(batched[0] != w);

  // The mini-batch step is the mean of the batch's terms: one epoch of one step over all the
  // examples (k = n) from w = 0, eta = 1 / lambda, is -1/(lambda n) sum_i g_i, projected.
  OnlineGreedyProjection::Params whole = p;
  whole.batch = 1000;  // more than the examples: one step of all of them
  whole.stop.max_iterations = 1;
  OnlineGreedyProjection one_step(whole);
  Eigen::VectorXd expected = Eigen::VectorXd::Zero(20);
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(20);
  for (const StructuredExample* e : list) {
    e->solve(zero, 1.0, augmented);
    addTermSubgradient(augmented, zero, p.q, -1.0 / (p.lambda * static_cast<double>(list.size())), expected);
  }
  box->project(expected);
  CHECK((one_step.train(list) - expected).norm() <= 1e-12 * std::max(1.0, expected.norm()));
  CHECK(one_step.iterations() == 1);

  // A learner setting says how many steps the progress bar counts, and refuses bad values.
  LearnerSettings settings;
  settings.kind = LearnerKind::Online;
  settings.online.stop.max_iterations = 3;
  settings.online.batch = 4;
  CHECK(settings.callbacks(50) == 39);
  CHECK(settings.describe().find("mini-batches of 4") != std::string::npos);
  settings.online.batch = 0;
  CHECK_THROWS_AS(makeLearner(settings), InvalidArgument);
  settings.online.batch = 1;
  settings.online.threads = -1;
  CHECK_THROWS_AS(makeLearner(settings), InvalidArgument);
}

TEST_CASE("learners keep w in the projection's set and refuse bad parameters") {
  Random rng(7);
  auto examples = test::randomMulticlass(rng, 40, 3, 4);
  const auto box = std::make_shared<BoxProjection>(BoxProjection::nonnegative(12).withLowerBound(11, 2.0));
  BatchSubgradient::Params bp;
  bp.projection = box;
  bp.stop.max_iterations = 20;
  BatchSubgradient batch(bp);
  batch.setCallback([&](const TraceRecord&) {
    CHECK(box->contains(batch.weights()));
    return true;
  });
  CHECK(box->contains(batch.train(test::listOf(examples))));

  OnlineGreedyProjection::Params op;
  op.projection = box;
  op.stop.max_iterations = 2;
  OnlineGreedyProjection online(op);
  CHECK(box->contains(online.train(test::listOf(examples))));

  op.lambda = 0.0;
  CHECK_THROWS_AS(OnlineGreedyProjection{op}, InvalidArgument);
  bp.q = 3;
  CHECK_THROWS_AS(BatchSubgradient{bp}, InvalidArgument);
  bp.q = 1;
  BatchSubgradient ok(bp);
  CHECK_THROWS_AS(ok.train(test::listOf(examples), Eigen::VectorXd::Zero(3)), InvalidArgument);
  CHECK_THROWS_AS(ok.train({}), InvalidArgument);
}
