// The OMPL side of planning on a CostGrid: the optimization objective (the learned cost integrated
// along a motion), the state validity checker and the motion validator, over a 2-D RealVectorStateSpace
// in continuous cell coordinates (u, v) with bounds [0, cols] x [0, rows] (world_frame.hpp).  For
// custom OMPL set-ups; planOmpl (ompl_planning.hpp) wires them to a planner and needs no OMPL header.
//
//   auto grid = std::make_shared<const mmp::CostGrid>(model.costs(image));
//   ompl::base::SpaceInformationPtr si = mmp::gridSpaceInformation(grid);      // validity set up
//   pdef->setOptimizationObjective(std::make_shared<mmp::GridCostObjective>(si, grid));
//
// Part of the mmp::planning_ompl target (links OMPL).  gridSpaceInformation (and planOmpl) silence
// OMPL's console output for the whole process the first time they run: mmp never prints.
#pragma once

#include <mmp/planning/cost_grid.hpp>

#include <ompl/base/MotionValidator.h>
#include <ompl/base/SpaceInformation.h>
#include <ompl/base/StateValidityChecker.h>
#include <ompl/base/objectives/StateCostIntegralObjective.h>

#include <memory>

namespace mmp {

/// The (u, v) of a state of gridSpaceInformation's space.
CellPoint cellPointOf(const ompl::base::State* state);

/*!
    WHAT THIS OBJECT REPRESENTS
        The learned cost of a CostGrid as an OMPL state-cost integral (DESIGN.md "OMPL"): the cost of
        a state is interpolatedCost (bilinear between cell centres, impassable centres left out),
        the cost of a motion is segmentCost (the trapezoid rule on pieces of at most one cell per
        axis: between cell centres along a row, column or diagonal exactly GridPlanner's step
        costs), and both heuristics are smallestCost x Euclidean distance, admissible, so informed
        planners (Informed RRT*, BIT*) prune with them.  Costs are in GridPlanner's units, cell cost x
        cells, so an OMPL path's cost divided by the A* optimum is a meaningful ratio (which may be
        below 1: a straight motion may take any angle, A* only 8 directions).
        A motion across impassable cells is invalid (GridMotionValidator) and never part of a
        solution; its cost is finite all the same -- each point of it where segmentCost would
        see +inf counts impassableStandIn() = 1e6 x the largest passable cost -- because lazy
        planners search over motions they have not checked yet, and Lazy PRM* gives up with an
        exception ("Could not find solution path") when those cost +inf.
    WHEN NOT TO USE
        OMPL's asymptotic optimality is proven for path length, not for every objective: for the
        exact optimum on the grid's own 8-neighbour graph use GridPlanner.
    THREAD SAFETY
        Every method is const and reads the grid only: safe from several threads (PRM* calls from two).
!*/
class GridCostObjective : public ompl::base::StateCostIntegralObjective {
 public:
  /// requires: si's space is gridSpaceInformation's (2-D, cell coordinates); grid non-empty with a
  /// passable cell (throws mmp::InvalidArgument otherwise).  Sets the cost-to-go heuristic.
  GridCostObjective(const ompl::base::SpaceInformationPtr& si, std::shared_ptr<const CostGrid> grid);

  ompl::base::Cost stateCost(const ompl::base::State* s) const override;
  ompl::base::Cost motionCost(const ompl::base::State* s1, const ompl::base::State* s2) const override;
  /// smallestCost x |s2 - s1| <= motionCost(s1, s2).
  ompl::base::Cost motionCostHeuristic(const ompl::base::State* s1, const ompl::base::State* s2) const override;

  double smallestCost() const { return smallest_cost_; }
  double impassableStandIn() const { return impassable_stand_in_; }

  /// The informed planners' sampler: OMPL's rejection sampling (the default for an objective without
  /// a direct scheme) with at most kInformedSampleDraws draws a sample.  BIT* and ABIT* ask for up to
  /// UINT_MAX draws and do not look at the clock meanwhile: where the informed set is thin (a
  /// solution near the heuristic's bound, as a car's on a small grid of even costs) one batch ran far
  /// past any budget.  Informed RRT* asks for 100 itself.
  ompl::base::InformedSamplerPtr allocInformedStateSampler(const ompl::base::ProblemDefinitionPtr& problem,
                                                           unsigned int max_calls) const override;
  static constexpr unsigned int kInformedSampleDraws = 100;

 protected:
  const CostGrid& grid() const { return *grid_; }

 private:
  std::shared_ptr<const CostGrid> grid_;
  double smallest_cost_, impassable_stand_in_;
};

/// A state is valid when it lies inside the grid, u in [0, cols) and v in [0, rows), in a passable cell.
class GridValidityChecker : public ompl::base::StateValidityChecker {
 public:
  GridValidityChecker(const ompl::base::SpaceInformationPtr& si, std::shared_ptr<const CostGrid> grid);
  bool isValid(const ompl::base::State* state) const override;

 private:
  std::shared_ptr<const CostGrid> grid_;
};

/*!
    WHAT THIS OBJECT REPRESENTS
        Exact motion checking on the grid: a motion is valid when every cell its segment passes
        through is passable (segmentPassable: grid traversal, a corner passed through counts both
        cells beside it), so no solution made of valid motions ever enters an impassable cell --
        not even the diagonal squeeze between two blocked cells that GridPlanner allows.
    THREAD SAFETY
        const, reads the grid only; the valid/invalid motion counters of ompl::base::MotionValidator
        are not kept (they would race under multi-threaded planners).
!*/
class GridMotionValidator : public ompl::base::MotionValidator {
 public:
  GridMotionValidator(const ompl::base::SpaceInformationPtr& si, std::shared_ptr<const CostGrid> grid);
  bool checkMotion(const ompl::base::State* s1, const ompl::base::State* s2) const override;
  /// On failure last_valid holds a valid state on the segment before the first blocked cell (s1 if
  /// none is found a little before it) and its segment parameter.
  bool checkMotion(const ompl::base::State* s1, const ompl::base::State* s2,
                   std::pair<ompl::base::State*, double>& last_valid) const override;

 private:
  std::shared_ptr<const CostGrid> grid_;
};

/// A set-up SpaceInformation over the grid: RealVectorStateSpace(2) with bounds [0, cols] x [0, rows],
/// GridValidityChecker and GridMotionValidator.  Throws mmp::InvalidArgument for an empty grid or a
/// cost vector of the wrong size.
ompl::base::SpaceInformationPtr gridSpaceInformation(std::shared_ptr<const CostGrid> grid);

}  // namespace mmp
