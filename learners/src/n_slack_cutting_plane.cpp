#include <mmp/learners/n_slack_cutting_plane.hpp>

#include <mmp/core/error.hpp>
#include <mmp/core/numbers.hpp>
#include <mmp/core/objective.hpp>
#include <mmp/core/thread_pool.hpp>
#include <mmp/learners/learner_run.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

namespace mmp {
namespace {

// One output of an example's working set and its plane of the example's scaled slack, a . w + b with
// a = beta_i/n (psi(y) - psi(y_i)) and b = beta_i/n L(y).
struct Plane {
  WorkingOutput kept;
  Eigen::VectorXd a;
  double b = 0.0;
  bool binding = false;  ///< one of the equalities of the last answer (WorkingSetQp::solve)
};

// An example's working set, by output: the programme's rows come in the same order whatever order the
// outputs were found in (so the same binding rows give the same answer to the bit).
struct Block {
  std::vector<Plane> planes;
  bool zero_binding = false;  ///< whether xi_i >= 0 was one of the equalities of the last answer

  // Adds the output unless it is held (`binding`: as one of the last answer's equalities); returns
  // whether it was added.
  bool add(WorkingOutput output, double inv_n, bool binding = false) {
    const auto at = std::lower_bound(planes.begin(), planes.end(), output.output,
                                     [](const Plane& p, const std::vector<int>& y) { return p.kept.output < y; });
    if (at != planes.end() && at->kept.output == output.output) return false;
    const double scale = output.beta * inv_n;
    Plane plane{std::move(output), {}, 0.0, binding};
    plane.a = scale * plane.kept.difference;
    plane.b = scale * plane.kept.loss;
    planes.insert(at, std::move(plane));
    return true;
  }

  // max(0, max over the planes of a . w + b): the working set's model of the scaled slack at w.
  double slack(const Eigen::VectorXd& w) const {
    double s = 0.0;
    for (const Plane& p : planes) s = std::max(s, p.a.dot(w) + p.b);
    return s;
  }
};

/*!
    The working sets' quadratic programme over x = (w, xi), xi_i the scaled slack of example i:
        min  lambda/2 (w - w0)' M (w - w0) + sum_i xi_i
        s.t. xi_i - a . w >= b   for each plane (a, b) of example i,   xi_i >= 0,   G_j . w >= g_j,
    solved by Mehrotra's primal-dual interior-point method on the inequality form
    min 1/2 x'Hx + c'x s.t. Ax >= r: each step solves (H + A' (Z/S) A) dx = ..., a dense system of
    d + n unknowns, in which a row with one entry (a bound, xi_i >= 0) only adds to the diagonal.  Its
    steps do not depend on how the planes are conditioned (a coordinate method crawls once the
    constraints bind).  Its residuals stall near 1e-11, and the answer must not depend on which planes
    the sets hold, so it ends by solving the rows tight at the optimum as equalities (polish).  Between
    oracle passes the programme only gains planes, so a solve first tries the polish alone from the last
    answer's rows and equalities (an active-set method from a good guess), and runs the interior point
    only when that does not settle.  Either answer is then polished once more from every row tight at it,
    so that the rows solved, and the bits, do not depend on which way it was found.
!*/
class WorkingSetQp {
 public:
  WorkingSetQp(double lambda, Eigen::VectorXd w0, Eigen::MatrixXd m, std::vector<LinearConstraint> constraints)
      : lambda_(lambda), w0_(std::move(w0)), m_(std::move(m)), constraints_(std::move(constraints)), w_(w0_) {}

  std::vector<Block>& blocks() { return blocks_; }
  const Eigen::VectorXd& w() const { return w_; }
  double value() const { return value_; }  ///< the programme's minimum at the last solve

  double prior(const Eigen::VectorXd& w) const {
    const Eigen::VectorXd d = w - w0_;
    return 0.5 * lambda_ * (m_.size() == 0 ? d.squaredNorm() : d.dot(m_ * d));
  }

