// Block-coordinate Frank-Wolfe (mmp/learners/bcfw.hpp) against the cutting plane's certified optimum.
#include "learners/learner_fixtures.hpp"
#include "support.hpp"

#include <mmp/core/error.hpp>
#include <mmp/core/objective.hpp>
#include <mmp/learners/bcfw.hpp>
#include <mmp/learners/cutting_plane.hpp>
#include <mmp/learners/learner_settings.hpp>

#include <doctest/doctest.h>

#include <cmath>

using namespace mmp;

namespace {

// What BCFW promises on `list`: the cutting plane's optimum (certified to a relative gap of 1e-6)
// within a relative 1e-3, a duality gap >= 0 at every certificate that shrinks over the run, a dual
// value below the optimum, and c(w) as an independent evaluation gives it.
void checkAgainstCuttingPlane(const ExampleList& list, double lambda) {
  CuttingPlane::Params cp_params;
  cp_params.lambda = lambda;
  cp_params.stop.tolerance = 1e-6;
  CuttingPlane cp(cp_params);
  cp.train(list);
  REQUIRE(cp.info() == Info::Success);
  const double optimum = cp.objective();
  const double lower = cp.dualValue();

  for (bool averaging : {true, false}) {
    Bcfw::Params p;
    p.lambda = lambda;
    p.averaging = averaging;
    p.stop = StopCriteria{5000, 1e-3};
    Bcfw bcfw(p);
    const Eigen::VectorXd w = bcfw.train(list);
    CAPTURE(averaging);
    CAPTURE(optimum);
    CAPTURE(bcfw.passes());
    CHECK(bcfw.info() == Info::Success);
    CHECK(bcfw.objective() == doctest::Approx(Objective(list, {lambda, 1}).evaluate(w).value).epsilon(1e-12));
    CHECK(bcfw.objective() <= optimum * (1.0 + 1e-3));
    CHECK(bcfw.objective() >= lower - 1e-12);     // nothing beats the optimum
    CHECK(bcfw.dualValue() <= optimum + 1e-12);   // its dual bounds min c from below too
    CHECK(bcfw.gap() <= 1e-3 * bcfw.objective());
    REQUIRE(bcfw.trace().size() == static_cast<std::size_t>(bcfw.passes()));
    for (const TraceRecord& r : bcfw.trace()) CHECK(r.gap >= -1e-12);
    CHECK(bcfw.trace().back().gap < 0.1 * bcfw.trace().front().gap);
    CHECK(bcfw.trace().back().value == bcfw.objective());
  }
}

}  // namespace

TEST_CASE("BCFW reaches the cutting plane's optimum on multiclass examples, its duality gap >= 0 and shrinking") {
  Random rng(41);
  const auto examples = test::noisyLinearMulticlass(rng, 60, 4, 5);
  checkAgainstCuttingPlane(test::listOf(examples), 0.01);
}

TEST_CASE("BCFW reaches the cutting plane's optimum on chain examples (sparse psi, beta by length)") {
  Random rng(42);
  const auto data = test::randomChains(rng, 24, 3, 4, 1, 5);
  const auto examples = test::chainExamples(data, ChainOptions{true, 1.0, 1.0});
  checkAgainstCuttingPlane(test::listOf(examples), 0.05);
}

TEST_CASE("BCFW: certificates every k passes and at the end, the same weights with any certificate thread count") {
  Random rng(43);
  const auto examples = test::noisyLinearMulticlass(rng, 30, 3, 4);
  const ExampleList list = test::listOf(examples);
  Bcfw::Params p;
  p.lambda = 0.02;
  p.stop = StopCriteria{7, 0.0};
  p.certify_every = 3;
  Bcfw bcfw(p);
  long callbacks = 0;
  bcfw.setCallback([&](const TraceRecord& r) {
    CHECK(r.iteration == ++callbacks);
    CHECK(bcfw.weights().norm() == doctest::Approx(r.weight_norm));
    return true;
  });
  const Eigen::VectorXd w = bcfw.train(list);
  REQUIRE(bcfw.trace().size() == 7);
  for (const TraceRecord& r : bcfw.trace()) {
    CAPTURE(r.iteration);
    CHECK(std::isnan(r.gap) == (r.iteration % 3 != 0));
    CHECK(std::isnan(r.value) == (r.iteration % 3 != 0));
  }
  CHECK(bcfw.info() == Info::Success);  // no tolerance: the pass budget is the stop
  CHECK(bcfw.gap() >= 0.0);             // certified at the end although pass 7 was not
  CHECK(bcfw.objective() == doctest::Approx(Objective(list, {p.lambda, 1}).evaluate(w).value).epsilon(1e-12));
  p.threads = 2;
  CHECK(Bcfw(p).train(list) == w);
  p.shuffle = false;
  CHECK(Bcfw(p).train(list) != w);  // another order, other iterates
}

