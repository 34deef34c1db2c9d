// The likelihood objective (mmp/core/likelihood_objective.hpp) and the online and batch learners
// training it through the marginal interface.
#include "support.hpp"

#include <mmp/core/error.hpp>
#include <mmp/core/likelihood_objective.hpp>
#include <mmp/learners/learner_settings.hpp>

#include <doctest/doctest.h>

#include <cmath>

using namespace mmp;

namespace {

// c(w) of the likelihood objective written out from the enumerated examples' own lists (no library
// call): lambda/2 |w|^2 + 1/n sum_i beta_i (log sum_k exp(w.psi_ik) - w.psi_i,target).
double referenceObjective(const std::vector<std::unique_ptr<test::EnumeratedExample>>& examples, double lambda,
                          const Eigen::VectorXd& w) {
  double risk = 0.0;
  for (const auto& e : examples) {
    double z = 0.0;
    for (Eigen::Index k = 0; k < e->psi().cols(); ++k) z += std::exp(e->psi().col(k).dot(w));
    risk += e->beta() * (std::log(z) - e->psi().col(e->target()).dot(w));
  }
  return 0.5 * lambda * w.squaredNorm() + risk / static_cast<double>(examples.size());
}

// The minimiser by Newton's method on the written-out objective: gradient and Hessian (lambda I plus
// the beta-weighted covariances of psi under the softmax) from the lists, to machine precision.
Eigen::VectorXd newtonMinimum(const std::vector<std::unique_ptr<test::EnumeratedExample>>& examples, double lambda) {
  const Eigen::Index d = examples.front()->dimension();
  const double n = static_cast<double>(examples.size());
  Eigen::VectorXd w = Eigen::VectorXd::Zero(d);
  for (int iteration = 0; iteration < 50; ++iteration) {
    Eigen::VectorXd g = lambda * w;
    Eigen::MatrixXd h = lambda * Eigen::MatrixXd::Identity(d, d);
    for (const auto& e : examples) {
      const Eigen::VectorXd scores = e->psi().transpose() * w;
      Eigen::VectorXd p = (scores.array() - scores.maxCoeff()).exp().matrix();
      p /= p.sum();
      const Eigen::VectorXd mean = e->psi() * p;
      g += e->beta() / n * (mean - e->psi().col(e->target()));
      const Eigen::MatrixXd centred = e->psi().colwise() - mean;
      h += e->beta() / n * centred * p.asDiagonal() * centred.transpose();
    }
    w -= h.ldlt().solve(g);
    if (g.norm() < 1e-13) break;
  }
  return w;
}

}  // namespace

TEST_CASE("likelihood objective: the value is written out, the gradient is a central finite difference") {
  Random rng(3);
  for (int trial = 0; trial < 10; ++trial) {
    const int d = test::randomInt(rng, 1, 6);
    const auto examples = test::randomEnumerated(rng, test::randomInt(rng, 1, 7), d, test::randomInt(rng, 2, 5));
    const double lambda = trial % 3 == 0 ? 0.0 : rng.uniform(0.01, 1.0);
    const LikelihoodObjective objective(test::listOf(examples), lambda);
    const Eigen::VectorXd w = test::randomVector(rng, d);
    Eigen::VectorXd g;
    const double value = objective.evaluate(w, &g);
    CAPTURE(trial);
    CHECK(value == doctest::Approx(referenceObjective(examples, lambda, w)).epsilon(1e-12));
    for (Eigen::Index j = 0; j < d; ++j) {
      const double h = 1e-5;
      Eigen::VectorXd up = w, down = w;
      up[j] += h;
      down[j] -= h;
      const double difference = (objective.evaluate(up) - objective.evaluate(down)) / (2.0 * h);
      CHECK(g[j] == doctest::Approx(difference).epsilon(1e-6).scale(1.0));
    }
    // the same value and gradient, bit for bit, on a thread pool
    ThreadPool pool(2);
    Eigen::VectorXd pooled;
    CHECK(objective.evaluate(w, &pooled, &pool) == value);
    CHECK(pooled == g);
  }
}

