// Model selection (mmp/learners/model_selection.hpp): each curve point must be the model that
// training for that many passes returns, for both learners (the online learner calls back once per
// example, the batch learner once per iteration and one iteration early); the held-out choice must
// follow its rule, checked against training every (lambda, passes) pair on its own.
#include "support.hpp"

#include <mmp/core/error.hpp>
#include <mmp/learners/model_selection.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <limits>

using namespace mmp;

namespace {

LearnerSettings settingsOf(LearnerKind kind, long passes) {
  LearnerSettings s;
  s.kind = kind;
  s.online.averaging = Averaging::LateWeighted;
  s.online.shuffle = true;
  s.batch.averaging = Averaging::LateWeighted;
  s.batch.steps = StepSchedule::constant(0.5);
  s.setLambda(0.01);
  s.setPasses(passes);
  return s;
}

bool same(const Eigen::VectorXd& a, const Eigen::VectorXd& b) { return a.size() == b.size() && a == b; }

/// The fraction of examples whose prediction (loss weight 0) has a non-zero loss.
double errorRate(const ExampleList& examples, const Eigen::VectorXd& w) {
  OracleResult r;
  int wrong = 0;
  for (const StructuredExample* e : examples) {
    e->solve(w, 0.0, r);
    wrong += r.loss > 0.0 ? 1 : 0;
  }
  return static_cast<double>(wrong) / static_cast<double>(examples.size());
}

}  // namespace

TEST_CASE("trainWithCurve: the point after p passes is the model trained for p passes, online and batch") {
  Random rng(5);
  const auto examples = test::randomMulticlass(rng, 30, 3, 4);
  const ExampleList list = test::listOf(examples);
  for (LearnerKind kind : {LearnerKind::Online, LearnerKind::Batch}) {
    CAPTURE(describe(kind));
    std::vector<long> passes;
    std::vector<Eigen::VectorXd> weights;
    const TrainedWithCurve with_curve =
        trainWithCurve(settingsOf(kind, 6), list, 6, [&](long pass, const Eigen::VectorXd& w) {
          passes.push_back(pass);
          weights.push_back(w);
        });
    REQUIRE(passes == std::vector<long>{1, 2, 3, 4, 5, 6});
    CHECK(with_curve.curve_seconds >= 0.0);
    for (long p = 1; p <= 6; ++p) {
      CAPTURE(p);
      const TrainedWithCurve trained = trainWithCurve(settingsOf(kind, p), list, 0, CurveCallback());
      CHECK(same(weights[static_cast<std::size_t>(p - 1)], trained.w));
      CHECK(trained.curve_seconds == 0.0);
    }
    CHECK(same(weights.back(), with_curve.w));
    CHECK((with_curve.info.find(", objective ") != std::string::npos) == (kind == LearnerKind::Batch));
  }
}

TEST_CASE("trainWithCurve: about `points` evenly spaced passes, and always the last one") {
  Random rng(6);
  const auto examples = test::randomMulticlass(rng, 10, 3, 3);
  const ExampleList list = test::listOf(examples);
  for (LearnerKind kind : {LearnerKind::Online, LearnerKind::Batch}) {
    CAPTURE(describe(kind));
    std::vector<long> passes;
    const CurveCallback record = [&](long pass, const Eigen::VectorXd&) { passes.push_back(pass); };
    trainWithCurve(settingsOf(kind, 6), list, 3, record);
    CHECK(passes == std::vector<long>{2, 4, 6});
    passes.clear();
    trainWithCurve(settingsOf(kind, 7), list, 3, record);
    CHECK(passes == std::vector<long>{2, 4, 6, 7});
  }
}

TEST_CASE("chooseOnHeldOut: the fewest passes within the tolerance of the lowest held-out error") {
  Random rng(7);
  const auto fit = test::randomMulticlass(rng, 40, 3, 4), held = test::randomMulticlass(rng, 40, 3, 4);
  const ExampleList fit_list = test::listOf(fit), held_list = test::listOf(held);
  const WeightsError error = [&](const Eigen::VectorXd& w) { return errorRate(held_list, w); };
  const std::vector<double> lambdas = {0.1, 0.01, 0.001};
  for (LearnerKind kind : {LearnerKind::Online, LearnerKind::Batch}) {
    for (double tolerance : {0.0, 0.05, 1.0}) {
      CAPTURE(describe(kind));
      CAPTURE(tolerance);
      const LearnerSettings settings = settingsOf(kind, 5);
      // brute force: train every (lambda, passes) pair on its own and apply the rule
      double lowest = std::numeric_limits<double>::infinity();
      std::vector<std::vector<double>> errors;
      for (double lambda : lambdas) {
        errors.emplace_back();
        for (long p = 1; p <= 5; ++p) {
          LearnerSettings s = settings;
          s.setLambda(lambda);
          s.setPasses(p);
          errors.back().push_back(error(trainWithCurve(s, fit_list, 0, CurveCallback()).w));
          lowest = std::min(lowest, errors.back().back());
        }
      }
      double want_lambda = 0.0;
      long want_passes = std::numeric_limits<long>::max();
      for (std::size_t j = 0; j < lambdas.size(); ++j) {
        for (long p = 1; p <= 5; ++p) {
          if (errors[j][p - 1] <= lowest + tolerance && p < want_passes) want_lambda = lambdas[j], want_passes = p;
        }
      }

      HeldOutParams params;
      params.lambdas = lambdas;
      params.choose_passes = true;
      params.tolerance = tolerance;
      const HeldOutChoice choice = chooseOnHeldOut(settings, fit_list, error, params);
      CHECK(choice.chosen.lambda() == want_lambda);
      CHECK(choice.chosen.passes() == want_passes);
      CHECK(choice.chosen.kind == kind);
      REQUIRE(choice.per_lambda.size() == lambdas.size());
      for (std::size_t j = 0; j < lambdas.size(); ++j) {
        const LambdaValidation& v = choice.per_lambda[j];
        CHECK(v.lambda == lambdas[j]);
        CHECK(v.curve_passes == std::vector<long>{1, 2, 3, 4, 5});
        CHECK(v.curve_error == errors[j]);
        CHECK(v.error == *std::min_element(errors[j].begin(), errors[j].end()));
        CHECK(v.error == errors[j][v.passes - 1]);
      }
    }
  }
}

