#include <mmp/core/pairwise.hpp>

#include <mmp/core/error.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <string>

namespace mmp {
namespace {

constexpr double kMinusInfinity = -std::numeric_limits<double>::infinity();

bool reaches(double score, double bound) { return score >= bound - 1e-9 * std::max(1.0, std::abs(bound)); }

}  // namespace

PairwiseGraph::PairwiseGraph(int variables, int states, std::vector<std::pair<int, int>> edges)
    : variables_(variables), states_(states), edges_(std::move(edges)), incident_(std::max(variables, 0)) {
  if (variables < 1) throw InvalidArgument("PairwiseGraph: expected at least 1 variable, got " + std::to_string(variables));
  if (states < 2) throw InvalidArgument("PairwiseGraph: expected at least 2 states, got " + std::to_string(states));
  std::set<std::pair<int, int>> seen;
  for (std::size_t e = 0; e < edges_.size(); ++e) {
    const auto [i, j] = edges_[e];
    const std::string name = "PairwiseGraph: edge " + std::to_string(e) + " (" + std::to_string(i) + ", " + std::to_string(j) + ")";
    if (!(0 <= i && i < j && j < variables)) {
      throw InvalidArgument(name + ": expected 0 <= i < j < " + std::to_string(variables));
    }
    if (!seen.insert(edges_[e]).second) throw InvalidArgument(name + " is given twice");
    incident_[i].push_back({static_cast<int>(e), true});
    incident_[j].push_back({static_cast<int>(e), false});
  }
}

PairwiseGraph PairwiseGraph::complete(int variables, int states) {
  std::vector<std::pair<int, int>> edges;
  for (int i = 0; i < variables; ++i) {
    for (int j = i + 1; j < variables; ++j) edges.emplace_back(i, j);
  }
  return PairwiseGraph(variables, states, std::move(edges));
}

PairwiseGraph PairwiseGraph::chain(int variables, int states) {
  std::vector<std::pair<int, int>> edges;
  for (int i = 0; i + 1 < variables; ++i) edges.emplace_back(i, i + 1);
  return PairwiseGraph(variables, states, std::move(edges));
}

PairwiseGraph PairwiseGraph::empty(int variables, int states) { return PairwiseGraph(variables, states, {}); }

void PairwisePotentials::resize(const PairwiseGraph& graph) {
  states = graph.states();
  nodes.setZero(Eigen::Index(graph.variables()) * states);
  edges.setZero(Eigen::Index(graph.edgeCount()) * states * states);
}

double assignmentScore(const PairwiseGraph& graph, const PairwisePotentials& theta, const std::vector<int>& labels) {
  double score = 0.0;
  for (int i = 0; i < graph.variables(); ++i) score += theta.node(i, labels[i]);
  for (int e = 0; e < graph.edgeCount(); ++e) {
    score += theta.edge(e, labels[graph.edges()[e].first], labels[graph.edges()[e].second]);
  }
  return score;
}

namespace {

// Depth-first branch and bound over the variables in index order.  conditional(i, k) holds
// theta_i(k) plus the edges from i to the variables already fixed (an edge is added when its lower
// end is fixed, so when i is reached all of its earlier neighbours are in).
class BranchAndBound {
 public:
  BranchAndBound(const PairwiseGraph& graph, const PairwisePotentials& theta)
      : graph_(graph), theta_(theta), k_(graph.states()), conditional_(theta.nodes),
        free_edges_best_(graph.variables() + 1, 0.0), current_(graph.variables(), 0) {
    // free_edges_best_[d]: the best state pair of every edge whose lower end is >= d.
    for (int e = 0; e < graph.edgeCount(); ++e) {
      double best = kMinusInfinity;
      for (int a = 0; a < k_; ++a) {
        for (int b = 0; b < k_; ++b) best = std::max(best, theta.edge(e, a, b));
      }
      free_edges_best_[graph.edges()[e].first] += best;
    }
    for (int d = graph.variables() - 1; d >= 0; --d) free_edges_best_[d] += free_edges_best_[d + 1];
  }

  double run(std::vector<int>& labels) {
    search(0, 0.0);
    labels = best_labels_;
    return best_;
  }

 private:
  void search(int d, double partial) {
    const int n = graph_.variables();
    if (d == n) {
      if (partial > best_) {
        best_ = partial;
        best_labels_ = current_;
      }
      return;
    }
    double bound = partial + free_edges_best_[d];
    for (int i = d; i < n; ++i) bound += conditional_.segment(Eigen::Index(i) * k_, k_).maxCoeff();
    if (!(bound > best_)) return;
    for (int k = 0; k < k_; ++k) {
      current_[d] = k;
      setFixed(d, k, 1.0);
      search(d + 1, partial + conditional_[Eigen::Index(d) * k_ + k]);
      setFixed(d, k, -1.0);
    }
  }

