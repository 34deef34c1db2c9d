// Car-like vehicles on a CostGrid: OMPL's Dubins (forward only) and Reeds-Shepp (forward and reverse)
// state spaces over SE(2) in cell coordinates, the grid's cost integrated along the vehicle's actual
// curve (the objective of ompl_objective.hpp, not its straight chords), and motion checking that
// covers the whole curve, so that a solution never enters an impassable cell.  planOmpl
// (ompl_planning.hpp) wires them to a planner when OmplSettings::vehicle is not Point.
//
//   auto grid = std::make_shared<const mmp::CostGrid>(model.costs(image));
//   ompl::base::SpaceInformationPtr si = mmp::vehicleSpaceInformation(grid, mmp::Vehicle::Dubins, 4.0);
//   pdef->setOptimizationObjective(std::make_shared<mmp::VehicleCostObjective>(si, grid));
//
// States: OMPL's SE(2) state (x, y, yaw) holds (u, v, -heading).  OMPL measures its yaw from +u
// towards +v, which on an image (v grows downwards) turns clockwise; mmp's headings (CellPose,
// OmplSettings::start_heading) turn counterclockwise from east towards north, as the yaw of the
// grid's world frame does.  cellPoseOf and setCellPose convert.
//
// Part of the mmp::planning_ompl target (links OMPL).
#pragma once

#include <mmp/planning/ompl_objective.hpp>
#include <mmp/planning/ompl_planning.hpp>

#include <functional>
#include <limits>
#include <memory>
#include <vector>

namespace mmp {

/// A vehicle's pose in cell coordinates: where it is and its heading, in radians counterclockwise
/// from the +u axis (east) towards -v (north, up in the image).
struct CellPose {
  CellPoint at;
  double heading = 0.0;
};

/// The pose of a state of vehicleSpaceInformation's space (heading in (-pi, pi]).
CellPose cellPoseOf(const ompl::base::State* state);
/// Sets a state of vehicleSpaceInformation's space to a pose.
void setCellPose(ompl::base::State* state, CellPose pose);

/// The arc length, in cells, between the samples of a curve that the motion validator checks.
constexpr double kCurveCheckStep = 0.2;
static_assert(OmplSettings::kMinTurningRadius == kCurveCheckStep / 2, "the tightest turn is half a check step");
/// The arc length, in cells, of the trapezoid rule's pieces along a curve (curveCost).
constexpr double kCurveCostStep = 0.25;

/*!
    WHAT THIS OBJECT REPRESENTS
        One motion of a car-like vehicle: the path that the vehicle's OMPL space interpolates along
        between two states (the shortest Dubins or Reeds-Shepp path of the space's turning radius,
        ompl::base::DubinsStateSpace::dubins, ReedsSheppStateSpace::reedsShepp), as its segments --
        arcs of exactly the turning radius and straight lines, each driven forward or in reverse --
        and the poses along them from the vehicle's kinematics (a left arc of radius rho turning
        by phi moves by rho (sin(theta + phi) - sin theta, cos theta - cos(theta + phi)) in OMPL's
        (x, y, yaw)).  Its length, the sum of the segments', is the space's distance.
    THREAD SAFETY
        An immutable value: safe to read from several threads.
!*/
class VehicleCurve {
 public:
  enum class Turn { Left, Straight, Right };  ///< in OMPL's yaw (Left: yaw grows, clockwise on the image)
  struct Segment {
    Turn turn = Turn::Straight;
    double length = 0.0;  ///< cells of arc length; < 0 in reverse (Reeds-Shepp only)
  };
  struct Sample {
    CellPose pose;
    double s = 0.0;  ///< arc length from the start of the curve, in cells
  };

  /// requires: space is the state space of a vehicleSpaceInformation (throws mmp::InvalidArgument
  /// for another space), from and to are its states.
  VehicleCurve(const ompl::base::StateSpace& space, const ompl::base::State* from, const ompl::base::State* to);

  double length() const { return length_; }
  double turningRadius() const { return radius_; }
  /// The segments, in order (those of OMPL's word longer than 1e-9 cells).
  const std::vector<Segment>& segments() const { return segments_; }

  /*!
      requires: max_step > 0 (throws mmp::InvalidArgument otherwise)
      ensures
          - the poses at both ends of every segment and between them at most max_step apart (equal
            steps within a segment), in order of s; at least two
          - the first is from's pose and the last to's, exactly
  !*/
  std::vector<Sample> samples(double max_step) const;
  /// The pose after arc length s along the curve (from's pose for s <= 0, to's for s >= length()).
  CellPose poseAt(double s) const;
  /// Calls visit(point, s) for the points of samples(max_step), in order, until it returns false;
  /// true if it never did.  Faster than samples (no headings, nothing stored).
  bool forEachPoint(double max_step, const std::function<bool(CellPoint, double)>& visit) const;

