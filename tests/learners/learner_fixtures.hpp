// Examples shared by the learner suites: a learnable multiclass set and an oracle that fails on cue.
#pragma once

#include "support.hpp"

#include <mmp/core/error.hpp>

#include <atomic>
#include <cmath>
#include <memory>
#include <vector>

namespace mmp::test {

/// Multiclass examples whose labels are argmax of a hidden linear model plus noise: learnable, not
/// separable, so the optimum has w != 0 and a positive risk.
inline std::vector<std::unique_ptr<MulticlassExample>> noisyLinearMulticlass(Random& rng, int n, int classes, int features) {
  Eigen::MatrixXd hidden(classes, features);
  for (Eigen::Index r = 0; r < hidden.rows(); ++r) {
    for (Eigen::Index s = 0; s < hidden.cols(); ++s) hidden(r, s) = rng.normal();
  }
  std::vector<std::unique_ptr<MulticlassExample>> out;
  for (int i = 0; i < n; ++i) {
    Eigen::VectorXd x = randomVector(rng, features);
    Eigen::Index label = 0;
    (hidden * x + randomVector(rng, classes, 0.7)).maxCoeff(&label);
    out.push_back(std::make_unique<MulticlassExample>(std::move(x), static_cast<int>(label), classes));
  }
  return out;
}

// Delegates to `inner` for `good_calls` loss-augmented calls, then answers NaN features or throws
// mmp::NumericalError.  (The counter is the test's; real oracles keep no state.)
class FailingAfter final : public StructuredExample {
 public:
  FailingAfter(const StructuredExample& inner, int good_calls, bool throws)
      : inner_(inner), good_calls_(good_calls), throws_(throws) {}
  Eigen::Index dimension() const override { return inner_.dimension(); }
  void solve(const Eigen::VectorXd& w, double loss_weight, OracleResult& r) const override {
    inner_.solve(w, loss_weight, r);
    if (++calls_ <= good_calls_) return;
    if (throws_) throw NumericalError("test oracle: costs overflow");
    Eigen::VectorXd psi = r.psi_output.toDense();
    psi[0] = std::nan("");
    r.psi_output = FeatureVector::dense(psi);
  }

 private:
  const StructuredExample& inner_;
  int good_calls_;
  bool throws_;
  mutable std::atomic<int> calls_{0};
};

}  // namespace mmp::test
