// The chain as a CRF: forward-backward (sum-product) in log space, for the likelihood objective.
#include <mmp/core/tasks/chain.hpp>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>

namespace mmp {
namespace {

// log sum_i exp(x_i) of n terms, term by term: the fallback where the fast sum underflows.
double logSumExp(const double* x, int n) {
  double top = -std::numeric_limits<double>::infinity();
  for (int i = 0; i < n; ++i) top = std::max(top, x[i]);
  double sum = 0.0;
  for (int i = 0; i < n; ++i) sum += std::exp(x[i] - top);
  return top + std::log(sum);
}

}  // namespace

/*!
    The messages of one forward-backward pass over a sequence of L positions and K labels (matrices
    K x L, column t = position t):
        emission(y, t) = e_t(y), the emission score (no loss)
        alpha(y, t)    = log sum over y_0..y_{t-1} of exp(score of positions 0..t ending in y), start included
        beta(y, t)     = log sum over y_{t+1}.. of exp(score of positions t+1.. given y at t), end included
        sum(b, t)      = sum_a exp(alpha(a, t-1) - max_a alpha(., t-1)) G(a, b), t >= 1, or 0 where it
                         underflowed (alpha(b, t) then came from the term-by-term log-sum-exp)
        g(a, b)        = exp(transition(a, b) - max transition)
    log Z = log sum_y exp(alpha(y, L-1) + beta(y, L-1)).
!*/
struct ChainExample::SumProduct {
  Eigen::MatrixXd emission, alpha, beta, sum, g;
  Eigen::VectorXd weights;  // scratch: exponentiated shifted messages
};

double ChainExample::sumProduct(const Eigen::VectorXd& w, SumProduct& m) const {
  checkWeights(w);
  const int K = layout_.labels;
  const Eigen::Index L = static_cast<Eigen::Index>(length());
  m.emission.resize(K, L);
  emissionScores(w.data(), 0.0, m.emission.data());
  // transition(a, b) = T(a, b), row a = previous label (K x K, row-major in w)
  const Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> T(
      w.data() + layout_.transition(0, 0), K, K);
  const double t_max = T.maxCoeff();
  m.g = (T.array() - t_max).exp().matrix();
  m.alpha.resize(K, L);
  m.beta.resize(K, L);
  m.sum.setZero(K, L);
  m.weights.resize(K);

  // A log-sum-exp over the K neighbours of a label, as max + t_max + log(sum of exp(shifted) x g),
  // or term by term where that sum is not a normal number (weights so large that it underflows).
  // 1) forward: alpha(b, t) = e_t(b) + log sum_a exp(alpha(a, t-1) + T(a, b))
  for (int y = 0; y < K; ++y) m.alpha(y, 0) = m.emission(y, 0) + (layout_.start_end ? w[layout_.start(y)] : 0.0);
  std::vector<double> terms(static_cast<std::size_t>(K));
  for (Eigen::Index t = 1; t < L; ++t) {
    const double top = m.alpha.col(t - 1).maxCoeff();
    m.weights = (m.alpha.col(t - 1).array() - top).exp().matrix();
    m.sum.col(t).noalias() = m.g.transpose() * m.weights;
    for (int b = 0; b < K; ++b) {
      double lse;
      if (m.sum(b, t) >= DBL_MIN) {
        lse = top + t_max + std::log(m.sum(b, t));
      } else {
        m.sum(b, t) = 0.0;
        for (int a = 0; a < K; ++a) terms[static_cast<std::size_t>(a)] = m.alpha(a, t - 1) + T(a, b);
        lse = logSumExp(terms.data(), K);
      }
      m.alpha(b, t) = m.emission(b, t) + lse;
    }
  }
  // 2) backward: beta(a, t) = log sum_b exp(T(a, b) + e_{t+1}(b) + beta(b, t+1))
  for (int y = 0; y < K; ++y) m.beta(y, L - 1) = layout_.start_end ? w[layout_.end(y)] : 0.0;
  Eigen::VectorXd next(K), sums(K);
  for (Eigen::Index t = L - 2; t >= 0; --t) {
    next = m.emission.col(t + 1) + m.beta.col(t + 1);
    const double top = next.maxCoeff();
    m.weights = (next.array() - top).exp().matrix();
    sums.noalias() = m.g * m.weights;
    for (int a = 0; a < K; ++a) {
      if (sums[a] >= DBL_MIN) {
        m.beta(a, t) = top + t_max + std::log(sums[a]);
      } else {
        for (int b = 0; b < K; ++b) terms[static_cast<std::size_t>(b)] = T(a, b) + next[b];
        m.beta(a, t) = logSumExp(terms.data(), K);
      }
    }
  }
  // 3) log Z at the last position (end weights are in beta there)
  next = m.alpha.col(L - 1) + m.beta.col(L - 1);
  return logSumExp(next.data(), K);
}

Eigen::MatrixXd ChainExample::positionMarginals(const Eigen::VectorXd& w) const {
  SumProduct m;
  const double log_z = sumProduct(w, m);
  return ((m.alpha + m.beta).array() - log_z).exp().matrix().transpose();
}

void ChainExample::marginals(const Eigen::VectorXd& w, MarginalResult& result) const {
  SumProduct m;
  const double log_z = sumProduct(w, m);
  const int K = layout_.labels;
  const Eigen::Index L = static_cast<Eigen::Index>(length());
  const std::size_t first = data_->first(sequence_);
  // position marginals P(y_t = y) (K x L)
  const Eigen::MatrixXd node = ((m.alpha + m.beta).array() - log_z).exp().matrix();
  Eigen::VectorXd& expected = result.expected_psi.resetDense(dimension());
  double* const e = expected.data();
  // 1) emissions and bias: each active feature (and the bias) counts P(y_t = y) at its label
  for (Eigen::Index t = 0; t < L; ++t) {
    const double* p = node.col(t).data();
    for (const std::int32_t* f = data_->activeBegin(first + t); f != data_->activeEnd(first + t); ++f) {
      double* ef = e + layout_.emission(*f, 0);
      for (int y = 0; y < K; ++y) ef[y] += p[y];
    }
    double* bias = e + layout_.emission(layout_.features, 0);
    for (int y = 0; y < K; ++y) bias[y] += p[y];
  }
  // 2) transitions: P(y_{t-1} = a, y_t = b) = P(y_t = b) u(a) g(a, b) / sum(b, t), u(a) =
  //    exp(alpha(a, t-1) - max): the share of a among b's predecessors in the forward sum; term by
  //    term where that sum underflowed
  Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> transitions(
      e + layout_.transition(0, 0), K, K);
  for (Eigen::Index t = 1; t < L; ++t) {
    const double top = m.alpha.col(t - 1).maxCoeff();
    m.weights = (m.alpha.col(t - 1).array() - top).exp().matrix();
    for (int b = 0; b < K; ++b) {
      if (m.sum(b, t) > 0.0) {
        transitions.col(b).noalias() += (node(b, t) / m.sum(b, t)) * m.weights.cwiseProduct(m.g.col(b));
      } else {
        const double rest = m.emission(b, t) + m.beta(b, t) - log_z;
        for (int a = 0; a < K; ++a) {
          transitions(a, b) += std::exp(m.alpha(a, t - 1) + w[layout_.transition(a, b)] + rest);
        }
      }
    }
  }
  // 3) start and end
  if (layout_.start_end) {
    for (int y = 0; y < K; ++y) {
      e[layout_.start(y)] += node(y, 0);
      e[layout_.end(y)] += node(y, L - 1);
    }
  }
  result.psi_target = target_;
  result.log_partition = log_z;
  result.beta = beta_;
}

}  // namespace mmp
