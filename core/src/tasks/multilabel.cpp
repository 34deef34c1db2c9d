#include <mmp/core/tasks/multilabel.hpp>

#include <mmp/core/error.hpp>
#include <mmp/core/random.hpp>
#include <mmp/core/thread_pool.hpp>

#include <cmath>
#include <limits>
#include <string>

namespace mmp {

MultilabelData::MultilabelData(PairwiseGraph graph, Eigen::MatrixXd x, std::vector<std::vector<int>> y,
                               MultilabelOptions options)
    : graph_(std::move(graph)), x_(std::move(x)), y_(std::move(y)), options_(options) {
  const int v = graph_.variables();
  if (x_.rows() < 1) throw InvalidArgument("MultilabelData: expected at least one row");
  if (static_cast<std::size_t>(x_.rows()) != y_.size()) {
    throw InvalidArgument("MultilabelData: " + std::to_string(x_.rows()) + " input rows but " + std::to_string(y_.size()) +
                          " labellings");
  }
  if (options_.input == UnaryInput::Own && x_.cols() != v) {
    throw InvalidArgument("MultilabelData: each variable sees its own input, so expected " + std::to_string(v) +
                          " input columns, got " + std::to_string(x_.cols()));
  }
  for (Eigen::Index r = 0; r < x_.rows(); ++r) {
    // (Eigen offsets a null pointer for a row of zero columns: look only when there are inputs.)
    if (x_.cols() > 0 && !x_.row(r).allFinite()) throw InvalidArgument("MultilabelData: row " + std::to_string(r) + " has a non-finite input");
    const std::vector<int>& labels = y_[r];
    if (static_cast<int>(labels.size()) != v) {
      throw InvalidArgument("MultilabelData: row " + std::to_string(r) + " has " + std::to_string(labels.size()) +
                            " labels, expected " + std::to_string(v));
    }
    for (int i = 0; i < v; ++i) {
      if (labels[i] < 0 || labels[i] >= graph_.states()) {
        throw InvalidArgument("MultilabelData: row " + std::to_string(r) + ", label " + std::to_string(i) + ": state " +
                              std::to_string(labels[i]) + " outside [0, " + std::to_string(graph_.states()) + ")");
      }
    }
  }
  unary_width_ = (options_.input == UnaryInput::Whole ? x_.cols() : 1) + (options_.bias ? 1 : 0);
  if (unary_width_ < 1) throw InvalidArgument("MultilabelData: no input columns and no bias: the labels would see nothing");
}

void MultilabelData::unaryInput(std::size_t row, int i, Eigen::VectorXd& u) const {
  u.resize(unary_width_);
  if (options_.input == UnaryInput::Whole) {
    if (x_.cols() > 0) u.head(x_.cols()) = x_.row(static_cast<Eigen::Index>(row)).transpose();
  } else {
    u[0] = x_(static_cast<Eigen::Index>(row), i);
  }
  if (options_.bias) u[unary_width_ - 1] = 1.0;
}

MultilabelExample::MultilabelExample(std::shared_ptr<const MultilabelData> data, std::size_t row,
                                     MultilabelInference inference, LpSettings lp)
    : data_(std::move(data)), row_(row), inference_(inference), lp_(lp) {
  if (!data_) throw InvalidArgument("MultilabelExample: no data");
  if (row_ >= data_->size()) {
    throw InvalidArgument("MultilabelExample: row " + std::to_string(row_) + " of " + std::to_string(data_->size()));
  }
  jointFeatures(target(), target_psi_);
}

void MultilabelExample::checkWeights(const Eigen::VectorXd& w) const {
  if (w.size() != dimension()) {
    throw InvalidArgument("MultilabelExample: w has " + std::to_string(w.size()) + " entries, expected " +
                          std::to_string(dimension()));
  }
}

void MultilabelExample::potentials(const Eigen::VectorXd& w, double loss_weight, PairwisePotentials& theta) const {
  checkWeights(w);
  const PairwiseGraph& graph = data_->graph();
  const int v = graph.variables(), k_count = graph.states();
  theta.resize(graph);
  const std::vector<int>& y = target();
  const Eigen::Index width = data_->unaryWidth();
  Eigen::VectorXd u;
  for (int i = 0; i < v; ++i) {
    if (i == 0 || data_->options().input == UnaryInput::Own) data_->unaryInput(row_, i, u);
    for (int k = 0; k < k_count; ++k) {
      theta.node(i, k) = w.segment(data_->unary(i, k), width).dot(u) + (k == y[i] ? 0.0 : loss_weight / v);
    }
  }
  theta.edges = w.tail(Eigen::Index(graph.edgeCount()) * k_count * k_count);
}

void MultilabelExample::addNodeFeatures(int i, int k, double scale, Eigen::VectorXd& g) const {
  Eigen::VectorXd u;
  data_->unaryInput(row_, i, u);
  g.segment(data_->unary(i, k), data_->unaryWidth()) += scale * u;
}

void MultilabelExample::addEdgeFeatures(int e, int a, int b, double scale, Eigen::VectorXd& g) const {
  g[data_->pair(e, a, b)] += scale;
}

void MultilabelExample::jointFeatures(const std::vector<int>& labels, FeatureVector& psi) const {
  Eigen::VectorXd& dense = psi.resetDense(dimension());
  const PairwiseGraph& graph = data_->graph();
  for (int i = 0; i < graph.variables(); ++i) addNodeFeatures(i, labels[i], 1.0, dense);
  for (int e = 0; e < graph.edgeCount(); ++e) {
    dense[data_->pair(e, labels[graph.edges()[e].first], labels[graph.edges()[e].second])] += 1.0;
  }
}

double MultilabelExample::loss(const std::vector<int>& labels) const {
  const std::vector<int>& y = target();
  int wrong = 0;
  for (std::size_t i = 0; i < y.size(); ++i) wrong += labels[i] != y[i] ? 1 : 0;
  return static_cast<double>(wrong) / static_cast<double>(y.size());
}

void MultilabelExample::predict(const Eigen::VectorXd& w, std::vector<int>& labels) const {
  PairwisePotentials theta;
  potentials(w, 0.0, theta);
  if (inference_ == MultilabelInference::Exact) {
    exactMap(graph(), theta, labels);
  } else {
    DualMessages delta;
    labels = solveLp(graph(), theta, delta, lp_).labels;
  }
}

void MultilabelExample::solve(const Eigen::VectorXd& w, double loss_weight, OracleResult& result) const {
  PairwisePotentials theta;
  potentials(w, loss_weight, theta);
  result.beta = 1.0;
  result.psi_target = target_psi_;
  if (inference_ == MultilabelInference::Exact) {
    exactMap(graph(), theta, result.output);
  } else {
    DualMessages delta;
    const LpResult lp = solveLp(graph(), theta, delta, lp_);
    result.output = lp.labels;
    if (!lp.tight && loss_weight > 0.0) {
      // The relaxed answer: the dual bound and its subgradient at the converged messages.
      const DualArgmax argmax = dualArgmax(graph(), theta, delta);
      Eigen::VectorXd& psi = result.psi_output.resetDense(dimension());
      for (int i = 0; i < graph().variables(); ++i) addNodeFeatures(i, argmax.nodes[i], 1.0, psi);
      for (int e = 0; e < graph().edgeCount(); ++e) addEdgeFeatures(e, argmax.edges[e].first, argmax.edges[e].second, 1.0, psi);
      result.loss = argmax.value - psi.dot(w);
      return;
    }
  }
  jointFeatures(result.output, result.psi_output);
  result.loss = loss(result.output);
}

double MultilabelExample::clampedMap(const PairwisePotentials& theta, int i, int k, std::vector<int>& labels) const {
  PairwisePotentials clamped = theta;
  constexpr double kExcluded = -1e100;  // finite: the search adds and compares, never subtracts it
  for (int other = 0; other < clamped.states; ++other) {
    if (other != k) clamped.node(i, other) = kExcluded;
  }
  exactMap(graph(), clamped, labels);
  return assignmentScore(graph(), theta, labels);
}

void MultilabelExample::maxMarginals(const Eigen::VectorXd& w, MaxMarginals& m) const {
  PairwisePotentials theta;
  potentials(w, 0.0, theta);
  const int v_count = graph().variables(), k_count = graph().states();
  std::vector<int> map, labels;
  const double map_score = exactMap(graph(), theta, map);
  m.score.resize(v_count, k_count);
  m.loss.resize(v_count, k_count);
  m.target = target();
  for (int i = 0; i < v_count; ++i) {
    for (int k = 0; k < k_count; ++k) {
      m.score(i, k) = k == map[i] ? map_score : clampedMap(theta, i, k, labels);
      m.loss(i, k) = k == target()[i] ? 0.0 : 1.0 / v_count;
    }
  }
}

void MultilabelExample::bestWith(const Eigen::VectorXd& w, int position, int value, OracleResult& result) const {
  if (position < 0 || position >= graph().variables() || value < 0 || value >= graph().states()) {
    throw InvalidArgument("multilabel example: label " + std::to_string(position) + " and state " + std::to_string(value) +
                          " outside 0.." + std::to_string(graph().variables() - 1) + " and 0.." +
                          std::to_string(graph().states() - 1));
  }
  PairwisePotentials theta;
  potentials(w, 0.0, theta);
  clampedMap(theta, position, value, result.output);
  jointFeatures(result.output, result.psi_output);
  result.psi_target = target_psi_;
  result.loss = loss(result.output);
  result.beta = 1.0;
}

void MultilabelExample::exactSlackViolator(const Eigen::VectorXd& w, OracleResult& result) const {
  const int v_count = graph().variables(), k_count = graph().states();
  if (std::pow(double(k_count), double(v_count)) > double(1 << 20)) {
    throw InvalidArgument("multilabel example: exact slack scaling enumerates K^V = " + std::to_string(k_count) + "^" +
                          std::to_string(v_count) + " labellings, more than 2^20; use the approximate slack formulation");
  }
  PairwisePotentials theta;
  potentials(w, 0.0, theta);
  const double target_score = assignmentScore(graph(), theta, target());
  std::vector<int> labels(static_cast<std::size_t>(v_count), 0);
  double top = 0.0;
  result.output = target();
  while (true) {  // every labelling, as an odometer over the states
    const double term = loss(labels) * (1.0 + assignmentScore(graph(), theta, labels) - target_score);
    if (term > top) top = term, result.output = labels;
    int i = v_count - 1;
    while (i >= 0 && ++labels[static_cast<std::size_t>(i)] == k_count) labels[static_cast<std::size_t>(i--)] = 0;
    if (i < 0) break;
  }
  jointFeatures(result.output, result.psi_output);
  result.psi_target = target_psi_;
  result.loss = loss(result.output);
  result.beta = 1.0;
}

MultilabelErrors multilabelErrors(const std::vector<const MultilabelExample*>& examples, const Eigen::VectorXd& w,
                                  ThreadPool* pool) {
  std::vector<double> hamming(examples.size());
  const auto one = [&](std::size_t n) {
    std::vector<int> labels;
    examples[n]->predict(w, labels);
    hamming[n] = examples[n]->loss(labels);
  };
  if (pool != nullptr) {
    pool->parallelFor(examples.size(), one);
  } else {
    for (std::size_t n = 0; n < examples.size(); ++n) one(n);
  }
  MultilabelErrors errors;
  errors.rows = examples.size();
  for (double h : hamming) {
    errors.hamming += h;
    errors.subset += h > 0.0 ? 1.0 : 0.0;
  }
  if (errors.rows > 0) {
    errors.hamming /= static_cast<double>(errors.rows);
    errors.subset /= static_cast<double>(errors.rows);
  }
  return errors;
}

MultilabelData syntheticMultilabel(const SyntheticMultilabelParams& params, Eigen::VectorXd* truth) {
  if (params.rows < 1) throw InvalidArgument("syntheticMultilabel: expected at least one row");
  Random rng(params.seed);
  PairwiseGraph graph = PairwiseGraph::complete(params.variables, params.states);
  Eigen::MatrixXd x(params.rows, params.variables);
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    for (Eigen::Index c = 0; c < x.cols(); ++c) x(r, c) = rng.normal();
  }
  const MultilabelOptions options{UnaryInput::Own, false};
  // A placeholder labelling gives the layout; the rows' labellings follow from w by ICM.
  const MultilabelData layout(graph, x, std::vector<std::vector<int>>(params.rows, std::vector<int>(params.variables, 0)),
                              options);
  Eigen::VectorXd w(layout.dimension());
  for (Eigen::Index j = 0; j < w.size(); ++j) w[j] = rng.normal();
  std::vector<std::vector<int>> y(params.rows, std::vector<int>(params.variables, 0));
  const auto shared = std::make_shared<const MultilabelData>(layout);
  for (int r = 0; r < params.rows; ++r) {
    PairwisePotentials theta;
    MultilabelExample(shared, r).potentials(w, 0.0, theta);
    std::vector<int>& labels = y[r];
    for (int sweep = 0; sweep < 100; ++sweep) {
      bool changed = false;
      for (int i = 0; i < params.variables; ++i) {
        int best_state = labels[i];
        double best = -std::numeric_limits<double>::infinity();
        for (int k = 0; k < params.states; ++k) {
          double value = theta.node(i, k);
          for (const PairwiseGraph::Incidence& in : graph.incident(i)) {
            const auto [a, b] = graph.edges()[in.edge];
            value += in.first ? theta.edge(in.edge, k, labels[b]) : theta.edge(in.edge, labels[a], k);
          }
          if (value > best) {
            best = value;
            best_state = k;
          }
        }
        changed = changed || best_state != labels[i];
        labels[i] = best_state;
      }
      if (!changed) break;
    }
  }
  if (truth != nullptr) *truth = w;
  return MultilabelData(std::move(graph), std::move(x), std::move(y), options);
}

}  // namespace mmp
