// Helpers shared by the test suites: seeded random problems and independent reference solvers.
// Random problems are drawn with mmp::Random, so a seed gives the same problem with every standard library.
#pragma once

#include <mmp/core/marginals.hpp>
#include <mmp/core/tasks/chain.hpp>
#include <mmp/core/tasks/multiclass.hpp>
#include <mmp/core/random.hpp>
#include <mmp/core/tasks/ranking.hpp>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace mmp::test {

/// An integer uniformly distributed in [lo, hi].
inline int randomInt(Random& rng, int lo, int hi) {
  return lo + static_cast<int>(rng.below(static_cast<std::uint64_t>(hi - lo) + 1));
}

/// A vector of independent normal draws of mean 0 and standard deviation `scale`.
inline Eigen::VectorXd randomVector(Random& rng, Eigen::Index d, double scale = 1.0) {
  Eigen::VectorXd v(d);
  for (Eigen::Index i = 0; i < d; ++i) v[i] = scale * rng.normal();
  return v;
}

/// Multiclass examples with random features (not separable in general).
inline std::vector<std::unique_ptr<MulticlassExample>> randomMulticlass(Random& rng, int n, int classes,
                                                                       Eigen::Index features) {
  std::vector<std::unique_ptr<MulticlassExample>> out;
  for (int i = 0; i < n; ++i) {
    Eigen::VectorXd x = randomVector(rng, features);  // the features before the label, whatever the argument order
    const int label = randomInt(rng, 0, classes - 1);
    out.push_back(std::make_unique<MulticlassExample>(std::move(x), label, classes));
  }
  return out;
}

/// Random sequences: `labels` labels, `features` binary features (each on with probability
/// `density`), lengths uniform in min_length..max_length (no draw when they are equal).
inline std::shared_ptr<ChainData> randomChains(Random& rng, int sequences, int labels, int features, int min_length,
                                               int max_length, double density = 0.4) {
  auto data = std::make_shared<ChainData>(labels, features);
  for (int s = 0; s < sequences; ++s) {
    const int length = min_length == max_length ? min_length : randomInt(rng, min_length, max_length);
    std::vector<std::vector<int>> active(length);
    std::vector<int> y(length);
    for (int t = 0; t < length; ++t) {
      for (int f = 0; f < features; ++f) {
        if (rng.uniform() < density) active[t].push_back(f);
      }
      y[t] = randomInt(rng, 0, labels - 1);
    }
    data->addSequence(active, y);
  }
  return data;
}

/// One ChainExample per sequence of `data`.
inline std::vector<std::unique_ptr<ChainExample>> chainExamples(const std::shared_ptr<ChainData>& data,
                                                                ChainOptions options = {}) {
  std::vector<std::unique_ptr<ChainExample>> examples;
  for (std::size_t s = 0; s < data->sequences(); ++s) examples.push_back(std::make_unique<ChainExample>(data, s, options));
  return examples;
}

/*!
    An example whose outputs are an explicit list: output k has the dense joint features psi.col(k)
    and the loss losses[k], output `target` is the demonstration (its loss 0).  solve() and
    marginals() enumerate the list, so it is an independent reference for both interfaces
    (softmax over the list: P(k) = exp(w.psi_k) / sum_j exp(w.psi_j)).
!*/
class EnumeratedExample final : public StructuredExample, public MarginalExample {
 public:
  EnumeratedExample(Eigen::MatrixXd psi, Eigen::VectorXd losses, int target, double beta = 1.0)
      : psi_(std::move(psi)), losses_(std::move(losses)), target_(target), beta_(beta) {}

  Eigen::Index dimension() const override { return psi_.rows(); }
  void solve(const Eigen::VectorXd& w, double loss_weight, OracleResult& r) const override {
    const Eigen::VectorXd scores = psi_.transpose() * w + loss_weight * losses_;
    Eigen::Index best = 0;
    for (Eigen::Index k = 1; k < scores.size(); ++k) {
      if (scores[k] > scores[best]) best = k;
    }
    r.output = {static_cast<int>(best)};
    r.psi_output.resetDense(dimension()) = psi_.col(best);
    r.psi_target.resetDense(dimension()) = psi_.col(target_);
    r.loss = losses_[best];
    r.beta = beta_;
  }
  void marginals(const Eigen::VectorXd& w, MarginalResult& r) const override {
    const Eigen::VectorXd scores = psi_.transpose() * w;
    const double top = scores.maxCoeff();
    const Eigen::VectorXd p = (scores.array() - top).exp().matrix();
    r.log_partition = top + std::log(p.sum());
    r.expected_psi.resetDense(dimension()) = psi_ * p / p.sum();
    r.psi_target.resetDense(dimension()) = psi_.col(target_);
    r.beta = beta_;
  }
  const Eigen::MatrixXd& psi() const { return psi_; }
  int target() const { return target_; }
  double beta() const { return beta_; }

 private:
  Eigen::MatrixXd psi_;
  Eigen::VectorXd losses_;
  int target_;
  double beta_;
};

/// n enumerated examples in R^d with `outputs` outputs each: normal psi, losses 1 off the target,
/// the target drawn at random, beta in [0.5, 1.5].
inline std::vector<std::unique_ptr<EnumeratedExample>> randomEnumerated(Random& rng, int n, int d, int outputs) {
  std::vector<std::unique_ptr<EnumeratedExample>> out;
  for (int i = 0; i < n; ++i) {
    Eigen::MatrixXd psi(d, outputs);
    for (int k = 0; k < outputs; ++k) psi.col(k) = randomVector(rng, d);
    const int target = randomInt(rng, 0, outputs - 1);
    Eigen::VectorXd losses = Eigen::VectorXd::Ones(outputs);
    losses[target] = 0.0;
    const double beta = 0.5 + rng.uniform();
    out.push_back(std::make_unique<EnumeratedExample>(std::move(psi), std::move(losses), target, beta));
  }
  return out;
}

template <class T>
ExampleList listOf(const std::vector<std::unique_ptr<T>>& examples) {
  ExampleList list;
  for (const auto& e : examples) list.push_back(e.get());
  return list;
}

/// A model file's bytes with their checksum recomputed as model_file.hpp specifies it (FNV-1a 64 over
/// every byte before the u64 checksum and the 8-byte end marker), written here again so that a test
/// can forge a file whose only fault is its content.
inline std::string withModelChecksum(std::string bytes) {
  const std::size_t summed = bytes.size() - 16;
  std::uint64_t h = 0xCBF29CE484222325ull;
  for (std::size_t i = 0; i < summed; ++i) h = (h ^ static_cast<unsigned char>(bytes[i])) * 0x100000001B3ull;
  std::memcpy(&bytes[summed], &h, sizeof h);
  return bytes;
}

/// Minimises a convex function of one variable on [lo, hi] by golden-section search.
inline double goldenMinimum(const std::function<double(double)>& f, double lo, double hi, double* argmin = nullptr) {
  const double ratio = (std::sqrt(5.0) - 1.0) / 2.0;
  double a = lo, b = hi;
  double c = b - ratio * (b - a), d = a + ratio * (b - a);
  double fc = f(c), fd = f(d);
  for (int i = 0; i < 200 && b - a > 1e-12; ++i) {
    if (fc < fd) {
      b = d, d = c, fd = fc;
      c = b - ratio * (b - a), fc = f(c);
    } else {
      a = c, c = d, fc = fd;
      d = a + ratio * (b - a), fd = f(d);
    }
  }
  if (argmin) *argmin = 0.5 * (a + b);
  return f(0.5 * (a + b));
}

}  // namespace mmp::test
