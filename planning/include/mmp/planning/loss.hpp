// The loss of maximum margin planning: a per-cell loss l(s) >= 0 that is zero on the demonstrated
// path and grows with the distance to it; a path's loss L(y) is its trapezoid integral (path.hpp).
//
// Loss-augmented planning is then plain A* on the costs w.f(s) - l(s) (DESIGN.md), exact as long
// as those stay positive, which the weight constraints must guarantee (see positiveCostProjection).
#pragma once

#include <mmp/core/projection.hpp>

#include <string>
#include <vector>

namespace mmp {

enum class LossShape {
  Linear,    ///< l = scale * min(1, d / radius)
  Step,      ///< l = scale * [d > radius]  (zero within radius of the path)
  Gaussian,  ///< l = scale * (1 - exp(-d^2 / (2 radius^2)))
};
LossShape parseLossShape(const std::string& name);  ///< "linear", "step", "gaussian"
const char* describe(LossShape shape);

struct LossParams {
  LossShape shape = LossShape::Linear;
  double radius = 5.0;  ///< in cells, > 0
  double scale = 1.0;   ///< the largest per-cell loss, > 0
};

/// Exact Euclidean distance (in cells) from every cell to the nearest cell of `path`.
std::vector<double> distanceToPath(int rows, int cols, const std::vector<int>& path);

/// The per-cell loss map for a demonstration; every value lies in [0, params.scale].
std::vector<double> lossMap(int rows, int cols, const std::vector<int>& path, const LossParams& params);

/*!
    The convex set that keeps every loss-augmented cell cost positive: w >= 0 and
    w[bias_index] >= loss_max + min_cost.  With features in [0, 1] and feature bias_index == 1 on
    every cell, w . f(s) - l(s) >= w_bias - loss_max >= min_cost > 0.
!*/
ProjectionPtr positiveCostProjection(Eigen::Index features, Eigen::Index bias_index, double loss_max, double min_cost);

}  // namespace mmp
