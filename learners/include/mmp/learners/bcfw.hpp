// Bcfw: block-coordinate Frank-Wolfe on the dual of the structural SVM (Lacoste-Julien, Jaggi,
// Schmidt and Pletscher, "Block-Coordinate Frank-Wolfe Optimization for Structural SVMs", ICML 2013,
// Algorithm 4 with line search).  It minimises eq. 4 with q = 1, the cutting plane's objective,
//
//     c(w) = lambda/2 |w|^2 + 1/n sum_i beta_i max_y [w.psi_i(y) + L_i(y) - w.psi_i(y_i)],
//
// through the argmax oracle alone.  Each example i keeps a block of the dual: w_i and l_i, a convex
// combination of its corners, with w = sum_i w_i and the dual value D = -lambda/2 |w|^2 + sum_i l_i.
// A step visits one example: its loss-augmented answer y* at the current w gives the corner
//
//     w_s = beta_i / (lambda n) (psi_i(y_i) - psi_i(y*)),   l_s = beta_i / n L_i(y*),
//
// the block's gap g_i = lambda (w_i - w_s).w - l_i + l_s >= 0, and the exact line search
// gamma = clip(g_i / (lambda |w_i - w_s|^2), 0, 1) moves the block to (1 - gamma)(w_i, l_i) +
// gamma (w_s, l_s), the step that maximises D along that segment.  A pass visits every example once
// (in a new seeded random order when shuffled).  The duality gap c(w) - D = sum_i g_i(w) >= 0 bounds
// c(w) - min c; it is certified after a pass by one more oracle call per example at the pass's w
// (in parallel; the same pass gives c(w)), every `certify_every` passes and at the end.
// Params::averaging returns the paper's weighted average of the iterates (BCFW-wavg) instead,
// certified likewise.
//
// Use it, like the cutting plane, when a certified optimum of eq. 4 (q = 1) matters and the
// oracles are exact: each step costs one oracle call, so progress starts within the first pass, and
// no QP is solved.  Do NOT use it when w must stay in a constrained set (positive path costs): it
// takes no projection.  It keeps one block per example: sparse (the union of that example's corners'
// supports), or dense d for dense psi; mind the memory for many examples of a large dense d.
#pragma once

#include <mmp/learners/learner.hpp>

#include <cstdint>

namespace mmp {

class Bcfw : public Learner {
 public:
  struct Params {
    double lambda = 1e-2;  ///< regulariser of eq. 4, > 0 (the blocks divide by it)
    /// stop.max_iterations counts passes (default 1000); stop.tolerance stops with Success once a
    /// certified gap <= max(stop.tolerance * c(w), absolute_tolerance) (default: relative 1e-3, as
    /// the cutting plane); stop.time_budget_seconds ends the run with NoConvergence.
    StopCriteria stop{1000, 1e-3};
    double absolute_tolerance = 0.0;  ///< a floor under the gap test, in units of c (0: none)
    long certify_every = 1;           ///< passes between duality-gap certificates, >= 1
    /// Return the weighted average of the iterates, w_avg <- (k w_avg + 2 w_k) / (k + 2) after
    /// step k (BCFW-wavg, sec. 4 of the paper), certified with the same average of the blocks' loss
    /// (a dual point: the dual is concave in the blocks).  Else the last iterate (Algorithm 4 as it
    /// is).  The average's certified gap shrinks more slowly on the tests' problems and on OCR.
    bool averaging = false;
    bool shuffle = true;              ///< visit each pass in a new random order (else example order)
    std::uint64_t seed = 1;           ///< for shuffle (mmp::Random)
    int threads = 1;                  ///< oracle calls of a certificate in parallel; 0 = all cores
  };

  explicit Bcfw(Params params);

  /*!
      Learner::train, and
      requires: initial empty (the blocks start at w = 0, where D = 0; other starting weights have
                no dual blocks and are refused); every loss-augmented oracle exact
      ensures
          - returns the model of the last pass (w, or its weighted average with averaging);
            objective() = its c (eq. 4, q = 1) and gap() = c - D at the last certificate, made at the
            end of training whatever certify_every is
          - one trace record per pass: value = c(w) and gap = the duality gap where the pass was
            certified, NaN for both where it was not; the callback sees each, with weights() = w
          - info(): Success when the gap tolerance was met (or the pass budget ran out with neither
            tolerance set), NoConvergence when a budget ran out first or the callback stopped it,
            NumericalIssue when an oracle threw mmp::NumericalError or a step was not finite: the
            weights are then those of the last pass that completed
  !*/
  const Eigen::VectorXd& train(const ExampleList& examples, Eigen::VectorXd initial = Eigen::VectorXd()) override;
  LearnerKind kind() const override { return LearnerKind::Bcfw; }
  long passes() const override { return iterations(); }
  double objective() const override { return objective_; }
  const char* traceValueName() const override { return "objective c(w), eq. 4"; }
  const char* passName() const override { return "pass"; }
  const Params& params() const { return params_; }

  /// c(w) - D at the last certificate: >= 0 up to rounding for exact oracles (NaN before training).
  double gap() const { return gap_; }
  /// D = -lambda/2 |w|^2 + sum_i l_i at the last certificate: a lower bound on min c.
  double dualValue() const { return dual_; }

 private:
  Params params_;
  double objective_ = std::numeric_limits<double>::quiet_NaN();
  double gap_ = std::numeric_limits<double>::quiet_NaN();
  double dual_ = std::numeric_limits<double>::quiet_NaN();
};

}  // namespace mmp