  // Adds (sign 1) or removes (-1) the edges from d in state k to its later neighbours.
  void setFixed(int d, int k, double sign) {
    for (const PairwiseGraph::Incidence& in : graph_.incident(d)) {
      if (!in.first) continue;
      const int j = graph_.edges()[in.edge].second;
      for (int b = 0; b < k_; ++b) conditional_[Eigen::Index(j) * k_ + b] += sign * theta_.edge(in.edge, k, b);
    }
  }

  const PairwiseGraph& graph_;
  const PairwisePotentials& theta_;
  int k_;
  Eigen::VectorXd conditional_;
  std::vector<double> free_edges_best_;
  std::vector<int> current_;
  std::vector<int> best_labels_;
  double best_ = kMinusInfinity;
};

}  // namespace

double exactMap(const PairwiseGraph& graph, const PairwisePotentials& theta, std::vector<int>& labels) {
  return BranchAndBound(graph, theta).run(labels);
}

void DualMessages::reset(const PairwiseGraph& graph) {
  states = graph.states();
  values.setZero(Eigen::Index(graph.edgeCount()) * 2 * states);
}

void diffuseAt(const PairwiseGraph& graph, const PairwisePotentials& theta, DualMessages& delta, int j) {
  const std::vector<PairwiseGraph::Incidence>& incident = graph.incident(j);
  if (incident.empty()) return;
  const int k_count = graph.states();
  // gamma_ij(y_j) = max_{y_i} [theta_ij(y_i, y_j) - delta_ji(y_i)] for each edge at j (eq. 12)
  thread_local std::vector<double> gamma;
  gamma.assign(incident.size() * k_count, kMinusInfinity);
  Eigen::VectorXd total = theta.nodes.segment(Eigen::Index(j) * k_count, k_count);
  for (std::size_t n = 0; n < incident.size(); ++n) {
    const int e = incident[n].edge;
    const bool j_first = incident[n].first;
    double* g = gamma.data() + n * k_count;
    for (int mine = 0; mine < k_count; ++mine) {
      for (int other = 0; other < k_count; ++other) {
        const double pair = j_first ? theta.edge(e, mine, other) : theta.edge(e, other, mine);
        g[mine] = std::max(g[mine], pair - delta.into(e, !j_first, other));
      }
      total[mine] += g[mine];
    }
  }
  // delta_ij(y_j) = -(theta_j(y_j) + gamma_j(y_j)) / (1 + d_j) + gamma_ij(y_j)   (eq. 11)
  const double share = 1.0 / (1.0 + static_cast<double>(incident.size()));
  for (std::size_t n = 0; n < incident.size(); ++n) {
    for (int k = 0; k < k_count; ++k) {
      delta.into(incident[n].edge, incident[n].first, k) = gamma[n * k_count + k] - share * total[k];
    }
  }
}

DualArgmax dualArgmax(const PairwiseGraph& graph, const PairwisePotentials& theta, const DualMessages& delta) {
  const int k_count = graph.states();
  DualArgmax out;
  out.nodes.resize(graph.variables());
  out.edges.resize(graph.edgeCount());
  for (int i = 0; i < graph.variables(); ++i) {
    double best = kMinusInfinity;
    for (int k = 0; k < k_count; ++k) {
      double belief = theta.node(i, k);
      for (const PairwiseGraph::Incidence& in : graph.incident(i)) belief += delta.into(in.edge, in.first, k);
      if (belief > best) {
        best = belief;
        out.nodes[i] = k;
      }
    }
    out.value += best;
  }
  for (int e = 0; e < graph.edgeCount(); ++e) {
    double best = kMinusInfinity;
    for (int a = 0; a < k_count; ++a) {
      for (int b = 0; b < k_count; ++b) {
        const double v = theta.edge(e, a, b) - delta.into(e, true, a) - delta.into(e, false, b);
        if (v > best) {
          best = v;
          out.edges[e] = {a, b};
        }
      }
    }
    out.value += best;
  }
  return out;
}

double diffusionPass(const PairwiseGraph& graph, const PairwisePotentials& theta, DualMessages& delta) {
  for (int j = 0; j < graph.variables(); ++j) diffuseAt(graph, theta, delta, j);
  return dualArgmax(graph, theta, delta).value;
}

LpResult solveLp(const PairwiseGraph& graph, const PairwisePotentials& theta, DualMessages& delta,
                 const LpSettings& settings) {
  if (delta.values.size() != Eigen::Index(graph.edgeCount()) * 2 * graph.states()) delta.reset(graph);
  LpResult result;
  double previous = dualArgmax(graph, theta, delta).value;
  while (result.passes < settings.max_passes) {
    const double value = diffusionPass(graph, theta, delta);
    ++result.passes;
    const bool settled = previous - value <= settings.tolerance * std::max(1.0, std::abs(value));
    previous = value;
    if (settled) break;
  }
  const DualArgmax argmax = dualArgmax(graph, theta, delta);
  result.dual_value = argmax.value;
  result.labels = argmax.nodes;
  result.labels_score = assignmentScore(graph, theta, result.labels);
  result.tight = reaches(result.labels_score, result.dual_value);
  return result;
}

}  // namespace mmp
