// Demonstrations generated from a known cost grid: optimal A* paths between seeded random
// start/goal pairs.  With costs from a label mask and a behaviour ("roads cheap, buildings
// impassable"), this gives training examples, and held-out regions a known right answer.
#pragma once

#include <mmp/planning/grid_planner.hpp>

#include <cstdint>
#include <vector>

namespace mmp {

struct DemonstrationParams {
  int count = 10;               ///< paths wanted
  double min_separation = 0.0;  ///< smallest Euclidean start-goal distance, in cells
  std::uint64_t seed = 1;
  Connectivity connectivity = Connectivity::Eight;
  int max_attempts = 1000;      ///< random pairs tried before giving up (unreachable pairs are skipped)
};

struct Demonstration {
  std::vector<int> path;  ///< optimal under the costs, start to goal
  double cost = 0.0;
};

/// Up to params.count optimal paths on `costs` (+inf impassable); fewer if max_attempts run out.
/// The same paths for a given seed with every standard library: start and goal are drawn by
/// mmp::Random (core/random.hpp), start first, each uniformly among the passable cells.
std::vector<Demonstration> generateDemonstrations(int rows, int cols, const std::vector<double>& costs,
                                                  const DemonstrationParams& params);

}  // namespace mmp
