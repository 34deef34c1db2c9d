#include <mmp/learners/simplex_qp.hpp>

#include <mmp/core/error.hpp>

#include <algorithm>
#include <cmath>
#include <string>

namespace mmp {
namespace {

void checkProblem(const Eigen::MatrixXd& Q, const Eigen::VectorXd& c, const Eigen::VectorXd& alpha) {
  const Eigen::Index n = c.size();
  if (n < 1) throw InvalidArgument("simplex QP: c is empty; give at least one coordinate");
  if (Q.rows() != n || Q.cols() != n) {
    throw InvalidArgument("simplex QP: Q is " + std::to_string(Q.rows()) + " x " + std::to_string(Q.cols()) +
                          ", c has size " + std::to_string(n) + "; Q must be n x n");
  }
  if (!Q.allFinite()) throw InvalidArgument("simplex QP: Q has an entry that is not finite");
  if (!c.allFinite()) throw InvalidArgument("simplex QP: c has an entry that is not finite");
  if (alpha.size() != 0) {
    if (alpha.size() != n) {
      throw InvalidArgument("simplex QP: the warm start alpha has size " + std::to_string(alpha.size()) +
                            ", expected " + std::to_string(n) + " (or empty)");
    }
    if (!alpha.allFinite() || (alpha.array() < 0.0).any() || !(alpha.sum() > 0.0)) {
      throw InvalidArgument("simplex QP: the warm start alpha must be finite, >= 0 and of positive sum");
    }
  }
}

// The KKT pair: i = argmax of g over the support (alpha_i > 0), j = argmin of g over all.
double violatingPair(const Eigen::VectorXd& g, const Eigen::VectorXd& alpha, Eigen::Index& i, Eigen::Index& j) {
  i = -1;
  j = 0;
  for (Eigen::Index t = 0; t < g.size(); ++t) {
    if (alpha[t] > 0.0 && (i < 0 || g[t] > g[i])) i = t;
    if (g[t] < g[j]) j = t;
  }
  return g[i] - g[j];
}

}  // namespace

SimplexQpResult solveSimplexQp(const Eigen::MatrixXd& Q, const Eigen::VectorXd& c, Eigen::VectorXd& alpha,
                               const SimplexQpParams& params) {
  checkProblem(Q, c, alpha);
  if (!(params.tolerance >= 0.0)) throw InvalidArgument("simplex QP: tolerance must be >= 0");
  const Eigen::Index n = c.size();
  if (alpha.size() == 0) {
    // the vertex e_t of least f: f(e_t) = Q_tt / 2 - c_t
    Eigen::Index best = 0;
    (0.5 * Q.diagonal() - c).minCoeff(&best);
    alpha = Eigen::VectorXd::Unit(n, best);
  } else {
    alpha /= alpha.sum();
  }
  const double scale = std::max({1e-300, Q.diagonal().maxCoeff(), c.cwiseAbs().maxCoeff()});
  const double threshold = params.tolerance * scale;
  const long cap = params.max_iterations > 0 ? params.max_iterations : 100000 + 1000 * static_cast<long>(n);

  Eigen::VectorXd g = Q * alpha - c;
  bool fresh = true;  // g was computed from Q, not updated step by step
  SimplexQpResult result;
  Eigen::Index i = 0, j = 0;
  for (;;) {
    const double violation = violatingPair(g, alpha, i, j);
    if (violation <= threshold || result.iterations >= cap) {
      if (!fresh) {  // confirm on a gradient free of the steps' rounding
        g.noalias() = Q * alpha - c;
        fresh = true;
        continue;
      }
      result.converged = violation <= threshold;
      result.kkt_violation = std::max(0.0, violation);
      break;
    }
    // f(alpha + s (e_j - e_i)) = f(alpha) - s violation + s^2/2 eta: the exact minimiser, clipped to
    // s <= alpha_i; on a flat direction (eta = 0) f falls linearly and all of alpha_i moves.
    const double eta = Q(i, i) + Q(j, j) - 2.0 * Q(i, j);
    double step = alpha[i];
    if (eta > 0.0) step = std::min(step, violation / eta);
    if (step == alpha[i]) {
      alpha[i] = 0.0;
    } else {
      alpha[i] -= step;
    }
    alpha[j] += step;
    g.noalias() += step * (Q.col(j) - Q.col(i));
    fresh = false;
    ++result.iterations;
  }
  result.value = 0.5 * alpha.dot(g + c) - c.dot(alpha);  // g + c = Q alpha
  return result;
}

}  // namespace mmp