TEST_CASE("BCFW: an oracle that turns NaN or overflows, and a refused weight check, keep the last good pass") {
  Random rng(44);
  const auto inner = test::randomMulticlass(rng, 1, 3, 4);
  for (bool throws : {false, true}) {
    const test::FailingAfter failing(*inner[0], 3, throws);
    Bcfw::Params p;
    p.lambda = 0.001;
    p.certify_every = 1000;  // only the oracle calls of the steps count
    Bcfw bcfw(p);
    bcfw.train({&failing});
    CAPTURE(throws);
    CHECK(bcfw.info() == Info::NumericalIssue);
    CHECK(bcfw.weights().allFinite());
    CHECK(bcfw.iterations() <= 3);
    CHECK(bcfw.message().find("kept") != std::string::npos);
  }
  const auto examples = test::noisyLinearMulticlass(rng, 20, 3, 4);
  Bcfw::Params p;
  p.lambda = 0.01;
  Bcfw bcfw(p);
  bcfw.setWeightCheck([](const Eigen::VectorXd& w) { return w.norm() > 1.0 ? std::string("is too long") : std::string(); });
  bcfw.train(test::listOf(examples));
  CHECK(bcfw.info() == Info::NumericalIssue);
  CHECK(bcfw.weights().norm() <= 1.0);
  CHECK(bcfw.message().find("is too long; kept those of the pass before") != std::string::npos);
}

TEST_CASE("BCFW: bad parameters and starting weights are refused by name, and LearnerSettings knows it") {
  const auto refused = [](auto change, const char* name) {
    Bcfw::Params p;
    change(p);
    CAPTURE(name);
    CHECK_THROWS_WITH_AS(Bcfw{p}, doctest::Contains(name), InvalidArgument);
  };
  refused([](Bcfw::Params& p) { p.lambda = 0.0; }, "lambda");
  refused([](Bcfw::Params& p) { p.lambda = std::nan(""); }, "lambda");
  refused([](Bcfw::Params& p) { p.stop.tolerance = -1e-3; }, "tolerance");
  refused([](Bcfw::Params& p) { p.absolute_tolerance = -1.0; }, "absolute_tolerance");
  refused([](Bcfw::Params& p) { p.stop.max_iterations = 0; }, "max_iterations");
  refused([](Bcfw::Params& p) { p.stop.time_budget_seconds = -1.0; }, "time_budget_seconds");
  refused([](Bcfw::Params& p) { p.certify_every = 0; }, "certify_every");
  refused([](Bcfw::Params& p) { p.threads = -1; }, "threads");

  Random rng(45);
  const auto examples = test::randomMulticlass(rng, 5, 3, 2);
  Bcfw bcfw(Bcfw::Params{});
  CHECK_THROWS_WITH_AS(bcfw.train(test::listOf(examples), Eigen::VectorXd::Zero(6)), doctest::Contains("no dual blocks"),
                       InvalidArgument);
  CHECK_THROWS_AS(bcfw.train({}), InvalidArgument);

  CHECK(parseLearnerKind("bcfw") == LearnerKind::Bcfw);
  CHECK(describe(LearnerKind::Bcfw) == "bcfw");
  CHECK_THROWS_WITH_AS(parseLearnerKind("frank_wolfe"), doctest::Contains("cutting_plane, bcfw or lbfgs"), InvalidArgument);
  LearnerSettings settings;
  settings.kind = LearnerKind::Bcfw;
  settings.setLambda(0.25);
  settings.setPasses(7);
  CHECK(settings.bcfw.lambda == 0.25);
  CHECK(settings.q() == 1);
  CHECK(settings.passes() == 7);
  CHECK(settings.callbacks(100) == 7);
  CHECK(settings.describe().find("BCFW, lambda 0.25") != std::string::npos);
  const std::unique_ptr<Learner> learner = makeLearner(settings);
  CHECK(learner->kind() == LearnerKind::Bcfw);
  CHECK(std::string(learner->passName()) == "pass");
  settings.objective = TrainingObjective::Likelihood;
  CHECK_THROWS_WITH_AS(makeLearner(settings), doctest::Contains("margin objective only"), InvalidArgument);
}
