// planOmpl: one call that plans on a CostGrid with an OMPL planner -- sampling-based, any-angle,
// anytime -- under the same cost integral as GridPlanner's A* (cost_field.hpp), for comparing the two
// or for paths that are not bound to 8 directions.  No OMPL header is needed to call it.
//
//   mmp::OmplSettings settings;
//   settings.planner = mmp::parsePlannerName("bitstar");
//   settings.budget_seconds = 2.0;
//   const mmp::OmplResult result = mmp::planOmpl(grid, {10.5, 20.5}, {300.5, 150.5}, settings);
//   if (result.status == mmp::OmplStatus::Success) use(result.path, result.cost);
//
// Part of the mmp::planning_ompl target (links OMPL).  Planning takes the whole time budget for the
// anytime planners (they refine until it runs out); FMT* stops once its samples give a solution.
//
// Side effects on the process, because OMPL keeps them global: the first call silences OMPL's
// console output for good (ompl::msg::noOutputHandler; the library never prints), and each call with
// a seed reseeds OMPL's global seed generator (ompl::RNG::setSeed).
//
// A car-like vehicle (OmplSettings::vehicle, ompl_vehicle.hpp) plans over SE(2), (u, v, heading),
// with OMPL's Dubins or Reeds-Shepp curves of a turning radius, under the same cost integral taken
// along the curves:
//
//   settings.vehicle = mmp::Vehicle::Dubins;
//   settings.turning_radius = grid.cellsOfLength(5.0);   // 5 m on a grid with a world frame
//   settings.start_heading = M_PI / 2;                    // north; the goal's: towards it from the start
//   const mmp::OmplResult car = mmp::planOmpl(grid, {10.5, 20.5}, {300.5, 150.5}, settings);
//   // car.path: the curves sampled, car.headings: the heading at each point
#pragma once

#include <mmp/core/world_frame.hpp>
#include <mmp/planning/cost_grid.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mmp {

enum class OmplPlanner {
  RRTstar,          ///< "rrtstar": RRT* (Karaman and Frazzoli 2011)
  InformedRRTstar,  ///< "informedrrtstar": RRT* sampling the informed set once a solution exists
  PRMstar,          ///< "prmstar": PRM* roadmap (searches it on a second thread while it grows)
  LazyPRMstar,      ///< "lazyprmstar": PRM* checking edges only on candidate paths.  OMPL 1.5.2's
                    ///< LazyPRM::solve leaks cloned states (~16 bytes each, thousands a call: ASan
                    ///< shows it); prefer another planner in a long-running process
  BITstar,          ///< "bitstar": Batch Informed Trees (Gammell et al. 2015)
  ABITstar,         ///< "abitstar": Advanced BIT* (inflated, truncated batches)
  FMTstar,          ///< "fmtstar": Fast Marching Tree, 1000 samples (more only if those fail): not anytime
};

/// Every planner, in the enum's order.
const std::vector<OmplPlanner>& omplPlanners();
/// The planner's name as parsePlannerName takes it ("rrtstar", ...).
const char* plannerName(OmplPlanner planner);
/// The planner of a name (case-insensitive, "fmt" for "fmtstar" too).  Throws mmp::InvalidArgument
/// naming the name and listing the valid ones; "astar" (GridPlanner) is the caller's to handle.
OmplPlanner parsePlannerName(const std::string& name);

/// What moves: a point (any path of straight motions, the default) or a car-like vehicle of a turning
/// radius, which plans over (u, v, heading) along Dubins or Reeds-Shepp curves.
enum class Vehicle {
  Point,       ///< "point": (u, v) only, straight motions at any angle
  Dubins,      ///< "dubins": forward only, turns no tighter than the turning radius (Dubins 1957)
  ReedsShepp,  ///< "reeds-shepp": forward and in reverse, same turns (Reeds and Shepp 1990)
};

/// Every vehicle, in the enum's order.
const std::vector<Vehicle>& vehicles();
/// The vehicle's name as parseVehicleName takes it ("point", "dubins", "reeds-shepp").
const char* vehicleName(Vehicle vehicle);
/// The vehicle of a name (case-insensitive; "reeds_shepp" and "reedsshepp" too).  Throws
/// mmp::InvalidArgument naming the name and listing the valid ones.
Vehicle parseVehicleName(const std::string& name);

/// Whether planOmpl takes the planner for the vehicle: every planner for a point; for a car-like
/// vehicle RRT*, Informed RRT*, BIT* and ABIT* (see planOmpl's requirements for why not the others).
bool plannerFitsVehicle(OmplPlanner planner, Vehicle vehicle);

struct OmplSettings {
  OmplPlanner planner = OmplPlanner::BITstar;
  /// The longest budget (a week): the planner's deadline, now + budget, must not overflow the clock.
  static constexpr double kMaxBudgetSeconds = 7 * 24 * 3600.0;
  double budget_seconds = 1.0;  ///< wall-clock time for the planner's solve, in (0, kMaxBudgetSeconds]
  /// Seeds OMPL's global seed generator before this call makes any OMPL object, so every random
  /// generator of the call is seeded from it; 0 leaves OMPL's own (time-based) seeding.  Results
  /// are repeatable only for FMT* (which stops on its sample count, not the clock) and only while
  /// no other OMPL planning runs in the process at the same time: the other planners stop on the
  /// wall clock, so their work, and PRM*'s two threads' interleaving, differ from run to run.
  std::uint32_t seed = 1;
  /// Longest motion the planner adds at once, in cells, for the planners that take one (RRT*,
  /// Informed RRT*); 0 keeps OMPL's default (a fifth of the longer grid side).  Others ignore it.
  double range = 0.0;
  /// Shortcut the solution (ompl::geometric::PathSimplifier::shortcutPath, objective-aware), and
  /// keep the result only if each of its motions is valid and its cost is lower; after the budget.
  bool simplify = true;