TEST_CASE("online Greedy Projection and the batch learner reach the likelihood optimum that Newton's method finds") {
  Random rng(17);
  const auto examples = test::randomEnumerated(rng, 8, 3, 4);
  const ExampleList list = test::listOf(examples);
  const double lambda = 0.2;
  const Eigen::VectorXd exact_w = newtonMinimum(examples, lambda);
  const double exact = referenceObjective(examples, lambda, exact_w);

  LearnerSettings settings;
  settings.objective = TrainingObjective::Likelihood;
  settings.kind = LearnerKind::Batch;
  settings.batch.lambda = lambda;
  settings.batch.steps = StepSchedule::constant(1.0);  // below 2 / L: L <= lambda + max |psi|^2 spread
  settings.batch.stop.max_iterations = 3000;
  const std::unique_ptr<Learner> batch = makeLearner(settings);
  batch->train(list);

  settings.kind = LearnerKind::Online;
  settings.online.lambda = lambda;
  settings.online.averaging = Averaging::LateWeighted;
  settings.online.stop.max_iterations = 4000;  // epochs: 32000 rounds
  const std::unique_ptr<Learner> online = makeLearner(settings);
  const Eigen::VectorXd w_online = online->train(list);
  const double online_value = referenceObjective(examples, lambda, w_online);

  CAPTURE(exact);
  CHECK(batch->info() == Info::Success);
  CHECK(batch->objective() == doctest::Approx(referenceObjective(examples, lambda, batch->weights())).epsilon(1e-12));
  CHECK(batch->objective() >= exact - 1e-12);  // nothing beats the optimum
  CHECK(batch->objective() - exact <= 1e-9 * exact);
  CHECK((batch->weights() - exact_w).norm() <= 1e-5);
  CHECK(online_value - exact <= 1e-3 * exact);
  CHECK(std::string(batch->traceValueName()) == "objective c(w), likelihood");
  CHECK(batch->trace().front().value > batch->trace().back().value);
}

TEST_CASE("likelihood objective: an example without marginals, and learners that cannot train it, are refused by name") {
  Random rng(5);
  auto enumerated = test::randomEnumerated(rng, 2, 6, 3);
  auto multiclass = test::randomMulticlass(rng, 1, 2, 3);  // dimension 2 x 3 = 6
  const ExampleList list = {enumerated[0].get(), enumerated[1].get(), multiclass[0].get()};
  for (LearnerKind kind : {LearnerKind::Batch, LearnerKind::Online}) {
    LearnerSettings settings;
    settings.kind = kind;
    settings.objective = TrainingObjective::Likelihood;
    settings.setPasses(2);
    const std::unique_ptr<Learner> learner = makeLearner(settings);
    CAPTURE(describe(kind));
    CHECK_THROWS_WITH_AS(learner->train(list), doctest::Contains("example 2 does not implement MarginalExample"),
                         InvalidArgument);
    CHECK_THROWS_WITH_AS(learner->train(list), doctest::Contains("likelihood objective"), InvalidArgument);
    CHECK(settings.describe().find(", likelihood objective") != std::string::npos);
    settings.objective = TrainingObjective::Margin;
    CHECK_NOTHROW(makeLearner(settings)->train(list));  // the margin objective needs no marginals
  }
  for (LearnerKind kind : {LearnerKind::CuttingPlane, LearnerKind::Dlpw}) {
    LearnerSettings settings;
    settings.kind = kind;
    settings.objective = TrainingObjective::Likelihood;
    CHECK_THROWS_WITH_AS(makeLearner(settings), doctest::Contains("margin objective only"), InvalidArgument);
  }
  CHECK(parseTrainingObjective("margin") == TrainingObjective::Margin);
  CHECK(parseTrainingObjective("likelihood") == TrainingObjective::Likelihood);
  CHECK(describe(TrainingObjective::Likelihood) == "likelihood");
  CHECK_THROWS_WITH_AS(parseTrainingObjective("maxent"), "objective 'maxent': expected margin or likelihood",
                       InvalidArgument);
  CHECK_THROWS_AS(LikelihoodObjective(test::listOf(enumerated), -1.0), InvalidArgument);
  CHECK_THROWS_AS(LikelihoodObjective(test::listOf(enumerated), 0.1).evaluate(Eigen::VectorXd::Zero(5)), InvalidArgument);
}

