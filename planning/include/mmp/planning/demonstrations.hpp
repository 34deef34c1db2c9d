// Demonstrations generated from a known cost grid: optimal A* paths between seeded random
// start/goal pairs.  With costs from a label mask and a behaviour ("roads cheap, buildings
// impassable"), this gives training examples, and held-out regions a known right answer.
//
// Or imperfect ones, as people drive or draw them (DemonstrationNoise), between the SAME start/goal
// pairs as the exact ones of the same seed (the noise draws from a stream of its own):
//   Boltzmann  a walk drawn from the Maximum Entropy model P(y) ~ exp(-cost(y) / temperature) on the
//              costs (MaxEntPlanner's sampler: the model MaxEnt IRL fits, so it is the demonstrator
//              that objective assumes); temperature in the costs' units, small = near optimal.  The
//              model must be normalisable: every passable cost / temperature above kMaxEntSafeCost
//              (1.78) is enough; else mmp::InvalidArgument names the temperature.
//   Waypoints  the optimal path through `waypoints` cells drawn in order (a detour a person takes on
//              purpose or by a wrong guess): each uniformly among the passable cells within
//              `spread` x |start - goal| of the straight line's point at its share of the way.
#pragma once

#include <mmp/planning/grid_planner.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace mmp {

enum class NoiseKind { None, Boltzmann, Waypoints };

struct DemonstrationNoise {
  NoiseKind kind = NoiseKind::None;
  double temperature = 0.5;  ///< Boltzmann: in the costs' units
  int waypoints = 1;         ///< Waypoints: cells the path must pass through, in order
  double spread = 0.25;      ///< Waypoints: radius around the straight line, a share of |start - goal|
};

struct DemonstrationParams {
  int count = 10;               ///< paths wanted
  double min_separation = 0.0;  ///< smallest Euclidean start-goal distance, in cells
  std::uint64_t seed = 1;
  Connectivity connectivity = Connectivity::Eight;
  int max_attempts = 1000;      ///< random pairs tried before giving up (unreachable pairs are skipped)
  DemonstrationNoise noise;     ///< none: optimal paths
};

struct Demonstration {
  std::vector<int> path;  ///< start to goal: optimal under the costs without noise
  double cost = 0.0;      ///< of path under the costs
  double optimal_cost = 0.0;  ///< of the optimal path between the same ends
};

/// Up to params.count paths on `costs` (+inf impassable); fewer if max_attempts run out.
/// The same paths for a given seed with every standard library: start and goal are drawn by
/// mmp::Random (core/random.hpp), start first, each uniformly among the passable cells; with noise,
/// the same start/goal pairs as without it, the path drawn as the file comment says.
/// parseNoiseKind / describe: "none", "boltzmann", "waypoints" (InvalidArgument naming the valid ones).
std::vector<Demonstration> generateDemonstrations(int rows, int cols, const std::vector<double>& costs,
                                                  const DemonstrationParams& params);

NoiseKind parseNoiseKind(const std::string& text);
const char* describe(NoiseKind kind);

}  // namespace mmp
