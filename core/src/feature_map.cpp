#include <mmp/core/feature_map.hpp>

#include <mmp/core/error.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace mmp {
namespace {

constexpr int kLevels = FeatureCode::kLevels;

std::string cellName(std::size_t s, int cols) {
  return "cell (row " + std::to_string(s / static_cast<std::size_t>(cols)) + ", col " +
         std::to_string(s % static_cast<std::size_t>(cols)) + ")";
}

void checkShape(int rows, int cols, int features) {
  if (rows <= 0 || cols <= 0 || features <= 0) {
    throw InvalidArgument("feature map: rows, cols and features must be > 0, got " + std::to_string(rows) + " x " +
                          std::to_string(cols) + " x " + std::to_string(features));
  }
  if (static_cast<long long>(rows) * cols > std::numeric_limits<int>::max()) {
    throw InvalidArgument("feature map: " + std::to_string(rows) + " x " + std::to_string(cols) +
                          " cells; a map holds at most 2^31 - 1 (cut the image into tiles)");
  }
}

}  // namespace

void FeatureCode::validate() const {
  if (features <= 0) throw InvalidArgument("feature code: it has no features");
  std::vector<int> set(static_cast<std::size_t>(features), 0);
  auto mark = [&](int column, const std::string& by) {
    if (column < 0 || column >= features) {
      throw InvalidArgument("feature code: " + by + " sets column " + std::to_string(column) + ", outside [0, " +
                            std::to_string(features) + ")");
    }
    if (set[static_cast<std::size_t>(column)]++ != 0) {
      throw InvalidArgument("feature code: column " + std::to_string(column) + " is set twice (again by " + by + ")");
    }
  };
  for (const auto& [column, value] : constants) {
    mark(column, "a constant");
    if (!std::isfinite(value)) throw InvalidArgument("feature code: constant column " + std::to_string(column) + " is not finite");
  }
  for (std::size_t j = 0; j < channels.size(); ++j) {
    const Channel& channel = channels[j];
    const std::string by = "channel " + std::to_string(j);
    if (channel.columns.empty()) throw InvalidArgument("feature code: " + by + " sets no column");
    for (int column : channel.columns) mark(column, by);
    if (channel.values.size() != channel.columns.size() * kLevels) {
      throw InvalidArgument("feature code: " + by + " has " + std::to_string(channel.values.size()) + " values for " +
                            std::to_string(channel.columns.size()) + " columns x " + std::to_string(kLevels) + " levels");
    }
    for (float v : channel.values) {
      if (!std::isfinite(v)) throw InvalidArgument("feature code: " + by + " holds a value that is not finite");
    }
  }
  const auto unset = std::find(set.begin(), set.end(), 0);
  if (unset != set.end()) {
    throw InvalidArgument("feature code: column " + std::to_string(unset - set.begin()) + " is set by no channel");
  }
}

FeatureMap::FeatureMap(int rows, int cols, int features, std::vector<float> values, std::vector<std::string> names)
    : rows_(rows), cols_(cols), features_(features), values_(std::move(values)), names_(std::move(names)) {
  checkShape(rows_, cols_, features_);
  frame_ = WorldFrame::unlocated(rows_, cols_);
  const std::size_t expected = static_cast<std::size_t>(rows_) * cols_ * features_;
  if (values_.size() != expected) {
    throw InvalidArgument("feature map: " + std::to_string(values_.size()) + " values for " + std::to_string(rows_) +
                          " x " + std::to_string(cols_) + " cells x " + std::to_string(features_) +
                          " features (need " + std::to_string(expected) + ")");
  }
  lowest_.assign(static_cast<std::size_t>(features_), std::numeric_limits<float>::infinity());
  highest_.assign(static_cast<std::size_t>(features_), -std::numeric_limits<float>::infinity());
  for (std::size_t i = 0; i < values_.size(); ++i) {
    const float v = values_[i];
    const std::size_t k = i % static_cast<std::size_t>(features_);
    if (!std::isfinite(v)) {
      throw InvalidArgument("feature map: feature " + std::to_string(k) + " of " + cellName(i / features_, cols_) +
                            " is not finite");
    }
    lowest_[k] = std::min(lowest_[k], v);
    highest_[k] = std::max(highest_[k], v);
  }
  if (!names_.empty() && names_.size() != static_cast<std::size_t>(features_)) {
    throw InvalidArgument("feature map: " + std::to_string(names_.size()) + " names for " + std::to_string(features_) +
                          " features");
  }
}