  Vehicle vehicle = Vehicle::Point;
  /// A car-like vehicle's smallest turning radius, in cells (CostGrid::cellsOfLength converts world
  /// units or pixels): in [kMinTurningRadius, kMaxTurningRadius] for Dubins and Reeds-Shepp, 0 (unused)
  /// for a point.
  double turning_radius = 0.0;
  /// The tightest turn planOmpl takes, in cells: half the motion check's sample step (kCurveCheckStep,
  /// ompl_vehicle.hpp), below which a turn lies within one check and OMPL's Reeds-Shepp formulas,
  /// working in turning radii, pass their 1e-6 tolerance by rounding alone (and abort the process).
  static constexpr double kMinTurningRadius = 0.1;
  /// The widest, in cells: curves are walked in steps of a fraction of a cell, and a radius beyond
  /// any grid (a million cells) makes each motion a walk of millions of steps.
  static constexpr double kMaxTurningRadius = 1e6;
  /// A car-like vehicle's heading at the start and at the goal, in radians counterclockwise from the
  /// +u axis (east, to the right) towards -v (north, up in the image): the yaw of the grid's world
  /// frame, as ROS and Nav2 measure it.  Empty: the direction from the start to the goal.  Only for
  /// a car-like vehicle (a point has no heading).
  std::optional<double> start_heading, goal_heading;
};

enum class OmplStatus {
  Success,          ///< path joins start and goal
  ApproximateOnly,  ///< the budget ran out: path ends at the planner's closest state to the goal
  NoSolution,       ///< no path at all within the budget
  InvalidInput,     ///< OMPL refused the problem (should not happen after planOmpl's checks): see message
};
const char* describe(OmplStatus status);

struct OmplResult {
  OmplStatus status = OmplStatus::NoSolution;
  /// Start to goal (or the approximate end), in cell coordinates: a point's waypoints; for a car-like
  /// vehicle its curves sampled (VehicleCurve::samples): every segment's ends (where it switches
  /// between turning and straight, or between forward and reverse) and points at most
  /// kVehiclePathStep apart along the curve.
  std::vector<CellPoint> path;
  /// A car-like vehicle's heading at each point of path (radians, as OmplSettings::start_heading);
  /// empty for a point.
  std::vector<double> headings;
  /// Recomputed here from the path, not the planner's figure; +inf without a path.  A point:
  /// polylineCost(grid, path).  A car-like vehicle: the cost integral along its curves (curveCost,
  /// ompl_vehicle.hpp), which polylineCost(grid, path) approximates by the chords.
  double cost = 0.0;
  double seconds = 0.0;   ///< wall time of the whole call (set-up, solve, simplification)
  long iterations = -1;   ///< the planner's iteration count, -1 if it reports none (FMT*)
  long states = 0;        ///< states in the planner's graph at the end
  bool simplified = false;  ///< the shortcut path was kept
  std::string message;    ///< why, when status is not Success
};

/// Spacing of a car-like vehicle's OmplResult::path along its curves, in cells of arc length (at most).
constexpr double kVehiclePathStep = 0.5;

/*!
    requires (throws mmp::InvalidArgument naming the problem)
        - grid non-empty, grid.costs.size() == rows * cols, every cost > 0 or +inf, some cell passable
        - start and goal finite, inside the grid (u in [0, cols), v in [0, rows)), in passable cells
        - 0 < settings.budget_seconds <= OmplSettings::kMaxBudgetSeconds, settings.range >= 0
        - a point: turning_radius 0 and no headings; a car-like vehicle: turning_radius in
          [OmplSettings::kMinTurningRadius, kMaxTurningRadius] cells (0.1 to 1e6),
          finite headings, and RRT*, Informed RRT*, BIT* or ABIT*: a car's curve from a to b is not
          the one from b to a, and the roadmaps of PRM* and Lazy PRM* drive each motion both ways,
          FMT*'s neighbourhoods assume a symmetric distance (it finds no path)
    ensures
        - plans from start to goal with settings.planner for budget_seconds on GridCostObjective
          (ompl_objective.hpp), or for a car-like vehicle on VehicleCostObjective (ompl_vehicle.hpp);
          every motion of the returned path is valid under GridMotionValidator (VehicleMotionValidator),
          so the path never enters an impassable cell
        - start == goal (and, for a vehicle, the same heading) gives Success with the path
          {start, goal} and cost 0 without planning
        - expected outcomes (no solution, approximate only) are statuses, never exceptions; an
          exception from OMPL itself is rethrown as mmp::Error
!*/
OmplResult planOmpl(const CostGrid& grid, CellPoint start, CellPoint goal, const OmplSettings& settings = {});

}  // namespace mmp