 private:
  template <class Visit>
  bool walk(double max_step, Visit&& visit) const;

  CellPose from_, to_;
  double radius_ = 1.0, length_ = 0.0;
  std::vector<Segment> segments_;
};

/*!
    ensures
        - the trapezoid rule on interpolatedCost over curve.samples(kCurveCostStep), each piece
          weighted by its arc length (not its chord): the cost integral along the curve, in
          GridPlanner's units (cell cost x cells)
        - a sample where interpolatedCost is +inf counts impassable_cost (so +inf by default)
        - 0 for a curve of length 0
!*/
double curveCost(const CostGrid& grid, const VehicleCurve& curve,
                 double impassable_cost = std::numeric_limits<double>::infinity());

/*!
    ensures
        - true if every cell within kCurveCheckStep / 2 (in u and in v) of a sample of
          curve.samples(kCurveCheckStep) lies inside the grid and is passable.  Every point of the
          curve lies within half a sample step (of arc length, so of distance) of a sample, so a
          curve found passable never enters an impassable cell or leaves the grid; the check is
          conservative by at most a tenth of a cell
        - if not and last_passable is given: *last_passable = the last sample before the first one
          that fails, or the first sample with s = -1 if the first fails
!*/
bool curvePassable(const CostGrid& grid, const VehicleCurve& curve, VehicleCurve::Sample* last_passable = nullptr);

/*!
    WHAT THIS OBJECT REPRESENTS
        GridCostObjective on a vehicle's space: the state cost is the cost at the pose's position,
        a motion's cost is curveCost of its VehicleCurve (the impassable stand-in where it crosses
        impassable cells, as GridCostObjective does), and both heuristics are smallestCost x the
        space's distance -- the length of the shortest curve --, admissible.
    THREAD SAFETY
        Every method is const and reads the grid only.
!*/
class VehicleCostObjective : public GridCostObjective {
 public:
  /// requires: si's space is vehicleSpaceInformation's; grid non-empty with a passable cell.
  VehicleCostObjective(const ompl::base::SpaceInformationPtr& si, std::shared_ptr<const CostGrid> grid);

  ompl::base::Cost stateCost(const ompl::base::State* s) const override;
  ompl::base::Cost motionCost(const ompl::base::State* s1, const ompl::base::State* s2) const override;
  ompl::base::Cost motionCostHeuristic(const ompl::base::State* s1, const ompl::base::State* s2) const override;
};

/// A state is valid when its position lies inside the grid in a passable cell (pointPassable).
class VehicleValidityChecker : public ompl::base::StateValidityChecker {
 public:
  VehicleValidityChecker(const ompl::base::SpaceInformationPtr& si, std::shared_ptr<const CostGrid> grid);
  bool isValid(const ompl::base::State* state) const override;

 private:
  std::shared_ptr<const CostGrid> grid_;
};

/*!
    WHAT THIS OBJECT REPRESENTS
        A motion is valid when its VehicleCurve is curvePassable: the whole curve, not only its
        samples, stays in passable cells.
    THREAD SAFETY
        const, reads the grid only; OMPL's valid/invalid counters are not kept.
!*/
class VehicleMotionValidator : public ompl::base::MotionValidator {
 public:
  VehicleMotionValidator(const ompl::base::SpaceInformationPtr& si, std::shared_ptr<const CostGrid> grid);
  bool checkMotion(const ompl::base::State* s1, const ompl::base::State* s2) const override;
  /// On failure last_valid holds the last passable sample before the first that fails (s1 if none)
  /// and its fraction of the curve's length.
  bool checkMotion(const ompl::base::State* s1, const ompl::base::State* s2,
                   std::pair<ompl::base::State*, double>& last_valid) const override;

 private:
  std::shared_ptr<const CostGrid> grid_;
};

/// A set-up SpaceInformation for a car-like vehicle: DubinsStateSpace or ReedsSheppStateSpace of the
/// turning radius (cells) with position bounds [0, cols] x [0, rows], VehicleValidityChecker and
/// VehicleMotionValidator.  Throws mmp::InvalidArgument for an empty grid, a cost vector of the
/// wrong size, Vehicle::Point, or a turning radius outside [OmplSettings::kMinTurningRadius,
/// kMaxTurningRadius].  The Dubins space's distance and interpolation are mmp's own (OMPL's
/// DubinsStateSpace::dubins asserts, and aborts, on rounding); the Reeds-Shepp space's are OMPL's.
ompl::base::SpaceInformationPtr vehicleSpaceInformation(std::shared_ptr<const CostGrid> grid, Vehicle vehicle,
                                                        double turning_radius);

}  // namespace mmp