FeatureMap::FeatureMap(int rows, int cols, std::shared_ptr<const FeatureCode> code, std::vector<std::uint8_t> codes,
                       std::vector<std::string> names)
    : rows_(rows), cols_(cols), code_(std::move(code)), codes_(std::move(codes)), names_(std::move(names)) {
  if (!code_) throw InvalidArgument("feature map: the feature code is null");
  code_->validate();
  features_ = code_->features;
  checkShape(rows_, cols_, features_);
  frame_ = WorldFrame::unlocated(rows_, cols_);
  const std::size_t m = code_->channels.size();
  const std::size_t expected = static_cast<std::size_t>(rows_) * cols_ * m;
  if (codes_.size() != expected) {
    throw InvalidArgument("feature map: " + std::to_string(codes_.size()) + " codes for " + std::to_string(rows_) +
                          " x " + std::to_string(cols_) + " cells x " + std::to_string(m) + " channels (need " +
                          std::to_string(expected) + ")");
  }
  column_channel_.assign(static_cast<std::size_t>(features_), -1);
  column_index_.assign(static_cast<std::size_t>(features_), 0);
  for (std::size_t i = 0; i < code_->constants.size(); ++i) {
    column_index_[static_cast<std::size_t>(code_->constants[i].first)] = static_cast<int>(i);
  }
  for (std::size_t j = 0; j < m; ++j) {
    const std::vector<int>& columns = code_->channels[j].columns;
    for (std::size_t i = 0; i < columns.size(); ++i) {
      column_channel_[static_cast<std::size_t>(columns[i])] = static_cast<int>(j);
      column_index_[static_cast<std::size_t>(columns[i])] = static_cast<int>(i);
    }
  }
  occurring_.assign(m * (kLevels / 64), 0);
  for (const std::uint8_t* cell = codes_.data(); cell != codes_.data() + codes_.size(); cell += m) {
    for (std::size_t j = 0; j < m; ++j) occurring_[j * (kLevels / 64) + cell[j] / 64] |= std::uint64_t{1} << (cell[j] % 64);
  }
  if (!names_.empty() && names_.size() != static_cast<std::size_t>(features_)) {
    throw InvalidArgument("feature map: " + std::to_string(names_.size()) + " names for " + std::to_string(features_) +
                          " features");
  }
}

std::size_t FeatureMap::bytesPerCell() const {
  const std::size_t cell = code_ ? code_->channels.size() : sizeof(float) * static_cast<std::size_t>(features_);
  return cell + (blocked_.empty() ? 0 : 1);
}

Eigen::VectorXf FeatureMap::cellVector(int s) const {
  if (!code_) return Eigen::Map<const Eigen::VectorXf>(values_.data() + static_cast<std::size_t>(s) * features_, features_);
  Eigen::VectorXf f(features_);
  for (const auto& [column, value] : code_->constants) f[column] = value;
  const std::uint8_t* q = codes_.data() + static_cast<std::size_t>(s) * code_->channels.size();
  for (std::size_t j = 0; j < code_->channels.size(); ++j) {
    const FeatureCode::Channel& channel = code_->channels[j];
    const float* row = channel.values.data() + q[j] * channel.columns.size();
    for (std::size_t i = 0; i < channel.columns.size(); ++i) f[channel.columns[i]] = row[i];
  }
  return f;
}