  // Returns false if the method did not meet the tolerance (the last iterate is kept).  Marks the rows
  // that are equalities of the answer (Plane::binding, Block::zero_binding, constraint_binding_): the
  // next solve's guess.
  bool solve(double tolerance) {
    const Eigen::Index d = w0_.size(), n = static_cast<Eigen::Index>(blocks_.size()), dim = d + n;
    Problem p;
    p.h = Eigen::MatrixXd::Zero(dim, dim);
    p.h.topLeftCorner(d, d) = lambda_ * (m_.size() == 0 ? Eigen::MatrixXd::Identity(d, d) : m_);
    p.c = Eigen::VectorXd::Ones(dim);
    p.c.head(d) = -(p.h.topLeftCorner(d, d) * w0_);
    Eigen::Index rows = n + static_cast<Eigen::Index>(constraints_.size());
    for (const Block& block : blocks_) rows += static_cast<Eigen::Index>(block.planes.size());
    p.a = Eigen::MatrixXd::Zero(rows, dim);
    p.r.resize(rows);
    Eigen::Index row = 0;
    for (Eigen::Index i = 0; i < n; ++i) {
      for (Plane& plane : blocks_[static_cast<std::size_t>(i)].planes) {
        p.a.row(row).head(d) = -plane.a.transpose();
        p.a(row, d + i) = 1.0;
        p.r[row++] = plane.b;
      }
      p.a(row, d + i) = 1.0;
      p.r[row++] = 0.0;
    }
    for (const LinearConstraint& g : constraints_) {
      p.a.row(row).head(d) = g.normal.transpose();
      p.r[row++] = g.bound;
    }
    p.classifyRows();
    Eigen::VectorXd x(dim);
    x.head(d) = w_;
    for (Eigen::Index i = 0; i < n; ++i) x[d + i] = blocks_[static_cast<std::size_t>(i)].slack(w_);
    // The last answer's equalities, as the rows of this programme (a new plane is not one).
    std::vector<bool> binding;
    binding.reserve(static_cast<std::size_t>(rows));
    for (const Block& block : blocks_) {
      for (const Plane& plane : block.planes) binding.push_back(plane.binding);
      binding.push_back(block.zero_binding);
    }
    binding.insert(binding.end(), constraint_binding_.begin(), constraint_binding_.end());
    const bool guessed = std::find(binding.begin(), binding.end(), true) != binding.end();
    bool solved = rows == 0;
    if (solved) x = w0_;
    if (!solved && guessed) solved = p.polish(0.0, x, binding, kGuessAttempts);
    if (!solved) {
      std::fill(binding.begin(), binding.end(), false);
      solved = p.interiorPoint(tolerance, x, binding);
    }
    if (solved && rows > 0) {  // the rows tight at the answer, whichever way it was found
      std::vector<bool> tight(binding.size());
      p.markTight(x, tight);
      Eigen::VectorXd polished = x;
      if (p.polish(0.0, polished, tight, kPolishAttempts)) x = polished, binding = tight;
    }
    row = 0;
    for (Block& block : blocks_) {
      for (Plane& plane : block.planes) plane.binding = binding[static_cast<std::size_t>(row++)];
      block.zero_binding = binding[static_cast<std::size_t>(row++)];
    }
    for (std::size_t j = 0; j < constraints_.size(); ++j) constraint_binding_[j] = binding[static_cast<std::size_t>(row++)];
    w_ = x.head(d);
    value_ = prior(w_) + x.tail(n).sum();
    return solved;
  }

 private:
  // min 1/2 x'Hx + c'x s.t. Ax >= r, with the rows that have one entry (bounds) told apart.
  struct Problem {
    Eigen::MatrixXd h, a;
    Eigen::VectorXd c, r;
    std::vector<Eigen::Index> unit_column;  ///< per row: its one non-zero column, or -1
    std::vector<Eigen::Index> dense_rows;

