// The max-margin objective of eq. 4 and its subgradient (eq. 6), evaluated through the oracles.
//
//   c(w) = lambda/2 |w|^2 + 1/n sum_i beta_i h_i(w)^q,   h_i(w) = max_y [w.psi_i(y) + L_i(y)] - w.psi_i(y_i)
//   g(w) = lambda w + 1/n sum_i q beta_i h_i^(q-1) (psi_i(y*) - psi_i(y_i))
//
// Both learners and the tests use this one implementation.
#pragma once

#include <mmp/core/oracle.hpp>
#include <mmp/core/process_group.hpp>
#include <mmp/core/thread_pool.hpp>

#include <Eigen/Dense>

namespace mmp {

struct ObjectiveParams {
  double lambda = 1e-2;  ///< regulariser, >= 0
  int q = 1;             ///< slack penalty norm, 1 or 2
};

/// Throws mmp::InvalidArgument unless lambda >= 0 (finite) and q is 1 or 2.
void validate(const ObjectiveParams& params);

/// The dimension d shared by every example; throws mmp::InvalidArgument if the list is empty, holds a
/// null pointer or mixes dimensions (naming the example).
Eigen::Index commonDimension(const ExampleList& examples);

/// The slack of one loss-augmented oracle answer, max(0, w.psi_output + loss - w.psi_target).
/// (An exact oracle never gives a negative value; rounding can give -1e-16, which is clipped.)
double hinge(const OracleResult& result, const Eigen::VectorXd& w);

/*!
    ensures
        - returns beta h^q for this answer (h = hinge(result, w))
        - g += scale * q beta h^(q-1) (psi_output - psi_target), the term's part of eq. 6
!*/
double addTermSubgradient(const OracleResult& result, const Eigen::VectorXd& w, int q, double scale,
                          Eigen::VectorXd& g);

struct ObjectiveValue {
  double value = 0.0;      ///< c(w)
  double mean_loss = 0.0;  ///< 1/n sum_i L_i(y*_i) of the loss-augmented answers
};

/*!
    WHAT THIS OBJECT REPRESENTS
        c(w) of eq. 4 over a fixed list of examples.  evaluate() makes one loss-augmented oracle
        call per example (in parallel on `pool` if given) and sums the terms in example order, so
        the value and the subgradient do not depend on the thread count.
!*/
class Objective {
 public:
  /// requires: examples non-empty, all of the same dimension; params valid.
  Objective(ExampleList examples, ObjectiveParams params);

  Eigen::Index dimension() const { return dimension_; }
  const ExampleList& examples() const { return examples_; }
  const ObjectiveParams& params() const { return params_; }

  /// ensures: returns c(w); if subgradient != nullptr, *subgradient is g(w) of eq. 6.
  ObjectiveValue evaluate(const Eigen::VectorXd& w, Eigen::VectorXd* subgradient = nullptr,
                          ThreadPool* pool = nullptr) const;
  /*!
      The same over processes (data-parallel): this process calls the oracles of its
      exampleShare only, and one processes.sum() combines every process's part of the risk, loss and
      subgradient (one collective call; every process must call this with the same w).
      requires: every process holds the same example list
      ensures
          - returns c(w) and *subgradient = g(w) over all examples, the same on every process; equal
            to evaluate() up to the order of the sum (the shares' partial sums are added), and the same
            at every run with the same process count (and any thread count)
          - stop: in, whether this process asks to stop (e.g. out of time); out, whether any did --
            carried in the same sum, so every process takes the same decision
          - an oracle's mmp::NumericalError on any process is thrown on every process (naming the
            example on the process that met it)
  !*/
  ObjectiveValue evaluate(const Eigen::VectorXd& w, Eigen::VectorXd* subgradient, ThreadPool* pool,
                          ProcessGroup& processes, bool& stop) const;

 private:
  ExampleList examples_;
  ObjectiveParams params_;
  Eigen::Index dimension_ = 0;
  mutable std::vector<OracleResult> results_;  // one slot per example, reused across calls

  struct Part {
    double risk = 0.0, loss = 0.0;  // sums over the examples, unscaled
  };
  // The oracles of examples [begin, end) at w, summed in example order; g += their subgradient terms.
  Part evaluatePart(const Eigen::VectorXd& w, std::size_t begin, std::size_t end, Eigen::VectorXd& g,
                    ThreadPool* pool) const;
};

}  // namespace mmp
