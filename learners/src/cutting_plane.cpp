#include <mmp/learners/cutting_plane.hpp>

#include <mmp/core/error.hpp>
#include <mmp/core/thread_pool.hpp>
#include <mmp/learners/learner_run.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace mmp {
namespace {

/*!
    The working set: planes (a_t, b_t) of the risk model, their Gram matrix G_st = a_s . a_t, the
    dual weights alpha and, per plane, how many QP solutions in a row left its alpha at 0.  Plane 0
    is the zero plane (a = 0, b = 0), which makes the dual's constraint the simplex.
!*/
class WorkingSet {
 public:
  explicit WorkingSet(Eigen::Index d) {
    a_.push_back(Eigen::VectorXd::Zero(d));
    b_.push_back(0.0);
    age_.push_back(0);
    gram_ = Eigen::MatrixXd::Zero(1, 1);
    alpha_ = Eigen::VectorXd::Ones(1);
  }

  long size() const { return static_cast<long>(a_.size()); }

  // Appends a plane with alpha 0 (the old alpha stays a feasible warm start); its Gram row is the
  // only new work, one dot product in R^d per plane held.
  void add(Eigen::VectorXd a, double b) {
    const Eigen::Index m = gram_.rows();
    gram_.conservativeResize(m + 1, m + 1);
    for (Eigen::Index s = 0; s < m; ++s) gram_(m, s) = gram_(s, m) = a.dot(a_[static_cast<std::size_t>(s)]);
    gram_(m, m) = a.squaredNorm();
    a_.push_back(std::move(a));
    b_.push_back(b);
    age_.push_back(0);
    alpha_.conservativeResize(m + 1);
    alpha_[m] = 0.0;
  }

  // The dual value max_alpha sum_t alpha_t b_t - 1/(2 lambda) |sum_t alpha_t a_t|^2 of the current
  // set, i.e. minus the minimum of 1/2 alpha' (G / lambda) alpha - b' alpha on the simplex.
  double solveDual(double lambda, const SimplexQpParams& params) {
    const Eigen::MatrixXd q = gram_ / lambda;
    const Eigen::Map<const Eigen::VectorXd> c(b_.data(), static_cast<Eigen::Index>(b_.size()));
    return -solveSimplexQp(q, c, alpha_, params).value;
  }

  // w = -1/lambda sum_t alpha_t a_t, the primal minimiser of the working set's model.
  void primal(double lambda, Eigen::VectorXd& w) const {
    w.setZero();
    for (std::size_t t = 0; t < a_.size(); ++t) {
      if (alpha_[static_cast<Eigen::Index>(t)] > 0.0) w.noalias() -= (alpha_[static_cast<Eigen::Index>(t)] / lambda) * a_[t];
    }
  }

  // Ages every plane but the zero plane and drops those whose alpha has been 0 for age_limit
  // solutions in a row; the survivors' alpha still sums to 1 (a dropped alpha was 0).
  void dropIdle(long age_limit) {
    std::vector<Eigen::Index> keep{0};
    for (std::size_t t = 1; t < a_.size(); ++t) {
      age_[t] = alpha_[static_cast<Eigen::Index>(t)] > 0.0 ? 0 : age_[t] + 1;
      if (age_[t] < age_limit) keep.push_back(static_cast<Eigen::Index>(t));
    }
    if (keep.size() == a_.size()) return;
    const auto m = static_cast<Eigen::Index>(keep.size());
    Eigen::MatrixXd gram(m, m);
    Eigen::VectorXd alpha(m);
    std::vector<Eigen::VectorXd> a;
    std::vector<double> b;
    std::vector<long> age;
    for (Eigen::Index r = 0; r < m; ++r) {
      const auto k = static_cast<std::size_t>(keep[static_cast<std::size_t>(r)]);
      for (Eigen::Index s = 0; s < m; ++s) gram(r, s) = gram_(keep[static_cast<std::size_t>(r)], keep[static_cast<std::size_t>(s)]);
      alpha[r] = alpha_[static_cast<Eigen::Index>(k)];
      a.push_back(std::move(a_[k]));
      b.push_back(b_[k]);
      age.push_back(age_[k]);
    }
    gram_.swap(gram);
    alpha_.swap(alpha);
    a_.swap(a);
    b_.swap(b);
    age_.swap(age);
  }

 private:
  std::vector<Eigen::VectorXd> a_;
  std::vector<double> b_;
  std::vector<long> age_;
  Eigen::MatrixXd gram_;
  Eigen::VectorXd alpha_;
};

// A plane (a_t, b_t) of the risk model and the objective c(w_t) where it was cut.
struct RiskPlane {
  Eigen::VectorXd a;
  double b = 0.0;
  double value = 0.0;
};

// The plane and c(w) of the oracle answers at w, summed in example order: the same whatever the thread count.
RiskPlane riskPlane(const std::vector<OracleResult>& results, const Eigen::VectorXd& w, Eigen::Index d, double lambda,
                    double inv_n) {
  RiskPlane plane;
  plane.a = Eigen::VectorXd::Zero(d);
  double risk = 0.0;
  for (const OracleResult& r : results) {
    risk += addTermSubgradient(r, w, 1, inv_n, plane.a);
    plane.b += r.beta * r.loss;
  }
  plane.b *= inv_n;
  plane.value = 0.5 * lambda * w.squaredNorm() + risk * inv_n;  // as Objective::evaluate sums it
  return plane;
}

std::string gapMetMessage(double gap, double best, long t) {
  return "gap " + numberText(gap) + " (relative " + numberText(gap / std::max(best, 1e-300)) +
         ") within tolerance at iteration " + std::to_string(t);
}

// c at the starting point when no iteration completed, if its oracles can answer (NaN otherwise).
double startingObjective(const ExampleList& examples, double lambda, const Eigen::VectorXd& w, ThreadPool& pool) {
  try {
    return Objective(examples, {lambda, 1}).evaluate(w, nullptr, &pool).value;
  } catch (const NumericalError&) {
    return std::numeric_limits<double>::quiet_NaN();
  }
}

}  // namespace