    void classifyRows() {
      unit_column.assign(static_cast<std::size_t>(a.rows()), -1);
      dense_rows.clear();
      for (Eigen::Index k = 0; k < a.rows(); ++k) {
        Eigen::Index column = -1, nonzero = 0;
        for (Eigen::Index j = 0; j < a.cols(); ++j) {
          if (a(k, j) != 0.0) {
            column = j;
            ++nonzero;
          }
        }
        if (nonzero == 1) unit_column[static_cast<std::size_t>(k)] = column;
        else dense_rows.push_back(k);
      }
    }

    // LU with partial pivoting (blocked: a fraction of the time) while the system is well conditioned;
    // else (tight rows that depend on each other) the complete orthogonal decomposition's least-norm answer.
    static Eigen::VectorXd solveKkt(const Eigen::MatrixXd& kkt, const Eigen::VectorXd& rhs) {
      const Eigen::PartialPivLU<Eigen::MatrixXd> lu(kkt);
      if (lu.rcond() > 1e-10) return lu.solve(rhs);
      return kkt.completeOrthogonalDecomposition().solve(rhs);
    }

    // The polish's scale of the rows at x, and which rows x meets with equality at it.
    double rowScale(const Eigen::VectorXd& x) const { return 1.0 + r.lpNorm<Eigen::Infinity>() + (a * x).lpNorm<Eigen::Infinity>(); }
    void markTight(const Eigen::VectorXd& x, std::vector<bool>& binding) const {
      const Eigen::VectorXd rows_slack = a * x - r;
      const double scale = rowScale(x);
      for (Eigen::Index k = 0; k < a.rows(); ++k) binding[static_cast<std::size_t>(k)] = rows_slack[k] <= 1e-12 * scale;
    }

    // H + A' diag(weights) A: the bounds on the diagonal, the other rows by one product.
    Eigen::MatrixXd normalMatrix(const Eigen::VectorXd& weights) const {
      Eigen::MatrixXd normal = h;
      Eigen::MatrixXd scaled(static_cast<Eigen::Index>(dense_rows.size()), a.cols());
      for (std::size_t k = 0; k < dense_rows.size(); ++k) {
        scaled.row(static_cast<Eigen::Index>(k)) = std::sqrt(weights[dense_rows[k]]) * a.row(dense_rows[k]);
      }
      if (!dense_rows.empty()) normal.selfadjointView<Eigen::Lower>().rankUpdate(scaled.transpose());
      for (std::size_t k = 0; k < unit_column.size(); ++k) {
        const Eigen::Index j = unit_column[k];
        if (j >= 0) normal(j, j) += weights[static_cast<Eigen::Index>(k)] * a(static_cast<Eigen::Index>(k), j) * a(static_cast<Eigen::Index>(k), j);
      }
      return Eigen::MatrixXd(normal.selfadjointView<Eigen::Lower>());
    }

