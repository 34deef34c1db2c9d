#include <mmp/core/tasks/multiclass.hpp>

#include <mmp/core/error.hpp>

#include <string>

namespace mmp {

MulticlassExample::MulticlassExample(Eigen::VectorXd x, int label, int classes, double loss_scale)
    : x_(std::move(x)), label_(label), classes_(classes), loss_scale_(loss_scale) {
  if (classes_ < 2) throw InvalidArgument("multiclass example: need at least 2 classes, got " + std::to_string(classes_));
  if (label_ < 0 || label_ >= classes_) {
    throw InvalidArgument("multiclass example: label " + std::to_string(label_) + " is outside 0.." +
                          std::to_string(classes_ - 1));
  }
  if (x_.size() == 0 || !x_.allFinite()) throw InvalidArgument("multiclass example: x must be non-empty and finite");
  if (!(loss_scale_ > 0.0)) throw InvalidArgument("multiclass example: loss_scale must be > 0");
}

void MulticlassExample::fillBlock(int y, FeatureVector& psi) const {
  auto& v = psi.resetSparse(dimension());
  v.reserve(x_.size());
  const Eigen::Index offset = static_cast<Eigen::Index>(y) * x_.size();
  for (Eigen::Index j = 0; j < x_.size(); ++j) {
    if (x_[j] != 0.0) v.insertBack(offset + j) = x_[j];
  }
}

static void checkWeights(const Eigen::VectorXd& w, Eigen::Index d) {
  if (w.size() != d) {
    throw InvalidArgument("multiclass example: w has size " + std::to_string(w.size()) + ", expected " +
                          std::to_string(d));
  }
}

int MulticlassExample::predict(const Eigen::VectorXd& w) const {
  checkWeights(w, dimension());
  const Eigen::Index m = x_.size();
  int best = 0;
  double best_score = w.segment(0, m).dot(x_);
  for (int y = 1; y < classes_; ++y) {
    const double score = w.segment(y * m, m).dot(x_);
    if (score > best_score) best = y, best_score = score;
  }
  return best;
}

void MulticlassExample::solve(const Eigen::VectorXd& w, double loss_weight, OracleResult& result) const {
  checkWeights(w, dimension());
  const Eigen::Index m = x_.size();
  int best = -1;
  double best_score = 0.0;
  for (int y = 0; y < classes_; ++y) {
    const double score = w.segment(y * m, m).dot(x_) + (y == label_ ? 0.0 : loss_weight * loss_scale_);
    if (best < 0 || score > best_score) best = y, best_score = score;
  }
  result.output.assign(1, best);
  fillBlock(best, result.psi_output);
  fillBlock(label_, result.psi_target);
  result.loss = best == label_ ? 0.0 : loss_scale_;
  result.beta = 1.0;
}

}  // namespace mmp
