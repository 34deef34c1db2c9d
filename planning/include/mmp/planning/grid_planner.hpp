// GridPlanner: exact A* over per-cell costs on a rows x cols grid, the inference engine of
// maximum margin planning.
//
// A step from cell a to a neighbour b costs |step| * (c(a) + c(b)) / 2 (|step| = 1 or sqrt 2), the
// trapezoid rule of DESIGN.md, so a path's cost is linear in the cell costs.  Costs must be > 0
// (finite) or +inf (impassable).  The heuristic is the octile distance (Manhattan with 4
// neighbours) scaled by 9/10 of the smallest cell cost: admissible and consistent, and every step
// raises f = g + h by at least a tenth of the smallest cost times its length (see plan()), so
// the first time the goal is expanded its cost is optimal.  Diagonal steps may pass between two
// blocked cells.
//
// TIE RULE.  Among equally cheap paths the planner returns one fixed by the costs alone, whatever
// the open list and whatever order it pops equal keys in: walking back from the goal, each cell's
// predecessor is the first neighbour, in the order up-left, up-right, down-left, down-right, up,
// down, left, right (diagonals first), whose optimal cost plus the step equals the cell's optimal cost (in the
// same floating-point arithmetic as the search).  Every such neighbour has a key at least a tenth
// step below the cell's, so every open list expands all of them before the goal, and the optimal
// costs themselves do not depend on the pop order either (tests/planning checks both against every
// open list).  The rule needs doubles that resolve a tenth of the smallest step in the path's
// cost: it holds while the optimal cost is below 2^42 (4.4e12) times the smallest cell cost.  Beyond
// that (cost ranges of 1e10 : 1 and more on long paths, e.g. a learner whose exponential costs
// overflow) steps vanish in the sums, the optimal cost itself depends on the order of the additions,
// and the path is the one the search's own parent pointers give, which depends on the open list.
//
// Costs come either as a vector (plan(vector), every cell checked up front) or on demand through
// CellCosts (plan(CellCosts), each cell asked once, only when the search reaches it or a neighbour
// of it): a training oracle whose costs are dot products pays only for the cells a search touches.
//
// Layout, because a search is bound by its loads of search state: each cell's record holds its g
// and half its cost together, 16 bytes, so relaxing a neighbour touches one cache line instead of
// one in the cost grid and one in the search state; the pass that validates the costs fills the
// records.  A closed cell stores -g, which no relaxation can undercut, and an impassable cell an
// infinite cost, which no relaxation can improve: the neighbour loop compares all neighbours
// without a branch and branches only to push.  The records cover the grid plus a one-cell
// impassable border, so that loop has no bounds checks either; indices inside the planner are of
// that padded grid, the API speaks r * cols + c.  The step into each cell (the parent pointer of the
// fallback path above) is a byte written only when the cell's g improves: 17 bytes per cell plus
// the open list.  While expanding a cell the search prefetches the records and step bytes around
// the cell it will expand a few pops later, which took a full search from ~48 to ~35 ms at 1024^2.
//
// The open list (OpenList, bucket_queue.hpp, radix_queue.hpp) holds buckets of keys a fraction of
// the smallest step wide, each popped in any order because its keys are final (Dial): a ring of
// buckets while the cost range is below about 3700:1 (45000:1 for a full search), else a radix
// heap over the bucket numbers, whose cost per entry does not grow with the range; a binary heap
// only when the range is unknown (lazy costs without an upper bound) or beyond 2^62 bucket widths.
// The planner keeps its search state between calls, so repeated searches on one grid size allocate
// nothing.  Not thread-safe: use one planner per thread.
#pragma once

#include <mmp/planning/bucket_queue.hpp>
#include <mmp/planning/radix_queue.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace mmp {

enum class Connectivity { Four = 4, Eight = 8 };

/// The open list of a search (see the file comment).  Automatic picks by the cost range; the others
/// force one (the path and the costs are the same whichever runs, tests/planning checks it).
enum class OpenList {
  Automatic,  ///< Buckets if the range allows, else Radix, else Heap
  Buckets,    ///< a ring of buckets: InvalidInput when the range needs more than 65536 of them
  Radix,      ///< a radix heap over bucket numbers: InvalidInput when the costs are unbounded
  Heap,       ///< a binary heap in exact key order
};

enum class PlanStatus {
  Success,       ///< path holds an optimal path from start to goal
  NoPath,        ///< the goal cannot be reached (or, in a full search, nothing to report)
  InvalidInput,  ///< start/goal off the grid or impassable, a cost NaN or <= 0 or outside CellCosts' bounds: see message
  Cancelled,     ///< the budget callback asked to stop
};
const char* describe(PlanStatus status);

struct PlanResult {
  PlanStatus status = PlanStatus::NoPath;
  std::vector<int> path;  ///< cell indices r * cols + c, from start to goal inclusive
  double cost = 0.0;      ///< sum of the step costs along path
  long expansions = 0;    ///< cells taken off the open list
  std::string message;    ///< why, when status is not Success
};