    // The interior point from x, then the polish of the rows it leaves binding (s < z; they stay the
    // binding rows if the polish does not settle); false if it does not meet the tolerance (its last
    // iterate kept).
    bool interiorPoint(double tolerance, Eigen::VectorXd& x, std::vector<bool>& binding) const {
      const Eigen::Index m = a.rows();
      Eigen::VectorXd s = (a * x - r).cwiseMax(1.0), z = Eigen::VectorXd::Ones(m);
      const double scale_d = 1.0 + c.lpNorm<Eigen::Infinity>(), scale_p = 1.0 + r.lpNorm<Eigen::Infinity>();
      for (int step = 0; step < kMaxSteps; ++step) {
        const Eigen::VectorXd rd = h * x + c - a.transpose() * z;  // dual residual
        const Eigen::VectorXd rp = a * x - s - r;                   // primal residual
        const double mu = s.dot(z) / static_cast<double>(m);
        const double objective = 0.5 * x.dot(h * x) + c.dot(x);
        if (rd.lpNorm<Eigen::Infinity>() <= std::sqrt(tolerance) * scale_d && rp.lpNorm<Eigen::Infinity>() <= tolerance * scale_p &&
            mu <= tolerance * (1.0 + std::abs(objective)) / static_cast<double>(m)) {
          for (Eigen::Index k = 0; k < m; ++k) binding[static_cast<std::size_t>(k)] = s[k] < z[k];
          std::vector<bool> polished = binding;
          if (polish(z.lpNorm<Eigen::Infinity>(), x, polished, kPolishAttempts)) binding = polished;
          return true;
        }
        const Eigen::VectorXd dz_s = z.cwiseQuotient(s);
        const Eigen::MatrixXd normal = normalMatrix(dz_s);
        // Positive definite (H's prior block and the slacks' rows): Cholesky's blocked factorisation
        // takes a fraction of the time of LDLT's unblocked one, which stays the fallback.
        const Eigen::LLT<Eigen::MatrixXd> cholesky(normal);
        const bool positive = cholesky.info() == Eigen::Success;
        Eigen::LDLT<Eigen::MatrixXd> ldlt;
        if (!positive && ldlt.compute(normal).info() != Eigen::Success) return false;
        const auto solveNormal = [&](const Eigen::VectorXd& v) -> Eigen::VectorXd {
          if (positive) return cholesky.solve(v);
          return ldlt.solve(v);
        };
        // The Newton step for the complementarity target r_c (Z ds + S dz = r_c).
        const auto direction = [&](const Eigen::VectorXd& rc, Eigen::VectorXd& dx, Eigen::VectorXd& ds, Eigen::VectorXd& dz) {
          const Eigen::VectorXd rc_s = rc.cwiseQuotient(s);
          const Eigen::VectorXd rhs = -rd + a.transpose() * (rc_s - dz_s.cwiseProduct(rp));
          dx = solveNormal(rhs);
          dx += solveNormal(rhs - normal * dx);  // one refinement: the system grows ill-conditioned near the end
          dz = -dz_s.cwiseProduct(rp + a * dx) + rc_s;
          ds = (rc - s.cwiseProduct(dz)).cwiseQuotient(z);
        };
        const auto longest = [](const Eigen::VectorXd& v, const Eigen::VectorXd& dv) {
          double step_length = 1.0;
          for (Eigen::Index k = 0; k < v.size(); ++k) {
            if (dv[k] < 0.0) step_length = std::min(step_length, -v[k] / dv[k]);
          }
          return step_length;
        };
        Eigen::VectorXd dx, ds, dz;
        direction(-s.cwiseProduct(z), dx, ds, dz);  // the affine (predictor) step
        const double affine = std::min(longest(s, ds), longest(z, dz));
        const double mu_affine = (s + affine * ds).dot(z + affine * dz) / static_cast<double>(m);
        const double sigma = std::pow(mu_affine / mu, 3);
        direction((-s.cwiseProduct(z) - ds.cwiseProduct(dz)).array() + sigma * mu, dx, ds, dz);  // the corrector
        const double length = std::min(1.0, 0.995 * std::min(longest(s, ds), longest(z, dz)));
        x += length * dx;
        s += length * ds;
        z += length * dz;
        if (!x.allFinite()) return false;
      }
      return false;
    }

