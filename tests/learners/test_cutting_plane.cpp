#include "learners/learner_fixtures.hpp"
#include "support.hpp"

#include <mmp/core/error.hpp>
#include <mmp/core/formulation.hpp>
#include <mmp/core/objective.hpp>
#include <mmp/core/tasks/chain.hpp>
#include <mmp/learners/batch_subgradient.hpp>
#include <mmp/learners/cutting_plane.hpp>
#include <mmp/learners/learner_settings.hpp>
#include <mmp/learners/model_selection.hpp>
#include <mmp/learners/simplex_qp.hpp>

#include <doctest/doctest.h>

#include <atomic>
#include <cmath>
#include <limits>

using namespace mmp;

namespace {

// A random PSD Q = A' A of rank at most `rank`, with column `repeat` (if >= 0) a copy of column 0, so
// that two planes coincide; and a random c.
struct RandomQp {
  Eigen::MatrixXd Q;
  Eigen::VectorXd c;
};

RandomQp randomQp(Random& rng, int n, int rank, int repeat) {
  Eigen::MatrixXd A(rank, n);
  for (Eigen::Index r = 0; r < A.rows(); ++r) {
    for (Eigen::Index s = 0; s < A.cols(); ++s) A(r, s) = rng.normal();
  }
  Eigen::VectorXd c = test::randomVector(rng, n);
  if (repeat >= 0 && n > 1) {
    A.col(repeat) = A.col(0);
    c[repeat] = c[0];
  }
  return {A.transpose() * A, c};
}

double qpValue(const RandomQp& p, const Eigen::VectorXd& alpha) { return 0.5 * alpha.dot(p.Q * alpha) - p.c.dot(alpha); }

// The minimum over the simplex by enumerating supports: on each support S the minimiser of f on the
// affine hull {sum alpha_S = 1} solves the KKT system [Q_S 1; 1' 0] [alpha_S; -mu] = [c_S; 1] (least
// squares when Q_S is singular); the best of those that are >= 0 is the minimum.
double bruteForceMinimum(const RandomQp& p) {
  const int n = static_cast<int>(p.c.size());
  double best = std::numeric_limits<double>::infinity();
  for (int mask = 1; mask < (1 << n); ++mask) {
    std::vector<int> support;
    for (int t = 0; t < n; ++t) {
      if (mask & (1 << t)) support.push_back(t);
    }
    const auto m = static_cast<Eigen::Index>(support.size());
    Eigen::MatrixXd K = Eigen::MatrixXd::Zero(m + 1, m + 1);
    Eigen::VectorXd rhs(m + 1);
    for (Eigen::Index r = 0; r < m; ++r) {
      for (Eigen::Index s = 0; s < m; ++s) K(r, s) = p.Q(support[r], support[s]);
      K(r, m) = K(m, r) = 1.0;
      rhs[r] = p.c[support[r]];
    }
    rhs[m] = 1.0;
    const Eigen::VectorXd x = K.completeOrthogonalDecomposition().solve(rhs);
    if ((K * x - rhs).norm() > 1e-8 || (x.head(m).array() < -1e-12).any()) continue;
    Eigen::VectorXd alpha = Eigen::VectorXd::Zero(n);
    for (Eigen::Index r = 0; r < m; ++r) alpha[support[r]] = x[r];
    best = std::min(best, qpValue(p, alpha));
  }
  return best;
}

// Checks the KKT conditions of the simplex QP at alpha: on the simplex, the gradient equal on the
// support and no smaller elsewhere (to `slack`).
void checkKkt(const RandomQp& p, const Eigen::VectorXd& alpha, double slack) {
  CHECK((alpha.array() >= 0.0).all());
  CHECK(alpha.sum() == doctest::Approx(1.0).epsilon(1e-12));
  const Eigen::VectorXd g = p.Q * alpha - p.c;
  const double smallest = g.minCoeff();
  for (Eigen::Index t = 0; t < alpha.size(); ++t) {
    if (alpha[t] > 0.0) CHECK(g[t] <= smallest + slack);
  }
}

// The optimum of eq. 4 (q = 1) to compare with: a long batch subgradient run, steps 1/(lambda t),
// late-weighted averaging.
double batchOptimum(const ExampleList& list, double lambda, long iterations) {
  BatchSubgradient::Params p;
  p.lambda = lambda;
  p.steps = StepSchedule::gammaOverT(1.0 / lambda);
  p.averaging = Averaging::LateWeighted;
  p.stop.max_iterations = iterations;
  BatchSubgradient batch(p);
  batch.train(list);
  return batch.objective();
}

// Checks what the cutting plane promises on `list` against a long batch subgradient run.
void checkAgainstBatch(const ExampleList& list, double lambda, long batch_iterations) {
  const double batch = batchOptimum(list, lambda, batch_iterations);
  Eigen::VectorXd weights[2];
  for (int threads : {1, 2}) {
    CuttingPlane::Params p;
    p.lambda = lambda;
    p.threads = threads;
    CuttingPlane cp(p);
    weights[threads - 1] = cp.train(list);
    const double independent = Objective(list, {lambda, 1}).evaluate(cp.weights()).value;
    CAPTURE(threads);
    CAPTURE(batch);
    CAPTURE(cp.iterations());
    CAPTURE(cp.seconds());
    CAPTURE(cp.maxPlanes());
    CHECK(cp.info() == Info::Success);
    CHECK(cp.objective() == doctest::Approx(independent).epsilon(1e-12));
    CHECK(cp.objective() <= batch * (1.0 + 1e-3));
    CHECK(cp.gap() >= 0.0);
    CHECK(cp.gap() <= 1e-3 * cp.objective());
    CHECK(cp.dualValue() <= batch + 1e-12);  // a lower bound on min c, so on any c(w)
    CHECK(cp.planes() >= 1);
    CHECK(cp.maxPlanes() <= cp.iterations() + 1);
    REQUIRE(cp.trace().size() == static_cast<std::size_t>(cp.iterations()));
    for (std::size_t t = 1; t < cp.trace().size(); ++t) CHECK(cp.trace()[t].value <= cp.trace()[t - 1].value);
    CHECK(cp.trace().back().value == cp.objective());
  }
  CHECK(weights[0] == weights[1]);  // bit for bit, whatever the thread count
}

}  // namespace

