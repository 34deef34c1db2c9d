// Multilabel classification as a pairwise model on the oracle contract (seed 002, sec. 5: Meshi,
// Sontag, Jaakkola and Globerson, ICML 2010; Finley and Joachims, ICML 2008): each of V labels is a
// variable with K states (K = 2: off/on), unary weights per label, state and input feature, and
// pairwise weights per edge of a label graph and state pair.  The loss is the normalised Hamming
// loss, L(y) = #{i : y_i != y*_i} / V.
//
// A MultilabelData holds the inputs and labellings read-only; a MultilabelExample is one row of it.
// Its oracle is exact (branch and bound, while K^V allows: Scene 2^6, Yeast 2^14) or the LP
// relaxation by max-sum diffusion (pairwise.hpp), and it implements the optional PairwiseExample
// interface that DLPW (learners/dlpw.hpp) trains through.
//
//   auto data = std::make_shared<const MultilabelData>(PairwiseGraph::complete(14, 2), x, y);
//   std::vector<MultilabelExample> examples;            // one per row
//   ... OnlineGreedyProjection / BatchSubgradient / Dlpw train them unchanged.
#pragma once

#include <mmp/core/formulation.hpp>
#include <mmp/core/oracle.hpp>
#include <mmp/core/pairwise.hpp>

#include <cstdint>
#include <memory>
#include <vector>

namespace mmp {

class ThreadPool;

/// What the unary factor of variable i sees of an input row x.
enum class UnaryInput {
  Whole,  ///< the whole row x (multilabel: every label sees every feature)
  Own,    ///< x_i alone (the synthetic model of seed 002: x and y of the same length)
};

struct MultilabelOptions {
  UnaryInput input = UnaryInput::Whole;
  bool bias = true;  ///< append a constant 1 to what each unary factor sees
};

/*!
    WHAT THIS OBJECT REPRESENTS
        n rows, each an input x (s values) and a labelling y (V states in [0, K)), and the layout of
        w for the graph:

            score(y) = w . psi(y) = sum_i w[unary(i, y_i)] . u_i(x) + sum_{e = (i, j)} w[pair(e, y_i, y_j)]

        with u_i(x) = x (Whole) or (x_i) (Own), followed by 1 if bias: unaryWidth() values.  The
        blocks: unary(i, k) starts at (i K + k) unaryWidth(); pair(e, a, b) = V K unaryWidth()
        + (e K + a) K + b; dimension() = V K unaryWidth() + E K K.  psi counts, so the score is
        MAXIMISED (the contract's convention, no sign flip).
    THREAD SAFETY
        Read-only once built.
!*/
class MultilabelData {
 public:
  /*!
      requires: x n x s with n >= 1 and finite entries; y n rows of graph.variables() states in
                [0, graph.states()); with UnaryInput::Own, s == graph.variables()
      ensures: throws mmp::InvalidArgument naming the row and value at fault otherwise
  !*/
  MultilabelData(PairwiseGraph graph, Eigen::MatrixXd x, std::vector<std::vector<int>> y, MultilabelOptions options = {});

  const PairwiseGraph& graph() const { return graph_; }
  const MultilabelOptions& options() const { return options_; }
  std::size_t size() const { return y_.size(); }
  const Eigen::MatrixXd& inputs() const { return x_; }
  const std::vector<int>& labels(std::size_t row) const { return y_[row]; }

  Eigen::Index unaryWidth() const { return unary_width_; }
  Eigen::Index unary(int i, int k) const { return (Eigen::Index(i) * graph_.states() + k) * unary_width_; }
  Eigen::Index pair(int e, int a, int b) const {
    const Eigen::Index k = graph_.states();
    return Eigen::Index(graph_.variables()) * k * unary_width_ + (Eigen::Index(e) * k + a) * k + b;
  }
  Eigen::Index dimension() const { return pair(graph_.edgeCount(), 0, 0); }
  /// The unary input u_i of row `row` (unaryWidth() values).
  void unaryInput(std::size_t row, int i, Eigen::VectorXd& u) const;

