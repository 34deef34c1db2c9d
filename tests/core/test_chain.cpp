#include "support.hpp"

#include <mmp/core/tasks/chain.hpp>
#include <mmp/core/error.hpp>
#include <mmp/core/objective.hpp>
#include <mmp/core/thread_pool.hpp>

#include <doctest/doctest.h>

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

/// Every labelling of the sequence, in lexicographic order: the best of score + s * loss.
std::vector<int> bruteForce(const ChainExample& e, const Eigen::VectorXd& w, double s, double* best_value) {
  const int K = e.data().labels();
  std::vector<int> y(e.length(), 0), best;
  double best_score = -std::numeric_limits<double>::infinity();
  for (;;) {
    const double v = directScore(e, w, y) + s * e.options().position_loss * hamming(y, e.labels());
    if (v > best_score) best_score = v, best = y;
    std::size_t t = 0;
    while (t < y.size() && ++y[t] == K) y[t++] = 0;
    if (t == y.size()) break;
  }
  *best_value = best_score;
  return best;
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
      Eigen::VectorXd fd(w.size());
      const double h = 1e-6;
      for (Eigen::Index i = 0; i < w.size(); ++i) {
        Eigen::VectorXd plus = w, minus = w;
        plus[i] += h;
        minus[i] -= h;
        fd[i] = (objective.evaluate(plus).value - objective.evaluate(minus).value) / (2.0 * h);
      }
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
