// Step-size schedules alpha_t for the subgradient update w <- P_W[w - alpha_t g] (eq. 7).
//
//   constant(alpha)      alpha_t = alpha      linear convergence to a ball around w* if alpha <= 1/lambda (Thm 3.1)
//   gammaOverT(gamma)    alpha_t = gamma / t  converges to w*, sublinearly
//   inverseLambdaT(l)    alpha_t = 1/(l t)    Greedy Projection's rate: logarithmic regret (Thm 3.2)
#pragma once

#include <string>

namespace mmp {

class StepSchedule {
 public:
  enum class Kind { Constant, GammaOverT, InverseLambdaT };

  static StepSchedule constant(double alpha);
  static StepSchedule gammaOverT(double gamma);
  static StepSchedule inverseLambdaT(double lambda);

  Kind kind() const { return kind_; }
  double parameter() const { return parameter_; }

  /// requires: t >= 1.  ensures: returns alpha_t > 0.
  double stepSize(long t) const;
  std::string describe() const;

 private:
  StepSchedule(Kind kind, double parameter) : kind_(kind), parameter_(parameter) {}
  Kind kind_;
  double parameter_;
};

}  // namespace mmp
