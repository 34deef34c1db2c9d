#include <mmp/planning/cost_field.hpp>
#include <mmp/core/numbers.hpp>

#include "constants.hpp"

#include <mmp/core/error.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace mmp {
namespace {

// How close (in cells) a segment must pass to a cell corner to count as passing through it.
constexpr double kCornerTolerance = 1e-9;

bool finite(CellPoint p) { return std::isfinite(p.u) && std::isfinite(p.v); }

// Inside the closed extent [0, cols] x [0, rows], where the traversal below is defined.
bool withinExtent(int rows, int cols, CellPoint p) {
  return finite(p) && p.u >= 0.0 && p.v >= 0.0 && p.u <= cols && p.v <= rows;
}

// Amanatides and Woo's traversal ("A fast voxel traversal algorithm for ray tracing", Eurographics
// 1987): visit(cell, t) for every cell the segment a -> b enters, t its segment parameter at entry;
// -1 for a cell outside the grid.  Stops when visit returns false.  Each axis is stepped exactly as
// many times as the floor of the end point differs from the floor of the start, so the walk ends in
// b's cell whatever the rounding of the crossing parameters.  requires: withinExtent(a), withinExtent(b).
template <class Visit>
void traverse(int rows, int cols, CellPoint a, CellPoint b, Visit&& visit) {
  const auto cell = [rows, cols](int r, int c) { return r >= 0 && r < rows && c >= 0 && c < cols ? r * cols + c : -1; };
  int c = static_cast<int>(std::floor(a.u)), r = static_cast<int>(std::floor(a.v));
  const int c_end = static_cast<int>(std::floor(b.u)), r_end = static_cast<int>(std::floor(b.v));
  if (!visit(cell(r, c), 0.0)) return;
  const double du = b.u - a.u, dv = b.v - a.v;
  const int step_c = c_end >= c ? 1 : -1, step_r = r_end >= r ? 1 : -1;
  int left_c = std::abs(c_end - c), left_r = std::abs(r_end - r);
  // The parameter at the next column (u = integer) and row boundary crossed, and between two crossings.
  // Moving towards -u the boundary is the cell's own lower edge u = c: the half-open cell is left
  // only below it.
  double t_c = left_c > 0 ? ((step_c > 0 ? c + 1 : c) - a.u) / du : kInf;
  double t_r = left_r > 0 ? ((step_r > 0 ? r + 1 : r) - a.v) / dv : kInf;
  const double dt_c = left_c > 0 ? 1.0 / std::abs(du) : kInf, dt_r = left_r > 0 ? 1.0 / std::abs(dv) : kInf;
  const double span = std::max(std::abs(du), std::abs(dv));  // cells per unit of t along the longer axis
  while (left_c > 0 || left_r > 0) {
    double t;
    if (left_c > 0 && left_r > 0 && std::abs(t_c - t_r) * span <= kCornerTolerance) {
      // Through a corner: the two cells beside it are touched, and count (conservatively).
      t = std::min(t_c, t_r);
      if (!visit(cell(r, c + step_c), std::min(t, 1.0)) || !visit(cell(r + step_r, c), std::min(t, 1.0))) return;
      c += step_c, r += step_r, --left_c, --left_r, t_c += dt_c, t_r += dt_r;
    } else if (left_r == 0 || (left_c > 0 && t_c < t_r)) {
      t = t_c;
      c += step_c, --left_c, t_c += dt_c;
    } else {
      t = t_r;
      r += step_r, --left_r, t_r += dt_r;
    }
    if (!visit(cell(r, c), std::min(t, 1.0))) return;
  }
}

}  // namespace