TEST_CASE("L-BFGS reaches the likelihood optimum that Newton's method finds, the same at any thread count") {
  Random rng(23);
  const auto examples = test::randomEnumerated(rng, 12, 5, 4);
  const ExampleList list = test::listOf(examples);
  const double lambda = 0.05;
  const Eigen::VectorXd exact_w = newtonMinimum(examples, lambda);
  const double exact = referenceObjective(examples, lambda, exact_w);

  LearnerSettings settings;
  settings.objective = TrainingObjective::Likelihood;
  settings.kind = LearnerKind::Lbfgs;
  settings.lbfgs.lambda = lambda;
  settings.lbfgs.stop.tolerance = 1e-7;
  settings.lbfgs.delta = 0.0;  // the gradient test alone
  const std::unique_ptr<Learner> lbfgs = makeLearner(settings);
  long callbacks = 0;
  lbfgs->setCallback([&](const TraceRecord&) { return ++callbacks > 0; });
  const Eigen::VectorXd w = lbfgs->train(list);
  CAPTURE(lbfgs->message());
  CHECK(lbfgs->info() == Info::Success);
  CHECK(lbfgs->objective() == doctest::Approx(referenceObjective(examples, lambda, w)).epsilon(1e-12));
  CHECK(lbfgs->objective() >= exact - 1e-12);
  CHECK(lbfgs->objective() - exact <= 1e-12 * exact + 1e-14);
  CHECK((w - exact_w).norm() <= 1e-6);
  // far fewer passes than the batch learner's 3000 iterations above
  CHECK(lbfgs->iterations() >= 2);
  CHECK(lbfgs->passes() >= lbfgs->iterations());
  CHECK(lbfgs->passes() <= 100);
  CHECK(callbacks == lbfgs->iterations());
  CHECK(static_cast<long>(lbfgs->trace().size()) == lbfgs->iterations());
  for (std::size_t i = 1; i < lbfgs->trace().size(); ++i) CHECK(lbfgs->trace()[i].value <= lbfgs->trace()[i - 1].value);

  settings.lbfgs.threads = 2;
  const std::unique_ptr<Learner> pooled = makeLearner(settings);
  CHECK(pooled->train(list) == w);  // bit for bit
  CHECK(settings.describe().find("L-BFGS, lambda 0.05") != std::string::npos);
}

TEST_CASE("L-BFGS keeps the last accepted iterate when the weight check refuses one, and stops on budgets") {
  Random rng(29);
  const auto examples = test::randomEnumerated(rng, 10, 4, 3);
  const ExampleList list = test::listOf(examples);
  LearnerSettings settings;
  settings.objective = TrainingObjective::Likelihood;
  settings.kind = LearnerKind::Lbfgs;
  settings.lbfgs.lambda = 1e-3;  // the optimum lies far out
  const Eigen::VectorXd optimum = makeLearner(settings)->train(list);
  const double bound = 0.5 * optimum.norm();
  REQUIRE(bound > 0.0);

  const std::unique_ptr<Learner> checked = makeLearner(settings);
  checked->setWeightCheck([bound](const Eigen::VectorXd& w) {
    return w.norm() <= bound ? std::string() : "leaves the ball of radius " + std::to_string(bound);
  });
  const Eigen::VectorXd kept = checked->train(list);
  CHECK(checked->info() == Info::NumericalIssue);
  CHECK(checked->message().find("leaves the ball") != std::string::npos);
  CHECK(checked->message().find("kept the last accepted weights") != std::string::npos);
  CHECK(kept.norm() <= bound);
  CHECK(kept == checked->weights());

  settings.lbfgs.stop.max_iterations = 2;
  const std::unique_ptr<Learner> short_run = makeLearner(settings);
  short_run->train(list);
  CHECK(short_run->info() == Info::NoConvergence);
  CHECK(short_run->iterations() == 2);
  CHECK(short_run->message() == "reached max_iterations = 2");

  settings.lbfgs.stop.max_iterations = 200;
  const std::unique_ptr<Learner> stopped = makeLearner(settings);
  stopped->setCallback([](const TraceRecord& r) { return r.iteration < 3; });
  stopped->train(list);
  CHECK(stopped->info() == Info::NoConvergence);
  CHECK(stopped->message() == "stopped by the callback at iteration 3");
  CHECK(stopped->weights().norm() == stopped->trace().back().weight_norm);  // the iterate of iteration 3
  CHECK(stopped->trace().size() == 3);
}

TEST_CASE("L-BFGS trains the likelihood objective only, and refuses examples without marginals by name") {
  LearnerSettings settings;
  settings.kind = LearnerKind::Lbfgs;
  CHECK_THROWS_WITH_AS(makeLearner(settings), doctest::Contains("lbfgs trains the likelihood objective only"),
                       InvalidArgument);
  settings.objective = TrainingObjective::Likelihood;
  Random rng(5);
  auto enumerated = test::randomEnumerated(rng, 2, 6, 3);
  auto multiclass = test::randomMulticlass(rng, 1, 2, 3);
  const ExampleList list = {enumerated[0].get(), enumerated[1].get(), multiclass[0].get()};
  CHECK_THROWS_WITH_AS(makeLearner(settings)->train(list), doctest::Contains("example 2 does not implement MarginalExample"),
                       InvalidArgument);
  settings.lbfgs.memory = 0;
  CHECK_THROWS_WITH_AS(makeLearner(settings), "L-BFGS: memory must be >= 1", InvalidArgument);
  CHECK(parseLearnerKind("lbfgs") == LearnerKind::Lbfgs);
  CHECK(describe(LearnerKind::Lbfgs) == "lbfgs");
}
