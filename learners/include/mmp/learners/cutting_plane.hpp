// CuttingPlane: the 1-slack cutting-plane method for maximum margin structured learning (Joachims,
// Finley and Yu, "Cutting-plane training of structural SVMs", Machine Learning 2009, the 1-slack
// formulation; Teo et al.'s bundle method and dlib's OCA are the same idea).  It minimises eq. 4 with q = 1,
//
//     c(w) = lambda/2 |w|^2 + R(w),   R(w) = 1/n sum_i beta_i max_y [w.psi_i(y) + L_i(y) - w.psi_i(y_i)],
//
// by building a piecewise-linear lower model of the risk R from the oracles' answers.  Iteration t
// calls every loss-augmented oracle at w_t (in parallel, summed in example order, so the result does
// not depend on the thread count) and adds the plane
//
//     a_t = 1/n sum_i beta_i (psi_i(y*_i) - psi_i(y_i)),   b_t = 1/n sum_i beta_i L_i(y*_i),
//
// for which R(w) >= b_t + a_t . w everywhere, with equality at w_t for an exact oracle.  The next
// iterate minimises lambda/2 |w|^2 + max(0, max_t b_t + a_t . w) exactly, through its dual over the
// working set (the zero plane a = 0, b = 0 turns "sum alpha <= 1" into the simplex):
//
//     max_alpha  sum_t alpha_t b_t - 1/(2 lambda) |sum_t alpha_t a_t|^2,   alpha on the simplex,
//     w_{t+1} = -1/lambda sum_t alpha_t a_t,
//
// solved by pairwise SMO (simplex_qp.hpp) warm-started from the previous alpha on the Gram matrix of
// the planes, which grows by one row (t dot products in R^d) an iteration.  Every dual value is a
// lower bound on min c, every c(w_t) an upper bound; the learner stops when the gap between the best
// c(w_t) and the dual value is small, and returns that best w_t.  Joachims et al. bound the
// iterations for a gap epsilon by O(1/(lambda epsilon)), independently of n.
//
// Use it when a certified optimum of eq. 4 (q = 1) matters and the oracles are exact: each
// iteration costs one pass of oracle calls, like an iteration of BatchSubgradient, and typically
// far fewer iterations are needed.  Do NOT use it when w must stay in a constrained set (positive
// path costs): the method is unconstrained and takes no projection; use BatchSubgradient or
// OnlineGreedyProjection there.  With an inexact oracle (an LP relaxation, an approximate planner)
// the risk is underestimated, the planes are not tight and the gap certifies nothing.
#pragma once

#include <mmp/core/objective.hpp>
#include <mmp/learners/learner.hpp>
#include <mmp/learners/simplex_qp.hpp>

namespace mmp {

class CuttingPlane : public Learner {
 public:
  struct Params {
    double lambda = 1e-2;  ///< regulariser of eq. 4, > 0 (the dual divides by it)
    /*!
        stop.tolerance: stop with Success once gap() <= max(stop.tolerance * best c, absolute_tolerance),
        a relative gap of 1e-3 by default: c is then within 0.1 % of its minimum, which is below the
        run-to-run noise of any held-out error, and the last factor of 10 costs about as many
        iterations again.  stop.max_iterations (default 1000) and stop.time_budget_seconds end the
        run with NoConvergence when a tolerance is set.
    !*/
    StopCriteria stop{1000, 1e-3};
    /// A floor under the gap test, in units of c: a gap this small always stops (0: none).
    double absolute_tolerance = 0.0;
    /// A plane whose alpha has been 0 in this many consecutive QP solutions is dropped (>= 1), so the
    /// working set stays small; the zero plane is always kept.  A dropped plane that matters again
    /// is simply found again by the oracles.
    long plane_age_limit = 50;
    SimplexQpParams qp;  ///< the working-set QP's KKT tolerance and step cap
    int threads = 1;     ///< oracle calls in parallel; 0 = all cores
  };

  explicit CuttingPlane(Params params);

  /*!
      Learner::train, and
      requires: initial empty (start at w = 0) or of size d; every oracle loss-augmented exact
      ensures
          - returns the w_t of least c(w_t) among the iterates, objective() = its c (eq. 4, q = 1,
            the hinge sum an Objective::evaluate gives)
          - trace()[t-1].value is the least c(w_s) for s <= t (never increases); its weight_norm
            is the norm of that w_s.  The callback sees the same record, with weights() = that w_s
          - gap() is the last (least c) - (dual value); >= 0 up to rounding for an exact oracle
          - info(): Success when the gap tolerance was met (or the budget ran out with neither
            tolerance set), NoConvergence when the iteration or time budget ran out first or the
            callback stopped it, NumericalIssue when an oracle threw mmp::NumericalError or gave a
            non-finite answer: the weights are then the best ones found before, and message() says so
  !*/
  const Eigen::VectorXd& train(const ExampleList& examples, Eigen::VectorXd initial = Eigen::VectorXd()) override;
  LearnerKind kind() const override { return LearnerKind::CuttingPlane; }
  long passes() const override { return iterations(); }
  double objective() const override { return objective_; }
  const char* traceValueName() const override { return "objective c(w), eq. 4"; }
  const char* passName() const override { return "iteration"; }
  const Params& params() const { return params_; }

  /// Least c(w_t) minus the last working-set dual value (NaN before training).
  double gap() const { return gap_; }
  /// The dual value of the last working set: a lower bound on min c for exact oracles.
  double dualValue() const { return dual_; }
  /// Planes in the working set at the end, the zero plane included.
  long planes() const { return planes_; }
  /// The most planes the working set held at once (zero plane included).
  long maxPlanes() const { return max_planes_; }

 private:
  Params params_;
  double objective_ = std::numeric_limits<double>::quiet_NaN();
  double gap_ = std::numeric_limits<double>::quiet_NaN();
  double dual_ = std::numeric_limits<double>::quiet_NaN();
  long planes_ = 0;
  long max_planes_ = 0;
};

}  // namespace mmp
