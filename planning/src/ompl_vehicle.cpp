#include <mmp/planning/ompl_vehicle.hpp>

#include <mmp/core/error.hpp>
#include <mmp/planning/cost_field.hpp>

#include "dubins_word.hpp"
#include "ompl_internal.hpp"

#include <ompl/base/spaces/DubinsStateSpace.h>
#include <ompl/base/spaces/ReedsSheppStateSpace.h>

#include <algorithm>
#include <cmath>
#include <string>

namespace mmp {
namespace {

namespace ob = ompl::base;

constexpr double kPi = 3.14159265358979323846;
// Cells: shorter segments of a curve are left out.
constexpr double kNegligibleLength = 1e-9;

// OMPL 1.5 keeps a space's turning radius protected; VehicleCurve needs it to scale the paths'
// lengths (which OMPL gives in turning radii).  The Dubins space's distance and interpolation take
// their words from shortestDubinsWord (dubins_word.hpp), never from OMPL's dubins(), whose
// assertions abort the process on poses the planners make.
class DubinsCar : public ob::DubinsStateSpace {
 public:
  explicit DubinsCar(double radius) : ob::DubinsStateSpace(radius, false) {}
  double radius() const { return rho_; }

  detail::DubinsWord word(const ob::State* from, const ob::State* to) const {
    const auto* a = from->as<StateType>();
    const auto* b = to->as<StateType>();
    return detail::shortestDubinsWord(a->getX(), a->getY(), a->getYaw(), b->getX(), b->getY(), b->getYaw(), rho_);
  }
  double distance(const ob::State* from, const ob::State* to) const override { return rho_ * word(from, to).length(); }
  void interpolate(const ob::State* from, const ob::State* to, double t, ob::State* state) const override;
  // OMPL's DubinsMotionValidator calls this one (mmp's spaces use VehicleMotionValidator); `path` is not used.
  void interpolate(const ob::State* from, const ob::State* to, double t, bool& /*first_time*/, DubinsPath& /*path*/,
                   ob::State* state) const override {
    interpolate(from, to, t, state);
  }
};

class ReedsSheppCar : public ob::ReedsSheppStateSpace {
 public:
  explicit ReedsSheppCar(double radius) : ob::ReedsSheppStateSpace(radius) {}
  double radius() const { return rho_; }
};

// An angle in (-pi, pi].
double normalAngle(double a) {
  const double r = std::remainder(a, 2.0 * kPi);
  return r <= -kPi ? r + 2.0 * kPi : r;
}

// A pose in OMPL's terms: (u, v) and the yaw from +u towards +v (= -heading).
struct Yawed {
  double u, v, yaw;
};

Yawed yawed(CellPose p) { return {p.at.u, p.at.v, -p.heading}; }
CellPose pose(Yawed y) { return {{y.u, y.v}, normalAngle(-y.yaw)}; }

// The pose after driving `length` cells (< 0: in reverse) on a segment from p.  On an arc of radius
// rho about the centre c, the position is c + rho (sin yaw, -cos yaw) turning left (yaw grows) and
// c + rho (-sin yaw, cos yaw) turning right; the yaw changes by length / rho.
Yawed advance(Yawed p, VehicleCurve::Turn turn, double length, double rho) {
  switch (turn) {
    case VehicleCurve::Turn::Straight: return {p.u + length * std::cos(p.yaw), p.v + length * std::sin(p.yaw), p.yaw};
    case VehicleCurve::Turn::Left: {
      const double yaw = p.yaw + length / rho;
      return {p.u + rho * (std::sin(yaw) - std::sin(p.yaw)), p.v - rho * (std::cos(yaw) - std::cos(p.yaw)), yaw};
    }
    case VehicleCurve::Turn::Right: {
      const double yaw = p.yaw - length / rho;
      return {p.u - rho * (std::sin(yaw) - std::sin(p.yaw)), p.v + rho * (std::cos(yaw) - std::cos(p.yaw)), yaw};
    }
  }
  return p;
}

// True if every cell that the square of half-side w about p touches lies inside the grid and is passable.
bool squarePassable(const CostGrid& grid, CellPoint p, double w) {
  // Written so that NaN fails.
  if (!(p.u - w >= 0.0 && p.v - w >= 0.0 && p.u + w < grid.cols && p.v + w < grid.rows)) return false;
  const int c0 = static_cast<int>(p.u - w), c1 = static_cast<int>(p.u + w);
  const int r0 = static_cast<int>(p.v - w), r1 = static_cast<int>(p.v + w);
  for (int r = r0; r <= r1; ++r) {
    for (int c = c0; c <= c1; ++c) {
      if (grid.blocked(r * grid.cols + c)) return false;
    }
  }
  return true;
}

}  // namespace

CellPose cellPoseOf(const ob::State* state) {
  const auto* s = state->as<ob::SE2StateSpace::StateType>();
  return pose({s->getX(), s->getY(), s->getYaw()});
}

void setCellPose(ob::State* state, CellPose p) {
  auto* s = state->as<ob::SE2StateSpace::StateType>();
  s->setXY(p.at.u, p.at.v);
  s->setYaw(normalAngle(-p.heading));
}

VehicleCurve::VehicleCurve(const ob::StateSpace& space, const ob::State* from, const ob::State* to)
    : from_(cellPoseOf(from)), to_(cellPoseOf(to)) {
  // OMPL's paths: up to 3 (Dubins) or 5 (Reeds-Shepp) segments, lengths in turning radii.  A
  // segment of a rounding error's length (OMPL's words have some) would only repeat a point.
  const auto add = [this](Turn turn, double length) {
    const double cells = length * radius_;
    if (std::abs(cells) <= kNegligibleLength) return;
    segments_.push_back({turn, cells});
    length_ += std::abs(cells);
  };
  if (const auto* dubins = dynamic_cast<const DubinsCar*>(&space)) {
    radius_ = dubins->radius();
    const detail::DubinsWord word = dubins->word(from, to);
    for (std::size_t i = 0; i < 3; ++i) {
      const auto piece = word.pieces[i];
      add(piece == detail::DubinsWord::Piece::Left    ? Turn::Left
          : piece == detail::DubinsWord::Piece::Right ? Turn::Right
                                                      : Turn::Straight,
          word.lengths[i]);
    }
  } else if (const auto* reeds_shepp = dynamic_cast<const ReedsSheppCar*>(&space)) {
    radius_ = reeds_shepp->radius();
    const ob::ReedsSheppStateSpace::ReedsSheppPath path = reeds_shepp->reedsShepp(from, to);
    for (int i = 0; i < 5; ++i) {
      const auto type = path.type_[i];
      if (type == ob::ReedsSheppStateSpace::RS_NOP) continue;
      add(type == ob::ReedsSheppStateSpace::RS_LEFT    ? Turn::Left
          : type == ob::ReedsSheppStateSpace::RS_RIGHT ? Turn::Right
                                                       : Turn::Straight,
          path.length_[i]);
    }
  } else {
    throw InvalidArgument("VehicleCurve: the state space '" + space.getName() +
                          "' is not a Dubins or Reeds-Shepp space of vehicleSpaceInformation");
  }
}

// Within a segment of n equal steps the direction turns by the same angle at each step, so the
// points of an arc come from rotating (cos yaw, sin yaw) by it: one sincos a segment, not one a point
// (every motion the planners weigh or check is walked).  Each segment's end comes from advance, so rounding
// does not carry over from one segment to the next.
template <class Visit>
bool VehicleCurve::walk(double max_step, Visit&& visit) const {
  if (!(max_step > 0.0)) throw InvalidArgument("VehicleCurve: max_step = " + numberText(max_step) + " must be > 0");
  if (!visit(yawed(from_), 0.0)) return false;
  Yawed start = yawed(from_);
  double s = 0.0;
  for (std::size_t i = 0; i < segments_.size(); ++i) {
    const Segment& segment = segments_[i];
    const double span = std::abs(segment.length);
    const long n = std::max(1L, static_cast<long>(std::ceil(span / max_step)));
    const double step = segment.length / static_cast<double>(n), ds = span / static_cast<double>(n);
    // Left: the centre lies at rho (-sin yaw, cos yaw) from the start, the point at rho (sin yaw,
    // -cos yaw) from the centre; right: the opposite sides.
    const double side = segment.turn == Turn::Left ? 1.0 : -1.0, turn = side * step / radius_;
    const double centre_u = start.u - side * radius_ * std::sin(start.yaw), centre_v = start.v + side * radius_ * std::cos(start.yaw);
    const double cos_turn = std::cos(turn), sin_turn = std::sin(turn);
    double cos_yaw = std::cos(start.yaw), sin_yaw = std::sin(start.yaw);
    for (long k = 1; k < n; ++k) {
      Yawed p;
      if (segment.turn == Turn::Straight) {
        p = {start.u + static_cast<double>(k) * step * cos_yaw, start.v + static_cast<double>(k) * step * sin_yaw, start.yaw};
      } else {
        const double c = cos_yaw * cos_turn - sin_yaw * sin_turn;
        sin_yaw = sin_yaw * cos_turn + cos_yaw * sin_turn;
        cos_yaw = c;
        p = {centre_u + side * radius_ * sin_yaw, centre_v - side * radius_ * cos_yaw, start.yaw + static_cast<double>(k) * turn};
      }
      if (!visit(p, s + static_cast<double>(k) * ds)) return false;
    }
    start = advance(start, segment.turn, segment.length, radius_);
    s += span;
    // The end as the planner has it, not as the kinematics reach it (they agree to rounding).
    if (i + 1 < segments_.size() && !visit(start, s)) return false;
  }
  return visit(yawed(to_), length_);
}

CellPose VehicleCurve::poseAt(double s) const {
  if (!(s > 0.0)) return from_;
  if (!(s < length_)) return to_;
  Yawed p = yawed(from_);
  for (const Segment& segment : segments_) {
    const double span = std::abs(segment.length);
    if (s <= span) return pose(advance(p, segment.turn, std::copysign(s, segment.length), radius_));
    p = advance(p, segment.turn, segment.length, radius_);
    s -= span;
  }
  return to_;
}

void DubinsCar::interpolate(const ob::State* from, const ob::State* to, double t, ob::State* state) const {
  if (t <= 0.0 || t >= 1.0) {
    if (state != (t <= 0.0 ? from : to)) copyState(state, t <= 0.0 ? from : to);
    return;
  }
  const VehicleCurve curve(*this, from, to);
  setCellPose(state, curve.poseAt(t * curve.length()));
}

std::vector<VehicleCurve::Sample> VehicleCurve::samples(double max_step) const {
  std::vector<Sample> out;
  walk(max_step, [&out](Yawed p, double s) {
    out.push_back({pose(p), s});
    return true;
  });
  return out;
}

bool VehicleCurve::forEachPoint(double max_step, const std::function<bool(CellPoint, double)>& visit) const {
  return walk(max_step, [&visit](Yawed p, double s) { return visit({p.u, p.v}, s); });
}

double curveCost(const CostGrid& grid, const VehicleCurve& curve, double impassable_cost) {
  const auto cost = [&](CellPoint p) {
    const double c = interpolatedCost(grid, p);
    return c == std::numeric_limits<double>::infinity() ? impassable_cost : c;
  };
  double sum = 0.0, previous = 0.0, previous_s = -1.0;
  curve.forEachPoint(kCurveCostStep, [&](CellPoint p, double s) {
    const double c = cost(p);
    if (previous_s >= 0.0) sum += (s - previous_s) * 0.5 * (previous + c);
    previous = c, previous_s = s;
    return true;
  });
  return sum;
}

bool curvePassable(const CostGrid& grid, const VehicleCurve& curve, VehicleCurve::Sample* last_passable) {
  std::size_t passed = 0;
  const bool passable = curve.forEachPoint(kCurveCheckStep, [&](CellPoint p, double) {
    if (!squarePassable(grid, p, 0.5 * kCurveCheckStep)) return false;
    ++passed;
    return true;
  });
  if (!passable && last_passable) {
    // The same points with their headings (asked for rarely: only by OMPL's checkMotion with last_valid).
    const std::vector<VehicleCurve::Sample> samples = curve.samples(kCurveCheckStep);
    *last_passable = passed > 0 ? samples[passed - 1] : VehicleCurve::Sample{samples.front().pose, -1.0};
  }
  return passable;
}

VehicleCostObjective::VehicleCostObjective(const ob::SpaceInformationPtr& si, std::shared_ptr<const CostGrid> grid)
    : GridCostObjective(si, std::move(grid)) {
  description_ = "mmp cost-grid integral along car-like curves";
}

ob::Cost VehicleCostObjective::stateCost(const ob::State* s) const { return ob::Cost(interpolatedCost(grid(), cellPoseOf(s).at)); }

ob::Cost VehicleCostObjective::motionCost(const ob::State* s1, const ob::State* s2) const {
  return ob::Cost(curveCost(grid(), VehicleCurve(*si_->getStateSpace(), s1, s2), impassableStandIn()));
}

ob::Cost VehicleCostObjective::motionCostHeuristic(const ob::State* s1, const ob::State* s2) const {
  return ob::Cost(smallestCost() * si_->distance(s1, s2));
}

VehicleValidityChecker::VehicleValidityChecker(const ob::SpaceInformationPtr& si, std::shared_ptr<const CostGrid> grid)
    : ob::StateValidityChecker(si), grid_(detail::checkedGrid(std::move(grid))) {}

bool VehicleValidityChecker::isValid(const ob::State* state) const { return pointPassable(*grid_, cellPoseOf(state).at); }

VehicleMotionValidator::VehicleMotionValidator(const ob::SpaceInformationPtr& si, std::shared_ptr<const CostGrid> grid)
    : ob::MotionValidator(si), grid_(detail::checkedGrid(std::move(grid))) {}

bool VehicleMotionValidator::checkMotion(const ob::State* s1, const ob::State* s2) const {
  return curvePassable(*grid_, VehicleCurve(*si_->getStateSpace(), s1, s2));
}

bool VehicleMotionValidator::checkMotion(const ob::State* s1, const ob::State* s2,
                                         std::pair<ob::State*, double>& last_valid) const {
  const VehicleCurve curve(*si_->getStateSpace(), s1, s2);
  VehicleCurve::Sample last;
  if (curvePassable(*grid_, curve, &last)) return true;
  const bool none = last.s < 0.0;
  if (last_valid.first) {
    if (none) {
      si_->copyState(last_valid.first, s1);
    } else {
      setCellPose(last_valid.first, last.pose);
    }
  }
  last_valid.second = none || curve.length() == 0.0 ? 0.0 : last.s / curve.length();
  return false;
}

ob::SpaceInformationPtr vehicleSpaceInformation(std::shared_ptr<const CostGrid> grid, Vehicle vehicle, double turning_radius) {
  grid = detail::checkedGrid(std::move(grid));
  if (vehicle == Vehicle::Point) {
    throw InvalidArgument("vehicleSpaceInformation: a point vehicle has no heading: use gridSpaceInformation");
  }
  if (!(turning_radius >= OmplSettings::kMinTurningRadius && turning_radius <= OmplSettings::kMaxTurningRadius)) {
    throw InvalidArgument("vehicleSpaceInformation: turning radius " + numberText(turning_radius) + " cells is out of range: give " +
                          numberText(OmplSettings::kMinTurningRadius) + " to " + numberText(OmplSettings::kMaxTurningRadius) +
                          " cells (tighter turns lie within one step of the motion check)");
  }
  detail::silenceOmpl();
  ob::StateSpacePtr space;
  if (vehicle == Vehicle::Dubins) {
    space = std::make_shared<DubinsCar>(turning_radius);
  } else {
    space = std::make_shared<ReedsSheppCar>(turning_radius);
  }
  ob::RealVectorBounds bounds(2);
  bounds.setLow(0, 0.0);
  bounds.setHigh(0, grid->cols);
  bounds.setLow(1, 0.0);
  bounds.setHigh(1, grid->rows);
  space->as<ob::SE2StateSpace>()->setBounds(bounds);
  auto si = std::make_shared<ob::SpaceInformation>(space);
  si->setStateValidityChecker(std::make_shared<VehicleValidityChecker>(si, grid));
  si->setMotionValidator(std::make_shared<VehicleMotionValidator>(si, grid));
  si->setup();
  return si;
}

}  // namespace mmp