void FeatureMap::addCell(int s, double scale, Eigen::VectorXd& out) const {
  if (!code_) {
    out += scale * Eigen::Map<const Eigen::VectorXf>(values_.data() + static_cast<std::size_t>(s) * features_, features_)
                       .cast<double>();
    return;
  }
  for (const auto& [column, value] : code_->constants) out[column] += scale * value;
  const std::uint8_t* q = codes_.data() + static_cast<std::size_t>(s) * code_->channels.size();
  for (std::size_t j = 0; j < code_->channels.size(); ++j) {
    const FeatureCode::Channel& channel = code_->channels[j];
    const float* row = channel.values.data() + q[j] * channel.columns.size();
    for (std::size_t i = 0; i < channel.columns.size(); ++i) out[channel.columns[i]] += scale * row[i];
  }
}

FeatureMap FeatureMap::dense() const {
  if (!code_) return *this;
  std::vector<float> values(static_cast<std::size_t>(cells()) * features_);
  for (int s = 0; s < cells(); ++s) {
    Eigen::Map<Eigen::VectorXf>(values.data() + static_cast<std::size_t>(s) * features_, features_) = cellVector(s);
  }
  FeatureMap map(rows_, cols_, features_, std::move(values), names_);
  map.setBlocked(blocked_);
  map.frame_ = frame_;
  return map;
}

FeatureMap FeatureMap::gathered(const std::vector<int>& sources, int rows, int cols) const {
  if (rows < 1 || cols < 1 || sources.size() != static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols)) {
    throw InvalidArgument("feature map: " + std::to_string(sources.size()) + " source cells for a " + std::to_string(rows) +
                          " x " + std::to_string(cols) + " map");
  }
  for (std::size_t s = 0; s < sources.size(); ++s) {
    if (sources[s] < 0 || sources[s] >= cells()) {
      throw InvalidArgument("feature map: source cell " + std::to_string(sources[s]) + " of cell " + std::to_string(s) +
                            " lies outside the map's " + std::to_string(cells()) + " cells");
    }
  }
  const std::size_t width = code_ ? code_->channels.size() : static_cast<std::size_t>(features_);
  std::vector<std::uint8_t> blocked;
  if (!blocked_.empty()) {
    blocked.resize(sources.size());
    for (std::size_t s = 0; s < sources.size(); ++s) blocked[s] = blocked_[static_cast<std::size_t>(sources[s])];
  }
  FeatureMap map;
  if (code_) {
    std::vector<std::uint8_t> codes(sources.size() * width);
    for (std::size_t s = 0; s < sources.size(); ++s) {
      std::copy_n(codes_.data() + static_cast<std::size_t>(sources[s]) * width, width, codes.data() + s * width);
    }
    map = FeatureMap(rows, cols, code_, std::move(codes), names_);
  } else {
    std::vector<float> values(sources.size() * width);
    for (std::size_t s = 0; s < sources.size(); ++s) {
      std::copy_n(values_.data() + static_cast<std::size_t>(sources[s]) * width, width, values.data() + s * width);
    }
    map = FeatureMap(rows, cols, features_, std::move(values), names_);
  }
  map.setBlocked(std::move(blocked));
  return map;
}

void FeatureMap::setBlocked(std::vector<std::uint8_t> mask) {
  if (!mask.empty() && mask.size() != static_cast<std::size_t>(cells())) {
    throw InvalidArgument("feature map: blocked mask has " + std::to_string(mask.size()) + " cells, the map has " +
                          std::to_string(cells()));
  }
  blocked_ = std::move(mask);
}

void FeatureMap::setFrame(WorldFrame frame) {
  if (frame.rows != rows_ || frame.cols != cols_) {
    throw InvalidArgument("feature map: the world frame is " + std::to_string(frame.rows) + " x " +
                          std::to_string(frame.cols) + " cells, the map " + std::to_string(rows_) + " x " +
                          std::to_string(cols_));
  }
  frame_ = std::move(frame);
}

const char* describe(CostForm form) { return form == CostForm::Linear ? "linear" : "exponential"; }

