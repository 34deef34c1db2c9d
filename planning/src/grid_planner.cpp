#include <mmp/planning/grid_planner.hpp>

#include <mmp/core/error.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace mmp {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kSqrt2 = 1.4142135623730951;
// Directions: 4 axis steps first, then 4 diagonals.
constexpr int kRowStep[8] = {-1, 1, 0, 0, -1, -1, 1, 1};
constexpr int kColStep[8] = {0, 0, -1, 1, -1, 1, -1, 1};
constexpr double kLength[8] = {1, 1, 1, 1, kSqrt2, kSqrt2, kSqrt2, kSqrt2};

std::string cellName(int s, int cols) {
  return "cell " + std::to_string(s) + " (row " + std::to_string(s / cols) + ", col " + std::to_string(s % cols) + ")";
}

}  // namespace

const char* describe(PlanStatus status) {
  switch (status) {
    case PlanStatus::Success: return "Success";
    case PlanStatus::NoPath: return "NoPath";
    case PlanStatus::InvalidInput: return "InvalidInput";
    case PlanStatus::Cancelled: return "Cancelled";
  }
  return "?";
}

GridPlanner::GridPlanner(int rows, int cols, Params params) : rows_(rows), cols_(cols), params_(std::move(params)) {
  if (rows_ <= 0 || cols_ <= 0 || static_cast<long long>(rows_) * cols_ > std::numeric_limits<std::int32_t>::max()) {
    throw InvalidArgument("grid planner: grid of " + std::to_string(rows_) + " x " + std::to_string(cols_) +
                          " cells; need 1 to 2^31 - 1 cells");
  }
  if (params_.check_every < 1) throw InvalidArgument("grid planner: check_every must be >= 1");
  const std::size_t n = static_cast<std::size_t>(rows_) * cols_;
  g_.assign(n, kInf);
  stamp_.assign(n, 0);
  parent_.assign(n, 0);
}

double GridPlanner::distance(int s) const {
  if (s < 0 || s >= rows_ * cols_) return kInf;
  return stamp_[static_cast<std::size_t>(s)] == 2 * generation_ + 1 ? g_[static_cast<std::size_t>(s)] : kInf;
}

std::size_t GridPlanner::stateBytes() const {
  return g_.size() * sizeof(double) + stamp_.size() * sizeof(std::uint32_t) + parent_.size() + open_.bytesReserved();
}