    /*!
        The rows marked binding (the interior point's s < z, the last answer's, or every row tight at an
        answer) solved as equalities: a binding bound fixes its variable, and the rest is
        [H_FF A_EF'; A_EF 0] [x_F; -z_E] = [-c_F - H_FX x_X; r_E - A_EX x_X] over the free variables F and
        the other binding rows E.  That point is kept if it meets every row and its multipliers are >= 0
        (to rounding: below -1e-9 times 1 + max(multiplier_size, the largest computed) is negative).  A
        binding row with a negative multiplier (a degenerate vertex) leaves the set, and a broken or tight
        row joins it, for up to `attempts` rounds, as an active-set method would: the set solved is then
        every row tight at the optimum but those that left it.  Returns whether it settled (x is then the
        point); else x is left as it was.
    !*/
    bool polish(double multiplier_size, Eigen::VectorXd& x, std::vector<bool>& binding, int attempts) const {
      const Eigen::Index dim = x.size(), m = a.rows();
      const double scale = rowScale(x);
      std::vector<bool> dropped(binding.size(), false);
      for (int attempt = 0; attempt < attempts; ++attempt) {
        Eigen::VectorXd fixed_x = Eigen::VectorXd::Zero(dim);
        std::vector<bool> fixed(static_cast<std::size_t>(dim), false);
        std::vector<Eigen::Index> equalities, bounds;
        for (Eigen::Index k = 0; k < m; ++k) {
          if (!binding[static_cast<std::size_t>(k)]) continue;
          const Eigen::Index j = unit_column[static_cast<std::size_t>(k)];
          if (j < 0) {
            equalities.push_back(k);
          } else if (!fixed[static_cast<std::size_t>(j)]) {
            fixed[static_cast<std::size_t>(j)] = true;
            fixed_x[j] = r[k] / a(k, j);
            bounds.push_back(k);
          }
        }
        std::vector<Eigen::Index> free;
        for (Eigen::Index j = 0; j < dim; ++j) {
          if (!fixed[static_cast<std::size_t>(j)]) free.push_back(j);
        }
        const auto f = static_cast<Eigen::Index>(free.size()), e = static_cast<Eigen::Index>(equalities.size());
        Eigen::MatrixXd kkt = Eigen::MatrixXd::Zero(f + e, f + e);
        Eigen::VectorXd rhs(f + e);
        const Eigen::VectorXd h_fixed = h * fixed_x;
        for (Eigen::Index u = 0; u < f; ++u) {
          for (Eigen::Index v = 0; v < f; ++v) kkt(u, v) = h(free[static_cast<std::size_t>(u)], free[static_cast<std::size_t>(v)]);
          rhs[u] = -c[free[static_cast<std::size_t>(u)]] - h_fixed[free[static_cast<std::size_t>(u)]];
        }
        for (Eigen::Index k = 0; k < e; ++k) {
          const Eigen::Index row = equalities[static_cast<std::size_t>(k)];
          for (Eigen::Index u = 0; u < f; ++u) kkt(f + k, u) = kkt(u, f + k) = a(row, free[static_cast<std::size_t>(u)]);
          rhs[f + k] = r[row] - a.row(row).dot(fixed_x);
        }
        const Eigen::VectorXd solution = f + e == 0 ? Eigen::VectorXd() : solveKkt(kkt, rhs);
        if (!solution.allFinite() || (kkt * solution - rhs).lpNorm<Eigen::Infinity>() > 1e-9 * scale) return false;
        Eigen::VectorXd point = fixed_x;
        for (Eigen::Index u = 0; u < f; ++u) point[free[static_cast<std::size_t>(u)]] = solution[u];
        // Multipliers: -solution's tail for E; for a bound on column j, from stationarity in x_j.
        Eigen::VectorXd multiplier = Eigen::VectorXd::Zero(m);
        Eigen::VectorXd stationarity = h * point + c;
        for (Eigen::Index k = 0; k < e; ++k) {
          multiplier[equalities[static_cast<std::size_t>(k)]] = -solution[f + k];
          stationarity -= -solution[f + k] * a.row(equalities[static_cast<std::size_t>(k)]).transpose();
        }
        for (const Eigen::Index k : bounds) {
          const Eigen::Index j = unit_column[static_cast<std::size_t>(k)];
          multiplier[k] = stationarity[j] / a(k, j);
        }
        // Relative to the multipliers' size: the interior point's, or these (a guess has none before).
        const double multiplier_scale = 1.0 + std::max(multiplier_size, multiplier.lpNorm<Eigen::Infinity>());
        bool changed = false;
        for (Eigen::Index k = 0; k < m; ++k) {
          const auto row = static_cast<std::size_t>(k);
          if (binding[row] && multiplier[k] < -1e-9 * multiplier_scale) {
            binding[row] = false;
            dropped[row] = true;
            changed = true;
          }
        }
        // Rows broken join; rows met with equality join too unless they were dropped.
        const Eigen::VectorXd rows_slack = a * point - r;
        for (Eigen::Index k = 0; k < m; ++k) {
          const auto row = static_cast<std::size_t>(k);
          if (binding[row]) continue;
          if (rows_slack[k] < -1e-12 * scale || (rows_slack[k] <= 1e-12 * scale && !dropped[row])) {
            binding[row] = true;
            changed = true;
          }
        }
        if (!changed) {
          x = point;
          return true;
        }
      }
      return false;
    }
  };

