// Pairwise MAP (exact and the LP relaxation by max-sum diffusion) and the multilabel task on the
// oracle contract, against brute force and finite differences on random small models.
#include "support.hpp"

#include <mmp/core/error.hpp>
#include <mmp/core/objective.hpp>
#include <mmp/core/pairwise.hpp>
#include <mmp/core/tasks/multilabel.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <limits>

using namespace mmp;

namespace {

PairwisePotentials randomPotentials(Random& rng, const PairwiseGraph& graph, double edge_scale) {
  PairwisePotentials theta;
  theta.resize(graph);
  theta.nodes = test::randomVector(rng, theta.nodes.size());
  theta.edges = test::randomVector(rng, theta.edges.size(), edge_scale);
  return theta;
}

// Every labelling in turn: the best score and its labels (the first in lexicographic order on ties).
double bruteForceMap(const PairwiseGraph& graph, const PairwisePotentials& theta, std::vector<int>& best_labels) {
  std::vector<int> labels(graph.variables(), 0);
  double best = -std::numeric_limits<double>::infinity();
  while (true) {
    const double score = assignmentScore(graph, theta, labels);
    if (score > best) {
      best = score;
      best_labels = labels;
    }
    int i = graph.variables() - 1;
    while (i >= 0 && ++labels[i] == graph.states()) labels[i--] = 0;
    if (i < 0) break;
  }
  return best;
}

// A random tree: each variable after the first joins an earlier one.
PairwiseGraph randomTree(Random& rng, int variables, int states) {
  std::vector<std::pair<int, int>> edges;
  for (int j = 1; j < variables; ++j) edges.emplace_back(test::randomInt(rng, 0, j - 1), j);
  return PairwiseGraph(variables, states, edges);
}

// Four rows of five inputs, five labels on the complete graph.
std::shared_ptr<const MultilabelData> smallData(Random& rng, int states = 2) {
  const int rows = 4, labels = 5;
  Eigen::MatrixXd x(rows, 5);
  std::vector<std::vector<int>> y(rows, std::vector<int>(labels));
  for (int r = 0; r < rows; ++r) {
    x.row(r) = test::randomVector(rng, 5).transpose();
    for (int& v : y[r]) v = test::randomInt(rng, 0, states - 1);
  }
  return std::make_shared<const MultilabelData>(PairwiseGraph::complete(labels, states), x, y);
}

}  // namespace

TEST_CASE("pairwise graphs refuse bad edges by name") {
  CHECK_THROWS_WITH_AS(PairwiseGraph(3, 2, {{0, 3}}), doctest::Contains("edge 0 (0, 3): expected 0 <= i < j < 3"), InvalidArgument);
  CHECK_THROWS_WITH_AS(PairwiseGraph(3, 2, {{1, 0}}), doctest::Contains("expected 0 <= i < j"), InvalidArgument);
  CHECK_THROWS_WITH_AS(PairwiseGraph(3, 2, {{0, 1}, {0, 1}}), doctest::Contains("given twice"), InvalidArgument);
  CHECK_THROWS_AS(PairwiseGraph(3, 1, {}), InvalidArgument);
  CHECK(PairwiseGraph::complete(6, 2).edgeCount() == 15);
  CHECK(PairwiseGraph::chain(6, 2).edgeCount() == 5);
  CHECK(PairwiseGraph::empty(6, 2).edgeCount() == 0);
}

TEST_CASE("branch and bound finds the brute-force MAP on random graphs") {
  Random rng(11);
  for (int trial = 0; trial < 60; ++trial) {
    const int v = test::randomInt(rng, 1, 7), k = test::randomInt(rng, 2, 3);
    const PairwiseGraph graph = trial % 3 == 0 ? randomTree(rng, v, k) : PairwiseGraph::complete(v, k);
    const PairwisePotentials theta = randomPotentials(rng, graph, trial % 2 == 0 ? 0.5 : 2.0);
    std::vector<int> exact, brute;
    const double value = exactMap(graph, theta, exact);
    CHECK(value == doctest::Approx(bruteForceMap(graph, theta, brute)).epsilon(1e-12));
    CHECK(exact == brute);
    CHECK(assignmentScore(graph, theta, exact) == doctest::Approx(value).epsilon(1e-12));
  }
}