PlanResult GridPlanner::plan(const std::vector<double>& costs, int start, int goal) {
  PlanResult result;
  const int n = rows_ * cols_;
  auto invalid = [&](std::string message) {
    result.status = PlanStatus::InvalidInput;
    result.message = std::move(message);
    return result;
  };
  if (costs.size() != static_cast<std::size_t>(n)) {
    return invalid("cost grid has " + std::to_string(costs.size()) + " cells, the planner " + std::to_string(n));
  }
  if (start < 0 || start >= n) return invalid("start " + std::to_string(start) + " is off the grid");
  if (goal < -1 || goal >= n) return invalid("goal " + std::to_string(goal) + " is off the grid");
  // Validate every cost once and find the smallest, which scales the heuristic.
  double min_cost = kInf;
  for (int s = 0; s < n; ++s) {
    const double c = costs[static_cast<std::size_t>(s)];
    if (std::isnan(c) || c <= 0.0) {
      return invalid(cellName(s, cols_) + " has cost " + std::to_string(c) + "; costs must be > 0 or +inf (impassable)");
    }
    min_cost = std::min(min_cost, c);
  }
  if (costs[static_cast<std::size_t>(start)] == kInf) return invalid("start " + cellName(start, cols_) + " is impassable");
  if (goal >= 0 && costs[static_cast<std::size_t>(goal)] == kInf) {
    return invalid("goal " + cellName(goal, cols_) + " is impassable");
  }

  // New search generation: cells stamped by earlier searches read as unseen, without clearing.
  if (generation_ >= (std::numeric_limits<std::uint32_t>::max() - 1) / 2) {
    std::fill(stamp_.begin(), stamp_.end(), 0u);
    generation_ = 0;
  }
  ++generation_;
  const std::uint32_t open_stamp = 2 * generation_, closed_stamp = open_stamp + 1;
  const int directions = static_cast<int>(params_.connectivity);
  const bool octile = params_.connectivity == Connectivity::Eight;
  const int goal_row = goal >= 0 ? goal / cols_ : 0, goal_col = goal >= 0 ? goal % cols_ : 0;
  const double h_scale = goal >= 0 ? min_cost : 0.0;
  auto heuristic = [&](int r, int c) {
    const double dr = std::abs(r - goal_row), dc = std::abs(c - goal_col);
    return h_scale * (octile ? (dr + dc) + (kSqrt2 - 2.0) * std::min(dr, dc) : dr + dc);
  };
  int offset[8];
  for (int k = 0; k < 8; ++k) offset[k] = kRowStep[k] * cols_ + kColStep[k];

  open_.clear();
  g_[static_cast<std::size_t>(start)] = 0.0;
  stamp_[static_cast<std::size_t>(start)] = open_stamp;
  open_.push(heuristic(start / cols_, start % cols_), static_cast<std::uint32_t>(start));
  long expansions = 0;
  bool reached = false;
  while (!open_.empty()) {
    // 1) pop the best open cell; a stale duplicate of a closed cell is skipped
    const int u = static_cast<int>(open_.pop().cell);
    if (stamp_[static_cast<std::size_t>(u)] == closed_stamp) continue;
    stamp_[static_cast<std::size_t>(u)] = closed_stamp;
    ++expansions;
    // 2) the goal is expanded: its cost is optimal (consistent heuristic)
    if (u == goal) {
      reached = true;
      break;
    }
    // 3) budget / cancel check every check_every expansions
    if (params_.keep_going && expansions % params_.check_every == 0 && !params_.keep_going(expansions)) {
      result.status = PlanStatus::Cancelled;
      result.expansions = expansions;
      result.message = "cancelled by the budget callback after " + std::to_string(expansions) + " expansions";
      return result;
    }
    // 4) relax the neighbours with the trapezoid step cost
    const int ur = u / cols_, uc = u % cols_;
    const double gu = g_[static_cast<std::size_t>(u)], cu = costs[static_cast<std::size_t>(u)];
    const double floor_key = open_.lastKey();
    for (int k = 0; k < directions; ++k) {
      const int vr = ur + kRowStep[k], vc = uc + kColStep[k];
      if (vr < 0 || vr >= rows_ || vc < 0 || vc >= cols_) continue;
      const std::size_t v = static_cast<std::size_t>(u + offset[k]);
      const double cv = costs[v];
      if (cv == kInf || stamp_[v] == closed_stamp) continue;
      const double gv = gu + kLength[k] * 0.5 * (cu + cv);
      if (stamp_[v] != open_stamp || gv < g_[v]) {
        g_[v] = gv;
        parent_[v] = static_cast<std::uint8_t>(k);
        stamp_[v] = open_stamp;
        // f is monotone along the search in exact arithmetic; clamp the ulp rounding may lose.
        open_.push(std::max(gv + heuristic(vr, vc), floor_key), static_cast<std::uint32_t>(v));
      }
    }
  }
  result.expansions = expansions;
  if (goal < 0) {
    result.status = PlanStatus::Success;
    return result;
  }
  if (!reached) {
    result.status = PlanStatus::NoPath;
    result.message = "goal " + cellName(goal, cols_) + " is not reachable from start " + cellName(start, cols_);
    return result;
  }
  // 5) walk the parents back from the goal
  for (int s = goal; s != start; s -= offset[parent_[static_cast<std::size_t>(s)]]) result.path.push_back(s);
  result.path.push_back(start);
  std::reverse(result.path.begin(), result.path.end());
  result.cost = g_[static_cast<std::size_t>(goal)];
  result.status = PlanStatus::Success;
  return result;
}

}  // namespace mmp
