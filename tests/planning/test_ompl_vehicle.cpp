// Car-like vehicles (ompl_vehicle.hpp, planOmpl with a Dubins or Reeds-Shepp vehicle): the curves
// are OMPL's own, turn no tighter than the radius, never enter an impassable cell, and cost the
// integral along them.
#include "planning_support.hpp"
#include <mmp/core/numbers.hpp>
#include "support.hpp"

#include <mmp/core/error.hpp>
#include <mmp/planning/cost_field.hpp>
#include <mmp/planning/ompl_planning.hpp>
#include <mmp/planning/ompl_vehicle.hpp>

#include <ompl/base/ScopedState.h>
#include <ompl/base/spaces/DubinsStateSpace.h>
#include <ompl/base/spaces/SE2StateSpace.h>

#include <doctest/doctest.h>

#include <cmath>

using namespace mmp;
namespace ob = ompl::base;

namespace {

constexpr double kPi = 3.14159265358979323846;

using mmp::test::sharedGrid;

ob::ScopedState<> poseState(const ob::SpaceInformationPtr& si, CellPose pose) {
  ob::ScopedState<> s(si);
  setCellPose(s.get(), pose);
  return s;
}

CellPose randomPose(Random& rng, int rows, int cols) {
  return {{rng.uniform(0.0, cols), rng.uniform(0.0, rows)}, rng.uniform(-kPi, kPi)};
}

// |a - b| as angles, in [0, pi].
double angleBetween(double a, double b) { return std::abs(std::remainder(a - b, 2.0 * kPi)); }

// The radius of the circle through two poses of a curve of bounded curvature between them: the
// chord over 2 sin(half the turn).  On one arc of radius rho it is rho; straight (a turn of no more
// than rounding), infinite.
double impliedRadius(CellPoint a, double heading_a, CellPoint b, double heading_b) {
  const double turn = angleBetween(heading_a, heading_b);
  return turn < 1e-12 ? kInf : std::hypot(b.u - a.u, b.v - a.v) / (2.0 * std::sin(0.5 * turn));
}

// +1 when the step a -> b goes along the heading at a (forward), -1 against it (reverse), 0 if too short to tell.
int gear(CellPoint a, double heading, CellPoint b) {
  const double along = (b.u - a.u) * std::cos(heading) - (b.v - a.v) * std::sin(heading);  // v grows southwards
  return along > 1e-9 ? 1 : along < -1e-9 ? -1 : 0;
}

// Brute force, independent of VehicleCurve's kinematics: OMPL's own interpolation of the motion at
// every 1/50 cell of its length; true if some point lies outside the grid or in an impassable cell.
bool sampledCurveBlocked(const ob::SpaceInformationPtr& si, const CostGrid& grid, const ob::State* a, const ob::State* b) {
  ob::ScopedState<> at(si);
  const int n = static_cast<int>(std::ceil(si->distance(a, b) * 50.0)) + 1;
  for (int k = 0; k <= n; ++k) {
    si->getStateSpace()->interpolate(a, b, static_cast<double>(k) / n, at.get());
    if (!pointPassable(grid, cellPoseOf(at.get()).at)) return true;
  }
  return false;
}

// Everything a car's planned path must satisfy: its ends and headings, radius, gear, passability.
// Returns how many steps go in reverse.
int checkCarPath(const CostGrid& grid, const OmplResult& result, CellPose start, CellPose goal, const OmplSettings& settings) {
  REQUIRE(result.path.size() >= 2);
  REQUIRE(result.headings.size() == result.path.size());
  CHECK(result.path.front().u == start.at.u);
  CHECK(result.path.front().v == start.at.v);
  CHECK(angleBetween(result.headings.front(), start.heading) < 1e-9);
  if (result.status == OmplStatus::Success) {
    CHECK(std::hypot(result.path.back().u - goal.at.u, result.path.back().v - goal.at.v) < 1e-9);
    CHECK(angleBetween(result.headings.back(), goal.heading) < 1e-9);
  }
  int reverse = 0;
  double chords = 0.0;
  for (std::size_t i = 1; i < result.path.size(); ++i) {
    const CellPoint a = result.path[i - 1], b = result.path[i];
    CAPTURE(i);
    // Consecutive points lie on one segment (every segment's ends are points), at most a path step apart.
    const double chord = std::hypot(b.u - a.u, b.v - a.v);
    chords += chord;
    CHECK(chord <= kVehiclePathStep + 1e-9);
    CHECK(impliedRadius(a, result.headings[i - 1], b, result.headings[i]) >= settings.turning_radius * (1 - 1e-9));
    const int g = gear(a, result.headings[i - 1], b);
    if (settings.vehicle == Vehicle::Dubins) CHECK(g >= 0);
    reverse += g < 0;
    // Every cell the chords cross is passable (the curve itself: the validator's test below).
    CHECK(segmentPassable(grid, a, b));
  }
  // The cost integral along the curve, which the chords approximate from below in length.
  CHECK(result.cost >= smallestCost(grid) * chords * (1 - 1e-9));
  CHECK(result.cost == doctest::Approx(polylineCost(grid, result.path)).epsilon(0.02));
  return reverse;
}

// An open grid of random costs, a few impassable blocks, and start and goal in passable cells.
CostGrid blockScene(Random& rng, int rows, int cols) {
  CostGrid grid;
  grid.rows = rows;
  grid.cols = cols;
  grid.costs = test::randomCosts(rng, rows * cols, 0.5, 3.0, 0.0);
  for (int block = 0; block < 4; ++block) {
    const int r0 = test::randomInt(rng, 3, rows - 6), c0 = test::randomInt(rng, 6, cols - 9);
    for (int r = r0; r < r0 + 3; ++r) {
      for (int c = c0; c < c0 + 3; ++c) grid.costs[static_cast<std::size_t>(r) * cols + c] = kInf;
    }
  }
  for (int r = 0; r < rows; ++r) {  // the start's and goal's columns stay clear
    for (int c : {1, 2, 3, cols - 4, cols - 3, cols - 2}) grid.costs[static_cast<std::size_t>(r) * cols + c] = 1.0;
  }
  return grid;
}

}  // namespace

