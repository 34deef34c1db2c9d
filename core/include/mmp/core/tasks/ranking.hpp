// Ranking SVM from pairwise preferences, as a StructuredExample (Bagnell's lecture notes, sec. 1).
//
// One example is a preference "a before b" with features f_a, f_b.  Its outputs are
// y = 0 (order kept) and y = 1 (order swapped), with psi(0) = (f_a - f_b)/2, psi(1) = -(f_a - f_b)/2
// and L(1) = 1, so the slack of eq. 4 is the ranking hinge max(0, 1 - w . (f_a - f_b)).
// A higher score w . f ranks first.
#pragma once

#include <mmp/core/oracle.hpp>

namespace mmp {

class RankingPair final : public StructuredExample {
 public:
  /// requires: preferred.size() == other.size() > 0, finite entries.
  RankingPair(const Eigen::VectorXd& preferred, const Eigen::VectorXd& other);

  Eigen::Index dimension() const override { return difference_.size(); }
  /// output = {0} (kept) or {1} (swapped); ties go to "kept".
  void solve(const Eigen::VectorXd& w, double loss_weight, OracleResult& result) const override;

 private:
  Eigen::VectorXd difference_;  // f_a - f_b
};

}  // namespace mmp
