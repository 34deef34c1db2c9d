// FeatureMap: d features per cell of a rows x cols grid, the input of a planning example.
//
// Two storage forms with one interface:
//   dense  d floats a cell, cell-major: any features (tests, synthetic maps, a user's own).
//   coded  a few bytes a cell plus a FeatureCode that says what each byte means.  maps/ stores
//          image features this way: each scaled raw feature is quantised to one byte, and its bins
//          (or its value and complement) are rows of a 256-entry table, so a 379-feature cell takes
//          42 bytes instead of 1,516.  The features ARE the decoded values: cellVector, path
//          integrals and costs of a coded map equal those of dense() to rounding.
// A cell's cost w . f(s) on a coded map is a sum of one table entry per byte (CellScores), with no
// per-feature work: the tables of partial sums are built once per w.  An optional mask marks cells
// that are impassable whatever the weights.
#pragma once

#include <mmp/core/world_frame.hpp>

#include <Eigen/Dense>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
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

/// What the bytes of a coded cell mean: the constant columns hold the same value in every cell (the
/// bias), and byte j of a cell, value q, sets the feature columns channels[j].columns to row q of
/// channels[j].values.  Every column of [0, features) is set exactly once.
struct FeatureCode {
  static constexpr int kLevels = 256;  ///< values of one byte
  struct Channel {
    std::vector<int> columns;   ///< >= 1 feature columns
    std::vector<float> values;  ///< kLevels rows of columns.size() values, row q = what byte q means
  };
  int features = 0;
  std::vector<std::pair<int, float>> constants;
  std::vector<Channel> channels;

  /// Throws mmp::InvalidArgument naming the first column set twice or never, or a table of the
  /// wrong size or with a non-finite value.
  void validate() const;
};

class FeatureMap {
 public:
  FeatureMap() = default;
  /// Dense: requires rows, cols, features > 0; values.size() == rows * cols * features, all finite;
  /// names empty or one per feature.  Throws mmp::InvalidArgument naming the first bad cell.
  FeatureMap(int rows, int cols, int features, std::vector<float> values, std::vector<std::string> names = {});
  /// Coded: requires a valid code; codes.size() == rows * cols * code->channels.size(), cell-major
  /// (the bytes of cell s at s * channels); names empty or one per feature.
  FeatureMap(int rows, int cols, std::shared_ptr<const FeatureCode> code, std::vector<std::uint8_t> codes,
             std::vector<std::string> names = {});

  int rows() const { return rows_; }
  int cols() const { return cols_; }
  int features() const { return features_; }
  int cells() const { return rows_ * cols_; }
  const std::vector<std::string>& names() const { return names_; }

  bool coded() const { return code_ != nullptr; }
  /// Dense maps: the values, cell-major (empty for a coded map).
  const std::vector<float>& values() const { return values_; }
  /// Coded maps: the code and the bytes, cell-major (null and empty for a dense map).
  const FeatureCode* code() const { return code_.get(); }
  const std::vector<std::uint8_t>& codes() const { return codes_; }
  int channels() const { return code_ ? static_cast<int>(code_->channels.size()) : 0; }
  /// Bytes a cell takes: 4 d (dense) or one per channel (coded), plus one if a blocked mask is set.
  std::size_t bytesPerCell() const;

  /// The features of cell index s = r * cols + c.
  Eigen::VectorXf cellVector(int s) const;
  /// Feature k of cell s, cellVector(s)[k] without decoding the others (a tree's split reads one).
  /// requires: 0 <= s < cells(), 0 <= k < features().
  float value(int s, int k) const {
    if (!code_) return values_[static_cast<std::size_t>(s) * features_ + k];
    const int j = column_channel_[static_cast<std::size_t>(k)], i = column_index_[static_cast<std::size_t>(k)];
    if (j < 0) return code_->constants[static_cast<std::size_t>(i)].second;
    const FeatureCode::Channel& channel = code_->channels[static_cast<std::size_t>(j)];
    const std::uint8_t q = codes_[static_cast<std::size_t>(s) * code_->channels.size() + static_cast<std::size_t>(j)];
    return channel.values[q * channel.columns.size() + static_cast<std::size_t>(i)];
  }
  /// out += scale * f(s), for path integrals.  requires: out.size() == features().
  void addCell(int s, double scale, Eigen::VectorXd& out) const;
  /// The same features, stored densely.
  FeatureMap dense() const;
  /// A rows x cols map whose cell s has the features (and blocked mark) of this map's cell
  /// sources[s]: a map read on another grid (ground_scale.hpp).  Without a world frame.
  /// requires: sources.size() == rows * cols, each in [0, cells()) (else mmp::InvalidArgument).
  FeatureMap gathered(const std::vector<int>& sources, int rows, int cols) const;