CuttingPlane::CuttingPlane(Params params) : params_(std::move(params)) {
  if (!(params_.lambda > 0.0) || !std::isfinite(params_.lambda)) {
    throw InvalidArgument("cutting plane: lambda must be a finite number > 0 (the dual divides by it), got " +
                          numberText(params_.lambda));
  }
  if (!(params_.stop.tolerance >= 0.0)) {
    throw InvalidArgument("cutting plane: tolerance (the relative gap) must be >= 0, got " + numberText(params_.stop.tolerance));
  }
  if (!(params_.absolute_tolerance >= 0.0)) {
    throw InvalidArgument("cutting plane: absolute_tolerance must be >= 0, got " + numberText(params_.absolute_tolerance));
  }
  if (params_.stop.max_iterations < 1) throw InvalidArgument("cutting plane: max_iterations must be >= 1");
  if (!(params_.stop.time_budget_seconds >= 0.0)) throw InvalidArgument("cutting plane: time_budget_seconds must be >= 0");
  if (params_.plane_age_limit < 1) {
    throw InvalidArgument("cutting plane: plane_age_limit must be >= 1 (QP solutions a plane may sit at alpha 0), got " +
                          std::to_string(params_.plane_age_limit));
  }
  if (!(params_.qp.tolerance >= 0.0)) throw InvalidArgument("cutting plane: qp.tolerance must be >= 0");
  if (params_.qp.max_iterations < 0) throw InvalidArgument("cutting plane: qp.max_iterations must be >= 0 (0: automatic)");
  if (params_.threads < 0) throw InvalidArgument("cutting plane: threads must be >= 0 (0: all cores)");
}

const Eigen::VectorXd& CuttingPlane::train(const ExampleList& examples, Eigen::VectorXd initial) {
  start(examples);
  gap_ = dual_ = objective_ = std::numeric_limits<double>::quiet_NaN();
  planes_ = max_planes_ = 0;
  const Eigen::Index d = commonDimension(examples);
  Eigen::VectorXd w = startingPoint(std::move(initial), d, NoProjection(), "cutting plane");

  const double lambda = params_.lambda;
  const std::size_t n = examples.size();
  const double inv_n = 1.0 / static_cast<double>(n);
  ThreadPool pool(params_.threads);
  std::vector<OracleResult> results(n);
  WorkingSet set(d);
  max_planes_ = set.size();
  Eigen::VectorXd best_w = w;
  double best = std::numeric_limits<double>::infinity();
  const bool tolerance_set = params_.stop.tolerance > 0.0 || params_.absolute_tolerance > 0.0;
  LearnerRun run(*this, params_.stop, tolerance_set,
                  "reached max_iterations = " + std::to_string(params_.stop.max_iterations), LearnerRun::BudgetText::Short);
  for (long t = 1; t <= params_.stop.max_iterations; ++t) {
    if (run.outOfTime()) break;
    // 1) every loss-augmented oracle at w_t
    try {
      pool.parallelFor(n, [&](std::size_t i) { examples[i]->solve(w, 1.0, results[i]); });
    } catch (const NumericalError& e) {
      run.fail("iteration " + std::to_string(t) + ": " + e.what() + "; kept the best weights found before");
      break;
    }
    // 2) the plane (a_t, b_t) and c(w_t)
    RiskPlane plane = riskPlane(results, w, d, lambda, inv_n);
    if (!std::isfinite(plane.value) || !std::isfinite(plane.b) || !plane.a.allFinite()) {
      run.fail("an oracle answer at iteration " + std::to_string(t) + " is not finite; kept the best weights found before");
      break;
    }
    if (plane.value < best) {
      best = plane.value;
      best_w = w;
    }
    // 3) the working set's dual, exactly (to the QP's KKT tolerance), warm-started
    set.add(std::move(plane.a), plane.b);
    max_planes_ = std::max(max_planes_, set.size());
    dual_ = set.solveDual(lambda, params_.qp);
    gap_ = best - dual_;
    planes_ = set.size();
    iterations_ = t;
    weights_ = best_w;
    TraceRecord record{t, best, best_w.norm(), elapsed()};
    record.gap = gap_;
    if (!run.trace(record, "at iteration", t)) break;
    if (tolerance_set && gap_ <= std::max(params_.stop.tolerance * best, params_.absolute_tolerance)) {
      run.succeed(gapMetMessage(gap_, best, t));
      break;
    }
    // 4) w_{t+1}, the minimiser of the model; idle planes leave the set
    set.primal(lambda, w);
    set.dropIdle(params_.plane_age_limit);
    planes_ = set.size();
    if (run.refuses(w, "the model's minimiser after iteration", t, "kept the best weights")) break;
  }
  weights_ = best_w;
  objective_ = std::isfinite(best) ? best : startingObjective(examples, lambda, weights_, pool);
  run.finish();
  return weights_;
}

}  // namespace mmp