TEST_CASE("a vehicle curve is OMPL's Dubins or Reeds-Shepp path: its poses, its length, its radius, its gears") {
  Random rng(11);
  const auto grid = sharedGrid(30, 40, std::vector<double>(30 * 40, 1.0));
  int reversing_curves = 0;
  for (Vehicle vehicle : {Vehicle::Dubins, Vehicle::ReedsShepp}) {
    for (double radius : {0.7, 2.5, 9.0}) {
      const auto si = vehicleSpaceInformation(grid, vehicle, radius);
      for (int trial = 0; trial < 40; ++trial) {
        const auto a = poseState(si, randomPose(rng, 30, 40)), b = poseState(si, randomPose(rng, 30, 40));
        const VehicleCurve curve(*si->getStateSpace(), a.get(), b.get());
        CAPTURE(std::string(vehicleName(vehicle)));
        CAPTURE(radius);
        CHECK(curve.length() == doctest::Approx(si->distance(a.get(), b.get())).epsilon(1e-9));
        CHECK(curve.turningRadius() == radius);
        CHECK(curve.segments().size() <= (vehicle == Vehicle::Dubins ? 3u : 5u));
        double total = 0.0;
        for (const auto& segment : curve.segments()) total += std::abs(segment.length);
        CHECK(total == doctest::Approx(curve.length()).epsilon(1e-12));

        const auto samples = curve.samples(0.3);
        REQUIRE(samples.size() >= 2);
        CHECK(samples.front().s == 0.0);
        CHECK(samples.back().s == curve.length());
        ob::ScopedState<> ompl_at(si);
        int reverse = 0;
        for (std::size_t k = 0; k < samples.size(); ++k) {
          // The same pose as OMPL's interpolation at the same fraction of the length.
          si->getStateSpace()->interpolate(a.get(), b.get(), samples[k].s / curve.length(), ompl_at.get());
          const CellPose expected = cellPoseOf(ompl_at.get());
          CHECK(std::hypot(samples[k].pose.at.u - expected.at.u, samples[k].pose.at.v - expected.at.v) < 1e-7 * radius);
          CHECK(angleBetween(samples[k].pose.heading, expected.heading) < 1e-7);
          if (k == 0) continue;
          const VehicleCurve::Sample& p = samples[k - 1];
          CHECK(samples[k].s - p.s <= 0.3 + 1e-12);
          CHECK(impliedRadius(p.pose.at, p.pose.heading, samples[k].pose.at, samples[k].pose.heading) >= radius * (1 - 1e-9));
          // The vehicle moves along its heading (forward or back): the chord deviates from the
          // heading's line by half the turn at most, so the heading's sense is the right one.
          const double du = samples[k].pose.at.u - p.pose.at.u, dv = samples[k].pose.at.v - p.pose.at.v;
          const double chord_heading = std::atan2(-dv, du);
          const double turn = angleBetween(p.pose.heading, samples[k].pose.heading);
          const int g = gear(p.pose.at, p.pose.heading, samples[k].pose.at);
          if (g != 0) {
            CHECK(angleBetween(chord_heading, g > 0 ? p.pose.heading : p.pose.heading + kPi) <= 0.5 * turn + 1e-6);
          }
          if (vehicle == Vehicle::Dubins) CHECK(g >= 0);
          reverse += g < 0;
        }
        reversing_curves += reverse > 0;
      }
    }
  }
  CHECK(reversing_curves > 10);  // Reeds-Shepp curves back up (Dubins ones never do: checked above)

  const auto point_si = vehicleSpaceInformation(grid, Vehicle::Dubins, 1.0);
  const auto wrong = std::make_shared<ob::SE2StateSpace>();
  const auto a = poseState(point_si, {{2, 2}, 0}), b = poseState(point_si, {{5, 2}, 0});
  CHECK_THROWS_WITH_AS(VehicleCurve(*wrong, a.get(), b.get()), doctest::Contains("not a Dubins or Reeds-Shepp space"),
                       InvalidArgument);
}