TEST_CASE("simplex QP: the answer meets the KKT conditions on random PSD problems, singular and repeated included") {
  Random rng(11);
  for (int trial = 0; trial < 300; ++trial) {
    const int n = test::randomInt(rng, 1, 14);
    const int rank = test::randomInt(rng, 1, n + 2);  // often below n: Q singular
    const int repeat = n > 1 && trial % 3 == 0 ? test::randomInt(rng, 1, n - 1) : -1;
    const RandomQp p = randomQp(rng, n, rank, repeat);
    Eigen::VectorXd alpha;
    const SimplexQpResult r = solveSimplexQp(p.Q, p.c, alpha);
    const double scale = std::max(p.Q.diagonal().maxCoeff(), p.c.cwiseAbs().maxCoeff());
    CAPTURE(trial);
    CAPTURE(n);
    CAPTURE(rank);
    CHECK(r.converged);
    CHECK(r.kkt_violation <= 1e-12 * scale);
    CHECK(r.value == doctest::Approx(qpValue(p, alpha)).epsilon(1e-12));
    checkKkt(p, alpha, 1e-10 * scale);

    // a warm start from elsewhere on the simplex reaches the same value
    Eigen::VectorXd warm = Eigen::VectorXd::Constant(n, 1.0);
    const SimplexQpResult w = solveSimplexQp(p.Q, p.c, warm);
    CHECK(w.value == doctest::Approx(r.value).epsilon(1e-10).scale(scale));
  }
}

