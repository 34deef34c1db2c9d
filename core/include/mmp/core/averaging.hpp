// Iterate averaging (sec. 4 of the subgradient paper): the generalisation bound of eq. 11 holds for
// the average of the iterates, and averaging removes most of the subgradient method's jitter.
//
//   Uniform       wbar_T = 1/T sum_t w_t
//   LateWeighted  wbar_T = sum_t t w_t / sum_t t   (weights grow linearly: early iterates fade)
#pragma once

#include <Eigen/Dense>
#include <string>

namespace mmp {

enum class Averaging { None, Uniform, LateWeighted };

Averaging parseAveraging(const std::string& name);  ///< "none", "uniform", "late_weighted"
std::string describe(Averaging averaging);

class IterateAverage {
 public:
  explicit IterateAverage(Averaging kind = Averaging::Uniform) : kind_(kind) {}

  /// Adds iterate w_t (t counts the calls).  With Averaging::None the "average" is the last w.
  void add(const Eigen::VectorXd& w);

  long count() const { return count_; }
  /// requires: count() > 0.
  const Eigen::VectorXd& mean() const { return mean_; }

 private:
  Averaging kind_;
  long count_ = 0;
  double weight_sum_ = 0.0;
  Eigen::VectorXd mean_;
};

}  // namespace mmp
