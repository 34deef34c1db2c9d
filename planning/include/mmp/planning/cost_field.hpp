// Cost field: a CostGrid read as a cost over the continuous plane of cell coordinates (u, v), and the
// cost of any polyline on it -- what the OMPL objective (ompl_objective.hpp) integrates, and how an
// OMPL path and A*'s cell-centre path are scored on the same scale.
//
//   const double c = mmp::interpolatedCost(grid, {3.2, 7.9});        // bilinear between cell centres
//   const double a = mmp::polylineCost(grid, mmp::cellCentres(plan.path, grid.cols));  // == plan.cost
//
// Units are GridPlanner's: cell cost x length in cells.  The segment rule is the grid planner's
// trapezoid rule (DESIGN.md): a straight segment between two cell centres along a row, a column or a
// diagonal costs exactly what GridPlanner charges for the same cells.  Unlike the grid planner, a
// polyline may take any angle, so its cost can be BELOW the 8-neighbour optimum (a straight "knight's
// move" of length sqrt 5 against A*'s 1 + sqrt 2 on uniform costs): compare, do not assume an order.
//
// Pure functions of the grid: safe to call from several threads at once.
#pragma once

#include <mmp/core/world_frame.hpp>
#include <mmp/planning/cost_grid.hpp>

#include <limits>
#include <vector>

namespace mmp {

/*!
    requires: grid.costs.size() == grid.rows * grid.cols >= 1
    ensures
        - the bilinear interpolation of the cell-centre costs around p (cell (r, c)'s centre is
          (c + 0.5, r + 0.5)), with the weights of impassable centres dropped and the rest
          renormalised; beyond the outermost centres the coordinates are clamped (constant
          extrapolation)
        - at a passable cell's centre: exactly that cell's cost
        - +inf if every centre with a positive weight is impassable (never for p inside a passable
          cell: its own centre always weighs >= 1/4), or if p is not finite
        - between the smallest and the largest passable cost otherwise
!*/
double interpolatedCost(const CostGrid& grid, CellPoint p);

/*!
    ensures
        - the trapezoid integral of interpolatedCost along the straight segment a -> b: the segment is
          cut into n = max(1, ceil(max(|du|, |dv|))) equal pieces p_0 = a, ..., p_n = b and the result
          is sum_k |p_{k+1} - p_k| (c(p_k) + c(p_{k+1})) / 2
        - between a row, column or diagonal pair of cell centres the p_k are the centres of the
          cells in between, so the result is GridPlanner's cost of those steps
        - 0 when a == b; if some p_k has infinite cost (the segment crosses impassable cells),
          +inf, or with a finite impassable_cost that figure in place of each such c(p_k)
!*/
double segmentCost(const CostGrid& grid, CellPoint a, CellPoint b,
                   double impassable_cost = std::numeric_limits<double>::infinity());

/// The sum of segmentCost over consecutive points (0 for fewer than two points).
double polylineCost(const CostGrid& grid, const std::vector<CellPoint>& path);

/// The smallest passable cell cost, +inf if every cell is impassable: scales admissible heuristics
/// (no segment a -> b costs less than smallestCost x |b - a|).
double smallestCost(const CostGrid& grid);

/// The centres of a GridPlanner path's cells (r * cols + c -> (c + 0.5, r + 0.5)).
std::vector<CellPoint> cellCentres(const std::vector<int>& path, int cols);

/// True if p lies inside the grid (u in [0, cols), v in [0, rows)) in a passable cell; false for NaN.
bool pointPassable(const CostGrid& grid, CellPoint p);

/*!
    ensures
        - every cell r * cols + c the straight segment a -> b passes through, in order from a's cell
          to b's, each once: the half-open cells of world_frame.hpp ([c, c + 1) x [r, r + 1)) that
          hold a point of the segment (grid traversal, Amanatides and Woo 1987), plus, where the
          segment passes through a cell corner (within 1e-9 cells), both cells beside the corner
          that it only touches (conservatively, so no diagonal squeezes between two cells)
        - cells outside the grid are listed as -1 (once per excursion step)
        - a segment lying exactly on a cell edge counts as inside the cells on the edge's + side
          (the half-open convention, as for points)
!*/
std::vector<int> cellsOnSegment(int rows, int cols, CellPoint a, CellPoint b);

/*!
    ensures
        - true if a, b and every cell cellsOnSegment lists for a -> b lie inside the grid and are
          passable
        - if not and first_blocked is given: *first_blocked = the segment parameter t in [0, 1] at
          which the segment enters the first cell that is impassable or outside (0 if a's own is)
!*/
bool segmentPassable(const CostGrid& grid, CellPoint a, CellPoint b, double* first_blocked = nullptr);

}  // namespace mmp
