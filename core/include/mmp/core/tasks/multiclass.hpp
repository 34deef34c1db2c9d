// Multiclass SVM with Crammer-Singer joint features, as a StructuredExample.
//
// For K classes and input x in R^m:  psi(x, y) = e_y (x) x in R^{K m} (x placed in block y),
// L(y) = loss_scale * [y != label].  Prediction argmax_y w_y . x; the loss-augmented oracle adds
// the loss to every wrong class (Bagnell's lecture notes, sec. 2.2; Crammer and Singer 2001).
// Feature vectors are sparse (one block of m entries), so a step touches 2m weights, not K m.
#pragma once

#include <mmp/core/oracle.hpp>

#include <memory>

namespace mmp {

class MulticlassExample final : public StructuredExample {
 public:
  /// requires: classes >= 2, 0 <= label < classes, x non-empty and finite, loss_scale > 0.
  MulticlassExample(Eigen::VectorXd x, int label, int classes, double loss_scale = 1.0);

  Eigen::Index dimension() const override { return classes_ * x_.size(); }
  /// output = {y*}; psi sparse; beta = 1.
  void solve(const Eigen::VectorXd& w, double loss_weight, OracleResult& result) const override;

  /// argmax_y w_y . x (lowest index on ties).
  int predict(const Eigen::VectorXd& w) const;
  int label() const { return label_; }
  int classes() const { return classes_; }

 private:
  void fillBlock(int y, FeatureVector& psi) const;

  Eigen::VectorXd x_;
  int label_;
  int classes_;
  double loss_scale_;
};

}  // namespace mmp
