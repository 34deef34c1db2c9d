// Lbfgs: limited-memory BFGS (Nocedal 1980; Liu and Nocedal 1989) on the likelihood objective of
// mmp/core/likelihood_objective.hpp,
//
//     c(w) = lambda/2 |w|^2 + 1/n sum_i beta_i (log Z_i(w) - w.psi_i(y_i)),
//
// through the marginal interface: each evaluation is one marginal call per example (a pass, in
// parallel on a small thread pool, summed in example order), and the quasi-Newton direction is
// built from the last `memory` gradient differences with a More-Thuente line search.  The
// optimiser is Debian's liblbfgs (Okazaki's C port of Nocedal's L-BFGS, the one CRFsuite trains
// with), kept behind this file's source: nothing of it shows in this header.
//
// Use it for the likelihood objective when a converged optimum matters: c is smooth and, for
// lambda > 0, strongly convex, the case quasi-Newton methods are made for, and it needs no step
// size.  It does NOT train the margin objective (its hinge has kinks, where the line search
// stalls; use the cutting plane or BCFW) and takes no projection, so it cannot keep w in a set:
// path costs, which must stay positive, train with the online or batch learner.
#pragma once

#include <mmp/learners/learner.hpp>

namespace mmp {

class Lbfgs : public Learner {
 public:
  struct Params {
    double lambda = 1e-2;  ///< regulariser, >= 0
    int memory = 6;        ///< gradient differences kept (liblbfgs's m), >= 1
    /// stop.max_iterations counts quasi-Newton iterations (default 200); stop.tolerance stops with
    /// Success once |g| <= tolerance * max(1, |w|) (default 1e-5; liblbfgs's epsilon);
    /// stop.time_budget_seconds ends the run with NoConvergence.
    StopCriteria stop{200, 1e-5};
    /// Also stop with Success once c fell by at most a relative `delta` over the last `past`
    /// iterations (0: off).
    int past = 10;
    double delta = 1e-7;
    int threads = 1;  ///< marginal calls in parallel; 0 = all cores
  };

  explicit Lbfgs(Params params);

  /*!
      Learner::train, and
      requires: the examples implement MarginalExample (throws mmp::InvalidArgument naming the
                first that does not)
      ensures
          - returns the last accepted iterate; objective() = its c
          - one trace record per iteration: value = c(w); the callback sees each, with
            weights() = w
          - passes() counts evaluations of c (each a pass over the examples; an iteration takes
            one or more, as its line search needs)
          - info(): Success when a tolerance was met; NoConvergence when the iteration or time
            budget ran out first, the callback stopped it, or the line search could make no more
            progress (liblbfgs's reason in message()); NumericalIssue when a marginal call threw
            mmp::NumericalError, c was not finite where an iterate was to be accepted, or the
            weight check refused one: the weights are then the last accepted iterate
  !*/
  const Eigen::VectorXd& train(const ExampleList& examples, Eigen::VectorXd initial = Eigen::VectorXd()) override;
  LearnerKind kind() const override { return LearnerKind::Lbfgs; }
  long passes() const override { return evaluations_; }
  double objective() const override { return objective_; }
  const char* traceValueName() const override { return "objective c(w), likelihood"; }
  const char* passName() const override { return "iteration"; }
  const Params& params() const { return params_; }

 private:
  Params params_;
  long evaluations_ = 0;
  double objective_ = std::numeric_limits<double>::quiet_NaN();
};

}  // namespace mmp
