#include <mmp/planning/loss.hpp>

#include <mmp/core/error.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace mmp {
namespace {

constexpr double kFar = 1e20;  // "no path cell": large but finite, so the parabola algebra stays finite

// Squared distance transform of a 1-D sampled function (Felzenszwalb and Huttenlocher 2012): the
// lower envelope of the parabolas (q - p)^2 + f(p).
void squaredDistance1d(const std::vector<double>& f, std::vector<double>& d, std::vector<int>& v,
                       std::vector<double>& z) {
  const int n = static_cast<int>(f.size());
  int k = 0;
  v[0] = 0;
  z[0] = -std::numeric_limits<double>::infinity();
  z[1] = std::numeric_limits<double>::infinity();
  for (int q = 1; q < n; ++q) {
    // z[0] = -inf ends the loop at k = 0 at the latest.
    double s = ((f[q] + double(q) * q) - (f[v[k]] + double(v[k]) * v[k])) / (2.0 * (q - v[k]));
    while (s <= z[k]) {
      --k;
      s = ((f[q] + double(q) * q) - (f[v[k]] + double(v[k]) * v[k])) / (2.0 * (q - v[k]));
    }
    ++k;
    v[k] = q;
    z[k] = s;
    z[k + 1] = std::numeric_limits<double>::infinity();
  }
  k = 0;
  for (int q = 0; q < n; ++q) {
    while (z[k + 1] < q) ++k;
    d[q] = double(q - v[k]) * (q - v[k]) + f[v[k]];
  }
}

}  // namespace

LossShape parseLossShape(const std::string& name) {
  if (name == "linear") return LossShape::Linear;
  if (name == "step") return LossShape::Step;
  if (name == "gaussian") return LossShape::Gaussian;
  throw InvalidArgument("loss shape '" + name + "' is unknown (valid: linear, step, gaussian)");
}

const char* describe(LossShape shape) {
  switch (shape) {
    case LossShape::Linear: return "linear";
    case LossShape::Step: return "step";
    case LossShape::Gaussian: return "gaussian";
  }
  return "?";
}

std::vector<double> distanceToPath(int rows, int cols, const std::vector<int>& path) {
  std::vector<double> grid(static_cast<std::size_t>(rows) * cols, kFar);
  for (int s : path) grid[static_cast<std::size_t>(s)] = 0.0;
  const int longest = std::max(rows, cols);
  std::vector<double> f(longest), d(longest), z(longest + 1);
  std::vector<int> v(longest);
  // Columns, then rows: the 2-D squared EDT separates.
  f.resize(rows), d.resize(rows);
  for (int c = 0; c < cols; ++c) {
    for (int r = 0; r < rows; ++r) f[r] = grid[static_cast<std::size_t>(r) * cols + c];
    squaredDistance1d(f, d, v, z);
    for (int r = 0; r < rows; ++r) grid[static_cast<std::size_t>(r) * cols + c] = d[r];
  }
  f.resize(cols), d.resize(cols);
  for (int r = 0; r < rows; ++r) {
    std::copy_n(grid.begin() + static_cast<std::ptrdiff_t>(r) * cols, cols, f.begin());
    squaredDistance1d(f, d, v, z);
    for (int c = 0; c < cols; ++c) grid[static_cast<std::size_t>(r) * cols + c] = std::sqrt(d[c]);
  }
  return grid;
}

std::vector<double> lossMap(int rows, int cols, const std::vector<int>& path, const LossParams& params) {
  if (!(params.radius > 0.0) || !(params.scale > 0.0) || !std::isfinite(params.radius) || !std::isfinite(params.scale)) {
    throw InvalidArgument("loss: radius and scale must be finite and > 0, got radius " + std::to_string(params.radius) +
                          " and scale " + std::to_string(params.scale));
  }
  std::vector<double> loss = distanceToPath(rows, cols, path);
  for (double& d : loss) {
    switch (params.shape) {
      case LossShape::Linear: d = params.scale * std::min(1.0, d / params.radius); break;
      case LossShape::Step: d = d > params.radius ? params.scale : 0.0; break;
      case LossShape::Gaussian: d = params.scale * (1.0 - std::exp(-d * d / (2.0 * params.radius * params.radius))); break;
    }
  }
  return loss;
}

ProjectionPtr positiveCostProjection(Eigen::Index features, Eigen::Index bias_index, double loss_max, double min_cost) {
  if (!(min_cost > 0.0) || !(loss_max >= 0.0)) {
    throw InvalidArgument("positive-cost projection: need min_cost > 0 and loss_max >= 0");
  }
  return std::make_shared<BoxProjection>(BoxProjection::nonnegative(features).withLowerBound(bias_index, loss_max + min_cost));
}

}  // namespace mmp
