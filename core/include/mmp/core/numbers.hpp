// Numbers every part of mmp uses, defined once (bundled builds compile several sources as one
// translation unit, where two file-local definitions of one name clash: cmake/mmpBundles.cmake).
#pragma once

#include <limits>

namespace mmp {

/// +inf: an impassable cell's cost, an unbounded setting.
inline constexpr double kInf = std::numeric_limits<double>::infinity();

}  // namespace mmp
