#include <mmp/core/tasks/ranking.hpp>

#include <mmp/core/error.hpp>

#include <string>

namespace mmp {

RankingPair::RankingPair(const Eigen::VectorXd& preferred, const Eigen::VectorXd& other) {
  if (preferred.size() != other.size() || preferred.size() == 0) {
    throw InvalidArgument("ranking pair: feature vectors have sizes " + std::to_string(preferred.size()) + " and " +
                          std::to_string(other.size()) + "; need equal, non-zero sizes");
  }
  difference_ = preferred - other;
  if (!difference_.allFinite()) throw InvalidArgument("ranking pair: features must be finite");
}

void RankingPair::solve(const Eigen::VectorXd& w, double loss_weight, OracleResult& result) const {
  if (w.size() != difference_.size()) {
    throw InvalidArgument("ranking pair: w has size " + std::to_string(w.size()) + ", expected " +
                          std::to_string(difference_.size()));
  }
  // score(kept) = w.d/2, score(swapped) = -w.d/2 + loss_weight.
  const double margin = w.dot(difference_);
  const int swapped = (-0.5 * margin + loss_weight > 0.5 * margin) ? 1 : 0;
  result.output.assign(1, swapped);
  result.psi_output.resetDense(difference_.size()) = (swapped ? -0.5 : 0.5) * difference_;
  result.psi_target.resetDense(difference_.size()) = 0.5 * difference_;
  result.loss = swapped ? 1.0 : 0.0;
  result.beta = 1.0;
}

}  // namespace mmp
