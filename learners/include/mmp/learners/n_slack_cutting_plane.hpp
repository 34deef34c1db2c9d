// NSlackCuttingPlane: the n-slack cutting-plane method for maximum margin structured learning
// (Tsochantaridis, Joachims, Hofmann and Altun, "Large margin methods for structured and
// interdependent output variables", JMLR 2005), with a prior centre, a prior metric and linear
// constraints on w.  It minimises, exactly,
//
//     c(w) = lambda/2 (w - w0)' M (w - w0) + 1/n sum_i beta_i h_i(w)     over   { w : G_j . w >= g_j },
//     h_i(w) = max_y [w.psi_i(y) + L_i(y) - w.psi_i(y_i)]   (q = 1),
//
// by keeping, for each example, the outputs its loss-augmented oracle has answered (its working set).
// Each iteration calls every oracle at w_t; an answer whose slack exceeds its working set's by more
// than the tolerance joins the set, and w_{t+1} is the exact minimiser of c with each h_i replaced by
// the max over its working set -- a small quadratic programme in (w, the slacks), solved by a
// primal-dual interior-point method to a relative tolerance of 1e-12.  The model of each h_i is a lower bound that is exact on the outputs held,
// and the outputs are finitely many: when no oracle answer at w_t lies outside its set, w_t minimises
// c itself (to the QP's tolerance).  Since c is strongly convex its minimiser is unique, so the answer
// depends on the set of examples alone -- not on their order, on the starting point or on the outputs
// met on the way, which only change how many iterations it takes.
//
// Use it when the optimum itself matters (adapting a model to a few demonstrations: the same set in
// any order gives the same model) and the oracles are exact.  Each iteration is one pass of oracle
// calls; the working sets stay small for the few examples it is meant for.
#pragma once

#include <mmp/learners/learner.hpp>

#include <vector>

namespace mmp {

/// G . w >= g.
struct LinearConstraint {
  Eigen::VectorXd normal;
  double bound = 0.0;
};

/// One output an example's oracle answered, as a working set keeps it: psi(y) - psi(y_i), L(y) and the
/// example's beta.  It depends on the example alone, so a later run on the same example may start with it.
struct WorkingOutput {
  std::vector<int> output;
  Eigen::VectorXd difference;
  double loss = 0.0;
  double beta = 1.0;
};

class NSlackCuttingPlane : public Learner {
 public:
  struct Params {
    double lambda = 1e-2;         ///< > 0, the prior's strength
    Eigen::VectorXd prior;        ///< w0; empty: 0
    /// M, symmetric positive definite (d x d); empty: the identity.
    Eigen::MatrixXd prior_metric;
    /// Constraints G_j . w >= g_j whose intersection holds the weights the oracles need (positive
    /// costs); it must not be empty.
    std::vector<LinearConstraint> constraints;
    /*!
        stop.tolerance: an oracle answer is new when its slack exceeds its working set's by more than
        tolerance * max(beta_i / n, |slack|) (1e-9 by default); stop.max_iterations (oracle passes,
        default 200) and stop.time_budget_seconds end the run with NoConvergence.
    !*/
    StopCriteria stop{200, 1e-9};
    /// The working-set programme's tolerance on its residuals and complementarity, relative.
    double qp_tolerance = 1e-12;
    int threads = 1;  ///< oracle calls in parallel; 0 = all cores; the result does not depend on it
    /// Outputs each example's working set starts with (empty, or one list per example, in the
    /// examples' order: a former run's workingSets() on the same examples, its optimum's binding
    /// outputs).  They change how many passes it takes, not the answer.  With a warm start the first
    /// pass asks only the examples whose set is empty (their answers at the sets' minimiser are the
    /// only ones that can be new), when there are such examples; every later pass asks them all.
    std::vector<std::vector<WorkingOutput>> warm_start;
  };

  explicit NSlackCuttingPlane(Params params);

  /*!
      Learner::train, and
      requires: every oracle loss-augmented exact wherever the constraints hold
      ensures
          - returns the minimiser of c over the constraints when info() is Success: no oracle answer at
            it lay outside its example's working set; objective() = c there
          - the result does not depend on the order of the examples, on `initial` (where the first
            oracles are asked if it is given; else the constrained minimiser of the prior term) or on
            the thread count, beyond the QP's tolerance
          - NoConvergence when the pass or time budget ran out first (the weights are the last point
            the oracles were asked at, objective() the c of the last pass that asked every example:
            NaN if only a warm start's partial first pass ran), NumericalIssue when an oracle threw mmp::NumericalError or the weight check
            refused a solution (the weights are the last good ones)
  !*/
  const Eigen::VectorXd& train(const ExampleList& examples, Eigen::VectorXd initial = Eigen::VectorXd()) override;
  /// The minimiser of the prior term alone over the constraints (no examples: their nearest point
  /// to w0 in the metric M).  requires: a prior.
  Eigen::VectorXd priorMinimiser() const;

  LearnerKind kind() const override { return LearnerKind::CuttingPlane; }
  long passes() const override { return iterations(); }
  double objective() const override { return objective_; }
  const char* traceValueName() const override { return "objective c(w) with the prior"; }
  const char* passName() const override { return "iteration"; }
  const Params& params() const { return params_; }

  /// c(w) minus the minimum over the last working sets, a lower bound on min c (>= 0 up to rounding;
  /// NaN before training).
  double gap() const { return gap_; }
  /// Outputs held in all working sets at the end.
  long outputs() const { return outputs_; }
  /// Each example's outputs whose planes hold with equality at the answer, in the examples' order: all
  /// a later warm start needs (the others would only make its programmes larger).
  const std::vector<std::vector<WorkingOutput>>& workingSets() const { return working_sets_; }

 private:
  Params params_;
  double objective_ = std::numeric_limits<double>::quiet_NaN();
  double gap_ = std::numeric_limits<double>::quiet_NaN();
  long outputs_ = 0;
  std::vector<std::vector<WorkingOutput>> working_sets_;
};

}  // namespace mmp
