#include "support.hpp"

#include <mmp/core/error.hpp>
#include <mmp/core/objective.hpp>

#include <doctest/doctest.h>

using namespace mmp;

// Central finite difference of c along every coordinate.
static Eigen::VectorXd finiteDifference(const Objective& objective, const Eigen::VectorXd& w, double h) {
  Eigen::VectorXd fd(w.size());
  for (Eigen::Index i = 0; i < w.size(); ++i) {
    Eigen::VectorXd plus = w, minus = w;
    plus[i] += h;
    minus[i] -= h;
    fd[i] = (objective.evaluate(plus).value - objective.evaluate(minus).value) / (2.0 * h);
  }
  return fd;
}

TEST_CASE("the subgradient of eq. 6 equals a central finite difference at generic w (multiclass, q = 1 and 2)") {
  Random rng(7);
  for (int q : {1, 2}) {
    for (int trial = 0; trial < 20; ++trial) {
      auto examples = test::randomMulticlass(rng, 12, 4, 5);
      const Objective objective(test::listOf(examples), {0.3, q});
      const Eigen::VectorXd w = test::randomVector(rng, objective.dimension());
      Eigen::VectorXd g;
      objective.evaluate(w, &g);
      const Eigen::VectorXd fd = finiteDifference(objective, w, 1e-6);
      CAPTURE(q);
      CAPTURE(trial);
      CHECK((g - fd).norm() <= 1e-5 * std::max(1.0, g.norm()));
    }
  }
}

TEST_CASE("the subgradient of eq. 6 equals a central finite difference at generic w (ranking, q = 1 and 2)") {
  Random rng(8);
  for (int q : {1, 2}) {
    for (int trial = 0; trial < 20; ++trial) {
      std::vector<std::unique_ptr<RankingPair>> pairs;
      for (int i = 0; i < 15; ++i) {
        const Eigen::VectorXd a = test::randomVector(rng, 3), b = test::randomVector(rng, 3);  // a before b, whatever order the compiler evaluates arguments in
        pairs.push_back(std::make_unique<RankingPair>(a, b));
      }
      const Objective objective(test::listOf(pairs), {0.1, q});
      const Eigen::VectorXd w = test::randomVector(rng, 3);
      Eigen::VectorXd g;
      objective.evaluate(w, &g);
      CHECK((g - finiteDifference(objective, w, 1e-6)).norm() <= 1e-5 * std::max(1.0, g.norm()));
    }
  }
}

TEST_CASE("the objective equals eq. 4 written out by hand for ranking pairs") {
  Random rng(9);
  std::vector<Eigen::VectorXd> a, b;
  std::vector<std::unique_ptr<RankingPair>> pairs;
  for (int i = 0; i < 10; ++i) {
    a.push_back(test::randomVector(rng, 4));
    b.push_back(test::randomVector(rng, 4));
    pairs.push_back(std::make_unique<RankingPair>(a.back(), b.back()));
  }
  const Eigen::VectorXd w = test::randomVector(rng, 4);
  for (int q : {1, 2}) {
    double expected = 0.0;
    for (int i = 0; i < 10; ++i) expected += std::pow(std::max(0.0, 1.0 - w.dot(a[i] - b[i])), q) / 10.0;
    expected += 0.5 * 0.2 * w.squaredNorm();
    CHECK(Objective(test::listOf(pairs), {0.2, q}).evaluate(w).value == doctest::Approx(expected).epsilon(1e-12));
  }
}

TEST_CASE("multiclass oracle: loss weight 0 is plain prediction and the loss is recomputed from y*") {
  Random rng(10);
  auto examples = test::randomMulticlass(rng, 50, 5, 4);
  OracleResult r;
  for (const auto& e : examples) {
    const Eigen::VectorXd w = test::randomVector(rng, e->dimension());
    e->solve(w, 0.0, r);
    CHECK(r.output.at(0) == e->predict(w));
    CHECK(r.loss == (r.output[0] == e->label() ? 0.0 : 1.0));
    e->solve(w, 1.0, r);
    CHECK(r.loss == (r.output[0] == e->label() ? 0.0 : 1.0));
    // y* maximises score + loss over every class
    for (int y = 0; y < e->classes(); ++y) {
      const double score = w.segment(y * 4, 4).dot(r.psi_target.toDense().segment(e->label() * 4, 4)) +
                           (y == e->label() ? 0.0 : 1.0);
      CHECK(r.psi_output.dot(w) + r.loss >= score - 1e-12);
    }
    CHECK(hinge(r, w) >= 0.0);
  }
}