  static constexpr int kMaxSteps = 200;
  // The polish's rounds after the interior point, and from the last answer's equalities (a round costs
  // about a tenth of the interior point: bench_serve at 4 Mpx, 12 settled 4 solves in 5 where 8 settled 3).
  static constexpr int kPolishAttempts = 8, kGuessAttempts = 12;

  double lambda_;
  Eigen::VectorXd w0_;
  Eigen::MatrixXd m_;
  std::vector<LinearConstraint> constraints_;
  std::vector<bool> constraint_binding_ = std::vector<bool>(constraints_.size(), false);
  Eigen::VectorXd w_;
  double value_ = 0.0;
  std::vector<Block> blocks_;
};

WorkingSetQp makeQp(const NSlackCuttingPlane::Params& p, Eigen::Index d) {
  return WorkingSetQp(p.lambda, p.prior.size() == d ? p.prior : Eigen::VectorXd::Zero(d), p.prior_metric, p.constraints);
}

// The programme of a train() call on n examples of dimension d, its sets holding the warm start;
// throws mmp::InvalidArgument naming a parameter of the wrong size.
WorkingSetQp checkedQp(const NSlackCuttingPlane::Params& params, Eigen::Index d, std::size_t n, const Eigen::VectorXd& initial) {
  const auto sized = [d](const Eigen::VectorXd& v, const char* what) {
    if (v.size() != 0 && v.size() != d) {
      throw InvalidArgument("n-slack cutting plane: the " + std::string(what) + " has " + std::to_string(v.size()) +
                            " entries, the examples' dimension is " + std::to_string(d));
    }
  };
  sized(params.prior, "prior");
  sized(initial, "starting point");
  for (const LinearConstraint& c : params.constraints) sized(c.normal, "constraint's normal");
  if (params.prior_metric.size() > 0 && params.prior_metric.rows() != d) {
    throw InvalidArgument("n-slack cutting plane: the prior metric is not " + std::to_string(d) + " x " + std::to_string(d));
  }
  WorkingSetQp qp = makeQp(params, d);
  qp.blocks().resize(n);
  if (params.warm_start.empty()) return qp;
  if (params.warm_start.size() != n) {
    throw InvalidArgument("n-slack cutting plane: the warm start has " + std::to_string(params.warm_start.size()) +
                          " working sets for " + std::to_string(n) + " examples");
  }
  for (std::size_t i = 0; i < n; ++i) {
    for (const WorkingOutput& o : params.warm_start[i]) {
      sized(o.difference, "warm start's output");
      qp.blocks()[i].add(o, 1.0 / static_cast<double>(n), true);  // workingSets() holds the binding planes
    }
  }
  return qp;
}

// The answers' risk sum_i beta_i/n h_i(w); each answer whose slack exceeds its working set's by more than
// `tolerance` (relative) joins it, in example order (`added` counts them).  An example not asked
// (asked[i] false) adds its working set's slack.
double addNewAnswers(const std::vector<OracleResult>& results, const std::vector<bool>& asked, const Eigen::VectorXd& w, double tolerance,
                     std::vector<Block>& blocks, long& added) {
  const double inv_n = 1.0 / static_cast<double>(results.size());
  double risk = 0.0;
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (!asked[i]) {
      risk += blocks[i].slack(w);
      continue;
    }
    const OracleResult& r = results[i];
    const double scale = r.beta * inv_n;
    const double slack = scale * hinge(r, w);
    risk += slack;
    if (!(slack > blocks[i].slack(w) + tolerance * std::max({scale, std::abs(slack)}))) continue;
    WorkingOutput output{r.output, Eigen::VectorXd::Zero(w.size()), r.loss, r.beta};
    r.psi_output.addTo(output.difference, 1.0);
    r.psi_target.addTo(output.difference, -1.0);
    if (blocks[i].add(std::move(output), inv_n)) ++added;
  }
  return risk;
}

}  // namespace