TEST_CASE("the LP relaxation bounds MAP from above, equals it on trees, and a tight decoding is the MAP") {
  Random rng(5);
  int tight_on_cycles = 0, loose = 0;
  for (int trial = 0; trial < 80; ++trial) {
    const int v = test::randomInt(rng, 2, 7), k = test::randomInt(rng, 2, 3);
    const bool tree = trial % 2 == 0;
    const PairwiseGraph graph = tree ? randomTree(rng, v, k) : PairwiseGraph::complete(v, k);
    const PairwisePotentials theta = randomPotentials(rng, graph, 1.5);
    std::vector<int> map_labels;
    const double map_value = exactMap(graph, theta, map_labels);
    DualMessages delta;
    const LpResult lp = solveLp(graph, theta, delta, {5000, 1e-12});
    CAPTURE(trial);
    CHECK(lp.dual_value >= map_value - 1e-9);
    CHECK(lp.labels_score <= map_value + 1e-9);
    if (tree) {
      // On a tree the LP optimum is integral and max-sum diffusion reaches it.
      CHECK(lp.dual_value == doctest::Approx(map_value).epsilon(1e-6));
      CHECK(lp.tight);
    }
    if (lp.tight) {
      CHECK(lp.labels_score == doctest::Approx(map_value).epsilon(1e-9));
      CHECK(lp.labels == map_labels);
      tight_on_cycles += tree ? 0 : 1;
    } else {
      ++loose;
    }
  }
  MESSAGE("complete graphs certified tight: " << tight_on_cycles << " of 40; not certified in all: " << loose);
  CHECK(tight_on_cycles > 0);
}

TEST_CASE("each max-sum diffusion block update never raises the dual bound g") {
  Random rng(8);
  for (int trial = 0; trial < 30; ++trial) {
    const int v = test::randomInt(rng, 2, 8), k = test::randomInt(rng, 2, 4);
    const PairwiseGraph graph = PairwiseGraph::complete(v, k);
    const PairwisePotentials theta = randomPotentials(rng, graph, 2.0);
    DualMessages delta;
    delta.reset(graph);
    delta.values = test::randomVector(rng, delta.values.size());  // any start is an upper bound
    double g = dualArgmax(graph, theta, delta).value;
    for (int pass = 0; pass < 10; ++pass) {
      for (int j = 0; j < v; ++j) {
        diffuseAt(graph, theta, delta, j);
        const double next = dualArgmax(graph, theta, delta).value;
        CHECK(next <= g + 1e-9 * std::max(1.0, std::abs(g)));
        g = next;
      }
    }
  }
}

TEST_CASE("multilabel oracle: the reported loss is the recomputed Hamming loss, the score its maximum") {
  Random rng(3);
  const auto data = smallData(rng);
  for (MultilabelInference inference : {MultilabelInference::Exact, MultilabelInference::Lp}) {
    for (std::size_t row = 0; row < data->size(); ++row) {
      const MultilabelExample example(data, row, inference);
      const Eigen::VectorXd w = test::randomVector(rng, example.dimension(), 0.5);
      OracleResult result;
      example.solve(w, 1.0, result);
      std::vector<int> brute(5, 0), labels(5, 0);
      double best = -std::numeric_limits<double>::infinity();
      FeatureVector psi;
      for (int code = 0; code < 32; ++code) {
        for (int i = 0; i < 5; ++i) labels[i] = (code >> (4 - i)) & 1;
        example.jointFeatures(labels, psi);
        const double value = psi.dot(w) + example.loss(labels);
        if (value > best) best = value;
      }
      const double score = result.psi_output.dot(w) + result.loss;
      if (inference == MultilabelInference::Exact) {
        CHECK(result.loss == doctest::Approx(example.loss(result.output)));
        CHECK(score == doctest::Approx(best).epsilon(1e-12));
      } else {
        CHECK(score >= best - 1e-9);  // the LP answer's score is an upper bound, equal when tight
      }
      CHECK(result.psi_target.dot(w) <= best + 1e-12);
      CHECK(hinge(result, w) >= 0.0);
    }
  }
}

