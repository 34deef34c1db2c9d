// Chain-structured sequence labelling (a linear-chain max-margin Markov network) on the oracle
// contract: Taskar's OCR words are its first use, any sequence of positions with sparse binary
// features fits.
//
// A ChainData holds many sequences read-only (features as sorted lists of active indices, one label
// per position); a ChainExample is one sequence of it, and solve() runs (loss-augmented) Viterbi.
// The same example is a chain CRF for the likelihood objective: marginals() runs forward-backward.
// Build the data once, share it among the examples through a shared_ptr, and hand the learners an
// ExampleList of the examples.
#pragma once

#include <mmp/core/formulation.hpp>
#include <mmp/core/marginals.hpp>
#include <mmp/core/oracle.hpp>

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace mmp {

class ThreadPool;

/*!
    WHAT THIS OBJECT REPRESENTS
        The layout of w and psi for K labels, F binary input features per position and, if
        start_end, start and end weights.  For a sequence x_1..x_L with labels y_1..y_L:

            score(y) = w . psi(y)
                     = sum_t [ sum_{f active at t} w[emission(f, y_t)] + w[emission(F, y_t)] ]   (bias)
                     + sum_{t>1} w[transition(y_{t-1}, y_t)]
                     + w[start(y_1)] + w[end(y_L)]                                     (if start_end)

        so psi(y) counts, for each entry, how often it is used: psi is a nonnegative integer vector
        and the score is MAXIMISED (the contract's convention; no sign flip).  Indices:

            emission(f, y)   = f K + y               f in [0, F], f == F is the per-label bias
            transition(a, b) = (F + 1) K + a K + b   a = previous label, b = next label
            start(y)         = (F + 1) K + K K + y
            end(y)           = (F + 1) K + K K + K + y
            dimension        = (F + 1) K + K K (+ 2 K)

        Emission weights of one feature are contiguous over the labels, so the emission scores of a
        position are a sum of |active| contiguous K-vectors.
!*/
struct ChainLayout {
  int labels = 0;    ///< K >= 2
  int features = 0;  ///< F >= 0 (binary input features; the bias comes on top)
  bool start_end = true;

  Eigen::Index emission(int feature, int label) const { return Eigen::Index(feature) * labels + label; }
  Eigen::Index transition(int previous, int next) const {
    return Eigen::Index(features + 1) * labels + Eigen::Index(previous) * labels + next;
  }
  Eigen::Index start(int label) const { return transition(labels, label); }
  Eigen::Index end(int label) const { return transition(labels, labels + label); }
  Eigen::Index dimension() const {
    return Eigen::Index(features + 1) * labels + Eigen::Index(labels) * labels + (start_end ? 2 * labels : 0);
  }
};

/*!
    WHAT THIS OBJECT REPRESENTS
        A read-only store of labelled sequences with sparse binary features: position p has the
        label label(p) and the active features [activeBegin(p), activeEnd(p)), strictly increasing.
        Sequence s covers positions first(s) .. first(s) + length(s) - 1.
    THREAD SAFETY
        Build it on one thread; once built, all const members may be called concurrently.
!*/
class ChainData {
 public:
  /// requires: labels >= 2, features >= 0 (throws mmp::InvalidArgument otherwise).
  ChainData(int labels, int features);

  /*!
      requires
          - active.size() == labels.size() >= 1
          - each active[t] strictly increasing, within [0, features())
          - each labels[t] within [0, this->labels())
      ensures
          - appends the sequence and returns its index
          - throws mmp::InvalidArgument naming the position and value at fault (nothing is added)
  !*/
  std::size_t addSequence(const std::vector<std::vector<int>>& active, const std::vector<int>& labels);

  int labels() const { return labels_; }
  int features() const { return features_; }
  std::size_t sequences() const { return sequence_start_.size() - 1; }
  std::size_t positions() const { return position_labels_.size(); }
  std::size_t first(std::size_t s) const { return sequence_start_[s]; }
  std::size_t length(std::size_t s) const { return sequence_start_[s + 1] - sequence_start_[s]; }
  int label(std::size_t position) const { return position_labels_[position]; }
  const std::int32_t* activeBegin(std::size_t position) const { return active_.data() + active_start_[position]; }
  const std::int32_t* activeEnd(std::size_t position) const { return active_.data() + active_start_[position + 1]; }

 private:
  int labels_;
  int features_;
  std::vector<std::size_t> sequence_start_{0};
  std::vector<std::size_t> active_start_{0};
  std::vector<std::int32_t> active_;
  std::vector<int> position_labels_;
};

/// Settings of a chain example (all examples of one training set share them).
struct ChainOptions {
  bool start_end = true;       ///< learn start and end weights (see ChainLayout)
  double position_loss = 1.0;  ///< > 0: L(y) = position_loss * #{t : y_t != label_t}, the Hamming loss
  /// beta_i = L_i^-length_power: 0 gives every sequence weight 1 (each letter counts), q gives each
  /// sequence equal weight whatever its length (beta_i = |y_i|^-q of sec. 6.2).  >= 0.
  double length_power = 0.0;
};

/*!
    WHAT THIS OBJECT REPRESENTS
        Sequence s of a ChainData as a StructuredExample: psi and the score are those of
        ChainLayout{data.labels(), data.features(), options.start_end}, L_i is the Hamming loss of
        ChainOptions and beta_i = length^-length_power.  solve() is exact first-order Viterbi on

            w . psi(y) + loss_weight * position_loss * #{t : y_t != label_t}

        (the loss decomposes over positions, so loss augmentation only adds to the emission
        scores).  Ties go to the lowest label at each step of the recursion and of the final
        argmax.  One call costs O(L (|active| + K) K): for the OCR words (K = 26, ~30 of 128 pixels
        on, L ~ 8) a few microseconds.
        As a DecomposableExample (slack scaling and PosLearn, formulation.hpp), positions are the
        sequence's positions, L_t(v) = position_loss for v != label_t: max-marginals by a forward
        and a backward max-product pass, O(L (|active| + K) K); the exact slack violator by Viterbi
        over (position, label, errors so far), O(L^2 K^2).
        As a MarginalExample it is the linear-chain CRF of the same score, P(y) = exp(w.psi(y)) / Z
        (Lafferty, McCallum and Pereira 2001): marginals() runs forward-backward with log-space
        messages, O(L (|active| + K) K) (see marginals()).
    THREAD SAFETY
        As the oracle contract: solve(), marginals(), predict() and jointFeatures() are const and use
        no shared mutable state.
!*/
class ChainExample final : public StructuredExample, public DecomposableExample, public MarginalExample {
 public:
  /// requires: data non-null, sequence < data->sequences(), options valid (throws InvalidArgument).
  ChainExample(std::shared_ptr<const ChainData> data, std::size_t sequence, ChainOptions options = {});

  Eigen::Index dimension() const override { return layout_.dimension(); }
  /// output = y* (one label per position); psi sparse; loss and beta as above.
  void solve(const Eigen::VectorXd& w, double loss_weight, OracleResult& result) const override;

  void maxMarginals(const Eigen::VectorXd& w, MaxMarginals& m) const override;
  void bestWith(const Eigen::VectorXd& w, int position, int value, OracleResult& result) const override;
  double lossResolution() const override { return options_.position_loss; }
  double maxLoss() const override { return options_.position_loss * static_cast<double>(length()); }
  void exactSlackViolator(const Eigen::VectorXd& w, OracleResult& result) const override;

  /*!
      MarginalExample::marginals: log Z = log sum_y exp(w.psi(y)) over all K^L labellings, E[psi]
      (dense) from the position and pair marginals, psi_target and beta as solve() gives them.
      Forward-backward keeps log-messages alpha_t(y), beta_t(y); each log-sum-exp over the K
      predecessors is taken as max + log sum exp(. - max) through exp(transition - its maximum)
      computed once a call (K^2 exponentials a call, not a position), and falls back to the term by
      term log-sum-exp where that sum underflows, so any finite w gives finite messages.
      Never throws for finite w of the right size (InvalidArgument otherwise).
  !*/
  void marginals(const Eigen::VectorXd& w, MarginalResult& result) const override;
  /// ensures: returns the L x K position marginals P_w(y_t = y) of the CRF (rows sum to 1).
  Eigen::MatrixXd positionMarginals(const Eigen::VectorXd& w) const;

  /// ensures: labels = argmax_y w . psi(y) (plain Viterbi, no psi built); returns the best score.
  double predict(const Eigen::VectorXd& w, std::vector<int>& labels) const;
  /// ensures: returns #{t : predicted y_t != label_t} under w.
  std::size_t errors(const Eigen::VectorXd& w) const;

  /// requires: labels.size() == length(), each in [0, K).  ensures: psi = psi(labels), sparse.
  void jointFeatures(const std::vector<int>& labels, FeatureVector& psi) const;
  /// ensures: returns L(labels) = position_loss * Hamming distance to the demonstration.
  double loss(const std::vector<int>& labels) const;

  std::size_t length() const { return data_->length(sequence_); }
  std::size_t sequence() const { return sequence_; }
  const ChainLayout& layout() const { return layout_; }
  const ChainOptions& options() const { return options_; }
  const ChainData& data() const { return *data_; }
  const std::vector<int>& labels() const { return labels_; }

 private:
  double viterbi(const Eigen::VectorXd& w, double loss_weight, std::vector<int>& out) const;
  /// e (L x K, row t = position t) = the emission scores under w, plus added_loss on wrong labels.
  void emissionScores(const double* wd, double added_loss, double* e) const;
  /// forward(t, y) = best score of positions 0..t ending in y; backward(t, y) = best score of
  /// positions t+1.. given y at t (end weights included): max-marginal(t, y) = their sum.
  void maxProduct(const Eigen::VectorXd& w, Eigen::MatrixXd& forward, Eigen::MatrixXd& backward) const;
  struct SumProduct;
  /// Forward-backward (sum-product) at w, in log space (chain_marginals.cpp); returns log Z.
  double sumProduct(const Eigen::VectorXd& w, SumProduct& messages) const;
  /// result's psi, psi_target, loss and beta for the labelling in result.output.
  void answer(OracleResult& result) const;
  void checkWeights(const Eigen::VectorXd& w) const;

  std::shared_ptr<const ChainData> data_;
  std::size_t sequence_;
  ChainOptions options_;
  ChainLayout layout_;
  std::vector<int> labels_;  ///< the demonstration y_i
  /// For sequences of at most 64 positions: (f, bit t set if feature f is on at position t), by f.
  std::vector<std::pair<std::int32_t, std::uint64_t>> feature_masks_;
  FeatureVector target_;     ///< psi(y_i), built once
  double beta_ = 1.0;
};

/// Position-level errors of a set of sequences under one w.
struct LabelErrors {
  std::size_t wrong = 0;
  std::size_t total = 0;
  double rate() const { return total == 0 ? 0.0 : static_cast<double>(wrong) / static_cast<double>(total); }
};

/// ensures: the errors of predict(w) summed over the examples (in parallel on pool if given).
LabelErrors labelErrors(const std::vector<const ChainExample*>& examples, const Eigen::VectorXd& w,
                        ThreadPool* pool = nullptr);

}  // namespace mmp