  /// Where the cells lie in the world (resolution per cell); without world coordinates unless set.
  const WorldFrame& frame() const { return frame_; }
  /// requires: frame.rows == rows() and frame.cols == cols() (throws mmp::InvalidArgument).
  void setFrame(WorldFrame frame);

  /// Cells marked here (non-zero) are impassable.  Empty = every cell passable.
  const std::vector<std::uint8_t>& blocked() const { return blocked_; }
  /// requires: mask.size() == cells() or empty.
  void setBlocked(std::vector<std::uint8_t> mask);
  bool isBlocked(int s) const { return !blocked_.empty() && blocked_[static_cast<std::size_t>(s)] != 0; }

  /// Per-cell cost w . f(s), or exp(w . f(s)), for every cell (+inf on blocked cells).
  /// requires: w.size() == features().
  void costs(const Eigen::VectorXd& w, std::vector<double>& out, CostForm form = CostForm::Linear) const;

 private:
  friend class CellScores;
  int rows_ = 0, cols_ = 0, features_ = 0;
  std::vector<float> values_;
  std::shared_ptr<const FeatureCode> code_;
  std::vector<std::uint8_t> codes_;
  // The range of each feature (dense) or the byte values that occur in each channel (coded, one
  // bit per value): what CellScores' bounds range over.
  std::vector<float> lowest_, highest_;
  std::vector<std::uint64_t> occurring_;
  // Coded maps, per feature column: the channel that sets it and its place among the channel's
  // columns, or channel -1 and its place among the constants.
  std::vector<int> column_channel_, column_index_;
  std::vector<std::string> names_;
  std::vector<std::uint8_t> blocked_;
  WorldFrame frame_;
};

/// The scores w . f(s) of one map's cells under one w, evaluated cell by cell (so a search can ask
/// only for the cells it reaches).  On a coded map the constructor builds one table of kLevels
/// partial sums per channel, in double; a score is then one lookup per channel.  Sums are in
/// double, as the path features F(y) are: planner costs and w . F(y) agree to rounding.
class CellScores {
 public:
  /// requires: w.size() == map.features() (else mmp::InvalidArgument); the map outlives this.
  CellScores(const FeatureMap& map, const Eigen::VectorXd& w);

  /// w . f(s) (blocked cells are not special here).
  double operator()(int s) const {
    if (codes_ == nullptr) return dense(s);
    const std::uint8_t* q = codes_ + static_cast<std::size_t>(s) * channels_;
    double sum = constant_;
    for (std::size_t j = 0; j < channels_; ++j) sum += table_[j * FeatureCode::kLevels + q[j]];
    return sum;
  }
  /// out[i] = (*this)(first + i) for i in [0, count), bit for bit: on a coded map four cells at a time,
  /// each summed in the same order, so that the four chains of additions overlap.
  void many(int first, int count, double* out) const;
  /// lower() <= w . f(s) <= upper() for every cell: sums of each channel's (or feature's) extremes
  /// over the map, so usually not attained.
  double lower() const { return lower_; }
  double upper() const { return upper_; }

 private:
  double dense(int s) const;

  const FeatureMap* map_;
  Eigen::VectorXd w_;  // dense maps only
  const std::uint8_t* codes_ = nullptr;
  std::size_t channels_ = 0;
  double constant_ = 0.0;
  std::vector<double> table_;
  double lower_ = 0.0, upper_ = 0.0;
};

}  // namespace mmp