NSlackCuttingPlane::NSlackCuttingPlane(Params params) : params_(std::move(params)) {
  const auto fail = [](const std::string& what) { throw InvalidArgument("n-slack cutting plane: " + what); };
  if (!(params_.lambda > 0.0) || !std::isfinite(params_.lambda)) fail("lambda must be a finite number > 0, got " + numberText(params_.lambda));
  if (!params_.prior.allFinite()) fail("the prior has an entry that is not finite");
  const Eigen::MatrixXd& m = params_.prior_metric;
  if (m.size() > 0) {
    if (m.rows() != m.cols() || (params_.prior.size() > 0 && m.rows() != params_.prior.size())) {
      fail("the prior metric must be d x d for the prior's d");
    }
    if (!m.allFinite() || !m.isApprox(m.transpose()) || Eigen::LLT<Eigen::MatrixXd>(m).info() != Eigen::Success) {
      fail("the prior metric must be symmetric positive definite");
    }
  }
  for (std::size_t j = 0; j < params_.constraints.size(); ++j) {
    const LinearConstraint& c = params_.constraints[j];
    if (!c.normal.allFinite() || c.normal.squaredNorm() == 0.0 || !std::isfinite(c.bound)) {
      fail("constraint " + std::to_string(j) + " needs a finite, non-zero normal and a finite bound");
    }
  }
  if (!(params_.stop.tolerance > 0.0)) fail("stop.tolerance must be > 0 (the slack an answer must add to count as new)");
  if (params_.stop.max_iterations < 1) fail("max_iterations must be >= 1");
  if (!(params_.stop.time_budget_seconds >= 0.0)) fail("time_budget_seconds must be >= 0");
  if (!(params_.qp_tolerance > 0.0)) fail("qp_tolerance must be > 0");
  if (params_.threads < 0) fail("threads must be >= 0 (0: all cores)");
}

Eigen::VectorXd NSlackCuttingPlane::priorMinimiser() const {
  if (params_.prior.size() == 0) throw InvalidArgument("n-slack cutting plane: priorMinimiser needs a prior");
  WorkingSetQp qp = makeQp(params_, params_.prior.size());
  qp.solve(params_.qp_tolerance);
  return qp.w();
}

