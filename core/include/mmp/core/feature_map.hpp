// FeatureMap: d features per cell of a rows x cols grid, the input of a planning example.
//
// Values are contiguous, cell-major floats: the d features of cell (r, c) are
// values()[(r * cols + c) * d + k], so a cell's cost w . f(s) reads one contiguous run.  maps/
// computes feature maps from imagery (scaled to [0, 1], with a constant bias feature); planning/
// plans on them.  An optional mask marks cells that are impassable whatever the weights.
#pragma once

#include <Eigen/Dense>
#include <cstdint>
#include <string>
#include <vector>

namespace mmp {

/// How a cell's cost follows from its features f and the weights w:
///   Linear       w . f        (maximum margin planning as in the paper; needs w . f > 0)
///   Exponential  exp(w . f)   (log-linear: positive for every w, and a wide range of costs --
///                             "nearly impassable" -- for moderate weights; the exponentiated
///                             functional gradient of Ratliff, Silver and Bagnell 2009 restricted to
///                             linear log-costs)
enum class CostForm { Linear, Exponential };

/// "linear" or "exponential".
const char* describe(CostForm form);
/// The inverse of describe; throws mmp::InvalidArgument naming the valid forms.
CostForm parseCostForm(const std::string& name);

class FeatureMap {
 public:
  FeatureMap() = default;
  /// requires: rows, cols, features > 0; values.size() == rows * cols * features, all finite;
  /// names empty or one per feature.  Throws mmp::InvalidArgument naming the first bad cell.
  FeatureMap(int rows, int cols, int features, std::vector<float> values, std::vector<std::string> names = {});

  int rows() const { return rows_; }
  int cols() const { return cols_; }
  int features() const { return features_; }
  int cells() const { return rows_ * cols_; }
  const std::vector<float>& values() const { return values_; }
  const std::vector<std::string>& names() const { return names_; }

  /// Features of cell index s = r * cols + c (a pointer to `features()` floats).
  const float* cell(int s) const { return values_.data() + static_cast<std::size_t>(s) * features_; }
  Eigen::Map<const Eigen::VectorXf> cellVector(int s) const { return {cell(s), features_}; }

  /// Cells marked here (non-zero) are impassable.  Empty = every cell passable.
  const std::vector<std::uint8_t>& blocked() const { return blocked_; }
  /// requires: mask.size() == cells() or empty.
  void setBlocked(std::vector<std::uint8_t> mask);
  bool isBlocked(int s) const { return !blocked_.empty() && blocked_[static_cast<std::size_t>(s)] != 0; }

  /// Per-cell cost w . f(s), or exp(w . f(s)), for every cell (+inf on blocked cells).
  /// requires: w.size() == features().
  void costs(const Eigen::VectorXd& w, std::vector<double>& out, CostForm form = CostForm::Linear) const;

 private:
  int rows_ = 0, cols_ = 0, features_ = 0;
  std::vector<float> values_;
  std::vector<std::string> names_;
  std::vector<std::uint8_t> blocked_;
};

}  // namespace mmp
