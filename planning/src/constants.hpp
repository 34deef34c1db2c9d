// Numbers the planning sources share, defined once: a bundled build (cmake/mmpBundles.cmake)
// compiles several sources as one, where two file-local definitions of one name would clash.
#pragma once

#include <limits>

namespace mmp::planning_constants {

inline constexpr double kSqrt2 = 1.4142135623730951;

}  // namespace mmp::planning_constants
