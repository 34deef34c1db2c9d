// Paths on a grid as cell lists, and what is integrated along them.
//
// A path is a list of cell indices s = r * cols + c, each step to one of the 8 (or 4) neighbours.
// Everything summed along a path uses the trapezoid rule of DESIGN.md (OMPL's
// StateCostIntegralObjective does the same for motion cost):
//     integral of v along y = sum over steps (a, b) of |b - a| * (v(a) + v(b)) / 2
// so a path's cost, its loss and its feature counts F(y) are all linear in the per-cell values.
#pragma once

#include <mmp/core/feature_map.hpp>
#include <mmp/planning/grid_planner.hpp>

#include <Eigen/Dense>
#include <utility>
#include <vector>

namespace mmp {

/// Euclidean length of a path in cells (1 per axis step, sqrt 2 per diagonal step).
double pathLength(const std::vector<int>& path, int cols);

/// The Euclidean distance in cells from cell `cell` to the nearest cell of `to` (+inf if `to` is empty):
/// the one nearest-cell distance of path comparisons (MHD, the held-out plans, the suggestion rules).
double nearestCellDistance(int cell, const std::vector<int>& to, int cols);

/// Trapezoid integral of per-cell values along the path.
double pathIntegral(const std::vector<int>& path, int cols, const std::vector<double>& values);

/// visits[s] += scale * the trapezoid weight of cell s along the path (half of each step that
/// touches it, summed), the weight pathIntegral gives v(s): pathIntegral(path, cols, v) ==
/// sum_s visits[s] v(s) for scale 1 and zero visits.  requires: visits.size() > every cell.
void addPathVisits(const std::vector<int>& path, int cols, double scale, std::vector<double>& visits);

/// F(y): the trapezoid integral of every feature along the path (size map.features()).
void pathFeatures(const std::vector<int>& path, const FeatureMap& map, Eigen::VectorXd& out);

/*!
    ensures: throws mmp::InvalidArgument unless the path is a usable demonstration on this grid:
        non-empty, every cell inside the grid and passable (finite `costs` if given, not blocked in
        `blocked` if given), every step to a neighbour under `connectivity`, no cell repeated
        back-to-back; the message names the index in the path and the cell (row, col).
!*/
void validatePath(const std::vector<int>& path, int rows, int cols, Connectivity connectivity,
                  const std::vector<std::uint8_t>& blocked = {});

/// Joins (row, col) points into a path of 8-adjacent cells by straight segments (Bresenham);
/// with Connectivity::Four the segments take axis steps only.
std::vector<int> rasterizePolyline(const std::vector<std::pair<int, int>>& points, int cols,
                                   Connectivity connectivity = Connectivity::Eight);

}  // namespace mmp
