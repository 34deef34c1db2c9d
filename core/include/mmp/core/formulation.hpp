// Formulations beyond margin scaling (Sarawagi and Gupta, "Accurate Max-Margin Training for
// Structured Output Spaces", ICML 2008; Ratliff, Bagnell and Zinkevich 2007, sec. 5), as adapters on
// the oracle contract, so every learner trains each of them unchanged:
//
//   margin   h_i(w) = max_y [ L(y) + w.psi(y) - w.psi(y_i) ]                      (eq. 4 as it is)
//   slack    h_i(w) = max_y L(y) [ 1 + w.psi(y) - w.psi(y_i) ]_+
//   poslearn h_i(w) = sum_c max_{y : y_c != y_i,c} L_c(y_c) [ 1 + w.psi(y) - w.psi(y_i) ]_+
//
// Each hinge is a maximum of functions linear in w, so one oracle answer can carry it: the adapter
// returns the answer (psi_output, loss) with
//
//   loss + w.psi_output - w.psi_target = the formulation's h_i at w,
//   psi_output - psi_target            = a subgradient of h_i at w,
//
// (slack: loss = L(y), psi_output = psi_target + L(y) (psi(y) - psi_target); poslearn: the sum of
// such terms over the violated positions), and mmp::hinge, the objective, the online and batch
// learners and the cutting-plane learner's planes read it as they read a margin-scaling answer.
//
//   FormulatedExample slack(chain_example, Formulation::Slack);   // approximate slack scaling
//   ExampleList list{&slack};                                     // ... any learner trains it
//
// Slack scaling and PosLearn need the loss to decompose over positions, L(y) = sum_c L_c(y_c): the
// task says so by implementing the small optional interface DecomposableExample (the chain of OCR
// and the multilabel graph do).
#pragma once

#include <mmp/core/oracle.hpp>

#include <Eigen/Dense>
#include <string>
#include <vector>

namespace mmp {

enum class Formulation {
  Margin,    ///< margin scaling: the oracle contract's own loss-augmented answer
  Slack,     ///< slack scaling, its violator found by seed 004's search over a loss weight (sec. 3)
  SlackExact,  ///< slack scaling with the task's exact violator (where the task can afford it)
  PosLearn,  ///< per-position slacks, violators from max-marginals (seed 004, sec. 4)
};
/// "margin", "slack", "slack_exact" or "poslearn"; throws mmp::InvalidArgument naming them otherwise.
Formulation parseFormulation(const std::string& name);
std::string describe(Formulation formulation);

/// The max-marginals of one example at w: score(c, v) = max_{y : y_c = v} w.psi(y), and L_c(v).
struct MaxMarginals {
  Eigen::MatrixXd score;    ///< positions x values; -inf where v is not a value of position c
  Eigen::MatrixXd loss;     ///< positions x values: L_c(v) >= 0, 0 at the demonstrated value
  std::vector<int> target;  ///< y_i,c for each position
};

/*!
    WHAT THIS OBJECT REPRESENTS
        The optional interface of an example whose loss decomposes over positions,
        L(y) = sum_c L_c(y_c) with L_c(y_i,c) = 0 (a Hamming loss), for slack scaling and PosLearn.
    THREAD SAFETY
        As the oracle contract: every member is const and keeps no mutable state.
!*/
class DecomposableExample {
 public:
  virtual ~DecomposableExample() = default;

  /// ensures: m holds the max-marginals of w.psi (no loss added) at w.
  virtual void maxMarginals(const Eigen::VectorXd& w, MaxMarginals& m) const = 0;
  /*!
      ensures: result holds y = argmax_{y : y_c = value} w.psi(y) (ties deterministic) as the
               contract would: output, psi_output = psi(y), psi_target, loss = L(y), beta
  !*/
  virtual void bestWith(const Eigen::VectorXd& w, int position, int value, OracleResult& result) const = 0;
  /// The smallest difference between two distinct losses (L_eps of seed 004 sec. 3.1) and the largest loss.
  virtual double lossResolution() const = 0;
  virtual double maxLoss() const = 0;
  /*!
      ensures: result holds y = an exact maximiser of L(y) (1 + w.psi(y) - w.psi(y_i)) over all y
               (the demonstration, value 0, when nothing is positive), as the contract would;
               throws mmp::InvalidArgument when the task cannot afford it, naming why
  !*/
  virtual void exactSlackViolator(const Eigen::VectorXd& w, OracleResult& result) const = 0;
};

/// The search of approximate slack scaling (seed 004, sec. 3).
struct SlackSearch {
  int evaluations = 12;   ///< loss-augmented calls in the golden-section search over log lambda, >= 2
  double epsilon = 1e-3;  ///< lambda_l = epsilon / L_max (sec. 3.1), > 0
};

/*!
    WHAT THIS OBJECT REPRESENTS
        One example under a formulation, itself a StructuredExample: solve(w, 0) is plain prediction
        (the base example's), solve(w, s > 0) the formulation's answer with the loss scaled by s,
        carried as the header describes.  For Slack and PosLearn, `output` is the labelling whose
        term is largest (Slack: the violator; PosLearn: the worst position's, or the prediction when
        no position is violated) and `loss` is the answer's linear term, not L(output); when no term
        is positive, loss = 0 and psi_output = psi_target.

        Slack (approximate): the violator of the largest L(y) (1 + w.psi(y) - w.psi(y_i)) among the
        answers of loss-augmented calls y_lambda = argmax_y w.psi(y) + lambda L(y): lambda = 1 (so it
        is never worse than margin scaling's violator, under the slack-scaled objective), then a
        golden-section search over log lambda in [epsilon / L_max, (s(y_1) - s(y_i) + 1) / L_eps]
        (sec. 3.1's bounds) minimising seed 004's convex F(lambda) = max_y s(y) + lambda L(y) -
        2 sqrt(xi lambda), xi the best slack found so far.  Seed 004's Claim 3.3: it can miss the
        exact violator.
        PosLearn: per position c, the value v != y_i,c of largest L_c(v) (1 + max-marginal(c, v) -
        w.psi(y_i)); each positive term adds its best labelling's plane.
    THREAD SAFETY
        As the oracle contract.  The base example must outlive this object.
!*/
class FormulatedExample final : public StructuredExample {
 public:
  /// requires: Slack, SlackExact and PosLearn need base to be a DecomposableExample (throws
  /// mmp::InvalidArgument naming the formulation otherwise); search valid.
  FormulatedExample(const StructuredExample& base, Formulation formulation, SlackSearch search = {});

  Eigen::Index dimension() const override { return base_.dimension(); }
  void solve(const Eigen::VectorXd& w, double loss_weight, OracleResult& result) const override;

  Formulation formulation() const { return formulation_; }
  const StructuredExample& base() const { return base_; }

 private:
  void slack(const Eigen::VectorXd& w, double loss_weight, OracleResult& result) const;
  void posLearn(const Eigen::VectorXd& w, double loss_weight, OracleResult& result) const;

  const StructuredExample& base_;
  const DecomposableExample* decomposable_ = nullptr;
  Formulation formulation_;
  SlackSearch search_;
};

/// Examples under one formulation: wrap each of `examples` (kept alive by the caller) in `adapters`
/// and return the list a learner trains on (the examples themselves for Margin).
ExampleList formulate(const ExampleList& examples, Formulation formulation, std::vector<FormulatedExample>& adapters,
                      SlackSearch search = {});

/// The formulation a list of examples trains: FormulatedExample's, Margin for any other example.
/// Throws mmp::InvalidArgument naming two examples whose formulations differ.
Formulation formulationOf(const ExampleList& examples);

}  // namespace mmp