TEST_CASE("simplex QP: the value equals brute force over the supports of tiny problems") {
  Random rng(12);
  for (int trial = 0; trial < 200; ++trial) {
    const int n = test::randomInt(rng, 1, 4);
    const RandomQp p = randomQp(rng, n, test::randomInt(rng, 1, n), trial % 2 == 0 && n > 1 ? n - 1 : -1);
    Eigen::VectorXd alpha;
    const SimplexQpResult r = solveSimplexQp(p.Q, p.c, alpha);
    const double exact = bruteForceMinimum(p);
    CAPTURE(trial);
    CHECK(r.value == doctest::Approx(exact).epsilon(1e-9).scale(1.0));
  }
  // and on a fine grid of a 3-plane problem nothing is lower
  const RandomQp p = randomQp(rng, 3, 2, -1);
  Eigen::VectorXd alpha;
  const double value = solveSimplexQp(p.Q, p.c, alpha).value;
  double grid = std::numeric_limits<double>::infinity();
  const int steps = 400;
  for (int i = 0; i <= steps; ++i) {
    for (int j = 0; i + j <= steps; ++j) {
      const Eigen::Vector3d a(i / double(steps), j / double(steps), (steps - i - j) / double(steps));
      grid = std::min(grid, qpValue(p, a));
    }
  }
  CHECK(value <= grid + 1e-12);
  CHECK(value >= grid - 1e-3);
}

TEST_CASE("simplex QP: bad input is refused by name") {
  const Eigen::MatrixXd Q = Eigen::MatrixXd::Identity(2, 2);
  const Eigen::VectorXd c = Eigen::VectorXd::Ones(2);
  Eigen::VectorXd alpha;
  CHECK_THROWS_WITH_AS(solveSimplexQp(Eigen::MatrixXd::Identity(3, 3), c, alpha), doctest::Contains("Q is 3 x 3"),
                       InvalidArgument);
  CHECK_THROWS_AS(solveSimplexQp(Eigen::MatrixXd(0, 0), Eigen::VectorXd(0), alpha), InvalidArgument);
  Eigen::VectorXd bad_c = c;
  bad_c[1] = std::nan("");
  CHECK_THROWS_WITH_AS(solveSimplexQp(Q, bad_c, alpha), doctest::Contains("c has an entry"), InvalidArgument);
  alpha = Eigen::Vector2d(-1.0, 2.0);
  CHECK_THROWS_WITH_AS(solveSimplexQp(Q, c, alpha), doctest::Contains("warm start"), InvalidArgument);
  alpha = Eigen::VectorXd::Zero(2);
  CHECK_THROWS_WITH_AS(solveSimplexQp(Q, c, alpha), doctest::Contains("positive sum"), InvalidArgument);
  alpha = Eigen::VectorXd::Ones(3);
  CHECK_THROWS_WITH_AS(solveSimplexQp(Q, c, alpha), doctest::Contains("warm start alpha has size 3"), InvalidArgument);
}

TEST_CASE("cutting plane reaches the batch optimum on multiclass examples, with a certified gap") {
  Random rng(31);
  const auto examples = test::noisyLinearMulticlass(rng, 60, 4, 5);
  checkAgainstBatch(test::listOf(examples), 0.01, 20000);
}

TEST_CASE("cutting plane reaches the batch optimum on chain examples (sparse psi, beta by length)") {
  Random rng(32);
  const auto data = test::randomChains(rng, 24, 3, 4, 1, 5);
  const auto examples = test::chainExamples(data, ChainOptions{true, 1.0, 1.0});
  checkAgainstBatch(test::listOf(examples), 0.05, 20000);
}

TEST_CASE("every learner reports the formulation it trained, and refuses examples that mix formulations") {
  Random rng(35);
  const auto data = test::randomChains(rng, 6, 3, 4, 1, 4);
  const auto examples = test::chainExamples(data, ChainOptions{true, 1.0, 1.0});
  const ExampleList plain = test::listOf(examples);
  for (const LearnerKind kind : {LearnerKind::Online, LearnerKind::Batch, LearnerKind::CuttingPlane}) {
    CAPTURE(describe(kind));
    LearnerSettings settings;
    settings.kind = kind;
    settings.online.stop.max_iterations = 2;
    settings.batch.stop.max_iterations = 3;
    settings.cutting_plane.stop.max_iterations = 3;
    const std::unique_ptr<Learner> learner = makeLearner(settings);
    for (const Formulation f : {Formulation::Slack, Formulation::PosLearn, Formulation::Margin}) {
      std::vector<FormulatedExample> adapters;
      learner->train(formulate(plain, f, adapters));
      CHECK(learner->formulation() == f);
    }
    FormulatedExample slack(*examples[1], Formulation::Slack);
    const ExampleList mixed{examples[0].get(), &slack};
    CHECK_THROWS_WITH_AS(learner->train(mixed), doctest::Contains("example 0 is margin, example 1 is slack"),
                         InvalidArgument);
  }
}