CostForm parseCostForm(const std::string& name) {
  if (name == "linear") return CostForm::Linear;
  if (name == "exponential") return CostForm::Exponential;
  throw InvalidArgument("cost form '" + name + "' must be linear or exponential");
}

void FeatureMap::costs(const Eigen::VectorXd& w, std::vector<double>& out, CostForm form) const {
  const CellScores score(*this, w);
  out.resize(static_cast<std::size_t>(cells()));
  score.many(0, cells(), out.data());
  for (int s = 0; s < cells(); ++s) {
    double& cost = out[static_cast<std::size_t>(s)];
    cost = isBlocked(s) ? std::numeric_limits<double>::infinity() : form == CostForm::Exponential ? std::exp(cost) : cost;
  }
}

void CellScores::many(int first, int count, double* out) const {
  int i = 0;
  if (codes_ != nullptr) {
    // One sum per cell, each in channel order as operator() adds: the chains are independent, so
    // the processor overlaps their additions (one chain waits on its adder's latency every channel).
    const double* table = table_.data();
    for (; i + 4 <= count; i += 4) {
      const std::uint8_t* q0 = codes_ + static_cast<std::size_t>(first + i) * channels_;
      const std::uint8_t* q1 = q0 + channels_;
      const std::uint8_t* q2 = q1 + channels_;
      const std::uint8_t* q3 = q2 + channels_;
      double a = constant_, b = constant_, c = constant_, d = constant_;
      for (std::size_t j = 0; j < channels_; ++j) {
        const double* t = table + j * FeatureCode::kLevels;
        a += t[q0[j]];
        b += t[q1[j]];
        c += t[q2[j]];
        d += t[q3[j]];
      }
      out[i] = a;
      out[i + 1] = b;
      out[i + 2] = c;
      out[i + 3] = d;
    }
  }
  for (; i < count; ++i) out[i] = (*this)(first + i);
}

CellScores::CellScores(const FeatureMap& map, const Eigen::VectorXd& w) : map_(&map) {
  if (w.size() != map.features()) {
    throw InvalidArgument("feature map: w has size " + std::to_string(w.size()) + ", the map has " +
                          std::to_string(map.features()) + " features");
  }
  if (!map.code_) {
    w_ = w;
    for (int k = 0; k < map.features(); ++k) {
      const double a = w[k] * map.lowest_[static_cast<std::size_t>(k)];
      const double b = w[k] * map.highest_[static_cast<std::size_t>(k)];
      lower_ += std::min(a, b);
      upper_ += std::max(a, b);
    }
    return;
  }
  const FeatureCode& code = *map.code_;
  codes_ = map.codes_.data();
  channels_ = code.channels.size();
  for (const auto& [column, value] : code.constants) constant_ += w[column] * static_cast<double>(value);
  lower_ = upper_ = constant_;
  table_.resize(channels_ * kLevels);
  for (std::size_t j = 0; j < channels_; ++j) {
    const FeatureCode::Channel& channel = code.channels[j];
    const std::size_t width = channel.columns.size();
    double lowest = std::numeric_limits<double>::infinity(), highest = -lowest;
    for (int q = 0; q < kLevels; ++q) {
      const float* row = channel.values.data() + static_cast<std::size_t>(q) * width;
      double sum = 0.0;
      for (std::size_t i = 0; i < width; ++i) sum += w[channel.columns[i]] * static_cast<double>(row[i]);
      table_[j * kLevels + static_cast<std::size_t>(q)] = sum;
      if ((map.occurring_[j * (kLevels / 64) + q / 64] >> (q % 64)) & 1u) {
        lowest = std::min(lowest, sum);
        highest = std::max(highest, sum);
      }
    }
    lower_ += lowest;
    upper_ += highest;
  }
}

double CellScores::dense(int s) const {
  const int d = map_->features_;
  const float* f = map_->values_.data() + static_cast<std::size_t>(s) * d;
  const double* w = w_.data();
  double sum = 0.0;
  for (int k = 0; k < d; ++k) sum += w[k] * static_cast<double>(f[k]);
  return sum;
}

}  // namespace mmp
