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
  nodes_.assign(static_cast<std::size_t>(rows_) * cols_, Node{kInf, 0});
}

double GridPlanner::distance(int s) const {
  if (s < 0 || s >= rows_ * cols_) return kInf;
  const Node& node = nodes_[static_cast<std::size_t>(s)];
  return (node.tag & ~7u) == ((generation_ << 4) | 8u) ? node.g : kInf;
}

std::size_t GridPlanner::stateBytes() const {
  return nodes_.size() * sizeof(Node) + ordered_.bytesReserved() + settled_.bytesReserved();
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
  // Validate every cost once; the smallest scales the heuristic and the buckets, the largest
  // bounds how far above the current key a push can land.
  double min_cost = kInf, max_cost = 0.0;
  for (int s = 0; s < n; ++s) {
    const double c = costs[static_cast<std::size_t>(s)];
    if (std::isnan(c) || c <= 0.0) {
      return invalid(cellName(s, cols_) + " has cost " + std::to_string(c) + "; costs must be > 0 or +inf (impassable)");
    }
    if (c != kInf) min_cost = std::min(min_cost, c), max_cost = std::max(max_cost, c);
  }
  if (costs[static_cast<std::size_t>(start)] == kInf) return invalid("start " + cellName(start, cols_) + " is impassable");
  if (goal >= 0 && costs[static_cast<std::size_t>(goal)] == kInf) {
    return invalid("goal " + cellName(goal, cols_) + " is impassable");
  }

  // New search generation: cells tagged by earlier searches read as unseen, without clearing.
  if (generation_ + 1 >= (1u << 28)) {
    for (Node& node : nodes_) node.tag = 0;
    generation_ = 0;
  }
  ++generation_;
  // A push lands at most one step cost plus one step of heuristic above the key being expanded.
  const bool eight = params_.connectivity == Connectivity::Eight;
  const double span = 1.01 * (eight ? kSqrt2 : 1.0) * (max_cost + min_cost) + 1e-12;
  // Settled buckets need every reduced step cost (step - h(u) + h(v)) to be at least a bucket
  // width.  With the heuristic scaled by (1 - e) min_cost instead of min_cost, a step of length L
  // keeps at least e min_cost L >= e min_cost, so buckets of width e min_cost are settled: the search
  // stays exact with no heap at all (Dijkstra is e = 1).  When the cost range is too wide for that
  // many buckets, the queue keeps its buckets ordered and the heuristic takes the full min_cost.
  constexpr double kSettledShare = 0.25;  // e for A*
  const double share = goal >= 0 ? kSettledShare : 1.0;
  const bool settled = BucketQueue<false>::bucketsFor(span, share * min_cost) <= BucketQueue<false>::kMaxBuckets;
  const double h_scale = goal < 0 ? 0.0 : settled ? (1.0 - share) * min_cost : min_cost;
  const double width = settled ? share * min_cost : min_cost;
  bool reached = false;
  if (settled) {
    reached = eight ? search<true>(costs, start, goal, h_scale, width, span, settled_, result)
                    : search<false>(costs, start, goal, h_scale, width, span, settled_, result);
  } else {
    reached = eight ? search<true>(costs, start, goal, h_scale, width, span, ordered_, result)
                    : search<false>(costs, start, goal, h_scale, width, span, ordered_, result);
  }
  if (result.status == PlanStatus::Cancelled || goal < 0) return result;
  if (!reached) {
    result.status = PlanStatus::NoPath;
    result.message = "goal " + cellName(goal, cols_) + " is not reachable from start " + cellName(start, cols_);
    return result;
  }
  // 5) walk the parents back from the goal
  for (int s = goal; s != start;) {
    result.path.push_back(s);
    const std::uint32_t k = nodes_[static_cast<std::size_t>(s)].tag & 7u;
    s -= kRowStep[k] * cols_ + kColStep[k];
  }
  result.path.push_back(start);
  std::reverse(result.path.begin(), result.path.end());
  result.cost = nodes_[static_cast<std::size_t>(goal)].g;
  result.status = PlanStatus::Success;
  return result;
}

template <bool kEight, class Queue>
bool GridPlanner::search(const std::vector<double>& costs, int start, int goal, double h_scale, double width,
                         double span, Queue& open, PlanResult& result) {
  constexpr int kDirections = kEight ? 8 : 4;
  const std::uint32_t open_tag = generation_ << 4, closed_tag = open_tag | 8u;
  const int goal_row = goal >= 0 ? goal / cols_ : 0, goal_col = goal >= 0 ? goal % cols_ : 0;
  auto heuristic = [&](int r, int c) {  // octile (Manhattan with 4 neighbours) x h_scale; 0 without a goal
    const double dr = std::abs(r - goal_row), dc = std::abs(c - goal_col);
    return h_scale * (kEight ? (dr + dc) + (kSqrt2 - 2.0) * std::min(dr, dc) : dr + dc);
  };
  int offset[8];
  for (int k = 0; k < 8; ++k) offset[k] = kRowStep[k] * cols_ + kColStep[k];
  const double start_key = heuristic(start / cols_, start % cols_);
  open.reset(start_key, width, span);

  Node* nodes = nodes_.data();
  const double* cost = costs.data();
  nodes[start] = Node{0.0, open_tag};
  open.push(start_key, static_cast<std::uint32_t>(start));
  long expansions = 0;
  while (!open.empty()) {
    // 1) pop the best open cell; a stale duplicate of a closed cell is skipped
    const int u = static_cast<int>(open.pop());
    Node& nu = nodes[u];
    if ((nu.tag & ~7u) == closed_tag) continue;
    nu.tag |= 8u;
    ++expansions;
    // 2) the goal is expanded: its cost is optimal (consistent heuristic)
    if (u == goal) {
      result.expansions = expansions;
      return true;
    }
    // 3) budget / cancel check every check_every expansions
    if (params_.keep_going && expansions % params_.check_every == 0 && !params_.keep_going(expansions)) {
      result.status = PlanStatus::Cancelled;
      result.expansions = expansions;
      result.message = "cancelled by the budget callback after " + std::to_string(expansions) + " expansions";
      return false;
    }
    // 4) relax the neighbours with the trapezoid step cost
    const int ur = u / cols_, uc = u - ur * cols_;
    const double gu = nu.g, half_cu = 0.5 * cost[u];
    for (int k = 0; k < kDirections; ++k) {
      const int vr = ur + kRowStep[k], vc = uc + kColStep[k];
      if (static_cast<unsigned>(vr) >= static_cast<unsigned>(rows_) ||
          static_cast<unsigned>(vc) >= static_cast<unsigned>(cols_)) {
        continue;
      }
      const int v = u + offset[k];
      const double cv = cost[v];
      Node& nv = nodes[v];
      const std::uint32_t tag = nv.tag & ~7u;
      if (cv == kInf || tag == closed_tag) continue;
      const double gv = gu + kLength[k] * (half_cu + 0.5 * cv);
      if (tag != open_tag || gv < nv.g) {
        nv = Node{gv, open_tag | static_cast<std::uint32_t>(k)};
        open.push(gv + heuristic(vr, vc), static_cast<std::uint32_t>(v));
      }
    }
  }
  result.expansions = expansions;
  if (goal < 0) result.status = PlanStatus::Success;
  return false;
}

}  // namespace mmp