/*!
    WHAT THIS OBJECT REPRESENTS
        The cell costs of one search, computed on demand: GridPlanner::plan(CellCosts) asks for a
        cell's cost only when the search reaches the cell or one of its neighbours, and at most
        once per search.  The bounds scale the heuristic (the lower bound) and size the open list's
        buckets (both); the tighter they are, the fewer cells a point-to-point search evaluates.
    THREAD SAFETY
        One search calls the methods from the calling thread only.
!*/
class CellCosts {
 public:
  virtual ~CellCosts() = default;
  /// ensures: 0 < lowerBound() <= cost(s) for every passable cell s.
  virtual double lowerBound() const = 0;
  /// ensures: cost(s) <= upperBound() for every passable cell s; +inf when unknown (the open list
  /// then runs one exact heap instead of buckets).
  virtual double upperBound() const = 0;
  /// requires: 0 <= s < rows * cols (s = r * cols + c).  ensures: finite > 0, or +inf (impassable).
  /// A NaN, a cost <= 0 or one outside the bounds ends the search with PlanStatus::InvalidInput naming
  /// the cell (a cost below lowerBound() would make the heuristic inadmissible).
  virtual double cost(int s) const = 0;
};

class GridPlanner {
 public:
  struct Params {
    Connectivity connectivity = Connectivity::Eight;
    /// Called every check_every expansions with the count so far; returning false cancels.
    std::function<bool(long expansions)> keep_going;
    long check_every = 1 << 14;
    OpenList open_list = OpenList::Automatic;
  };

  GridPlanner(int rows, int cols, Params params);
  GridPlanner(int rows, int cols) : GridPlanner(rows, cols, Params{}) {}

  int rows() const { return rows_; }
  int cols() const { return cols_; }
  const Params& params() const { return params_; }

  /*!
      requires: costs.size() == rows * cols
      ensures
          - searches from start to goal; goal == -1 searches the whole reachable grid (Dijkstra),
            after which distance(s) gives every cell's optimal cost from start
          - an unreachable goal is PlanStatus::NoPath, bad input PlanStatus::InvalidInput with a
            message naming the cell; nothing is thrown for either
  !*/
  PlanResult plan(const std::vector<double>& costs, int start, int goal);

  /*!
      ensures
          - the same search and result as plan(vector of every cell's costs.cost(s), start, goal),
            calling costs.cost(s) at most once per cell, only for cells the search reaches or
            relaxes (the start and goal first)
          - a cost that is NaN, <= 0, below costs.lowerBound() or above costs.upperBound() ends the
            search with PlanStatus::InvalidInput naming the cell (and the bound)
  !*/
  PlanResult plan(const CellCosts& costs, int start, int goal);

  /// The optimal cost from the last search's start to s if s was expanded, else +inf.
  double distance(int s) const;
  /// Bytes of search state: the per-cell arrays plus the open list's reserved capacity.
  std::size_t stateBytes() const;

 private:
  // g < 0: closed with cost -g (-0.0 for the start); +inf: not reached.  half_cost: c / 2, +inf for
  // impassable and border cells, < 0 for a cell whose cost a lazy search has not asked for yet.
  struct Record {
    double g;
    double half_cost;
  };
  int padded(int s) const { return (s / cols_ + 1) * stride_ + s % cols_ + 1; }
  int unpadded(int i) const { return (i / stride_ - 1) * cols_ + i % stride_ - 1; }
  std::string cellName(int s) const;
  // Why start or goal cannot be searched from or to, or "": off the grid; impassable (once the
  // records hold their costs).
  std::string offGrid(int start, int goal) const;
  std::string impassableEnd(int start, int goal) const;
  PlanResult run(double min_cost, double max_cost, const CellCosts* lazy, int start, int goal);
  template <bool kEight, bool kLazy, bool kGoal, class Queue>
  bool search(const CellCosts* lazy, int start, int goal, double h_scale, Queue& open, PlanResult& result);
  // The search's prefetch of the state around the cell the open list will pop a few pops later.
  template <bool kGoal, class Queue>
  void prefetchUpcoming(const Queue& open, const Record* records, const std::uint8_t* step_in) const;
  bool fetch(const CellCosts& lazy, int i, PlanResult& result);
  // The path of an optimal search from start to goal (padded indices) by the tie rule (file
  // comment); false if a cell has no predecessor (only when steps vanish in the sums).
  bool walkBack(int start, int goal, std::vector<int>& path) const;

  int rows_, cols_, stride_;
  Params params_;
  std::vector<Record> records_;
  std::vector<std::uint8_t> step_in_;  // direction of the step into each reached cell (the fallback path)
  double lazy_lower_ = 0.0, lazy_upper_ = 0.0;  // the bounds of the lazy search under way
  BucketQueue buckets_;  // narrow cost ranges
  RadixQueue radix_;     // wide ones
  HeapQueue heap_;       // unbounded ones
};

}  // namespace mmp
