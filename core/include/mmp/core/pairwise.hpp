// Pairwise discrete models: MAP inference, exact and by the LP relaxation, and the narrow optional
// interface the DLPW learner needs (Meshi, Sontag, Jaakkola and Globerson, "Learning Efficiently with
// Approximate Inference via Dual Losses", ICML 2010; papers/002).
//
// A model has V variables of K states each and pairwise factors on the edges of a graph.  Its
// potentials theta are node scores theta_i(y_i) and edge scores theta_ij(y_i, y_j); MAP is
//
//     max_y  sum_i theta_i(y_i) + sum_{ij in E} theta_ij(y_i, y_j).
//
// exactMap() finds it by branch and bound (while K^V allows).  The LP relaxation over the local
// polytope is solved through its dual (eq. 8),
//
//     g(delta) = sum_i max_{y_i} [theta_i(y_i) + sum_{k in N(i)} delta_ki(y_i)]
//              + sum_{ij} max_{y_i, y_j} [theta_ij(y_i, y_j) - delta_ij(y_j) - delta_ji(y_i)],
//
// by max-sum diffusion block updates at one node at a time (eq. 11-12), each of which never raises g.
// g(delta) >= LP value >= MAP value >= the score of any labelling; a decoded labelling whose score
// reaches g certifies that the relaxation is tight and that the labelling is an exact MAP.
#pragma once

#include <Eigen/Dense>

#include <utility>
#include <vector>

namespace mmp {

/*!
    WHAT THIS OBJECT REPRESENTS
        V variables with K states each and the undirected edges (i, j), i < j, between them; each
        variable's incident edges are listed for the message updates.
!*/
class PairwiseGraph {
 public:
  PairwiseGraph() = default;
  /// requires: variables >= 1, states >= 2, each edge i < j within [0, variables), no edge twice
  /// (throws mmp::InvalidArgument naming the edge otherwise).
  PairwiseGraph(int variables, int states, std::vector<std::pair<int, int>> edges);

  /// Every pair of variables (the multilabel model's default).
  static PairwiseGraph complete(int variables, int states);
  /// The chain 0-1-2-...: a tree, on which the LP relaxation is tight.
  static PairwiseGraph chain(int variables, int states);
  /// No edges: independent variables.
  static PairwiseGraph empty(int variables, int states);

  int variables() const { return variables_; }
  int states() const { return states_; }
  int edgeCount() const { return static_cast<int>(edges_.size()); }
  const std::vector<std::pair<int, int>>& edges() const { return edges_; }

  /// An edge at a variable: its index and whether the variable is the edge's first end.
  struct Incidence {
    int edge;
    bool first;
  };
  const std::vector<Incidence>& incident(int variable) const { return incident_[variable]; }

 private:
  int variables_ = 0;
  int states_ = 0;
  std::vector<std::pair<int, int>> edges_;
  std::vector<std::vector<Incidence>> incident_;
};

/// theta: node(i, k) and edge(e, a, b) with a the state of edges()[e].first, b of .second.
struct PairwisePotentials {
  int states = 0;
  Eigen::VectorXd nodes;  ///< V K entries, node i's states contiguous
  Eigen::VectorXd edges;  ///< E K K entries, row-major in (a, b)

  void resize(const PairwiseGraph& graph);
  double& node(int i, int k) { return nodes[Eigen::Index(i) * states + k]; }
  double node(int i, int k) const { return nodes[Eigen::Index(i) * states + k]; }
  double& edge(int e, int a, int b) { return edges[(Eigen::Index(e) * states + a) * states + b]; }
  double edge(int e, int a, int b) const { return edges[(Eigen::Index(e) * states + a) * states + b]; }
};

/// ensures: returns sum_i theta_i(y_i) + sum_ij theta_ij(y_i, y_j).
double assignmentScore(const PairwiseGraph& graph, const PairwisePotentials& theta, const std::vector<int>& labels);

/*!
    requires: theta sized for graph
    ensures
        - labels = an exact maximiser of assignmentScore (depth-first branch and bound with the
          bound of the best state of each free variable against the fixed ones plus the best state
          pair of each free edge); returns its score.  Ties go to the first labelling found in the
          order (0, 0, ...), (0, ..., 1), ...
        - cost: up to K^V leaves; meant for V K small (the Scene and Yeast label sets: 2^6, 2^14)
!*/
double exactMap(const PairwiseGraph& graph, const PairwisePotentials& theta, std::vector<int>& labels);

/// delta of eq. 8: for edge e, into(e, to_first, k) = delta into the edge's first end (to_first true)
/// or into its second end.
struct DualMessages {
  int states = 0;
  Eigen::VectorXd values;  ///< E x 2 x K

