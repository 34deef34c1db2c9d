#include "support.hpp"

#include <mmp/core/tasks/chain.hpp>
#include <mmp/core/error.hpp>
#include <mmp/core/likelihood_objective.hpp>
#include <mmp/core/objective.hpp>
#include <mmp/core/thread_pool.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <limits>

using namespace mmp;

namespace {

/// w . psi(y) written out from the definition in chain.hpp, independently of jointFeatures().
double directScore(const ChainExample& e, const Eigen::VectorXd& w, const std::vector<int>& y) {
  const ChainData& data = e.data();
  const int K = data.labels(), F = data.features();
  const Eigen::Index transitions = Eigen::Index(F + 1) * K;
  double score = 0.0;
  for (std::size_t t = 0; t < y.size(); ++t) {
    const std::size_t p = data.first(e.sequence()) + t;
    for (const std::int32_t* f = data.activeBegin(p); f != data.activeEnd(p); ++f) score += w[*f * K + y[t]];
    score += w[F * K + y[t]];
    if (t > 0) score += w[transitions + y[t - 1] * K + y[t]];
  }
  if (e.options().start_end) score += w[transitions + K * K + y.front()] + w[transitions + K * K + K + y.back()];
  return score;
}

double hamming(const std::vector<int>& a, const std::vector<int>& b) {
  double d = 0.0;
  for (std::size_t t = 0; t < a.size(); ++t) d += a[t] != b[t];
  return d;
}

/// The central finite difference (f(w + h e_i) - f(w - h e_i)) / 2h of f at w, for every coordinate i.
Eigen::VectorXd centralDifference(const std::function<double(const Eigen::VectorXd&)>& f, const Eigen::VectorXd& w,
                                  double h) {
  Eigen::VectorXd fd(w.size());
  for (Eigen::Index i = 0; i < w.size(); ++i) {
    Eigen::VectorXd plus = w, minus = w;
    plus[i] += h;
    minus[i] -= h;
    fd[i] = (f(plus) - f(minus)) / (2.0 * h);
  }
  return fd;
}

/// Calls visit(y) for every labelling y of the sequence, in lexicographic order (position 0 fastest).
template <class Visit>
void forEachLabelling(const ChainExample& e, Visit visit) {
  const int K = e.data().labels();
  std::vector<int> y(e.length(), 0);
  for (;;) {
    visit(y);
    std::size_t t = 0;
    while (t < y.size() && ++y[t] == K) y[t++] = 0;
    if (t == y.size()) break;
  }
}

/// Every labelling of the sequence, in lexicographic order: the best of score + s * loss.
std::vector<int> bruteForce(const ChainExample& e, const Eigen::VectorXd& w, double s, double* best_value) {
  std::vector<int> best;
  double best_score = -std::numeric_limits<double>::infinity();
  forEachLabelling(e, [&](const std::vector<int>& y) {
    const double v = directScore(e, w, y) + s * e.options().position_loss * hamming(y, e.labels());
    if (v > best_score) best_score = v, best = y;
  });
  *best_value = best_score;
  return best;
}

/// The CRF by enumeration: log Z, E[psi] and the position marginals (L x K) from every labelling's
/// directScore, with psi(y) counted from the definition in chain.hpp (through directScore's
/// linearity: psi_j(y) = directScore at the unit vector e_j).
struct Enumerated {
  double log_z = 0.0;
  Eigen::VectorXd expected_psi;
  Eigen::MatrixXd positions;
};

Enumerated enumerate(const ChainExample& e, const Eigen::VectorXd& w) {
  const Eigen::Index d = e.dimension();
  double top = -std::numeric_limits<double>::infinity();
  forEachLabelling(e, [&](const std::vector<int>& y) { top = std::max(top, directScore(e, w, y)); });
  Enumerated out;
  out.expected_psi = Eigen::VectorXd::Zero(d);
  out.positions = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(e.length()), e.data().labels());
  double z = 0.0;
  Eigen::VectorXd unit = Eigen::VectorXd::Zero(d);
  forEachLabelling(e, [&](const std::vector<int>& y) {
    const double p = std::exp(directScore(e, w, y) - top);
    z += p;
    for (std::size_t t = 0; t < y.size(); ++t) out.positions(static_cast<Eigen::Index>(t), y[t]) += p;
    for (Eigen::Index j = 0; j < d; ++j) {
      unit[j] = 1.0;
      out.expected_psi[j] += p * directScore(e, unit, y);
      unit[j] = 0.0;
    }
  });
  out.log_z = top + std::log(z);
  out.expected_psi /= z;
  out.positions /= z;
  return out;
}