TEST_CASE("the objective refuses bad parameters and mismatched examples") {
  Random rng(11);
  auto three = test::randomMulticlass(rng, 2, 3, 4);
  auto four = test::randomMulticlass(rng, 2, 4, 4);
  CHECK_THROWS_AS(Objective({}, {0.1, 1}), InvalidArgument);
  CHECK_THROWS_AS(Objective(test::listOf(three), {0.1, 3}), InvalidArgument);
  CHECK_THROWS_AS(Objective(test::listOf(three), {-1.0, 1}), InvalidArgument);
  ExampleList mixed = {three[0].get(), four[0].get()};
  CHECK_THROWS_WITH_AS(Objective(mixed, {0.1, 1}), doctest::Contains("example 1 has dimension 16"), InvalidArgument);
  const Objective ok(test::listOf(three), {0.1, 1});
  CHECK_THROWS_AS(ok.evaluate(Eigen::VectorXd::Zero(5)), InvalidArgument);
}

namespace {
// Process `rank` of `size` whose sum keeps what it was given (the test adds the processes' parts itself).
class RecordingProcess final : public ProcessGroup {
 public:
  RecordingProcess(int rank, int size) : rank_(rank), size_(size) {}
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  void sum(double* values, std::size_t count) override { given.assign(values, values + count); }
  std::vector<double> given;

 private:
  int rank_, size_;
};
}  // namespace

TEST_CASE("example shares: contiguous blocks that cover the examples once, sizes within one") {
  for (int size = 1; size <= 5; ++size) {
    for (std::size_t n : {0u, 1u, 4u, 5u, 13u}) {
      std::size_t next = 0, least = n, most = 0;
      for (int rank = 0; rank < size; ++rank) {
        const ExampleShare s = exampleShare(n, rank, size);
        CHECK(s.begin == next);
        next = s.end;
        least = std::min(least, s.end - s.begin);
        most = std::max(most, s.end - s.begin);
      }
      CHECK(next == n);
      CHECK(most - least <= 1);
    }
  }
  CHECK_THROWS_WITH_AS(exampleShare(5, 2, 2), doctest::Contains("process 2 of 2"), InvalidArgument);
}

TEST_CASE("the objective over processes: the processes' parts add up to the one-process value and subgradient") {
  Random rng(3);
  const auto examples = test::randomMulticlass(rng, 13, 4, 5);
  const Objective objective(test::listOf(examples), {0.1, 1});
  const Eigen::VectorXd w = test::randomVector(rng, objective.dimension());
  Eigen::VectorXd g_one;
  const ObjectiveValue one = objective.evaluate(w, &g_one);
  const Eigen::Index d = objective.dimension();
  Eigen::VectorXd packed = Eigen::VectorXd::Zero(d + 4);
  for (int rank = 0; rank < 3; ++rank) {
    RecordingProcess process(rank, 3);
    bool stop = rank == 1;  // one process asks to stop: its wish travels in the sum
    Eigen::VectorXd g;
    objective.evaluate(w, &g, nullptr, process, stop);
    REQUIRE(process.given.size() == static_cast<std::size_t>(d + 4));
    packed += Eigen::Map<const Eigen::VectorXd>(process.given.data(), d + 4);
  }
  CHECK(packed[d + 3] == 1.0);  // one stop wish
  CHECK(packed[d + 2] == 0.0);  // no failed oracle
  const double inv_n = 1.0 / 13.0;
  CHECK(0.5 * 0.1 * w.squaredNorm() + packed[d] * inv_n == doctest::Approx(one.value).epsilon(1e-12));
  CHECK(packed[d + 1] * inv_n == doctest::Approx(one.mean_loss).epsilon(1e-12));
  CHECK((packed.head(d) + 0.1 * w - g_one).norm() <= 1e-12 * g_one.norm());
  // One process alone is the one-process evaluation exactly.
  SingleProcess alone;
  bool stop = false;
  Eigen::VectorXd g_alone;
  CHECK(objective.evaluate(w, &g_alone, nullptr, alone, stop).value == one.value);
  CHECK(g_alone == g_one);
  CHECK(!stop);
}
