// FeatureVector: a joint feature vector psi(y) in R^d, stored dense or sparse.
//
// Oracles fill one in place (resetDense / resetSparse reuse the storage of earlier calls), and
// learners only read it through dot() and addTo(), so a task chooses the storage that suits it:
// dense for a path's few dozen map features, sparse for a Crammer-Singer block or a chain model.
#pragma once

#include <Eigen/Dense>
#include <Eigen/SparseCore>

namespace mmp {

class FeatureVector {
 public:
  using Dense = Eigen::VectorXd;
  using Sparse = Eigen::SparseVector<double>;

  FeatureVector() = default;
  static FeatureVector dense(Dense values);
  static FeatureVector sparse(Sparse values);

  bool isSparse() const { return sparse_mode_; }
  Eigen::Index size() const { return sparse_mode_ ? sparse_.size() : dense_.size(); }

  /// ensures: returns a zero dense vector of size d that this object now holds.
  Dense& resetDense(Eigen::Index d);
  /// ensures: returns an empty sparse vector of size d that this object now holds.
  Sparse& resetSparse(Eigen::Index d);

  const Dense& denseValues() const { return dense_; }
  const Sparse& sparseValues() const { return sparse_; }

  /// requires: w.size() == size().  ensures: returns w . psi.
  double dot(const Eigen::VectorXd& w) const;
  /// requires: g.size() == size().  ensures: g += scale * psi.
  void addTo(Eigen::VectorXd& g, double scale) const;
  Dense toDense() const;

 private:
  bool sparse_mode_ = false;
  Dense dense_;
  Sparse sparse_;
};

}  // namespace mmp