TEST_CASE("cutting plane: a small plane age limit bounds the working set and still converges") {
  Random rng(33);
  const auto examples = test::noisyLinearMulticlass(rng, 80, 5, 6);
  const ExampleList list = test::listOf(examples);
  CuttingPlane::Params p;
  p.lambda = 0.02;
  CuttingPlane keep_all(p);
  keep_all.train(list);
  p.plane_age_limit = 2;
  CuttingPlane pruned(p);
  pruned.train(list);
  CAPTURE(keep_all.iterations());
  CAPTURE(pruned.iterations());
  CAPTURE(keep_all.maxPlanes());
  CAPTURE(pruned.maxPlanes());
  CHECK(keep_all.info() == Info::Success);
  CHECK(pruned.info() == Info::Success);
  CHECK(pruned.maxPlanes() < keep_all.maxPlanes());
  // both certify the same optimum: each objective lies within its gap of the other's dual bound
  CHECK(pruned.objective() <= keep_all.dualValue() + 1e-3 * keep_all.objective() + pruned.gap());
  CHECK(keep_all.objective() <= pruned.dualValue() + 1e-3 * pruned.objective() + keep_all.gap());
}

TEST_CASE("cutting plane: budgets, callback and the curve of model selection") {
  Random rng(34);
  const auto examples = test::randomMulticlass(rng, 40, 3, 4);
  const ExampleList list = test::listOf(examples);
  CuttingPlane::Params p;
  p.lambda = 0.01;
  p.stop.tolerance = 1e-12;
  p.stop.max_iterations = 3;
  CuttingPlane capped(p);
  capped.train(list);
  CHECK(capped.info() == Info::NoConvergence);
  CHECK(capped.iterations() == 3);
  CHECK(capped.trace().size() == 3);

  p.stop.time_budget_seconds = 0.0;
  CuttingPlane timed(p);
  timed.train(list);
  CHECK(timed.info() == Info::NoConvergence);
  CHECK(timed.message().find("time budget") != std::string::npos);
  CHECK(timed.objective() == doctest::Approx(Objective(list, {0.01, 1}).evaluate(timed.weights()).value));

  p.stop = StopCriteria{};
  p.stop.tolerance = 0.0;  // neither tolerance set: all max_iterations run, and that is Success
  CuttingPlane cancelled(p);
  cancelled.setCallback([&](const TraceRecord& r) {
    CHECK(cancelled.weights().norm() == r.weight_norm);
    return r.iteration < 4;
  });
  cancelled.train(list);
  CHECK(cancelled.iterations() == 4);
  CHECK(cancelled.info() == Info::NoConvergence);
  CHECK(cancelled.message().find("callback") != std::string::npos);

  // trainWithCurve: the w at pass t is what a run of t iterations returns
  LearnerSettings settings;
  settings.kind = LearnerKind::CuttingPlane;
  settings.cutting_plane = p;
  settings.setPasses(6);
  std::vector<std::pair<long, Eigen::VectorXd>> curve;
  const TrainedWithCurve trained =
      trainWithCurve(settings, list, 6, [&](long pass, const Eigen::VectorXd& w) { curve.emplace_back(pass, w); });
  REQUIRE(curve.size() == 6);
  CHECK(trained.info.find("objective") != std::string::npos);
  for (const auto& [pass, w] : curve) {
    CuttingPlane::Params short_run = p;
    short_run.stop.max_iterations = pass;
    CuttingPlane learner(short_run);
    const long passes = pass;  // a structured binding cannot be captured (C++17)
    CAPTURE(passes);
    CHECK(learner.train(list) == w);
  }
}

