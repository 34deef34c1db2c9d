// A convex quadratic programme over the probability simplex, solved by pairwise SMO: the working-set
// dual of the 1-slack cutting-plane learner (cutting_plane.hpp), kept apart so that it can be tested
// on its own.  Own code rather than a library: Debian 12 packages no C or C++ QP solver (cvxopt is
// Python; dlib's SMO is a benchmark-only peer here, never a dependency of the library), and this dual
// is small (one variable per working-set plane), dense and warm-started each iteration, which pairwise
// SMO handles exactly to a KKT tolerance in a few dozen lines.
//
//   Eigen::VectorXd alpha;                               // empty: start at the best vertex
//   const SimplexQpResult r = solveSimplexQp(Q, c, alpha);
//   // alpha is on the simplex; r.value = f(alpha); r.kkt_violation bounds f(alpha) - min f
#pragma once

#include <Eigen/Dense>

namespace mmp {

struct SimplexQpParams {
  /// Stop once the KKT violation is at most tolerance * scale, scale = max(1e-300, max_t Q_tt, max_t |c_t|)
  /// (the largest entry a gradient Q alpha - c can have on the simplex, up to a factor 2).
  double tolerance = 1e-12;
  /// Pairwise steps at most; 0 means 100000 + 1000 n.
  long max_iterations = 0;
};

struct SimplexQpResult {
  double value = 0.0;          ///< f(alpha) at the returned alpha
  double kkt_violation = 0.0;  ///< max_{alpha_t > 0} grad_t - min_t grad_t at the returned alpha, >= 0
  long iterations = 0;         ///< pairwise steps taken
  bool converged = false;      ///< kkt_violation <= tolerance * scale was reached within the step cap
};

/*!
    WHAT THIS FUNCTION COMPUTES
        A minimiser of

            f(alpha) = 1/2 alpha' Q alpha - c' alpha   over   { alpha >= 0, sum_t alpha_t = 1 }

        for a symmetric positive semidefinite Q (singular allowed: repeated or dependent planes).
        Pairwise SMO: each step moves mass from the coordinate with the largest gradient among those
        with alpha_t > 0 to the coordinate with the smallest gradient, by the exact minimiser of f
        along that direction clipped so that alpha stays >= 0.  The gradient is kept up to date in
        O(n) a step and recomputed from Q before convergence is declared.

        alpha* minimises f on the simplex exactly when the gradient g = Q alpha* - c is equal on the
        support and no smaller elsewhere, i.e. when the KKT violation max_{alpha_t>0} g_t - min_t g_t
        is 0.  The answer is "exact" to the tolerance on that violation; since f is convex,
        f(alpha) - min f <= g'alpha - min_t g_t <= kkt_violation, so the value is within the
        reported violation of the optimum.
    requires
        - Q square, symmetric PSD, of size n = c.size() >= 1, all entries finite
        - alpha empty (start at the vertex e_t of least f) or of size n with entries >= 0 and a
          positive sum (a warm start; it is rescaled onto the simplex)
    ensures
        - alpha is on the simplex and the result describes it
        - throws mmp::InvalidArgument naming the argument at fault when the sizes disagree, an
          entry is not finite or the warm start is not a nonnegative vector of positive sum
    O(n) memory besides Q; O(n) time a step.
!*/
SimplexQpResult solveSimplexQp(const Eigen::MatrixXd& Q, const Eigen::VectorXd& c, Eigen::VectorXd& alpha,
                               const SimplexQpParams& params = {});

}  // namespace mmp
