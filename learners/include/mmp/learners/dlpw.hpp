// Dlpw: Dual Loss Primal Weights (Meshi, Sontag, Jaakkola and Globerson, ICML 2010, Algorithm 1;
// papers/002): maximum margin training of pairwise models under the LP relaxation without solving
// an LP per step.  It minimises, jointly over w and dual messages delta^(m) kept per example,
//
//     lambda/2 |w|^2 + 1/n sum_m [ g(delta^(m); theta^(m)(w)) - w . psi_m(y_m) ]          (eq. 9)
//
// where g is the dual of the LP relaxation of loss-augmented inference (pairwise.hpp, eq. 8): for
// the best delta it is the relaxed hinge of eq. 7, for any delta an upper bound on it.  Round t
// visits example m, runs R max-sum diffusion passes on delta^(m) from where its last visit left it
// (eq. 11), then takes the Pegasos step on w:
//
//     w <- P_B[ w - 1/(lambda t) (lambda w + d/dw g(delta^(m); theta^(m)(w)) - psi_m(y_m)) ],
//
// with P_B the projection onto the ball of radius 1/sqrt(lambda) (= sqrt(C) for C = 1/lambda,
// valid since the normalised Hamming loss is at most 1).  The examples must implement the optional
// PairwiseExample interface (mmp/core/pairwise.hpp); others are refused.
//
// Pegasos-LP, the method it is compared with, is the same loop with the LP solved to convergence
// from zero messages at every step: Params{.passes = 0, .warm_start = false}.
#pragma once

#include <mmp/core/pairwise.hpp>
#include <mmp/learners/learner.hpp>

#include <cstdint>

namespace mmp {

class Dlpw : public Learner {
 public:
  struct Params {
    double lambda = 1e-2;      ///< > 0 (C = 1/lambda in the paper's form)
    int passes = 10;           ///< R: diffusion passes per visit, >= 1; 0 = until LpSettings stops it
    bool warm_start = true;    ///< keep each example's messages between visits (else zeros each visit)
    LpSettings lp;             ///< the stopping rule when passes is 0
    bool project = true;       ///< onto the ball of radius 1/sqrt(lambda)
    StopCriteria stop;         ///< max_iterations counts epochs over the examples
    bool shuffle = true;       ///< visit each epoch in a new random order
    std::uint64_t seed = 1;
  };

  explicit Dlpw(Params params);

  /*!
      Learner::train, and
      requires: every example implements PairwiseExample (throws mmp::InvalidArgument naming the
                first that does not)
      ensures
          - the trace has one record per epoch: value = lambda/2 |w|^2 + the mean over the epoch's
            visits of g - w . psi(y_m), each taken at the weights of its visit after its passes (a
            running estimate of eq. 9, not eq. 7 at the final w)
          - diffusionPasses() is the number of diffusion passes run in all
  !*/
  const Eigen::VectorXd& train(const ExampleList& examples, Eigen::VectorXd initial = Eigen::VectorXd()) override;
  LearnerKind kind() const override { return LearnerKind::Dlpw; }
  long passes() const override { return static_cast<long>(trace().size()); }
  const char* traceValueName() const override { return "running dual objective (eq. 9)"; }
  const char* passName() const override { return "epoch"; }

  long diffusionPasses() const { return diffusion_passes_; }
  const Params& params() const { return params_; }

 private:
  Params params_;
  long diffusion_passes_ = 0;
};

}  // namespace mmp