/// marginals() and positionMarginals() against enumeration: log Z to 1e-12, E[psi] and the position
/// marginals to `tolerance` (relative to |E[psi]|, absolute for the marginals); returns the answer.
MarginalResult checkAgainstEnumeration(const ChainExample& e, const Eigen::VectorXd& w, double tolerance) {
  const Enumerated expected = enumerate(e, w);
  MarginalResult r;
  e.marginals(w, r);
  CHECK(r.log_partition == doctest::Approx(expected.log_z).epsilon(1e-12));
  CHECK(r.expected_psi.toDense().allFinite());
  CHECK((r.expected_psi.toDense() - expected.expected_psi).norm() <= tolerance * std::max(1.0, expected.expected_psi.norm()));
  const Eigen::MatrixXd positions = e.positionMarginals(w);
  CHECK((positions - expected.positions).norm() <= tolerance);
  CHECK((positions.rowwise().sum().array() - 1.0).abs().maxCoeff() <= 1e-12);
  return r;
}

}  // namespace

TEST_CASE("chain layout: the documented indices cover 0 .. dimension - 1 exactly once") {
  for (bool start_end : {false, true}) {
    const ChainLayout layout{4, 3, start_end};
    std::vector<int> hits(static_cast<std::size_t>(layout.dimension()), 0);
    for (int y = 0; y < 4; ++y) {
      for (int f = 0; f <= 3; ++f) ++hits.at(layout.emission(f, y));
      for (int b = 0; b < 4; ++b) ++hits.at(layout.transition(y, b));
      if (start_end) ++hits.at(layout.start(y)), ++hits.at(layout.end(y));
    }
    CHECK(std::count(hits.begin(), hits.end(), 1) == layout.dimension());
    CHECK(layout.dimension() == 4 * 4 + 16 + (start_end ? 8 : 0));
  }
}

TEST_CASE("Viterbi equals brute-force enumeration on short random chains (plain and loss-augmented)") {
  Random rng(21);
  for (bool start_end : {true, false}) {
    auto data = test::randomChains(rng, 40, 3, 5, 1, 5);
    for (std::size_t s = 0; s < data->sequences(); ++s) {
      const ChainExample e(data, s, {start_end, 1.5, 0.0});
      const Eigen::VectorXd w = test::randomVector(rng, e.dimension());
      for (double loss_weight : {0.0, 1.0, 2.5}) {
        double best_value = 0.0;
        const std::vector<int> expected = bruteForce(e, w, loss_weight, &best_value);
        OracleResult r;
        e.solve(w, loss_weight, r);
        CAPTURE(s);
        CAPTURE(loss_weight);
        CHECK(r.output == expected);
        CHECK(r.psi_output.dot(w) + loss_weight * r.loss == doctest::Approx(best_value).epsilon(1e-12));
        CHECK(r.psi_output.dot(w) == doctest::Approx(directScore(e, w, r.output)).epsilon(1e-12));
        CHECK(r.psi_target.dot(w) == doctest::Approx(directScore(e, w, e.labels())).epsilon(1e-12));
        if (loss_weight == 0.0) {
          std::vector<int> predicted;
          CHECK(e.predict(w, predicted) == doctest::Approx(best_value).epsilon(1e-12));
          CHECK(predicted == expected);
          CHECK(e.errors(w) == static_cast<std::size_t>(hamming(expected, e.labels())));
        }
      }
    }
  }
}

TEST_CASE("loss-augmented Viterbi reports the recomputed Hamming loss, and beta follows the length") {
  Random rng(22);
  auto data = test::randomChains(rng, 60, 5, 8, 1, 9);
  OracleResult r;
  for (std::size_t s = 0; s < data->sequences(); ++s) {
    const ChainExample e(data, s, {true, 0.5, 2.0});
    const Eigen::VectorXd w = test::randomVector(rng, e.dimension(), 0.3);
    e.solve(w, 1.0, r);
    CHECK(r.loss == 0.5 * hamming(r.output, e.labels()));
    CHECK(r.loss == e.loss(r.output));
    CHECK(r.beta == doctest::Approx(1.0 / (double(e.length()) * double(e.length()))));
    CHECK(hinge(r, w) >= 0.0);
    // psi is a count vector: the emission block holds one bias count per position
    const Eigen::VectorXd psi = r.psi_output.toDense();
    CHECK(psi.segment(Eigen::Index(8) * 5, 5).sum() == double(e.length()));
    CHECK(psi.minCoeff() >= 0.0);
  }
  // at w = 0 every wrong labelling gains its loss, so y* is wrong everywhere
  const ChainExample e(data, 0);
  e.solve(Eigen::VectorXd::Zero(e.dimension()), 1.0, r);
  CHECK(r.loss == double(e.length()));
}