TEST_CASE("curveCost is the cost integral along the curve, not along its chords") {
  Random rng(23);
  // Uniform costs: cost x the curve's length, exactly.
  const auto uniform = sharedGrid(20, 20, std::vector<double>(400, 1.75));
  const auto si = vehicleSpaceInformation(uniform, Vehicle::ReedsShepp, 3.0);
  for (int trial = 0; trial < 30; ++trial) {
    const auto a = poseState(si, randomPose(rng, 20, 20)), b = poseState(si, randomPose(rng, 20, 20));
    const VehicleCurve curve(*si->getStateSpace(), a.get(), b.get());
    CHECK(curveCost(*uniform, curve) == doctest::Approx(1.75 * curve.length()).epsilon(1e-12));
  }
  // Random costs: close to a fine Riemann sum along OMPL's interpolation; the objective's motion
  // cost is curveCost; a half circle costs more than its chord on uniform costs (pi/2 times).
  const auto random = sharedGrid(20, 20, test::randomCosts(rng, 400, 0.5, 4.0, 0.0));
  const auto rsi = vehicleSpaceInformation(random, Vehicle::Dubins, 2.0);
  const VehicleCostObjective objective(rsi, random);
  for (int trial = 0; trial < 20; ++trial) {
    const auto a = poseState(rsi, randomPose(rng, 20, 20)), b = poseState(rsi, randomPose(rng, 20, 20));
    const VehicleCurve curve(*rsi->getStateSpace(), a.get(), b.get());
    ob::ScopedState<> at(rsi);
    const int n = 4000;
    double fine = 0.0;
    for (int k = 0; k < n; ++k) {
      rsi->getStateSpace()->interpolate(a.get(), b.get(), (k + 0.5) / n, at.get());
      fine += interpolatedCost(*random, cellPoseOf(at.get()).at) * curve.length() / n;
    }
    CHECK(curveCost(*random, curve) == doctest::Approx(fine).epsilon(0.01));
    CHECK(objective.motionCost(a.get(), b.get()).value() == curveCost(*random, curve));
    CHECK(objective.motionCostHeuristic(a.get(), b.get()).value() <= curveCost(*random, curve) * (1 + 1e-12));
  }
  const auto usi = vehicleSpaceInformation(uniform, Vehicle::Dubins, 3.0);
  const auto east = poseState(usi, {{10, 14}, 0.0}), west = poseState(usi, {{10, 8}, kPi});  // a U-turn northwards
  const VehicleCurve u_turn(*usi->getStateSpace(), east.get(), west.get());
  CHECK(u_turn.length() == doctest::Approx(3.0 * kPi));
  CHECK(curveCost(*uniform, u_turn) == doctest::Approx(1.75 * 3.0 * kPi));
  CHECK(curveCost(*uniform, u_turn) > 1.75 * 6.0 * 1.5);
  CHECK(polylineCost(*uniform, {{10, 14}, {10, 8}}) == doctest::Approx(1.75 * 6.0));
}

