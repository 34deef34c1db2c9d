#include <mmp/planning/grid_planner.hpp>
#include <mmp/core/numbers.hpp>

#include "constants.hpp"

#include <mmp/core/error.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <type_traits>

namespace mmp {
namespace {

using planning_constants::kSqrt2;
// Directions: 4 axis steps first, then 4 diagonals.
constexpr int kRowStep[8] = {-1, 1, 0, 0, -1, -1, 1, 1};
constexpr int kColStep[8] = {0, 0, -1, 1, -1, 1, -1, 1};
constexpr double kLength[8] = {1, 1, 1, 1, kSqrt2, kSqrt2, kSqrt2, kSqrt2};
// The tie rule's order of the directions from a cell back to its predecessor: diagonals first.
constexpr int kTieOrder[8] = {4, 5, 6, 7, 0, 1, 2, 3};
constexpr int kTieOrderFour[4] = {0, 1, 2, 3};
// Pops between prefetching a cell's neighbourhood and expanding it (4 to 16 measured alike).
constexpr std::size_t kPrefetchAhead = 8;

PlanResult invalidInput(std::string message) {
  PlanResult result;
  result.status = PlanStatus::InvalidInput;
  result.message = std::move(message);
  return result;
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

GridPlanner::GridPlanner(int rows, int cols, Params params)
    : rows_(rows), cols_(cols), stride_(cols + 2), params_(std::move(params)) {
  if (rows_ <= 0 || cols_ <= 0 ||
      (static_cast<long long>(rows_) + 2) * (static_cast<long long>(cols_) + 2) > std::numeric_limits<std::int32_t>::max()) {
    throw InvalidArgument("grid planner: grid of " + std::to_string(rows_) + " x " + std::to_string(cols_) +
                          " cells; need at least 1 x 1 and (rows + 2) x (cols + 2) <= 2^31 - 1");
  }
  if (params_.check_every < 1) throw InvalidArgument("grid planner: check_every must be >= 1");
  const std::size_t padded_cells = static_cast<std::size_t>(rows_ + 2) * static_cast<std::size_t>(stride_);
  // Border cells stay impassable for good; interior records are rewritten by every search.
  records_.assign(padded_cells, Record{kInf, kInf});
  step_in_.assign(padded_cells, 0);
}

std::string GridPlanner::cellName(int s) const {
  return "cell " + std::to_string(s) + " (row " + std::to_string(s / cols_) + ", col " + std::to_string(s % cols_) + ")";
}

double GridPlanner::distance(int s) const {
  if (s < 0 || s >= rows_ * cols_) return kInf;
  const double g = records_[static_cast<std::size_t>(padded(s))].g;
  return std::signbit(g) ? -g : kInf;
}

std::size_t GridPlanner::stateBytes() const {
  return records_.size() * sizeof(Record) + step_in_.size() + buckets_.bytesReserved() + radix_.bytesReserved() + heap_.bytesReserved();
}

std::string GridPlanner::offGrid(int start, int goal) const {
  const int n = rows_ * cols_;
  if (start < 0 || start >= n) return "start " + std::to_string(start) + " is off the grid";
  if (goal < -1 || goal >= n) return "goal " + std::to_string(goal) + " is off the grid";
  return "";
}

std::string GridPlanner::impassableEnd(int start, int goal) const {
  if (records_[static_cast<std::size_t>(padded(start))].half_cost == kInf) return "start " + cellName(start) + " is impassable";
  if (goal >= 0 && records_[static_cast<std::size_t>(padded(goal))].half_cost == kInf) {
    return "goal " + cellName(goal) + " is impassable";
  }
  return "";
}

PlanResult GridPlanner::plan(const std::vector<double>& costs, int start, int goal) {
  const int n = rows_ * cols_;
  if (costs.size() != static_cast<std::size_t>(n)) {
    return invalidInput("cost grid has " + std::to_string(costs.size()) + " cells, the planner " + std::to_string(n));
  }
  if (const std::string problem = offGrid(start, goal); !problem.empty()) return invalidInput(problem);
  // Validate every cost once, in the same pass that copies it into the records; the smallest
  // scales the heuristic and the buckets, the largest bounds how far above the current key a push
  // can land.  A bad cell is looked for only once the pass has seen that there is one.
  double min_cost = kInf, max_cost = 0.0;
  bool all_valid = true;
  const double* cost = costs.data();
  for (int r = 0; r < rows_; ++r) {
    Record* row = records_.data() + static_cast<std::size_t>(r + 1) * stride_ + 1;
    const double* cost_row = cost + static_cast<std::size_t>(r) * cols_;
    for (int c = 0; c < cols_; ++c) {
      const double x = cost_row[c];
      all_valid &= x > 0.0;  // false for NaN
      if (x != kInf) min_cost = std::min(min_cost, x), max_cost = std::max(max_cost, x);
      row[c] = Record{kInf, 0.5 * x};
    }
  }
  if (!all_valid) {
    const int s = static_cast<int>(std::find_if(costs.begin(), costs.end(), [](double x) { return !(x > 0.0); }) - costs.begin());
    return invalidInput(cellName(s) + " has cost " + std::to_string(costs[static_cast<std::size_t>(s)]) +
                        "; costs must be > 0 or +inf (impassable)");
  }
  if (const std::string problem = impassableEnd(start, goal); !problem.empty()) return invalidInput(problem);
  return run(min_cost, max_cost, nullptr, start, goal);
}

PlanResult GridPlanner::plan(const CellCosts& costs, int start, int goal) {
  if (const std::string problem = offGrid(start, goal); !problem.empty()) return invalidInput(problem);
  lazy_lower_ = costs.lowerBound();
  lazy_upper_ = costs.upperBound();
  if (!(lazy_lower_ > 0.0 && lazy_lower_ < kInf && lazy_upper_ >= lazy_lower_)) {
    return invalidInput("cost bounds [" + numberText(lazy_lower_) + ", " + numberText(lazy_upper_) +
                        "]: need 0 < lower bound < +inf and upper bound >= lower bound (+inf if unknown)");
  }
  // Every interior cell's cost is unknown (< 0) until the search first needs it.
  for (int r = 0; r < rows_; ++r) {
    Record* row = records_.data() + static_cast<std::size_t>(r + 1) * stride_ + 1;
    std::fill(row, row + cols_, Record{kInf, -1.0});
  }
  PlanResult result;
  if (!fetch(costs, padded(start), result) || (goal >= 0 && !fetch(costs, padded(goal), result))) return result;
  if (const std::string problem = impassableEnd(start, goal); !problem.empty()) return invalidInput(problem);
  return run(lazy_lower_, lazy_upper_, &costs, start, goal);
}

bool GridPlanner::fetch(const CellCosts& lazy, int i, PlanResult& result) {
  Record& record = records_[static_cast<std::size_t>(i)];
  if (record.half_cost >= 0.0) return true;  // asked already (the goal may be the start)
  const int s = unpadded(i);
  const double c = lazy.cost(s);
  std::string problem;
  if (!(c > 0.0)) {
    problem = "; costs must be > 0 or +inf (impassable)";
  } else if (c < lazy_lower_) {
    problem = ", below the lower bound " + numberText(lazy_lower_) + " the cell costs gave (the heuristic would not be admissible)";
  } else if (c != kInf && c > lazy_upper_) {
    problem = ", above the upper bound " + numberText(lazy_upper_) + " the cell costs gave";
  } else {
    record.half_cost = 0.5 * c;
    return true;
  }
  result.status = PlanStatus::InvalidInput;
  result.message = cellName(s) + " has cost " + std::to_string(c) + problem;
  return false;
}

PlanResult GridPlanner::run(double min_cost, double max_cost, const CellCosts* lazy, int start, int goal) {
  PlanResult result;
  const bool eight = params_.connectivity == Connectivity::Eight;
  // The heuristic is scaled by (1 - e) min_cost instead of min_cost, so a step of length L raises
  // the key by at least e min_cost L (the reduced step cost step - h(u) + h(v)).  Two things follow.
  // Buckets narrower than that are settled: every key in the lowest one is final (Dial), so no
  // queue needs to order keys inside a bucket.  And every optimal predecessor of a cell has a key
  // at least e min_cost below the cell's, in a lower bucket, so all of them are expanded before the
  // goal whatever the queue: the tie rule's walk back (walkBack) sees all of them.  The width is
  // 0.8 of the margin so that rounding in the keys cannot put a predecessor in its cell's bucket.
  // A full search (no goal, no heuristic) needs neither the margin nor a path: Dial's buckets of
  // the smallest step.
  constexpr double kMargin = 0.1;  // e: 0.25 expanded 15-27 % more cells, 0.05 and 0.02 scanned more empty buckets (tile 8_004)
  const double h_scale = goal < 0 ? 0.0 : (1.0 - kMargin) * min_cost;
  const double width = goal < 0 ? min_cost : 0.8 * kMargin * min_cost;
  // A push lands at most one step cost plus one step of heuristic above the key being expanded.
  const double span = 1.01 * (eight ? kSqrt2 : 1.0) * (max_cost + min_cost) + 1e-12;
  // Keys stay below the longest possible path (every cell once, diagonally, at the largest cost)
  // plus the largest heuristic: the radix heap numbers buckets below 2^62 of them.
  const double cells = static_cast<double>(rows_) * cols_;
  const double key_bound = cells * kSqrt2 * max_cost + h_scale * (2.0 * (rows_ + cols_));
  const bool ring_fits = BucketQueue::bucketsFor(span, width) <= BucketQueue::kMaxBuckets;
  const bool radix_fits = key_bound / width < 0x1p62;
  OpenList open_list = params_.open_list;
  if (open_list == OpenList::Automatic) open_list = ring_fits ? OpenList::Buckets : radix_fits ? OpenList::Radix : OpenList::Heap;
  if ((open_list == OpenList::Buckets && !ring_fits) || (open_list == OpenList::Radix && !radix_fits)) {
    return invalidInput(std::string("the cost range [") + numberText(min_cost) + ", " + numberText(max_cost) + "] is too wide for the " +
                        (open_list == OpenList::Buckets ? "ring of buckets (OpenList::Buckets)" : "radix heap (OpenList::Radix)") +
                        "; use OpenList::Automatic");
  }
  const int from = padded(start), to = goal >= 0 ? padded(goal) : -1;
  // One search instantiation per combination of what the inner loop must not test at run time.
  auto flag = [](bool on, auto&& next) { return on ? next(std::true_type{}) : next(std::false_type{}); };
  const bool reached = flag(eight, [&](auto eight_tag) {
    return flag(lazy != nullptr, [&](auto lazy_tag) {
      return flag(goal >= 0, [&](auto goal_tag) {
        constexpr bool kEight = decltype(eight_tag)::value, kLazy = decltype(lazy_tag)::value;
        constexpr bool kGoal = decltype(goal_tag)::value;
        const double start_key = 0.0;  // keys are measured from the start's: f - h(start)
        switch (open_list) {
          case OpenList::Buckets:
            buckets_.reset(start_key, width, span);
            return search<kEight, kLazy, kGoal>(lazy, from, to, h_scale, buckets_, result);
          case OpenList::Radix:
            radix_.reset(start_key, width);
            return search<kEight, kLazy, kGoal>(lazy, from, to, h_scale, radix_, result);
          default:
            heap_.reset();
            return search<kEight, kLazy, kGoal>(lazy, from, to, h_scale, heap_, result);
        }
      });
    });
  });
  if (result.status == PlanStatus::Cancelled || result.status == PlanStatus::InvalidInput || goal < 0) return result;
  if (!reached) {
    result.status = PlanStatus::NoPath;
    result.message = "goal " + cellName(goal) + " is not reachable from start " + cellName(start);
    return result;
  }
  // 5) walk back from the goal by the tie rule, while doubles resolve every step of the optimal
  //    costs (the goal's cost below 2^42 smallest costs, so that rounding stays far below the tenth of
  //    a step that separates a cell's key from its predecessors'); else, or should the walk find no
  //    predecessor, along the steps the search recorded
  result.cost = -records_[static_cast<std::size_t>(to)].g;
  if (!(result.cost < 0x1p42 * min_cost && walkBack(from, to, result.path))) {
    result.path.clear();
    for (int i = to; i != from;) {
      result.path.push_back(unpadded(i));
      const int k = step_in_[static_cast<std::size_t>(i)];
      i -= kRowStep[k] * stride_ + kColStep[k];
    }
    result.path.push_back(start);
    std::reverse(result.path.begin(), result.path.end());
  }
  result.status = PlanStatus::Success;
  return result;
}

bool GridPlanner::walkBack(int start, int goal, std::vector<int>& path) const {
  const int directions = params_.connectivity == Connectivity::Eight ? 8 : 4;
  const Record* records = records_.data();
  path.clear();
  for (int v = goal; v != start;) {
    path.push_back(unpadded(v));
    const double gv = -records[v].g, half_v = records[v].half_cost;
    int predecessor = -1;
    for (int i = 0; i < directions && predecessor < 0; ++i) {
      const int k = directions == 8 ? kTieOrder[i] : kTieOrderFour[i];
      const int u = v + kRowStep[k] * stride_ + kColStep[k];
      const Record& ru = records[u];
      if (!std::signbit(ru.g)) continue;  // not expanded (border cells hold +inf)
      const double gu = -ru.g;
      // The relaxation's own arithmetic (u's half cost plus v's, times the length), so that the
      // optimal predecessor recorded by no one is recognised bit for bit.
      if (gu < gv && gu + kLength[k] * (ru.half_cost + half_v) == gv) predecessor = u;
    }
    if (predecessor < 0) return false;
    v = predecessor;
  }
  path.push_back(unpadded(start));
  std::reverse(path.begin(), path.end());
  return true;
}

template <bool kGoal, class Queue>
[[gnu::always_inline]] inline void GridPlanner::prefetchUpcoming(const Queue& open, const Record* records,
                                                                  const std::uint8_t* step_in) const {
  // The loads of an expansion's 3 x 3 records are what the search waits for: ask for those of a
  // cell that will pop soon, 3 rows of 48 bytes, each starting and ending anywhere in a line, and
  // for the step bytes of the rows above and below (its own row's are the popped cell's).
  if constexpr (Queue::kCanLookAhead) {
    std::uint32_t soon;
    if (open.upcoming(kPrefetchAhead, soon)) {
      for (const Record* row : {records + soon - stride_, records + soon, records + soon + stride_}) {
        __builtin_prefetch(row - 1, 1);
        __builtin_prefetch(row + 1, 1);
      }
      if constexpr (kGoal) {
        __builtin_prefetch(step_in + soon - stride_, 1);
        __builtin_prefetch(step_in + soon + stride_, 1);
      }
    }
  }
}

namespace {

// A full search improves one or two neighbours at nearly every expansion (44 % and 49 % on
// bench_astar's obstacles), so a loop over them mispredicts its exit about every other time: the
// first two go without a branch, as the ninth direction (the cell itself, its own cost, nothing
// queued) when there are fewer; `improved` keeps the rest.  bench_astar's 1024^2 obstacle grid:
// 30.4-31.1 ms before, 28.1-29.2 ms after (docs/scale.md); A* (a goal) measured slower this way.
template <class Improve>
[[gnu::always_inline]] inline void improveFirstTwo(unsigned& improved, Improve& improve) {
  const int first = __builtin_ctz(improved | 0x100u);
  improved &= improved - 1;
  const int second = __builtin_ctz(improved | 0x100u);
  improved &= improved - 1;
  improve(first, first != 8);
  improve(second, second != 8);
}

}  // namespace

template <bool kEight, bool kLazy, bool kGoal, class Queue>
[[gnu::noinline]] bool GridPlanner::search(const CellCosts* lazy, int start, int goal, double h_scale, Queue& open, PlanResult& result) {
  constexpr int kDirections = kEight ? 8 : 4;
  const int goal_row = goal >= 0 ? goal / stride_ : 0, goal_col = goal >= 0 ? goal % stride_ : 0;
  auto heuristic = [&](int r, int c) {  // octile (Manhattan with 4 neighbours) x h_scale; 0 without a goal
    if constexpr (!kGoal) return 0.0;
    const double dr = std::abs(r - goal_row), dc = std::abs(c - goal_col);
    return h_scale * (kEight ? (dr + dc) + (kSqrt2 - 2.0) * std::min(dr, dc) : dr + dc);
  };
  const std::ptrdiff_t stride = stride_;
  // The 8 directions and a ninth, the cell itself (a full search's relaxation that queues nothing).
  int offset[9];
  for (int k = 0; k < 8; ++k) offset[k] = kRowStep[k] * stride_ + kColStep[k];
  offset[8] = 0;
  // Keys are pushed relative to the start's (f - h(start) >= 0), the base every open list counts from.
  const double start_h = heuristic(start / stride_, start % stride_);

  Record* records = records_.data();
  std::uint8_t* step_in = step_in_.data();
  records[start].g = 0.0;
  open.push(0.0, static_cast<std::uint32_t>(start));
  long expansions = 0;
  // The budget callback's countdown: a decrement per expansion, not a division (which took ~6 % of a
  // 3 M cell search).
  const bool checking = static_cast<bool>(params_.keep_going);
  long until_check = params_.check_every;
  while (!open.empty()) {
    // 1) pop the best open cell and close it (g -> -g); a stale duplicate of a closed cell is skipped
    const int u = static_cast<int>(open.pop());
    prefetchUpcoming<kGoal>(open, records, step_in);
    Record& ru = records[u];
    if (std::signbit(ru.g)) continue;
    const double gu = ru.g;
    ru.g = -gu;
    ++expansions;
    // 2) the goal is expanded: its cost is optimal (consistent heuristic)
    if (u == goal) {
      result.expansions = expansions;
      return true;
    }
    // 3) budget / cancel check every check_every expansions
    if (checking && --until_check == 0) {
      until_check = params_.check_every;
      if (!params_.keep_going(expansions)) {
        result.status = PlanStatus::Cancelled;
        result.expansions = expansions;
        result.message = "cancelled by the budget callback after " + std::to_string(expansions) + " expansions";
        return false;
      }
    }
    // 4) relax the neighbours with the trapezoid step cost; closed (g < 0), impassable and border
    //    (half_cost = +inf) neighbours fail the comparison by themselves
    const int ur = kGoal ? u / stride_ : 0, uc = u - ur * stride_;
    const double half_cu = ru.half_cost;
    // The comparisons run first, without branches, so that only the pushes depend on the data.  The
    // neighbours sit at fixed displacements from the rows above, at and below u (faster than indexing
    // records by u + offset[k]).
    Record* const rows[3] = {&ru - stride, &ru, &ru + stride};
    double gv[9];
    if constexpr (!kGoal) gv[8] = ru.g;
    unsigned improved = 0;
#pragma GCC unroll 8
    for (int k = 0; k < kDirections; ++k) {
      Record& rv = rows[kRowStep[k] + 1][kColStep[k]];
      if constexpr (kLazy) {
        if (rv.half_cost < 0.0 && !fetch(*lazy, u + offset[k], result)) {
          result.expansions = expansions;
          return false;
        }
      }
      gv[k] = gu + kLength[k] * (half_cu + rv.half_cost);
      improved |= static_cast<unsigned>(gv[k] < rv.g) << k;
    }
    // Store the better costs and queue the cells.
    auto improve = [&](int k, bool keep) {
      const int v = u + offset[k];
      records[v].g = gv[k];
      if constexpr (kGoal) {
        step_in[v] = static_cast<std::uint8_t>(k);  // a full search returns no path
        open.push(gv[k] + (heuristic(ur + kRowStep[k], uc + kColStep[k]) - start_h), static_cast<std::uint32_t>(v));
      } else {
        open.pushIf(keep, gv[k], static_cast<std::uint32_t>(v));  // no heuristic: the key is g
      }
    };
    if constexpr (!kGoal) improveFirstTwo(improved, improve);
    for (; improved != 0; improved &= improved - 1) improve(__builtin_ctz(improved), true);
  }
  result.expansions = expansions;
  if (goal < 0) result.status = PlanStatus::Success;
  return false;
}

}  // namespace mmp
