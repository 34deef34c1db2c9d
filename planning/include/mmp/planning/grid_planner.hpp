// GridPlanner: exact A* over per-cell costs on a rows x cols grid, the inference engine of
// maximum margin planning.
//
// A step from cell a to a neighbour b costs |step| * (c(a) + c(b)) / 2 (|step| = 1 or sqrt 2), the
// trapezoid rule of DESIGN.md, so a path's cost is linear in the cell costs.  Costs must be > 0
// (finite) or +inf (impassable).  The heuristic is the octile distance (Manhattan with 4
// neighbours) scaled by the smallest cell cost (by 3/4 of it when the open list runs settled
// buckets, see plan()): admissible and consistent, so the first time the goal is expanded its cost
// is optimal.  Diagonal steps may pass between two blocked cells.
//
// The open list is a BucketQueue: O(1) pushes, and no heap at all unless the cost range exceeds
// about 10000:1.  The planner keeps its search state between calls (12 bytes per cell plus the
// open list), so repeated searches on one grid size allocate nothing.  Not thread-safe: use one
// planner per thread.
#pragma once

#include <mmp/planning/bucket_queue.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace mmp {

enum class Connectivity { Four = 4, Eight = 8 };

enum class PlanStatus {
  Success,       ///< path holds an optimal path from start to goal
  NoPath,        ///< the goal cannot be reached (or, in a full search, nothing to report)
  InvalidInput,  ///< start/goal off the grid or impassable, or a cost NaN or <= 0: see message
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

class GridPlanner {
 public:
  struct Params {
    Connectivity connectivity = Connectivity::Eight;
    /// Called every check_every expansions with the count so far; returning false cancels.
    std::function<bool(long expansions)> keep_going;
    long check_every = 1 << 14;
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

  /// The optimal cost from the last search's start to s if s was expanded, else +inf.
  double distance(int s) const;
  /// Bytes of search state: the per-cell arrays plus the open list's reserved capacity.
  std::size_t stateBytes() const;

 private:
  int rows_, cols_;
  Params params_;
  // One 12-byte record per cell, so a relaxation touches one cache line per neighbour.  tag packs
  // the search generation (bits 4..31), "closed" (bit 3) and the direction into the cell (bits 0..2):
  // a cell whose generation is not the current one is unseen, with no clearing between searches.
#pragma pack(push, 4)
  struct Node {
    double g;
    std::uint32_t tag;
  };
#pragma pack(pop)
  template <bool kEight, class Queue>
  bool search(const std::vector<double>& costs, int start, int goal, double h_scale, double width, double span,
              Queue& open, PlanResult& result);

  std::vector<Node> nodes_;
  std::uint32_t generation_ = 0;
  BucketQueue<true> ordered_;   // A*, or Dijkstra over a cost range too wide for settled buckets
  BucketQueue<false> settled_;  // Dijkstra
};

}  // namespace mmp