TEST_CASE("the vehicle motion validator refuses every curve that a dense sampling sees enter an impassable cell") {
  Random rng(31);
  int valid = 0, invalid = 0;
  for (int trial = 0; trial < 10; ++trial) {
    const int rows = test::randomInt(rng, 8, 20), cols = test::randomInt(rng, 8, 20);
    const auto grid = sharedGrid(rows, cols, test::randomCosts(rng, rows * cols, 0.5, 2.0, 0.12));
    const Vehicle vehicle = trial % 2 ? Vehicle::ReedsShepp : Vehicle::Dubins;
    const auto si = vehicleSpaceInformation(grid, vehicle, rng.uniform(0.5, 3.0));
    for (int k = 0; k < 40; ++k) {
      const auto a = poseState(si, randomPose(rng, rows, cols)), b = poseState(si, randomPose(rng, rows, cols));
      CHECK(si->isValid(a.get()) == pointPassable(*grid, cellPoseOf(a.get()).at));
      if (!si->isValid(a.get())) continue;
      const bool motion_valid = si->checkMotion(a.get(), b.get());
      CAPTURE(trial);
      if (sampledCurveBlocked(si, *grid, a.get(), b.get())) CHECK_FALSE(motion_valid);
      ob::ScopedState<> last(si);
      std::pair<ob::State*, double> last_valid{last.get(), -1.0};
      CHECK(si->getMotionValidator()->checkMotion(a.get(), b.get(), last_valid) == motion_valid);
      if (motion_valid) {
        ++valid;
        continue;
      }
      ++invalid;
      CHECK(last_valid.second >= 0.0);
      CHECK(last_valid.second < 1.0);
      CHECK(si->isValid(last.get()));
    }
  }
  CHECK(valid > 20);
  CHECK(invalid > 100);
}

TEST_CASE("planOmpl with a car: paths turn no tighter than the radius and never enter an impassable cell") {
  Random rng(7);
  int runs = 0, successes = 0;
  for (Vehicle vehicle : {Vehicle::Dubins, Vehicle::ReedsShepp}) {
    for (OmplPlanner planner : {OmplPlanner::RRTstar, OmplPlanner::InformedRRTstar, OmplPlanner::BITstar,
                                OmplPlanner::ABITstar}) {
      const CostGrid grid = blockScene(rng, 20, 30);
      OmplSettings settings;
      settings.vehicle = vehicle;
      settings.planner = planner;
      settings.turning_radius = 2.5;
      settings.budget_seconds = 0.2;
      settings.simplify = runs % 2 == 0;
      const CellPose start{{2.5, test::randomInt(rng, 2, 17) + 0.5}, 0.0};
      const CellPose goal{{27.5, test::randomInt(rng, 2, 17) + 0.5}, rng.uniform(-1.0, 1.0)};
      settings.goal_heading = goal.heading;  // the start's: towards the goal
      const double towards = std::atan2(start.at.v - goal.at.v, goal.at.u - start.at.u);
      const OmplResult result = planOmpl(grid, start.at, goal.at, settings);
      CAPTURE(std::string(vehicleName(vehicle)));
      CAPTURE(std::string(plannerName(planner)));
      CAPTURE(result.message);
      ++runs;
      if (result.status == OmplStatus::NoSolution) continue;
      REQUIRE(result.status != OmplStatus::InvalidInput);
      checkCarPath(grid, result, {start.at, towards}, goal, settings);
      successes += result.status == OmplStatus::Success;
    }
  }
  // Budgets are wall clock, so a loaded machine may cut a run short; most must still succeed.
  CHECK(successes * 4 >= runs * 3);
}

