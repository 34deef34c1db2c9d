// Reference solvers and generators for the planning tests.
#pragma once

#include <mmp/core/feature_map.hpp>
#include <mmp/core/random.hpp>
#include <mmp/planning/cost_grid.hpp>

#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <queue>
#include <vector>

namespace mmp::test {

/// A grid of `costs` (row-major, rows x cols, no world frame), shared as the OMPL objectives take it.
inline std::shared_ptr<const CostGrid> sharedGrid(int rows, int cols, std::vector<double> costs) {
  auto grid = std::make_shared<CostGrid>();
  grid->rows = rows;
  grid->cols = cols;
  grid->costs = std::move(costs);
  return grid;
}

/// Textbook Dijkstra with a binary heap over the same step costs as the planner.
inline std::vector<double> referenceDistances(int rows, int cols, const std::vector<double>& costs, int start,
                                              int connectivity = 8) {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> dist(costs.size(), inf);
  using Item = std::pair<double, int>;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> open;
  dist[start] = 0.0;
  open.push({0.0, start});
  while (!open.empty()) {
    const auto [d, u] = open.top();
    open.pop();
    if (d > dist[u]) continue;
    for (int dr = -1; dr <= 1; ++dr) {
      for (int dc = -1; dc <= 1; ++dc) {
        if ((dr == 0 && dc == 0) || (connectivity == 4 && dr != 0 && dc != 0)) continue;
        const int r = u / cols + dr, c = u % cols + dc;
        if (r < 0 || r >= rows || c < 0 || c >= cols) continue;
        const int v = r * cols + c;
        if (!std::isfinite(costs[v])) continue;
        const double step = (dr != 0 && dc != 0 ? std::sqrt(2.0) : 1.0) * 0.5 * (costs[u] + costs[v]);
        if (d + step < dist[v]) {
          dist[v] = d + step;
          open.push({dist[v], v});
        }
      }
    }
  }
  return dist;
}

/// Costs in [lo, hi] with a share of impassable cells.
inline std::vector<double> randomCosts(Random& rng, int cells, double lo, double hi, double blocked_share) {
  std::vector<double> costs(cells);
  for (double& c : costs) c = rng.uniform() < blocked_share ? std::numeric_limits<double>::infinity() : rng.uniform(lo, hi);
  return costs;
}

/// A feature map of smooth random fields in [0, 1] (sums of Gaussian bumps), feature 0 = bias 1.
inline FeatureMap smoothFeatureMap(Random& rng, int rows, int cols, int features) {
  std::vector<float> values(static_cast<std::size_t>(rows) * cols * features);
  for (int k = 0; k < features; ++k) {
    std::vector<double> field(static_cast<std::size_t>(rows) * cols, 0.0);
    for (int bump = 0; bump < 4; ++bump) {
      const double r0 = rng.uniform(0.0, rows), c0 = rng.uniform(0.0, cols), w = rng.uniform(2.0, 0.3 * std::max(rows, cols));
      for (int r = 0; r < rows; ++r) {
        for (int c = 0; c < cols; ++c) {
          field[static_cast<std::size_t>(r) * cols + c] += std::exp(-((r - r0) * (r - r0) + (c - c0) * (c - c0)) / (2 * w * w));
        }
      }
    }
    double lo = field[0], hi = field[0];
    for (double v : field) lo = std::min(lo, v), hi = std::max(hi, v);
    for (std::size_t s = 0; s < field.size(); ++s) {
      values[s * features + k] = k == 0 ? 1.0f : static_cast<float>((field[s] - lo) / (hi - lo + 1e-12));
    }
  }
  return FeatureMap(rows, cols, features, std::move(values));
}

}  // namespace mmp::test
