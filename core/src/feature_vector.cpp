#include <mmp/core/feature_vector.hpp>

#include <mmp/core/error.hpp>

#include <string>

namespace mmp {

FeatureVector FeatureVector::dense(Dense values) {
  FeatureVector f;
  f.dense_ = std::move(values);
  return f;
}

FeatureVector FeatureVector::sparse(Sparse values) {
  FeatureVector f;
  f.sparse_mode_ = true;
  f.sparse_ = std::move(values);
  return f;
}

FeatureVector::Dense& FeatureVector::resetDense(Eigen::Index d) {
  sparse_mode_ = false;
  dense_.setZero(d);
  return dense_;
}

FeatureVector::Sparse& FeatureVector::resetSparse(Eigen::Index d) {
  sparse_mode_ = true;
  sparse_.resize(d);  // also empties it, keeping the allocation
  return sparse_;
}

static void checkSize(Eigen::Index expected, Eigen::Index got) {
  if (expected != got) {
    throw InvalidArgument("feature vector of size " + std::to_string(expected) +
                          " used with a weight vector of size " + std::to_string(got));
  }
}

double FeatureVector::dot(const Eigen::VectorXd& w) const {
  checkSize(size(), w.size());
  if (!sparse_mode_) return dense_.dot(w);
  double sum = 0.0;
  for (Sparse::InnerIterator it(sparse_); it; ++it) sum += it.value() * w[it.index()];
  return sum;
}

void FeatureVector::addTo(Eigen::VectorXd& g, double scale) const {
  checkSize(size(), g.size());
  if (!sparse_mode_) {
    g.noalias() += scale * dense_;
    return;
  }
  for (Sparse::InnerIterator it(sparse_); it; ++it) g[it.index()] += scale * it.value();
}

FeatureVector::Dense FeatureVector::toDense() const {
  if (!sparse_mode_) return dense_;
  return Dense(sparse_);
}

}  // namespace mmp