TEST_CASE("a Reeds-Shepp car backs up to a goal behind it, a Dubins car must loop round, never tighter than its radius") {
  const int rows = 24, cols = 24;
  CostGrid grid;
  grid.rows = rows;
  grid.cols = cols;
  grid.costs.assign(rows * cols, 1.5);
  const CellPose start{{14.5, 12.5}, 0.0}, goal{{10.5, 12.5}, 0.0};  // both facing east, the goal 4 cells behind
  OmplSettings settings;
  settings.planner = OmplPlanner::RRTstar;
  settings.budget_seconds = 0.3;
  settings.turning_radius = 3.0;
  settings.start_heading = start.heading;
  settings.goal_heading = goal.heading;

  settings.vehicle = Vehicle::ReedsShepp;
  const OmplResult back = planOmpl(grid, start.at, goal.at, settings);
  REQUIRE(back.status == OmplStatus::Success);
  CHECK(checkCarPath(grid, back, start, goal, settings) > 0);
  CHECK(back.cost == doctest::Approx(1.5 * 4.0));  // straight back: the shortest Reeds-Shepp path

  settings.vehicle = Vehicle::Dubins;
  const OmplResult loop = planOmpl(grid, start.at, goal.at, settings);
  REQUIRE(loop.status == OmplStatus::Success);
  CHECK(checkCarPath(grid, loop, start, goal, settings) == 0);
  // Forward only, it turns through at least a full circle of radius >= 3 cells.
  CHECK(loop.cost >= 1.5 * 2.0 * kPi * 3.0 * (1 - 1e-9));
}