double interpolatedCost(const CostGrid& grid, CellPoint p) {
  if (!finite(p)) return kInf;
  // Continuous coordinates of the cell centres' lattice, clamped to its extent.
  const double x = std::clamp(p.u - 0.5, 0.0, static_cast<double>(grid.cols - 1));
  const double y = std::clamp(p.v - 0.5, 0.0, static_cast<double>(grid.rows - 1));
  const int c0 = static_cast<int>(x), r0 = static_cast<int>(y);
  const int c1 = std::min(c0 + 1, grid.cols - 1), r1 = std::min(r0 + 1, grid.rows - 1);
  const double fx = x - c0, fy = y - r0;
  double weighted = 0.0, weight = 0.0;
  const auto add = [&](int r, int c, double w) {
    const double cost = grid.costs[static_cast<std::size_t>(r) * grid.cols + c];
    if (w > 0.0 && cost != kInf) weighted += w * cost, weight += w;
  };
  add(r0, c0, (1.0 - fx) * (1.0 - fy));
  add(r0, c1, fx * (1.0 - fy));
  add(r1, c0, (1.0 - fx) * fy);
  add(r1, c1, fx * fy);
  return weight > 0.0 ? weighted / weight : kInf;
}

double segmentCost(const CostGrid& grid, CellPoint a, CellPoint b, double impassable_cost) {
  const double du = b.u - a.u, dv = b.v - a.v;
  if (du == 0.0 && dv == 0.0) return 0.0;
  const double span = std::max(std::abs(du), std::abs(dv));
  if (!std::isfinite(span)) return kInf;
  const long n = std::max(1L, static_cast<long>(std::ceil(span)));
  // The pieces' points are a + k (b - a) / n, written (du k) / n so that between cell centres (du an
  // integer multiple of n) they land exactly on the centres and take their cells' costs exactly.
  const auto cost = [&](CellPoint p) {
    const double c = interpolatedCost(grid, p);
    return c == kInf ? impassable_cost : c;
  };
  double sum = 0.5 * (cost(a) + cost(b));
  for (long k = 1; k < n; ++k) {
    const double s = static_cast<double>(k);
    sum += cost({a.u + du * s / static_cast<double>(n), a.v + dv * s / static_cast<double>(n)});
  }
  return std::hypot(du, dv) / static_cast<double>(n) * sum;
}

double polylineCost(const CostGrid& grid, const std::vector<CellPoint>& path) {
  double cost = 0.0;
  for (std::size_t i = 1; i < path.size(); ++i) cost += segmentCost(grid, path[i - 1], path[i]);
  return cost;
}

double smallestCost(const CostGrid& grid) {
  double lowest = kInf;
  for (double c : grid.costs) lowest = std::min(lowest, c);
  return lowest;
}

std::vector<CellPoint> cellCentres(const std::vector<int>& path, int cols) {
  std::vector<CellPoint> points;
  points.reserve(path.size());
  for (int s : path) points.push_back({s % cols + 0.5, s / cols + 0.5});
  return points;
}

bool pointPassable(const CostGrid& grid, CellPoint p) {
  // Written so that NaN fails every comparison.
  if (!(p.u >= 0.0 && p.v >= 0.0 && p.u < grid.cols && p.v < grid.rows)) return false;
  return !grid.blocked(static_cast<int>(p.v) * grid.cols + static_cast<int>(p.u));
}

std::vector<int> cellsOnSegment(int rows, int cols, CellPoint a, CellPoint b) {
  for (const CellPoint p : {a, b}) {
    if (!withinExtent(rows, cols, p)) {
      throw InvalidArgument("cellsOnSegment: point (" + std::to_string(p.u) + ", " + std::to_string(p.v) +
                            ") is not within u in [0, " + std::to_string(cols) + "], v in [0, " + std::to_string(rows) + "]");
    }
  }
  std::vector<int> cells;
  traverse(rows, cols, a, b, [&cells](int cell, double) {
    cells.push_back(cell);
    return true;
  });
  return cells;
}

bool segmentPassable(const CostGrid& grid, CellPoint a, CellPoint b, double* first_blocked) {
  if (!withinExtent(grid.rows, grid.cols, a) || !withinExtent(grid.rows, grid.cols, b)) {
    if (first_blocked) *first_blocked = 0.0;
    return false;
  }
  bool passable = true;
  traverse(grid.rows, grid.cols, a, b, [&](int cell, double t) {
    if (cell >= 0 && !grid.blocked(cell)) return true;
    passable = false;
    if (first_blocked) *first_blocked = t;
    return false;
  });
  return passable;
}

}  // namespace mmp
