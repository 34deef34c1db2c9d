#include <mmp/planning/maxent_planner.hpp>
#include <mmp/core/numbers.hpp>

#include <mmp/core/error.hpp>

#include <algorithm>
#include <cmath>

namespace mmp {

namespace {

// The 8 moves, ordered so that the reverse of move k is move 7 - k.
constexpr int kRow[8] = {-1, -1, -1, 0, 0, 1, 1, 1};
constexpr int kCol[8] = {-1, 0, 1, -1, 1, -1, 0, 1};

double stepLength(int k) { return kRow[k] != 0 && kCol[k] != 0 ? std::sqrt(2.0) : 1.0; }

bool moveAllowed(int k, Connectivity connectivity) {
  return connectivity == Connectivity::Eight || kRow[k] == 0 || kCol[k] == 0;
}

std::string cellText(int s, int cols) {
  return "cell " + std::to_string(s) + " (row " + std::to_string(s / cols) + ", col " + std::to_string(s % cols) + ")";
}

// log sum over the neighbours j of local cell i (but `skip`) of A(i, j) z(j), from the log weights
// and log z; -inf when no neighbour has z > 0.  Max-shifted, so nothing overflows.
double logBackup(const std::vector<int>& neighbour, const std::vector<double>& log_weight,
                 const std::vector<double>& log_z, int i, int skip) {
  const std::size_t base = static_cast<std::size_t>(i) * 8;
  double top = -kInf;
  for (int k = 0; k < 8; ++k) {
    const int j = neighbour[base + k];
    if (j >= 0 && j != skip) top = std::max(top, log_weight[base + k] + log_z[static_cast<std::size_t>(j)]);
  }
  if (top == -kInf) return top;
  double sum = 0.0;
  for (int k = 0; k < 8; ++k) {
    const int j = neighbour[base + k];
    if (j >= 0 && j != skip) sum += std::exp(log_weight[base + k] + log_z[static_cast<std::size_t>(j)] - top);
  }
  return top + std::log(sum);
}

// min over the non-goal cells of log (A z)(s) - log z(s), A without the goal column: the log of the
// Collatz-Wielandt lower bound on A's spectral radius at z (-inf when z gives no bound).
double lowestGrowth(const std::vector<int>& neighbour, const std::vector<double>& log_weight,
                    const std::vector<double>& log_z, int goal) {
  double lowest = kInf;
  for (int i = 0; i < static_cast<int>(log_z.size()); ++i) {
    if (i == goal) continue;
    const double grown = logBackup(neighbour, log_weight, log_z, i, goal);
    if (grown == -kInf || log_z[static_cast<std::size_t>(i)] == -kInf) return -kInf;  // no bound from this z
    lowest = std::min(lowest, grown - log_z[static_cast<std::size_t>(i)]);
  }
  return lowest;
}

}  // namespace

const char* describe(SoftPlanStatus status) {
  switch (status) {
    case SoftPlanStatus::Success: return "success";
    case SoftPlanStatus::NoPath: return "no path";
    case SoftPlanStatus::InvalidInput: return "invalid input";
    case SoftPlanStatus::NotNormalisable: return "not normalisable";
    case SoftPlanStatus::NoConvergence: return "no convergence";
  }
  return "unknown";
}

MaxEntPlanner::MaxEntPlanner(int rows, int cols, Params params)
    : rows_(rows), cols_(cols), params_(params), hard_(rows, cols, GridPlanner::Params{params.connectivity, {}, 1 << 14}) {
  if (!(params_.tolerance > 0.0)) throw InvalidArgument("maxent planner: tolerance must be > 0");
  if (params_.max_sweeps < 1) throw InvalidArgument("maxent planner: max_sweeps must be >= 1");
  if (!(params_.region_margin >= 0.0)) throw InvalidArgument("maxent planner: region_margin must be >= 0 (or inf)");
}

SoftPlanResult MaxEntPlanner::solve(const std::vector<double>& costs, int start, int goal) {
  const int n = rows_ * cols_;
  if (costs.size() != static_cast<std::size_t>(n)) {
    throw InvalidArgument("maxent planner: " + std::to_string(costs.size()) + " costs for a " + std::to_string(rows_) +
                          " x " + std::to_string(cols_) + " grid");
  }
  solved_ = false;
  SoftPlanResult result;
  // 1) the hard costs from the start and to the goal (steps are symmetric): they check the input,
  //    bound the region and order the sweeps.
  PlanResult from_start = hard_.plan(costs, start, -1);
  if (from_start.status == PlanStatus::InvalidInput) {
    result.status = SoftPlanStatus::InvalidInput;
    result.message = from_start.message;
    return result;
  }
  std::vector<double> to_start(static_cast<std::size_t>(n));
  for (int s = 0; s < n; ++s) to_start[static_cast<std::size_t>(s)] = hard_.distance(s);
  const PlanResult from_goal = hard_.plan(costs, goal, -1);
  if (from_goal.status == PlanStatus::InvalidInput) {
    result.status = SoftPlanStatus::InvalidInput;
    result.message = from_goal.message;
    return result;
  }
  result.min_cost = to_start[static_cast<std::size_t>(goal)];
  if (!std::isfinite(result.min_cost)) {
    result.status = SoftPlanStatus::NoPath;
    result.message = "the goal " + cellText(goal, cols_) + " cannot be reached from the start " + cellText(start, cols_);
    return result;
  }
  // 2) the region, in order of the hard cost to the goal (the goal first).  The slack keeps the
  //    cheapest path's cells in a region of margin 0 whatever the rounding of the two searches.
  buildRegion(to_start, result.min_cost + params_.region_margin + 1e-9 * (1.0 + result.min_cost));
  result.region_cells = static_cast<int>(cells_.size());
  start_local_ = local_[static_cast<std::size_t>(start)];
  goal_local_ = local_[static_cast<std::size_t>(goal)];
  // 3) the log step weights, 4) log z backward, 5) the policy, 6) the expected visits forward,
  // 7) the visits per cell
  const std::vector<double> log_weight = logStepWeights(costs);
  std::vector<double> log_z;
  if (!backwardPass(log_weight, log_z, result)) return result;
  result.log_partition = log_z[static_cast<std::size_t>(start_local_)];
  buildPolicy(log_weight, log_z);
  std::vector<double> visits;
  if (!forwardPass(to_start, visits, result)) return result;
  addStepVisits(visits, result);
  result.status = SoftPlanStatus::Success;
  solved_ = true;
  return result;
}

void MaxEntPlanner::buildRegion(const std::vector<double>& to_start, double limit) {
  const int n = rows_ * cols_;
  cells_.clear();
  for (int s = 0; s < n; ++s) {
    const double through = to_start[static_cast<std::size_t>(s)] + hard_.distance(s);
    if (std::isfinite(through) && through <= limit) cells_.push_back(s);
  }
  std::sort(cells_.begin(), cells_.end(), [&](int a, int b) {
    const double da = hard_.distance(a), db = hard_.distance(b);
    return da < db || (da == db && a < b);
  });
  const int m = static_cast<int>(cells_.size());
  local_.assign(static_cast<std::size_t>(n), -1);
  for (int i = 0; i < m; ++i) local_[static_cast<std::size_t>(cells_[static_cast<std::size_t>(i)])] = i;
}

std::vector<double> MaxEntPlanner::logStepWeights(const std::vector<double>& costs) {
  // 3) the log step weights -|step| (c(a) + c(b)) / 2 inside the region.
  const int m = static_cast<int>(cells_.size());
  neighbour_.assign(static_cast<std::size_t>(m) * 8, -1);
  std::vector<double> log_weight(static_cast<std::size_t>(m) * 8, -kInf);
  for (int i = 0; i < m; ++i) {
    const int s = cells_[static_cast<std::size_t>(i)], r = s / cols_, c = s % cols_;
    for (int k = 0; k < 8; ++k) {
      const int rr = r + kRow[k], cc = c + kCol[k];
      if (!moveAllowed(k, params_.connectivity) || rr < 0 || rr >= rows_ || cc < 0 || cc >= cols_) continue;
      const int j = local_[static_cast<std::size_t>(rr * cols_ + cc)];
      if (j < 0) continue;
      neighbour_[static_cast<std::size_t>(i) * 8 + k] = j;
      log_weight[static_cast<std::size_t>(i) * 8 + k] =
          -stepLength(k) * (costs[static_cast<std::size_t>(s)] + costs[static_cast<std::size_t>(rr * cols_ + cc)]) / 2.0;
    }
  }
  return log_weight;
}

bool MaxEntPlanner::backwardPass(const std::vector<double>& log_weight, std::vector<double>& log_z,
                                 SoftPlanResult& result) const {
  // 4) backward: Gauss-Seidel log-sum-exp backups, alternating the order; log z only increases.
  //    Every step matrix row (over the region, goal column included) summing to < 1 certifies that
  //    Z is finite; without that certificate, every 10 sweeps the Collatz-Wielandt bound
  //    rho(A) >= min over cells of (A z)(s) / z(s) (A without the goal column) may certify that it is not.
  const int m = static_cast<int>(cells_.size());
  double widest_row = 0.0;
  for (int i = 0; i < m; ++i) {
    if (i == goal_local_) continue;
    double row = 0.0;
    for (int k = 0; k < 8; ++k) row += std::exp(log_weight[static_cast<std::size_t>(i) * 8 + k]);
    widest_row = std::max(widest_row, row);
  }
  log_z.assign(static_cast<std::size_t>(m), -kInf);
  log_z[static_cast<std::size_t>(goal_local_)] = 0.0;
  bool converged = false;
  for (int sweep = 1; sweep <= params_.max_sweeps && !converged; ++sweep) {
    double change = 0.0;
    for (int t = 0; t < m; ++t) {
      const int i = sweep % 2 == 1 ? t : m - 1 - t;
      if (i == goal_local_) continue;
      const double updated = logBackup(neighbour_, log_weight, log_z, i, -1);
      if (updated == -kInf) continue;
      double& old = log_z[static_cast<std::size_t>(i)];
      change = std::max(change, old == -kInf ? kInf : std::abs(updated - old));
      old = updated;
    }
    result.backward_sweeps = sweep;
    converged = change <= params_.tolerance;
    if (!converged && widest_row >= 1.0 && sweep % 10 == 0 && lowestGrowth(neighbour_, log_weight, log_z, goal_local_) >= 0.0) {
      result.status = SoftPlanStatus::NotNormalisable;
      result.message = "Z is infinite at these costs (the step matrix's spectral radius is >= 1, certified after " +
                       std::to_string(sweep) + " sweeps); every cost above " + std::to_string(kMaxEntSafeCost) +
                       " makes it finite";
      return false;
    }
  }
  if (!converged) {
    result.status = SoftPlanStatus::NoConvergence;
    result.message = "the backward pass did not reach tolerance " + std::to_string(params_.tolerance) + " in " +
                     std::to_string(params_.max_sweeps) + " sweeps";
  }
  return converged;
}

void MaxEntPlanner::buildPolicy(const std::vector<double>& log_weight, const std::vector<double>& log_z) {
  // 5) the policy pi(b | a) = A(a, b) z(b) / z(a); the goal absorbs.
  const int m = static_cast<int>(cells_.size());
  step_probability_.assign(static_cast<std::size_t>(m) * 8, 0.0);
  for (int i = 0; i < m; ++i) {
    if (i == goal_local_) continue;
    for (int k = 0; k < 8; ++k) {
      const std::size_t e = static_cast<std::size_t>(i) * 8 + k;
      const int j = neighbour_[e];
      if (j >= 0) {
        step_probability_[e] = std::exp(log_weight[e] + log_z[static_cast<std::size_t>(j)] - log_z[static_cast<std::size_t>(i)]);
      }
    }
  }
}

bool MaxEntPlanner::forwardPass(const std::vector<double>& to_start, std::vector<double>& visits,
                                SoftPlanResult& result) const {
  // 6) forward: expected visits D(b) = [b = start] + sum_a D(a) pi(b | a), Gauss-Seidel in order of
  //    the hard cost from the start, alternating.
  const int m = static_cast<int>(cells_.size());
  std::vector<int> forward_order(cells_.size());
  for (int i = 0; i < m; ++i) forward_order[static_cast<std::size_t>(i)] = i;
  std::sort(forward_order.begin(), forward_order.end(), [&](int a, int b) {
    const double da = to_start[static_cast<std::size_t>(cells_[static_cast<std::size_t>(a)])];
    const double db = to_start[static_cast<std::size_t>(cells_[static_cast<std::size_t>(b)])];
    return da < db || (da == db && a < b);
  });
  visits.assign(static_cast<std::size_t>(m), 0.0);
  bool converged = false;
  for (int sweep = 1; sweep <= params_.max_sweeps && !converged; ++sweep) {
    double change = 0.0;
    for (int t = 0; t < m; ++t) {
      const int b = forward_order[static_cast<std::size_t>(sweep % 2 == 1 ? t : m - 1 - t)];
      double inflow = b == start_local_ ? 1.0 : 0.0;
      for (int k = 0; k < 8; ++k) {
        const int a = neighbour_[static_cast<std::size_t>(b) * 8 + k];
        // a's move into b is the reverse move 7 - k
        if (a >= 0) inflow += visits[static_cast<std::size_t>(a)] * step_probability_[static_cast<std::size_t>(a) * 8 + (7 - k)];
      }
      change = std::max(change, std::abs(inflow - visits[static_cast<std::size_t>(b)]));
      visits[static_cast<std::size_t>(b)] = inflow;
    }
    result.forward_sweeps = sweep;
    converged = change <= params_.tolerance;
  }
  if (!converged) {
    result.status = SoftPlanStatus::NoConvergence;
    result.message = "the forward pass did not reach tolerance " + std::to_string(params_.tolerance) + " in " +
                     std::to_string(params_.max_sweeps) + " sweeps";
  }
  return converged;
}

void MaxEntPlanner::addStepVisits(const std::vector<double>& visits, SoftPlanResult& result) const {
  // 7) each step's expected count D(a) pi(b | a), half of its length to each end (the trapezoid rule).
  const int m = static_cast<int>(cells_.size());
  result.visits.assign(static_cast<std::size_t>(rows_ * cols_), 0.0);
  for (int i = 0; i < m; ++i) {
    if (i == goal_local_) continue;
    for (int k = 0; k < 8; ++k) {
      const std::size_t e = static_cast<std::size_t>(i) * 8 + k;
      const int j = neighbour_[e];
      if (j < 0) continue;
      const double half = visits[static_cast<std::size_t>(i)] * step_probability_[e] * stepLength(k) / 2.0;
      result.visits[static_cast<std::size_t>(cells_[static_cast<std::size_t>(i)])] += half;
      result.visits[static_cast<std::size_t>(cells_[static_cast<std::size_t>(j)])] += half;
    }
  }
}

std::vector<int> MaxEntPlanner::sample(Random& rng, long max_steps) const {
  if (!solved_) throw InvalidArgument("maxent planner: sample() needs a successful solve() first");
  std::vector<int> walk{cells_[static_cast<std::size_t>(start_local_)]};
  int i = start_local_;
  for (long step = 0; i != goal_local_; ++step) {
    if (step >= max_steps) {
      throw NumericalError("maxent planner: a sampled walk took more than " + std::to_string(max_steps) +
                           " steps without reaching the goal");
    }
    const std::size_t base = static_cast<std::size_t>(i) * 8;
    double u = rng.uniform();
    int next = -1;
    for (int k = 0; k < 8; ++k) {
      if (neighbour_[base + k] < 0 || step_probability_[base + k] <= 0.0) continue;
      next = neighbour_[base + k];  // the last candidate also takes what rounding leaves of u
      u -= step_probability_[base + k];
      if (u < 0.0) break;
    }
    i = next;
    walk.push_back(cells_[static_cast<std::size_t>(i)]);
  }
  return walk;
}

}  // namespace mmp