const Eigen::VectorXd& NSlackCuttingPlane::train(const ExampleList& examples, Eigen::VectorXd initial) {
  start(examples);
  objective_ = gap_ = std::numeric_limits<double>::quiet_NaN();
  outputs_ = 0;
  working_sets_.clear();
  const Eigen::Index d = commonDimension(examples);
  const std::size_t n = examples.size();
  WorkingSetQp qp = checkedQp(params_, d, n, initial);
  LearnerRun run(*this, params_.stop, true, "reached max_iterations = " + std::to_string(params_.stop.max_iterations),
                 LearnerRun::BudgetText::Short);
  // The minimiser over the warm start's sets (of the prior alone without one): where the oracles start.
  const bool started = qp.solve(params_.qp_tolerance);
  bool at_minimiser = initial.size() != d;  // whether w minimises the working sets' programme
  Eigen::VectorXd w = at_minimiser ? qp.w() : std::move(initial);
  weights_ = w;
  if (!started) run.fail("the starting programme did not reach its tolerance");

  ThreadPool pool(params_.threads);
  std::vector<OracleResult> results(n);
  // A warm start's sets come from a former minimiser, where their examples' answers lay in them: at the
  // sets' minimiser the first pass asks only the examples without a set (the ones taught since).  Every
  // later pass asks them all, and only a pass that asked them all ends the run or gives a gap.
  std::vector<std::size_t> all(n), fresh;
  std::iota(all.begin(), all.end(), std::size_t{0});
  for (std::size_t i = 0; i < n; ++i) {
    if (qp.blocks()[i].planes.empty()) fresh.push_back(i);
  }
  bool partial = at_minimiser && !fresh.empty() && fresh.size() < n;
  std::vector<bool> asked(n);
  for (long t = 1; !run.stopped() && t <= params_.stop.max_iterations; ++t) {
    if (run.outOfTime("at iteration", t)) break;
    const bool full = !partial;
    partial = false;
    const std::vector<std::size_t>& ask = full ? all : fresh;
    std::fill(asked.begin(), asked.end(), full);
    if (!full) {
      for (const std::size_t i : fresh) asked[i] = true;
    }
    try {
      pool.parallelFor(ask.size(), [&](std::size_t j) { examples[ask[j]]->solve(w, 1.0, results[ask[j]]); });
    } catch (const NumericalError& e) {
      run.fail("iteration " + std::to_string(t) + ": " + e.what() + "; kept the last good weights");
      break;
    }
    long added = 0;
    const double risk = addNewAnswers(results, asked, w, params_.stop.tolerance, qp.blocks(), added);
    const double value = qp.prior(w) + risk;  // c at w when the pass was full
    if (!std::isfinite(value)) {
      run.fail("an oracle answer at iteration " + std::to_string(t) + " is not finite; kept the last good weights");
      break;
    }
    iterations_ = t;
    weights_ = w;
    if (full) objective_ = value;
    if (added == 0 && !full) continue;  // the next pass asks every example at this w
    if (added == 0 && !at_minimiser) {  // a given start: on to the sets' minimiser
      w = qp.w();
      at_minimiser = true;
      continue;
    }
    if (added == 0) {
      gap_ = value - qp.value();
      TraceRecord record{t, value, w.norm(), elapsed()};
      record.gap = gap_;
      run.trace(record, "at iteration", t);
      run.succeed("no oracle answer lies outside its working set at iteration " + std::to_string(t) + " (gap " + numberText(gap_) + ")");
      break;
    }
    if (!qp.solve(params_.qp_tolerance)) {
      run.fail("the working sets' quadratic programme did not reach its tolerance at iteration " + std::to_string(t) +
               "; kept the last good weights");
      break;
    }
    if (full) {
      gap_ = value - qp.value();  // the enlarged sets' minimum is still a lower bound on min c
      TraceRecord record{t, value, w.norm(), elapsed()};
      record.gap = gap_;
      if (!run.trace(record, "at iteration", t)) break;
    }
    if (run.refuses(qp.w(), "the working sets' minimiser after iteration", t, "kept the last good weights")) break;
    w = qp.w();
    at_minimiser = true;
  }
  working_sets_.assign(n, {});
  for (std::size_t i = 0; i < n; ++i) {
    for (const Plane& p : qp.blocks()[i].planes) {
      if (p.binding) working_sets_[i].push_back(p.kept);
    }
    outputs_ += static_cast<long>(qp.blocks()[i].planes.size());
  }
  run.finish();
  return weights_;
}

}  // namespace mmp