TEST_CASE("chooseOnHeldOut: lambda alone keeps the pass count, and no candidates is refused") {
  Random rng(8);
  const auto fit = test::randomMulticlass(rng, 20, 3, 4), held = test::randomMulticlass(rng, 20, 3, 4);
  const ExampleList fit_list = test::listOf(fit), held_list = test::listOf(held);
  const WeightsError error = [&](const Eigen::VectorXd& w) { return errorRate(held_list, w); };
  const LearnerSettings settings = settingsOf(LearnerKind::Online, 4);
  HeldOutParams params;
  params.lambdas = {0.1, 0.01};
  const HeldOutChoice choice = chooseOnHeldOut(settings, fit_list, error, params);
  CHECK(choice.chosen.passes() == 4);
  REQUIRE(choice.per_lambda.size() == 2);
  for (const LambdaValidation& v : choice.per_lambda) {
    CHECK(v.curve_passes.empty());
    CHECK(v.passes == 4);
    LearnerSettings s = settings;
    s.setLambda(v.lambda);
    CHECK(v.error == error(trainWithCurve(s, fit_list, 0, CurveCallback()).w));
  }
  const double best = std::min(choice.per_lambda[0].error, choice.per_lambda[1].error);
  CHECK(choice.chosen.lambda() == (choice.per_lambda[0].error == best ? 0.1 : 0.01));

  params.lambdas.clear();
  CHECK_THROWS_AS(chooseOnHeldOut(settings, fit_list, error, params), InvalidArgument);
}

TEST_CASE("beyondGridEdge: one grid step past the largest or smallest value, nothing inside or for one value") {
  CHECK(beyondGridEdge({0.3, 1.0, 0.1}, 1.0).value() == doctest::Approx(1.0 / 0.3));
  CHECK(beyondGridEdge({0.3, 1.0, 0.1}, 0.1).value() == doctest::Approx(0.1 * 0.1 / 0.3));
  CHECK_FALSE(beyondGridEdge({0.3, 1.0, 0.1}, 0.3));
  CHECK_FALSE(beyondGridEdge({0.5}, 0.5));
  CHECK_FALSE(beyondGridEdge({0.5, 0.5}, 0.5));
}

TEST_CASE("chooseOnHeldOut: extend_at_edge follows a choice at the grid's edge and stops inside it") {
  Random rng(9);
  const auto fit = test::randomMulticlass(rng, 20, 3, 4);
  const ExampleList fit_list = test::listOf(fit);
  const LearnerSettings settings = settingsOf(LearnerKind::Online, 3);
  HeldOutParams params;
  params.lambdas = {0.1, 0.01};
  params.extend_at_edge = 2;
  const auto lambdasOf = [](const HeldOutChoice& c) {
    std::vector<double> out;
    for (const LambdaValidation& v : c.per_lambda) out.push_back(v.lambda);
    return out;
  };
  // the smallest weights win: lambda grows past the grid, a step of 10 at a time, twice
  const WeightsError small = [](const Eigen::VectorXd& w) { return w.norm(); };
  HeldOutChoice choice = chooseOnHeldOut(settings, fit_list, small, params);
  REQUIRE(lambdasOf(choice).size() == 4);
  CHECK(lambdasOf(choice)[2] == doctest::Approx(1.0));
  CHECK(lambdasOf(choice)[3] == doctest::Approx(10.0));
  CHECK(choice.chosen.lambda() == doctest::Approx(10.0));
  // the largest weights win: it goes down instead
  const WeightsError large = [](const Eigen::VectorXd& w) { return -w.norm(); };
  choice = chooseOnHeldOut(settings, fit_list, large, params);
  REQUIRE(lambdasOf(choice).size() == 4);
  CHECK(choice.chosen.lambda() == doctest::Approx(0.0001));
  // a choice inside the grid adds nothing
  LearnerSettings middle = settings;
  middle.setLambda(0.05);
  const double target = trainWithCurve(middle, fit_list, 0, CurveCallback()).w.norm();
  const WeightsError near = [target](const Eigen::VectorXd& w) { return std::abs(w.norm() - target); };
  params.lambdas = {0.5, 0.05, 0.005};
  choice = chooseOnHeldOut(settings, fit_list, near, params);
  CHECK(lambdasOf(choice).size() == 3);
  CHECK(choice.chosen.lambda() == 0.05);
  params.extend_at_edge = -1;
  CHECK_THROWS_AS(chooseOnHeldOut(settings, fit_list, near, params), InvalidArgument);
}
