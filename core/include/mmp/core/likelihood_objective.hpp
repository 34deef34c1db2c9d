// The conditional-likelihood objective and its gradient, evaluated through the marginal interface
// (mmp/core/marginals.hpp), beside the max-margin objective of mmp/core/objective.hpp:
//
//   c(w) = lambda/2 |w|^2 + 1/n sum_i beta_i nll_i(w),   nll_i(w) = log Z_i(w) - w.psi_i(y_i)
//   g(w) = lambda w + 1/n sum_i beta_i (E_w[psi_i] - psi_i(y_i))
//
// c is smooth and, for lambda > 0, lambda-strongly convex (log Z_i is convex: its Hessian is the
// covariance of psi_i under P_w), so the subgradient learners' guarantees carry over with g an
// exact gradient.  The online and batch learners train it when LearnerSettings::objective says so.
#pragma once

#include <mmp/core/marginals.hpp>
#include <mmp/core/oracle.hpp>
#include <mmp/core/thread_pool.hpp>

#include <Eigen/Dense>
#include <string>
#include <vector>

namespace mmp {

/*!
    ensures
        - returns the examples as MarginalExamples, in order (the same objects)
        - throws mmp::InvalidArgument naming the first example that does not implement
          MarginalExample, and `what` (the objective or learner that asked), if any does not
!*/
std::vector<const MarginalExample*> marginalExamples(const ExampleList& examples, const std::string& what);

/*!
    requires: result filled by a marginal call at w; g.size() == w.size()
    ensures
        - returns beta nll = beta (log_partition - w.psi_target), the term's part of c
        - g += scale * beta (expected_psi - psi_target), the term's part of the gradient
!*/
double addLikelihoodGradient(const MarginalResult& result, const Eigen::VectorXd& w, double scale, Eigen::VectorXd& g);

/*!
    WHAT THIS OBJECT REPRESENTS
        c(w) above over a fixed list of examples.  evaluate() makes one marginal call per example
        (in parallel on `pool` if given, kChunk examples at a time, so that dense expectations take
        kChunk x d doubles, not n x d) and sums the terms in example order, so the value and the
        gradient do not depend on the thread count.
!*/
class LikelihoodObjective {
 public:
  /// requires: examples non-empty, of one dimension, each a MarginalExample (throws
  /// mmp::InvalidArgument naming the example otherwise); lambda >= 0 and finite.
  LikelihoodObjective(ExampleList examples, double lambda);

  static constexpr std::size_t kChunk = 256;  ///< marginal calls held at once

  Eigen::Index dimension() const { return dimension_; }
  double lambda() const { return lambda_; }

  /// ensures: returns c(w); if gradient != nullptr, *gradient is g(w).
  double evaluate(const Eigen::VectorXd& w, Eigen::VectorXd* gradient = nullptr, ThreadPool* pool = nullptr) const;

 private:
  std::vector<const MarginalExample*> examples_;
  double lambda_;
  Eigen::Index dimension_ = 0;
  mutable std::vector<MarginalResult> results_;  // one slot per example of a chunk, reused across calls
};

}  // namespace mmp