TEST_CASE("multilabel hinge: the oracle's subgradient matches a finite difference") {
  Random rng(21);
  for (int states : {2, 3}) {
    const auto data = smallData(rng, states);
    const MultilabelExample example(data, 1);
    for (int trial = 0; trial < 10; ++trial) {
      const Eigen::VectorXd w = test::randomVector(rng, example.dimension());
      const Eigen::VectorXd v = test::randomVector(rng, example.dimension());
      OracleResult at, plus, minus;
      example.solve(w, 1.0, at);
      const double eps = 1e-6;
      example.solve(w + eps * v, 1.0, plus);
      example.solve(w - eps * v, 1.0, minus);
      if (plus.output != at.output || minus.output != at.output) continue;  // a kink: skip
      const double numeric = (hinge(plus, w + eps * v) - hinge(minus, w - eps * v)) / (2 * eps);
      const double analytic = at.psi_output.dot(v) - at.psi_target.dot(v);
      CHECK(numeric == doctest::Approx(analytic).epsilon(1e-6));
    }
  }
}

TEST_CASE("multilabel data: bad rows are refused by row and value, and the layout is as documented") {
  const Eigen::MatrixXd x = Eigen::MatrixXd::Ones(2, 3);
  const PairwiseGraph graph = PairwiseGraph::complete(4, 2);
  CHECK_THROWS_WITH_AS(MultilabelData(graph, x, {{0, 1, 0, 1}, {0, 2, 0, 0}}), doctest::Contains("row 1, label 1: state 2"),
                       InvalidArgument);
  CHECK_THROWS_WITH_AS(MultilabelData(graph, x, {{0, 1, 0, 1}}), doctest::Contains("2 input rows but 1 labellings"),
                       InvalidArgument);
  Eigen::MatrixXd bad = x;
  bad(1, 2) = std::nan("");
  CHECK_THROWS_WITH_AS(MultilabelData(graph, bad, {{0, 1, 0, 1}, {0, 0, 0, 0}}), doctest::Contains("row 1 has a non-finite"),
                       InvalidArgument);
  const MultilabelData data(graph, x, {{0, 1, 0, 1}, {0, 0, 0, 0}});
  CHECK(data.unaryWidth() == 4);  // 3 inputs + bias
  CHECK(data.dimension() == 4 * 2 * 4 + 6 * 4);
  CHECK(data.pair(0, 0, 0) == 32);
}

TEST_CASE("the synthetic model of seed 002: 20 variables of 4 states, labellings that ICM cannot improve") {
  Eigen::VectorXd truth;
  const MultilabelData data = syntheticMultilabel({20, 4, 30, 9}, &truth);
  CHECK(data.size() == 30);
  CHECK(data.graph().edgeCount() == 190);
  CHECK(data.dimension() == 20 * 4 + 190 * 16);
  const auto shared = std::make_shared<const MultilabelData>(data);
  int distinct_states = 0;
  std::vector<bool> seen(4, false);
  for (std::size_t r = 0; r < data.size(); ++r) {
    const MultilabelExample example(shared, r);
    PairwisePotentials theta;
    example.potentials(truth, 0.0, theta);
    const std::vector<int>& y = example.target();
    const double score = assignmentScore(data.graph(), theta, y);
    for (int i = 0; i < 20; ++i) {
      seen[y[i]] = true;
      std::vector<int> moved = y;
      for (int k = 0; k < 4; ++k) {
        moved[i] = k;
        CHECK(assignmentScore(data.graph(), theta, moved) <= score + 1e-9);
      }
    }
  }
  for (bool s : seen) distinct_states += s ? 1 : 0;
  CHECK(distinct_states >= 3);
}