 private:
  PairwiseGraph graph_;
  Eigen::MatrixXd x_;
  std::vector<std::vector<int>> y_;
  MultilabelOptions options_;
  Eigen::Index unary_width_ = 0;
};

enum class MultilabelInference {
  Exact,  ///< branch and bound: an exact maximiser
  Lp,     ///< the LP relaxation by max-sum diffusion to convergence, from zero messages each call
};

/*!
    WHAT THIS OBJECT REPRESENTS
        Row `row` of a MultilabelData as a StructuredExample and a PairwiseExample:
        theta_i(k) = w[unary(i, k)] . u_i + loss_weight [k != y_i] / V, theta_ij(a, b) = w[pair(e, a, b)].

        solve() with Exact inference honours the contract as written.  With Lp inference it runs
        solveLp: when the relaxation is tight (or loss_weight is 0, plain prediction) the answer is
        the decoded labelling with its own psi and loss, as the contract says; otherwise it is the
        RELAXED answer: output the decoding, psi_output = the features of the maximisers of the
        dual's terms (dualArgmax), and loss = g(delta) - w . psi_output, so that the score is the
        dual bound g >= the exact value and psi_output - psi_target is the subgradient of that bound
        in w at the converged messages (the subgradient DLPW uses).  beta = 1.
        As a DecomposableExample (slack scaling and PosLearn, formulation.hpp), positions are the
        labels, L_i(k) = 1/V for k != y_i: max-marginals and bestWith by branch and bound with the
        position's state clamped (exact, whatever the inference setting: V (K - 1) + 1 searches),
        the exact slack violator by enumerating all K^V labellings (refused above 2^20).
    THREAD SAFETY
        As the oracle contract.
!*/
class MultilabelExample final : public StructuredExample, public PairwiseExample, public DecomposableExample {
 public:
  /// requires: data non-null, row < data->size().
  MultilabelExample(std::shared_ptr<const MultilabelData> data, std::size_t row,
                    MultilabelInference inference = MultilabelInference::Exact, LpSettings lp = {});

  Eigen::Index dimension() const override { return data_->dimension(); }
  void solve(const Eigen::VectorXd& w, double loss_weight, OracleResult& result) const override;

  const PairwiseGraph& graph() const override { return data_->graph(); }
  void potentials(const Eigen::VectorXd& w, double loss_weight, PairwisePotentials& theta) const override;
  void addNodeFeatures(int i, int k, double scale, Eigen::VectorXd& g) const override;
  void addEdgeFeatures(int e, int a, int b, double scale, Eigen::VectorXd& g) const override;
  const std::vector<int>& target() const override { return data_->labels(row_); }

  void maxMarginals(const Eigen::VectorXd& w, MaxMarginals& m) const override;
  void bestWith(const Eigen::VectorXd& w, int position, int value, OracleResult& result) const override;
  double lossResolution() const override { return 1.0 / graph().variables(); }
  double maxLoss() const override { return 1.0; }
  void exactSlackViolator(const Eigen::VectorXd& w, OracleResult& result) const override;

  /// ensures: labels = the prediction under w by this example's inference (the LP's decoding).
  void predict(const Eigen::VectorXd& w, std::vector<int>& labels) const;
  /// ensures: psi = psi(labels), dense.
  void jointFeatures(const std::vector<int>& labels, FeatureVector& psi) const;
  /// ensures: returns the normalised Hamming loss of labels against y_i.
  double loss(const std::vector<int>& labels) const;

  std::size_t row() const { return row_; }
  MultilabelInference inference() const { return inference_; }

 private:
  void checkWeights(const Eigen::VectorXd& w) const;
  /// The exact MAP of theta with variable i held at state k: its labels and score.
  double clampedMap(const PairwisePotentials& theta, int i, int k, std::vector<int>& labels) const;

  std::shared_ptr<const MultilabelData> data_;
  std::size_t row_;
  MultilabelInference inference_;
  LpSettings lp_;
  FeatureVector target_psi_;
};

/// Errors of predictions against the labellings.
struct MultilabelErrors {
  double hamming = 0.0;       ///< mean normalised Hamming loss
  double subset = 0.0;        ///< share of rows not predicted exactly
  std::size_t rows = 0;
};

/// ensures: the errors of predict(w) over the examples (in parallel on pool if given).
MultilabelErrors multilabelErrors(const std::vector<const MultilabelExample*>& examples, const Eigen::VectorXd& w,
                                  ThreadPool* pool = nullptr);

/// The synthetic non-binary model of seed 002 (sec. 5, Figure 1d).
struct SyntheticMultilabelParams {
  int variables = 20;
  int states = 4;
  int rows = 100;
  std::uint64_t seed = 1;
};

/*!
    ensures: a fully connected model with UnaryInput::Own and no bias, as seed 002 describes it:
             w with independent N(0, 1) entries, each row's x with N(0, 1) entries, and y by
             iterated conditional modes under w from all-zero states (each sweep sets every
             variable in turn to its best state given the others, until a sweep changes nothing,
             at most 100 sweeps).  The paper gives no more detail; these choices are ours.
             The generating w is returned in `truth` if non-null.
!*/
MultilabelData syntheticMultilabel(const SyntheticMultilabelParams& params, Eigen::VectorXd* truth = nullptr);

}  // namespace mmp