TEST_CASE("cutting plane: an oracle that turns NaN or overflows leaves the best weights found before") {
  Random rng(35);
  const auto inner = test::randomMulticlass(rng, 1, 3, 4);
  const ExampleList clean = {inner[0].get()};
  for (bool throws : {false, true}) {
    const test::FailingAfter failing(*inner[0], 3, throws);
    CuttingPlane::Params p;
    p.lambda = 0.001;
    p.stop.tolerance = 1e-12;
    CuttingPlane cp(p);
    cp.train({&failing});
    CAPTURE(throws);
    CHECK(cp.info() == Info::NumericalIssue);
    CHECK(cp.iterations() == 3);
    CHECK(cp.message().find("kept the best weights") != std::string::npos);
    CHECK(cp.weights().allFinite());
    CHECK(cp.objective() == doctest::Approx(Objective(clean, {p.lambda, 1}).evaluate(cp.weights()).value));
    CHECK(cp.objective() == cp.trace().back().value);
  }
}

TEST_CASE("cutting plane: bad parameters are refused by name, and LearnerSettings knows it") {
  const auto refused = [](auto change, const char* name) {
    CuttingPlane::Params p;
    change(p);
    CAPTURE(name);
    CHECK_THROWS_WITH_AS(CuttingPlane{p}, doctest::Contains(name), InvalidArgument);
  };
  refused([](CuttingPlane::Params& p) { p.lambda = 0.0; }, "lambda");
  refused([](CuttingPlane::Params& p) { p.lambda = -1.0; }, "lambda");
  refused([](CuttingPlane::Params& p) { p.lambda = std::nan(""); }, "lambda");
  refused([](CuttingPlane::Params& p) { p.stop.tolerance = -1e-3; }, "tolerance");
  refused([](CuttingPlane::Params& p) { p.absolute_tolerance = -1.0; }, "absolute_tolerance");
  refused([](CuttingPlane::Params& p) { p.stop.max_iterations = 0; }, "max_iterations");
  refused([](CuttingPlane::Params& p) { p.stop.time_budget_seconds = -1.0; }, "time_budget_seconds");
  refused([](CuttingPlane::Params& p) { p.plane_age_limit = 0; }, "plane_age_limit");
  refused([](CuttingPlane::Params& p) { p.qp.tolerance = -1.0; }, "qp.tolerance");
  refused([](CuttingPlane::Params& p) { p.threads = -1; }, "threads");

  CuttingPlane cp(CuttingPlane::Params{});
  Random rng(36);
  const auto examples = test::randomMulticlass(rng, 5, 3, 2);
  CHECK_THROWS_AS(cp.train(test::listOf(examples), Eigen::VectorXd::Zero(4)), InvalidArgument);
  CHECK_THROWS_AS(cp.train({}), InvalidArgument);

  CHECK(parseLearnerKind("cutting_plane") == LearnerKind::CuttingPlane);
  CHECK(describe(LearnerKind::CuttingPlane) == "cutting_plane");
  CHECK_THROWS_WITH_AS(parseLearnerKind("cutting-plane"), doctest::Contains("cutting_plane"), InvalidArgument);
  LearnerSettings settings;
  settings.kind = LearnerKind::CuttingPlane;
  settings.setLambda(0.25);
  settings.setPasses(7);
  settings.setProjection(std::make_shared<L2BallProjection>(1.0));  // ignored: the method is unconstrained
  CHECK(settings.cutting_plane.lambda == 0.25);
  CHECK(settings.lambda() == 0.25);
  CHECK(settings.q() == 1);
  CHECK(settings.passes() == 7);
  CHECK(settings.callbacks(100) == 7);
  CHECK(settings.describe().find("cutting plane, lambda 0.25") != std::string::npos);
  const std::unique_ptr<Learner> learner = makeLearner(settings);
  CHECK(learner->kind() == LearnerKind::CuttingPlane);
  CHECK(std::string(learner->passName()) == "iteration");
  settings.cutting_plane.lambda = 0.0;
  CHECK_THROWS_AS(makeLearner(settings), InvalidArgument);
}