  void reset(const PairwiseGraph& graph);  ///< all zero
  double& into(int e, bool to_first, int k) { return values[(Eigen::Index(e) * 2 + (to_first ? 0 : 1)) * states + k]; }
  double into(int e, bool to_first, int k) const {
    return values[(Eigen::Index(e) * 2 + (to_first ? 0 : 1)) * states + k];
  }
};

/// ensures: the block update of eq. 11-12 at variable j: every message into j at once.
void diffuseAt(const PairwiseGraph& graph, const PairwisePotentials& theta, DualMessages& delta, int j);

/// ensures: one max-sum diffusion pass: diffuseAt every variable in order; returns g afterwards.
double diffusionPass(const PairwiseGraph& graph, const PairwisePotentials& theta, DualMessages& delta);

/// The maximisers of each term of g: a state per variable, a state pair per edge, and g itself.
struct DualArgmax {
  std::vector<int> nodes;                   ///< argmax of variable i's term (its decoding)
  std::vector<std::pair<int, int>> edges;   ///< argmax of edge e's term
  double value = 0.0;                       ///< g(delta)
};

/// ensures: returns the maximisers of g's terms (lowest index on ties) and g(delta).
DualArgmax dualArgmax(const PairwiseGraph& graph, const PairwisePotentials& theta, const DualMessages& delta);

struct LpSettings {
  int max_passes = 1000;      ///< diffusion passes at most
  double tolerance = 1e-9;    ///< stop when a pass lowers g by at most tolerance * max(1, |g|)
};

struct LpResult {
  double dual_value = 0.0;    ///< g(delta) at the end: an upper bound on the MAP value
  std::vector<int> labels;    ///< decoded: each variable's best state under its messages
  double labels_score = 0.0;  ///< assignmentScore(labels) <= MAP value <= dual_value
  bool tight = false;         ///< labels_score reached dual_value (within 1e-9 relative): labels are a MAP
  int passes = 0;
};

/*!
    requires: theta sized for graph; delta sized for graph (a warm start) or empty (then zeros)
    ensures: runs diffusionPass until LpSettings stops it, leaves the messages in delta and returns
             the bound, the decoding and whether it certifies the decoding as exact.
!*/
LpResult solveLp(const PairwiseGraph& graph, const PairwisePotentials& theta, DualMessages& delta,
                 const LpSettings& settings = {});

/*!
    WHAT THIS OBJECT REPRESENTS
        The narrow optional interface of a StructuredExample whose score is a pairwise model linear
        in w (DESIGN.md: "DLPW needs the pairwise potentials as linear functions of w"):

            w . psi(y) + s L(y) = sum_i theta_i(y_i; w, s) + sum_ij theta_ij(y_i, y_j; w)
            theta_i(k; w, s)    = w . f_i(k) + s e_i(k),   theta_ij(a, b; w) = w . f_ij(a, b),

        with the loss decomposed over the variables.  A learner adds local feature vectors f_i(k),
        f_ij(a, b) into a gradient without building psi for a whole labelling.
    THREAD SAFETY
        All members are const and keep no mutable state.
!*/
class PairwiseExample {
 public:
  virtual ~PairwiseExample() = default;
  virtual const PairwiseGraph& graph() const = 0;
  /// ensures: theta = theta(w, loss_weight) as above.
  virtual void potentials(const Eigen::VectorXd& w, double loss_weight, PairwisePotentials& theta) const = 0;
  /// ensures: g += scale * f_i(k).
  virtual void addNodeFeatures(int i, int k, double scale, Eigen::VectorXd& g) const = 0;
  /// ensures: g += scale * f_ij(a, b) for edge e.
  virtual void addEdgeFeatures(int e, int a, int b, double scale, Eigen::VectorXd& g) const = 0;
  /// The demonstrated labelling y_i.
  virtual const std::vector<int>& target() const = 0;
};

}  // namespace mmp
