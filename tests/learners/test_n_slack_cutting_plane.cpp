#include "learners/learner_fixtures.hpp"
#include "support.hpp"

#include <mmp/core/error.hpp>
#include <mmp/core/objective.hpp>
#include <mmp/core/tasks/chain.hpp>
#include <mmp/learners/cutting_plane.hpp>
#include <mmp/learners/n_slack_cutting_plane.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

using namespace mmp;

namespace {

// c(w) = lambda/2 (w - w0)' M (w - w0) + 1/n sum_i beta_i h_i(w), as the learner defines it.
double objectiveWithPrior(const ExampleList& list, const NSlackCuttingPlane::Params& p, const Eigen::VectorXd& w) {
  const Eigen::VectorXd d = w - p.prior;
  const double prior = 0.5 * p.lambda * (p.prior_metric.size() == 0 ? d.squaredNorm() : d.dot(p.prior_metric * d));
  return prior + Objective(list, {0.0, 1}).evaluate(w).value;
}

// Constraints w >= 0 and a half-space through the prior's neighbourhood, a metric with a strong and a
// weak direction, a prior away from 0: every part of the problem the adaptation uses.
NSlackCuttingPlane::Params constrainedProblem(Random& rng, Eigen::Index d) {
  NSlackCuttingPlane::Params p;
  p.lambda = 0.05;
  p.prior = test::randomVector(rng, d).cwiseAbs();
  Eigen::MatrixXd a(d, d);
  for (Eigen::Index r = 0; r < d; ++r) {
    for (Eigen::Index s = 0; s < d; ++s) a(r, s) = rng.normal();
  }
  p.prior_metric = a.transpose() * a / static_cast<double>(d) + 1e-2 * Eigen::MatrixXd::Identity(d, d);
  for (Eigen::Index j = 0; j < d; ++j) p.constraints.push_back({Eigen::VectorXd::Unit(d, j), 0.0});
  p.constraints.push_back({Eigen::VectorXd::Ones(d), 0.5 * p.prior.sum()});
  return p;
}

}  // namespace

TEST_CASE("n-slack cutting plane: without prior or constraints it reaches the 1-slack cutting plane's certified optimum") {
  Random rng(71);
  const auto examples = test::noisyLinearMulticlass(rng, 50, 4, 5);
  const ExampleList list = test::listOf(examples);
  CuttingPlane::Params one;
  one.lambda = 0.02;
  one.stop.tolerance = 1e-10;
  CuttingPlane reference(one);
  reference.train(list);
  REQUIRE(reference.info() == Info::Success);
  NSlackCuttingPlane::Params p;
  p.lambda = 0.02;
  NSlackCuttingPlane learner(p);
  const Eigen::VectorXd w = learner.train(list);
  CAPTURE(learner.message());
  CHECK(learner.info() == Info::Success);
  CHECK(learner.gap() >= -1e-12);
  CHECK(learner.gap() <= 1e-9 * learner.objective());
  CHECK(learner.objective() == doctest::Approx(reference.objective()).epsilon(1e-8));
  CHECK(learner.objective() == doctest::Approx(Objective(list, {0.02, 1}).evaluate(w).value).epsilon(1e-12));
  CHECK((w - reference.weights()).norm() <= 1e-3 * w.norm());  // the 1-slack answer is within its gap
}

TEST_CASE("n-slack cutting plane: with a prior, a metric and constraints the answer is the constrained optimum") {
  Random rng(72);
  const auto data = test::randomChains(rng, 20, 3, 4, 1, 5);
  const auto examples = test::chainExamples(data, ChainOptions{true, 1.0, 1.0});
  const ExampleList list = test::listOf(examples);
  const Eigen::Index d = list.front()->dimension();
  const NSlackCuttingPlane::Params p = constrainedProblem(rng, d);
  NSlackCuttingPlane learner(p);
  const Eigen::VectorXd w = learner.train(list);
  CAPTURE(learner.message());
  REQUIRE(learner.info() == Info::Success);
  for (const LinearConstraint& c : p.constraints) CHECK(c.normal.dot(w) >= c.bound - 1e-9);
  const double best = objectiveWithPrior(list, p, w);
  CHECK(learner.objective() == doctest::Approx(best).epsilon(1e-12));
  CHECK(learner.gap() <= 1e-9 * best);
  // No feasible point nearby is better: random moves, each pulled back into the constraints.
  for (int k = 0; k < 200; ++k) {
    Eigen::VectorXd v = w + test::randomVector(rng, d, 1e-3 * (1 + k % 10));
    v = v.cwiseMax(0.0);
    const LinearConstraint& half = p.constraints.back();
    if (half.normal.dot(v) < half.bound) v += (half.bound - half.normal.dot(v)) / half.normal.squaredNorm() * half.normal;
    CHECK(objectiveWithPrior(list, p, v) >= best - 1e-12 * best);
  }
}

