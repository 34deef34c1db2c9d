// Internal to mmp::planning_ompl: the shortest Dubins path between two poses, computed here rather than
// by ompl::base::DubinsStateSpace::dubins.  OMPL 1.5.2's version checks each candidate word by assert()
// against a tolerance of 2e-6 turning radii, and Debian builds it with assertions on: on poses that the
// planners themselves make (RRT* steers to a state on a curve, so the next curve from there has a
// straight part of nearly zero length), rounding exceeds the tolerance and the assertion aborts the
// process -- at any turning radius.  Same formulas, no abort (the DubinsCar space of ompl_vehicle.cpp
// overrides distance and interpolate with it).
#pragma once

#include <array>

namespace mmp::detail {

/// A Dubins word: three segments, each a left turn, a straight line or a right turn (in OMPL's yaw:
/// left = yaw grows), lengths in turning radii (>= 0).
struct DubinsWord {
  enum class Piece { Left, Straight, Right };
  std::array<Piece, 3> pieces{Piece::Left, Piece::Straight, Piece::Left};
  std::array<double, 3> lengths{0.0, 0.0, 0.0};
  double length() const { return lengths[0] + lengths[1] + lengths[2]; }
};

/// The shortest of the six Dubins words (LSL, RSR, RSL, LSR, RLR, LRL; Shkel and Lumelsky 2001) from
/// (x1, y1, yaw1) to (x2, y2, yaw2), forward only, turning radius rho > 0 (positions in the same
/// units as rho, yaws in radians).  Never aborts; non-finite input gives a non-finite length.
DubinsWord shortestDubinsWord(double x1, double y1, double yaw1, double x2, double y2, double yaw2, double rho);

}  // namespace mmp::detail