TEST_CASE("a car's bad settings throw naming the setting and its valid range") {
  CostGrid grid;
  grid.rows = 6;
  grid.cols = 10;
  grid.costs.assign(60, 1.0);
  const CellPoint a{1.5, 1.5}, b{8.5, 4.5};
  OmplSettings car;
  car.vehicle = Vehicle::Dubins;
  // Below a tenth of a cell OMPL's Reeds-Shepp formulas, in turning radii, abort on rounding (1e-300
  // to 1e-3 px did before); beyond a million cells each motion is a walk of millions of steps.
  for (double radius : {0.0, -1.0, kInf, std::nan(""), 1e-300, 1e-6, 1e-3, 0.0999, 1.0000001e6, 1e300}) {
    for (Vehicle vehicle : {Vehicle::Dubins, Vehicle::ReedsShepp}) {
      car.vehicle = vehicle;
      car.turning_radius = radius;
      CAPTURE(radius);
      CHECK_THROWS_WITH_AS(planOmpl(grid, a, b, car), doctest::Contains("turning_radius = "), InvalidArgument);
      CHECK_THROWS_WITH_AS(vehicleSpaceInformation(sharedGrid(6, 10, grid.costs), vehicle, radius),
                           doctest::Contains("cells is out of range: give 0.1 to"), InvalidArgument);
    }
  }
  car.vehicle = Vehicle::Dubins;
  car.turning_radius = -1.0;
  CHECK_THROWS_WITH_AS(planOmpl(grid, a, b, car),
                       doctest::Contains("turning_radius = -1 cells is out of range for a dubins vehicle: give 0.1 to 1000000 cells ("),
                       InvalidArgument);
  car.turning_radius = OmplSettings::kMinTurningRadius;  // the bounds themselves plan
  CHECK(planOmpl(grid, a, b, car).status != OmplStatus::InvalidInput);
  car.turning_radius = 2.0;
  car.start_heading = kInf;
  CHECK_THROWS_WITH_AS(planOmpl(grid, a, b, car), doctest::Contains("start_heading = inf must be a finite angle"), InvalidArgument);
  car.start_heading.reset();
  car.planner = OmplPlanner::PRMstar;
  CHECK_THROWS_WITH_AS(planOmpl(grid, a, b, car),
                       doctest::Contains("prmstar cannot plan for a dubins vehicle: its roadmap drives each motion both ways"),
                       InvalidArgument);
  car.planner = OmplPlanner::FMTstar;
  CHECK_THROWS_WITH_AS(planOmpl(grid, a, b, car), doctest::Contains("fmtstar cannot plan for a dubins vehicle"), InvalidArgument);
  car.planner = OmplPlanner::LazyPRMstar;
  car.vehicle = Vehicle::ReedsShepp;
  CHECK_THROWS_WITH_AS(planOmpl(grid, a, b, car), doctest::Contains("use one of rrtstar, informedrrtstar, bitstar, abitstar"),
                       InvalidArgument);

  OmplSettings point;
  point.turning_radius = 2.0;
  CHECK_THROWS_WITH_AS(planOmpl(grid, a, b, point),
                       doctest::Contains("turning_radius = 2 is for a car-like vehicle (dubins, reeds-shepp); a point vehicle takes 0"),
                       InvalidArgument);
  point.turning_radius = 0.0;
  point.goal_heading = 1.0;
  CHECK_THROWS_WITH_AS(planOmpl(grid, a, b, point), doctest::Contains("goal_heading is for a car-like vehicle"), InvalidArgument);

  const auto shared = sharedGrid(6, 10, grid.costs);
  CHECK_THROWS_WITH_AS(vehicleSpaceInformation(shared, Vehicle::ReedsShepp, 0.0),
                       doctest::Contains("turning radius 0 cells is out of range: give 0.1 to 1000000 cells"), InvalidArgument);
  CHECK_THROWS_AS(vehicleSpaceInformation(shared, Vehicle::Point, 1.0), InvalidArgument);

  for (OmplPlanner planner : omplPlanners()) {
    CHECK(plannerFitsVehicle(planner, Vehicle::Point));
    const bool tree = planner != OmplPlanner::PRMstar && planner != OmplPlanner::LazyPRMstar && planner != OmplPlanner::FMTstar;
    CHECK(plannerFitsVehicle(planner, Vehicle::Dubins) == tree);
    CHECK(plannerFitsVehicle(planner, Vehicle::ReedsShepp) == tree);
  }
  for (Vehicle vehicle : vehicles()) CHECK(parseVehicleName(vehicleName(vehicle)) == vehicle);
  CHECK(parseVehicleName("Reeds_Shepp") == Vehicle::ReedsShepp);
  CHECK(parseVehicleName("DUBINS") == Vehicle::Dubins);
  CHECK_THROWS_WITH_AS(parseVehicleName("bicycle"),
                       doctest::Contains("unknown vehicle \"bicycle\"; valid names: point, dubins, reeds-shepp"), InvalidArgument);

  // Lengths in cells: world units with a world frame, pixels without.
  CostGrid pixels = grid;
  pixels.cell_size = 4;
  CHECK(pixels.cellsOfLength(10.0) == 2.5);
  pixels.frame = WorldFrame::located(6, 10, 0.5, {100.0, 200.0});
  CHECK(pixels.cellsOfLength(10.0) == 20.0);
}