TEST_CASE("n-slack cutting plane: the answer depends on the set of examples alone") {
  Random rng(73);
  const auto data = test::randomChains(rng, 16, 3, 4, 1, 5);
  const auto examples = test::chainExamples(data, ChainOptions{true, 1.0, 1.0});
  ExampleList list = test::listOf(examples);
  NSlackCuttingPlane::Params p = constrainedProblem(rng, list.front()->dimension());
  NSlackCuttingPlane first(p);
  const Eigen::VectorXd w = first.train(list);
  REQUIRE(first.info() == Info::Success);
  std::reverse(list.begin(), list.end());
  p.threads = 2;
  NSlackCuttingPlane reversed(p);
  const Eigen::VectorXd started_elsewhere = reversed.train(list, Eigen::VectorXd::Constant(w.size(), 3.0));
  REQUIRE(reversed.info() == Info::Success);
  CAPTURE(first.iterations());
  CAPTURE(reversed.iterations());
  CHECK((started_elsewhere - w).norm() <= 1e-9 * w.norm());
}

TEST_CASE("n-slack cutting plane: budgets, a failing oracle and bad parameters") {
  Random rng(74);
  const auto examples = test::noisyLinearMulticlass(rng, 30, 4, 5);
  const ExampleList list = test::listOf(examples);
  NSlackCuttingPlane::Params p;
  p.lambda = 0.01;
  p.stop.max_iterations = 1;
  NSlackCuttingPlane short_run(p);
  short_run.train(list);
  CHECK(short_run.info() == Info::NoConvergence);
  CHECK(short_run.iterations() == 1);

  p.stop.max_iterations = 200;
  const test::FailingAfter failing(*list.front(), 2, true);
  ExampleList with_failing = list;
  with_failing.front() = &failing;
  NSlackCuttingPlane failed(p);
  const Eigen::VectorXd kept = failed.train(with_failing);
  CHECK(failed.info() == Info::NumericalIssue);
  CHECK(kept.allFinite());
  CHECK(failed.message().find("kept the last good weights") != std::string::npos);

  const auto refused = [](NSlackCuttingPlane::Params bad, const char* what) {
    CAPTURE(what);
    CHECK_THROWS_WITH_AS(NSlackCuttingPlane{bad}, doctest::Contains(what), InvalidArgument);
  };
  NSlackCuttingPlane::Params bad = p;
  bad.lambda = 0.0;
  refused(bad, "lambda");
  bad = p;
  bad.prior_metric = -Eigen::MatrixXd::Identity(5 * 4, 5 * 4);
  refused(bad, "positive definite");
  bad = p;
  bad.constraints.push_back({Eigen::VectorXd::Zero(20), 1.0});
  refused(bad, "constraint 0");
  bad = p;
  bad.stop.tolerance = 0.0;
  refused(bad, "tolerance");
  bad = p;
  bad.prior = Eigen::VectorXd::Zero(3);
  NSlackCuttingPlane wrong_size(bad);
  CHECK_THROWS_WITH_AS(wrong_size.train(list), doctest::Contains("prior has 3 entries"), InvalidArgument);
}

TEST_CASE("n-slack cutting plane: a warm start from its working sets gives the same answer in fewer passes") {
  Random rng(75);
  const auto data = test::randomChains(rng, 16, 3, 4, 1, 5);
  const auto examples = test::chainExamples(data, ChainOptions{true, 1.0, 1.0});
  const ExampleList list = test::listOf(examples);
  NSlackCuttingPlane::Params p = constrainedProblem(rng, list.front()->dimension());
  NSlackCuttingPlane cold(p);
  const Eigen::VectorXd w = cold.train(list);
  REQUIRE(cold.info() == Info::Success);
  REQUIRE(cold.iterations() > 2);
  p.warm_start = cold.workingSets();
  NSlackCuttingPlane warm(p);
  CHECK((warm.train(list) - w).norm() <= 1e-12 * w.norm());
  CHECK(warm.info() == Info::Success);
  CHECK(warm.iterations() == 1);  // the sets hold the optimum's outputs: one pass confirms it
  const auto held = [](const NSlackCuttingPlane& l) {
    std::size_t outputs = 0;
    for (const auto& set : l.workingSets()) outputs += set.size();
    return outputs;
  };
  CHECK(held(warm) == held(cold));
  CHECK(held(cold) < static_cast<std::size_t>(cold.outputs()));  // only the outputs that bind are kept
  p.warm_start.pop_back();
  CHECK_THROWS_WITH_AS(NSlackCuttingPlane(p).train(list), doctest::Contains("15 working sets for 16 examples"), InvalidArgument);
}
