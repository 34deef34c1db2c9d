#include <mmp/planning/path.hpp>

#include "constants.hpp"

#include <mmp/core/error.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace mmp {
namespace {

using planning_constants::kSqrt2;

// Length of the step between two neighbouring cells (1 or sqrt 2).
inline double stepLength(int a, int b, int cols) { return (a / cols != b / cols && a % cols != b % cols) ? kSqrt2 : 1.0; }

std::string cellAt(const std::vector<int>& path, std::size_t i, int cols) {
  return "path index " + std::to_string(i) + ", cell (row " + std::to_string(path[i] / cols) + ", col " +
         std::to_string(path[i] % cols) + ")";
}

}  // namespace

double pathLength(const std::vector<int>& path, int cols) {
  double length = 0.0;
  for (std::size_t i = 1; i < path.size(); ++i) length += stepLength(path[i - 1], path[i], cols);
  return length;
}

double nearestCellDistance(int cell, const std::vector<int>& to, int cols) {
  double nearest = std::numeric_limits<double>::infinity();  // squared: exact for cells of any grid mmp reads
  for (int t : to) {
    const double dr = cell / cols - t / cols, dc = cell % cols - t % cols;
    nearest = std::min(nearest, dr * dr + dc * dc);
  }
  return std::sqrt(nearest);
}

double pathIntegral(const std::vector<int>& path, int cols, const std::vector<double>& values) {
  double sum = 0.0;
  for (std::size_t i = 1; i < path.size(); ++i) {
    const int a = path[i - 1], b = path[i];
    sum += stepLength(a, b, cols) * 0.5 * (values[static_cast<std::size_t>(a)] + values[static_cast<std::size_t>(b)]);
  }
  return sum;
}

void addPathVisits(const std::vector<int>& path, int cols, double scale, std::vector<double>& visits) {
  for (std::size_t i = 1; i < path.size(); ++i) {
    const double half = scale * 0.5 * stepLength(path[i - 1], path[i], cols);
    visits[static_cast<std::size_t>(path[i - 1])] += half;
    visits[static_cast<std::size_t>(path[i])] += half;
  }
}

void pathFeatures(const std::vector<int>& path, const FeatureMap& map, Eigen::VectorXd& out) {
  out.setZero(map.features());
  for (std::size_t i = 1; i < path.size(); ++i) {
    const double half = 0.5 * stepLength(path[i - 1], path[i], map.cols());
    map.addCell(path[i - 1], half, out);
    map.addCell(path[i], half, out);
  }
}

void validatePath(const std::vector<int>& path, int rows, int cols, Connectivity connectivity,
                  const std::vector<std::uint8_t>& blocked) {
  if (path.empty()) throw InvalidArgument("path: it is empty; a demonstration needs at least its start cell");
  const long long n = static_cast<long long>(rows) * cols;
  for (std::size_t i = 0; i < path.size(); ++i) {
    if (path[i] < 0 || path[i] >= n) {
      throw InvalidArgument("path: index " + std::to_string(i) + " holds cell " + std::to_string(path[i]) +
                            ", outside the " + std::to_string(rows) + " x " + std::to_string(cols) + " grid");
    }
    if (!blocked.empty() && blocked[static_cast<std::size_t>(path[i])]) {
      throw InvalidArgument("path: " + cellAt(path, i, cols) + " is impassable");
    }
    if (i == 0) continue;
    const int dr = std::abs(path[i] / cols - path[i - 1] / cols), dc = std::abs(path[i] % cols - path[i - 1] % cols);
    const bool neighbour = connectivity == Connectivity::Eight ? (dr <= 1 && dc <= 1 && dr + dc > 0) : dr + dc == 1;
    if (!neighbour) {
      throw InvalidArgument("path: the step to " + cellAt(path, i, cols) + " from " + cellAt(path, i - 1, cols) +
                            " is not to a neighbour (" +
                            (connectivity == Connectivity::Eight ? "8-connected" : "4-connected") + ")");
    }
  }
}

std::vector<int> rasterizePolyline(const std::vector<std::pair<int, int>>& points, int cols, Connectivity connectivity) {
  std::vector<int> cells;
  if (points.empty()) return cells;
  int r = points.front().first, c = points.front().second;
  cells.push_back(r * cols + c);
  for (std::size_t i = 1; i < points.size(); ++i) {
    const int r1 = points[i].first, c1 = points[i].second;
    const int dr = std::abs(r1 - r), dc = std::abs(c1 - c);
    const int sr = r < r1 ? 1 : -1, sc = c < c1 ? 1 : -1;
    int error = dc - dr;  // Bresenham over both octant families
    while (r != r1 || c != c1) {
      const int twice = 2 * error;
      const bool step_c = twice > -dr, step_r = twice < dc;
      if (step_c && step_r && connectivity == Connectivity::Four) {
        error -= dr;
        c += sc;
        cells.push_back(r * cols + c);
        error += dc;
        r += sr;
      } else {
        if (step_c) error -= dr, c += sc;
        if (step_r) error += dc, r += sr;
      }
      cells.push_back(r * cols + c);
    }
  }
  return cells;
}

}  // namespace mmp
