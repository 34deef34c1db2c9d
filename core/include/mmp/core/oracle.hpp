// The oracle contract: the one thing every learner in mmp needs from a structured example.
//
// A path to plan, a word to label, a letter to classify and a preference to rank are all
// StructuredExamples; a learner (learners/) is written against this header alone, so every task
// trains under every learner.
#pragma once

#include <mmp/core/feature_vector.hpp>

#include <Eigen/Dense>
#include <vector>

namespace mmp {

/*!
    WHAT THIS OBJECT REPRESENTS
        The answer of one oracle call on example i at weights w with loss weight s:

            y*         = argmax_y  w . psi_i(y) + s * L_i(y)
            output     = y*, encoded as integers by the task (a path's cell indices, a word's
                         labels, a class index, 0/1 for "order kept"/"order swapped")
            psi_output = psi_i(y*)
            psi_target = psi_i(y_i), the joint features of the demonstrated output
            loss       = L_i(y*), recomputed from y* (never trusted from the search)
            beta       = beta_i >= 0, the example's weight in eq. 4 (1 unless the task says so)

        score(w, s) = w . psi_output + s * loss is the value of the maximisation, and
        hinge(w)    = score(w, 1) - w . psi_target >= 0 is the slack of eq. 4 (zero when the
        demonstration wins by the loss margin).
!*/
struct OracleResult {
  std::vector<int> output;
  FeatureVector psi_output;
  FeatureVector psi_target;
  double loss = 0.0;
  double beta = 1.0;
};

/*!
    WHAT THIS OBJECT REPRESENTS
        One structured example i of maximum margin structured learning (Ratliff, Bagnell and
        Zinkevich, "(Online) Subgradient Methods for Structured Prediction", AISTATS 2007): an input
        x_i, a demonstrated output y_i, a joint feature map psi_i(y) in R^d and a loss L_i(y) >= 0
        with L_i(y_i) = 0.  Prediction is argmax_y w . psi_i(y), and learners minimise (eq. 4)

            c(w) = lambda/2 |w|^2 + 1/n sum_i beta_i ( max_y [w.psi_i(y) + L_i(y)] - w.psi_i(y_i) )^q

        whose subgradient (eq. 6) is lambda w + 1/n sum_i q beta_i h_i^(q-1) (psi_i(y*) - psi_i(y_i)).

    SIGN CONVENTION
        The contract is a MAXIMISATION of a score.  Tasks that minimise a cost, such as path
        planning, set psi_i(y) = -F_i(y) with F_i the (nonnegative) feature counts of y, so that the
        cost of y is w . F_i(y) = -w . psi_i(y).  Each task states its choice in its header and a
        finite-difference test guards it.

    THREAD SAFETY
        solve() is const and may be called concurrently from several threads, on the same object
        or on different ones: an implementation keeps no mutable state outside `result`.
!*/
class StructuredExample {
 public:
  virtual ~StructuredExample() = default;

  /// ensures: returns d, the length of w and of every psi this example produces; d > 0.
  virtual Eigen::Index dimension() const = 0;

  /*!
      requires
          - w.size() == dimension(), all entries finite
          - loss_weight >= 0 (1 for loss-augmented inference, 0 for plain prediction)
      ensures
          - fills `result` as described for OracleResult, with y* an exact maximiser of
            w . psi_i(y) + loss_weight * L_i(y); ties are broken deterministically
          - result.loss is L_i(y*) (the loss of the returned output, whatever loss_weight was)
          - may reuse the storage already in `result` (callers keep one per thread or per example)
          - throws mmp::InvalidArgument when w has the wrong size; an example that cannot be
            solved at this w (for example a planner whose costs w would make non-positive) throws
            mmp::InvalidArgument naming the cause instead of returning an inexact answer
  !*/
  virtual void solve(const Eigen::VectorXd& w, double loss_weight, OracleResult& result) const = 0;
};

/// Non-owning list of examples; the caller keeps them alive while a learner uses them.
using ExampleList = std::vector<const StructuredExample*>;

}  // namespace mmp