// OMPL 1.5.2's DubinsStateSpace::dubins asserts each word against a 2e-6 tolerance and aborts the
// process (Debian builds it with assertions): poses RRT* makes -- a state interpolated onto a curve,
// then curves from and to it -- exceeded it at radii of 0.1, 0.5 and 3 cells within 8,000 such steps
// (this loop on OMPL's space, three seeds each).  mmp's Dubins space computes its words itself; the
// Reeds-Shepp formulas held on 1.5 million such steps at 0.05, 0.5, 3 and 10 cells.
TEST_CASE("the car spaces never abort on the poses the planners make, and mmp's Dubins words are OMPL's") {
  Random rng(5);
  const int size = 200;
  const auto grid = sharedGrid(size, size, std::vector<double>(size * size, 1.0));
  for (Vehicle vehicle : {Vehicle::Dubins, Vehicle::ReedsShepp}) {
    for (double radius : {OmplSettings::kMinTurningRadius, 0.5, 3.0, 40.0}) {
      CAPTURE(std::string(vehicleName(vehicle)));
      CAPTURE(radius);
      const auto si = vehicleSpaceInformation(grid, vehicle, radius);
      const ob::StateSpace& space = *si->getStateSpace();
      std::vector<ob::ScopedState<>> pool;
      for (int i = 0; i < 50; ++i) pool.push_back(poseState(si, randomPose(rng, size, size)));
      ob::ScopedState<> at(si);
      for (int i = 0; i < 5000; ++i) {
        const auto& from = pool[static_cast<std::size_t>(test::randomInt(rng, 0, static_cast<int>(pool.size()) - 1))];
        const auto& to = pool[static_cast<std::size_t>(test::randomInt(rng, 0, static_cast<int>(pool.size()) - 1))];
        // Steps as RRT* takes them: a fraction of a motion, a thousandth of one too.
        space.interpolate(from.get(), to.get(), rng.uniform(0.0, 1.0) * (i % 4 == 0 ? 1e-3 : 1.0), at.get());
        const double sum = space.distance(from.get(), at.get()) + space.distance(at.get(), from.get()) +
                           space.distance(at.get(), to.get()) + space.distance(to.get(), at.get());
        CHECK(std::isfinite(sum));
        if (pool.size() < 2000) pool.push_back(at);
        else pool[static_cast<std::size_t>(test::randomInt(rng, 0, 1999))] = at;
      }
    }
  }
  // On poses in general position OMPL's own space does not assert: the same distances and interpolations.
  for (double radius : {0.1, 2.5, 9.0}) {
    const auto si = vehicleSpaceInformation(sharedGrid(30, 40, std::vector<double>(30 * 40, 1.0)), Vehicle::Dubins, radius);
    const auto ompl_space = std::make_shared<ob::DubinsStateSpace>(radius, false);
    ob::ScopedState<> ours(si), theirs(ompl_space);
    for (int trial = 0; trial < 200; ++trial) {
      const auto a = poseState(si, randomPose(rng, 30, 40)), b = poseState(si, randomPose(rng, 30, 40));
      CAPTURE(radius);
      CHECK(si->distance(a.get(), b.get()) == doctest::Approx(ompl_space->distance(a.get(), b.get())).epsilon(1e-12));
      const double t = rng.uniform(0.0, 1.0);
      si->getStateSpace()->interpolate(a.get(), b.get(), t, ours.get());
      ompl_space->interpolate(a.get(), b.get(), t, theirs.get());
      const CellPose p = cellPoseOf(ours.get()), q = cellPoseOf(theirs.get());
      CHECK(std::hypot(p.at.u - q.at.u, p.at.v - q.at.v) < 1e-7 * radius);
      CHECK(angleBetween(p.heading, q.heading) < 1e-7);
    }
  }
}

TEST_CASE("planOmpl with a car of 3 cells and the radius bounds on RRT*, BIT* and ABIT*: a plan or a status, never an abort or a hang") {
  Random rng(13);
  for (Vehicle vehicle : {Vehicle::Dubins, Vehicle::ReedsShepp}) {
    for (OmplPlanner planner : {OmplPlanner::RRTstar, OmplPlanner::BITstar, OmplPlanner::ABITstar}) {
      for (double radius : {OmplSettings::kMinTurningRadius, 3.0}) {
        // Even costs too: a solution at the heuristic's bound leaves BIT* a thin informed set, where
        // its rejection sampling ran past any budget before (GridCostObjective::kInformedSampleDraws).
        CostGrid grid = blockScene(rng, 40, 60);
        if (radius == 3.0) grid.costs.assign(grid.costs.size(), 1.0);
        OmplSettings settings;
        settings.vehicle = vehicle;
        settings.planner = planner;
        settings.turning_radius = radius;
        settings.budget_seconds = 0.2;
        const OmplResult result = planOmpl(grid, {2.5, 20.5}, {57.5, 30.5}, settings);
        CAPTURE(std::string(vehicleName(vehicle)));
        CAPTURE(std::string(plannerName(planner)));
        CAPTURE(radius);
        CHECK(result.status != OmplStatus::InvalidInput);
      }
    }
  }
}