TEST_CASE("the chain objective's subgradient equals a central finite difference at generic w") {
  Random rng(23);
  for (int q : {1, 2}) {
    for (double length_power : {0.0, 1.0}) {
      auto data = test::randomChains(rng, 8, 3, 4, 1, 4);
      const auto examples = test::chainExamples(data, ChainOptions{true, 1.0, length_power});
      const Objective objective(test::listOf(examples), {0.2, q});
      const Eigen::VectorXd w = test::randomVector(rng, objective.dimension());
      Eigen::VectorXd g;
      objective.evaluate(w, &g);
      const Eigen::VectorXd fd =
          centralDifference([&](const Eigen::VectorXd& v) { return objective.evaluate(v).value; }, w, 1e-6);
      CAPTURE(q);
      CAPTURE(length_power);
      CHECK((g - fd).norm() <= 1e-5 * std::max(1.0, g.norm()));
    }
  }
}

TEST_CASE("label errors are the same serially and on a thread pool") {
  Random rng(24);
  auto data = test::randomChains(rng, 50, 4, 6, 1, 7);
  std::vector<ChainExample> examples;
  std::vector<const ChainExample*> list;
  for (std::size_t s = 0; s < data->sequences(); ++s) examples.emplace_back(data, s);
  for (const auto& e : examples) list.push_back(&e);
  const Eigen::VectorXd w = test::randomVector(rng, examples[0].dimension());
  ThreadPool pool(3);
  const LabelErrors serial = labelErrors(list, w), parallel = labelErrors(list, w, &pool);
  CHECK(serial.wrong == parallel.wrong);
  CHECK(serial.total == data->positions());
  std::size_t wrong = 0;
  for (const auto& e : examples) wrong += e.errors(w);
  CHECK(serial.wrong == wrong);
}

TEST_CASE("chain data and examples refuse bad input") {
  CHECK_THROWS_AS(ChainData(1, 3), InvalidArgument);
  CHECK_THROWS_AS(ChainData(3, -1), InvalidArgument);
  ChainData data(3, 4);
  CHECK_THROWS_WITH_AS(data.addSequence({{0, 2}}, {3}), doctest::Contains("position 0 has label 3, expected 0..2"),
                       InvalidArgument);
  CHECK_THROWS_WITH_AS(data.addSequence({{0}, {2, 1}}, {0, 1}),
                       doctest::Contains("position 1 has active feature 1 at entry 1"), InvalidArgument);
  CHECK_THROWS_AS(data.addSequence({{4}}, {0}), InvalidArgument);
  CHECK_THROWS_AS(data.addSequence({}, {}), InvalidArgument);
  CHECK_THROWS_AS(data.addSequence({{}}, {0, 1}), InvalidArgument);
  CHECK(data.sequences() == 0);
  CHECK(data.addSequence({{1, 3}, {}}, {2, 0}) == 0);
  auto shared = std::make_shared<const ChainData>(data);
  CHECK_THROWS_AS(ChainExample(shared, 1), InvalidArgument);
  CHECK_THROWS_AS(ChainExample(nullptr, 0), InvalidArgument);
  CHECK_THROWS_AS(ChainExample(shared, 0, {true, 0.0, 0.0}), InvalidArgument);
  CHECK_THROWS_AS(ChainExample(shared, 0, {true, 1.0, -1.0}), InvalidArgument);
  const ChainExample e(shared, 0);
  OracleResult r;
  CHECK_THROWS_WITH_AS(e.solve(Eigen::VectorXd::Zero(3), 1.0, r), doctest::Contains("w has size 3"), InvalidArgument);
  FeatureVector psi;
  CHECK_THROWS_AS(e.jointFeatures({0}, psi), InvalidArgument);
  CHECK_THROWS_AS(e.jointFeatures({0, 3}, psi), InvalidArgument);
}

TEST_CASE("long chains (over 64 positions) give the same psi and an optimal score") {
  Random rng(25);
  auto data = test::randomChains(rng, 6, 4, 7, 1, 150);
  for (std::size_t s = 0; s < data->sequences(); ++s) {
    const ChainExample e(data, s);
    const Eigen::VectorXd w = test::randomVector(rng, e.dimension());
    OracleResult r;
    e.solve(w, 1.0, r);
    CAPTURE(e.length());
    CHECK(r.psi_output.dot(w) == doctest::Approx(directScore(e, w, r.output)).epsilon(1e-12));
    CHECK(r.psi_target.dot(w) == doctest::Approx(directScore(e, w, e.labels())).epsilon(1e-12));
    const double best = r.psi_output.dot(w) + r.loss;
    // no labelling one change away from y* does better (a necessary condition of optimality)
    for (std::size_t t = 0; t < e.length(); ++t) {
      std::vector<int> y = r.output;
      for (int label = 0; label < 4; ++label) {
        y[t] = label;
        CHECK(directScore(e, w, y) + e.loss(y) <= best + 1e-9);
      }
    }
  }
}

