// The marginal interface: what a learner needs from an example to train the conditional-likelihood
// objective instead of the max-margin one (the structured learning survey in ../shared/papers: the
// same model trained by sum-product instead of max-product).  Optional, beside StructuredExample and
// DecomposableExample: a task that can compute expectations under its model implements it too.
//
//   chain CRF (core/tasks/chain):   forward-backward in log space
//   Maximum Entropy IRL for paths:  soft value iteration to the goal, forward pass from the start
//                                   (Ziebart et al. 2008; planning/)
#pragma once

#include <mmp/core/feature_vector.hpp>

#include <Eigen/Dense>

namespace mmp {

/*!
    WHAT THIS OBJECT REPRESENTS
        The answer of one marginal call on example i at weights w, for the model

            P_w(y | x_i) = exp(w . psi_i(y)) / Z_i(w),   Z_i(w) = sum_y exp(w . psi_i(y))

        with psi_i the example's joint feature map of the oracle contract (mmp/core/oracle.hpp;
        paths use psi = -F, so P(path) is proportional to exp(-cost(path))):

            log_partition = log Z_i(w)
            expected_psi  = E_{y ~ P_w}[psi_i(y)]  (the gradient of log Z_i at w)
            psi_target    = psi_i(y_i), the joint features of the demonstrated output
            beta          = beta_i >= 0, the example's weight (as in OracleResult)

        The example's negative log-likelihood is nll_i(w) = log_partition - w . psi_target >= 0, and
        its gradient is expected_psi - psi_target.  Learners minimise

            c(w) = lambda/2 |w|^2 + 1/n sum_i beta_i nll_i(w).
!*/
struct MarginalResult {
  FeatureVector expected_psi;
  FeatureVector psi_target;
  double log_partition = 0.0;
  double beta = 1.0;
};

/*!
    WHAT THIS OBJECT REPRESENTS
        An example whose model's partition function and feature expectations can be computed, so
        that the likelihood objective can be trained on it.  A class implements it beside
        StructuredExample (same dimension, same psi).

    THREAD SAFETY
        marginals() is const and may be called concurrently, as StructuredExample::solve().
!*/
class MarginalExample {
 public:
  virtual ~MarginalExample() = default;

  /*!
      requires
          - w.size() == the example's dimension, all entries finite
      ensures
          - fills `result` as described for MarginalResult; an implementation that truncates (a
            tolerance on a fixed point, a region of a grid) documents the bound on what that changes
          - may reuse the storage already in `result`
          - throws mmp::InvalidArgument when w has the wrong size or the model is not normalisable
            at w (for example a path model whose costs w would make non-positive)
  !*/
  virtual void marginals(const Eigen::VectorXd& w, MarginalResult& result) const = 0;
};

}  // namespace mmp