TEST_CASE("CRF marginals: log Z, E[psi] and the position marginals equal enumeration on small random chains") {
  Random rng(31);
  for (int trial = 0; trial < 60; ++trial) {
    const int labels = test::randomInt(rng, 2, 4);
    const int features = test::randomInt(rng, 0, 4);
    const int length = test::randomInt(rng, 1, 5);
    auto data = test::randomChains(rng, 1, labels, features, length, length);
    const bool start_end = trial % 2 == 0;
    const ChainExample e(data, 0, {start_end, 1.0, trial % 3 == 0 ? 1.0 : 0.0});
    const Eigen::VectorXd w = test::randomVector(rng, e.dimension(), rng.uniform(0.1, 3.0));
    CAPTURE(trial);
    const MarginalResult r = checkAgainstEnumeration(e, w, 1e-12);
    CHECK(r.psi_target.dot(w) == doctest::Approx(directScore(e, w, e.labels())).epsilon(1e-12));
    CHECK(r.beta == doctest::Approx(std::pow(double(length), trial % 3 == 0 ? -1.0 : 0.0)));
    CHECK(r.log_partition >= r.psi_target.dot(w));  // nll >= 0
  }
}

TEST_CASE("CRF marginals stay exact where the fast log-sum-exp underflows (weights in the hundreds)") {
  // Transitions spread over hundreds make exp(T - max T) underflow for whole columns: the term by
  // term fallback must give what enumeration gives.
  Random rng(32);
  for (int trial = 0; trial < 20; ++trial) {
    auto data = test::randomChains(rng, 1, 3, 2, 4, 4);
    const ChainExample e(data, 0);
    const Eigen::VectorXd w = test::randomVector(rng, e.dimension(), 400.0);
    CAPTURE(trial);
    checkAgainstEnumeration(e, w, 1e-9);
  }
}

TEST_CASE("the chain likelihood objective's gradient equals a central finite difference") {
  Random rng(33);
  for (double length_power : {0.0, 1.0}) {
    auto data = test::randomChains(rng, 6, 3, 4, 1, 6);
    const auto examples = test::chainExamples(data, ChainOptions{true, 1.0, length_power});
    const LikelihoodObjective objective(test::listOf(examples), 0.1);
    const Eigen::VectorXd w = test::randomVector(rng, objective.dimension());
    Eigen::VectorXd g;
    objective.evaluate(w, &g);
    const Eigen::VectorXd fd =
        centralDifference([&](const Eigen::VectorXd& v) { return objective.evaluate(v); }, w, 1e-5);
    CAPTURE(length_power);
    CHECK((g - fd).norm() <= 1e-7 * std::max(1.0, g.norm()));
  }
}

TEST_CASE("CRF marginals on a long chain (200 positions): finite messages, normalised marginals, counts that add up") {
  // exp(log Z) is far beyond the range of doubles here; the log-messages stay finite, each position's
  // marginals sum to 1 and the expected bias and transition counts to the positions and pairs.
  Random rng(34);
  auto data = test::randomChains(rng, 1, 4, 5, 200, 200);
  const ChainExample e(data, 0);
  const Eigen::VectorXd w = test::randomVector(rng, e.dimension(), 2.0);
  MarginalResult r;
  e.marginals(w, r);
  CHECK(std::isfinite(r.log_partition));
  CHECK(r.log_partition >= r.psi_target.dot(w));
  const Eigen::VectorXd expected = r.expected_psi.toDense();
  CHECK(expected.allFinite());
  CHECK(expected.segment(Eigen::Index(5) * 4, 4).sum() == doctest::Approx(200.0));       // bias: one a position
  CHECK(expected.segment(Eigen::Index(6) * 4, 16).sum() == doctest::Approx(199.0));      // transitions: one a pair
  CHECK(expected.minCoeff() >= 0.0);
  const Eigen::MatrixXd positions = e.positionMarginals(w);
  CHECK((positions.rowwise().sum().array() - 1.0).abs().maxCoeff() <= 1e-10);
}

TEST_CASE("CRF marginals refuse weights of the wrong size") {
  Random rng(35);
  auto data = test::randomChains(rng, 1, 3, 2, 3, 3);
  const ChainExample e(data, 0);
  MarginalResult r;
  CHECK_THROWS_WITH_AS(e.marginals(Eigen::VectorXd::Zero(e.dimension() + 1), r), doctest::Contains("w has size"),
                       InvalidArgument);
}
