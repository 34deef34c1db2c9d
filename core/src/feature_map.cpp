#include <mmp/core/feature_map.hpp>

#include <mmp/core/error.hpp>

#include <cmath>
#include <limits>

namespace mmp {

FeatureMap::FeatureMap(int rows, int cols, int features, std::vector<float> values, std::vector<std::string> names)
    : rows_(rows), cols_(cols), features_(features), values_(std::move(values)), names_(std::move(names)) {
  if (rows_ <= 0 || cols_ <= 0 || features_ <= 0) {
    throw InvalidArgument("feature map: rows, cols and features must be > 0, got " + std::to_string(rows_) + " x " +
                          std::to_string(cols_) + " x " + std::to_string(features_));
  }
  const std::size_t expected = static_cast<std::size_t>(rows_) * cols_ * features_;
  if (values_.size() != expected) {
    throw InvalidArgument("feature map: " + std::to_string(values_.size()) + " values for " + std::to_string(rows_) +
                          " x " + std::to_string(cols_) + " cells x " + std::to_string(features_) +
                          " features (need " + std::to_string(expected) + ")");
  }
  for (std::size_t i = 0; i < values_.size(); ++i) {
    if (!std::isfinite(values_[i])) {
      const std::size_t s = i / features_;
      throw InvalidArgument("feature map: feature " + std::to_string(i % features_) + " of cell (row " +
                            std::to_string(s / cols_) + ", col " + std::to_string(s % cols_) + ") is not finite");
    }
  }
  if (!names_.empty() && names_.size() != static_cast<std::size_t>(features_)) {
    throw InvalidArgument("feature map: " + std::to_string(names_.size()) + " names for " + std::to_string(features_) +
                          " features");
  }
}

void FeatureMap::setBlocked(std::vector<std::uint8_t> mask) {
  if (!mask.empty() && mask.size() != static_cast<std::size_t>(cells())) {
    throw InvalidArgument("feature map: blocked mask has " + std::to_string(mask.size()) + " cells, the map has " +
                          std::to_string(cells()));
  }
  blocked_ = std::move(mask);
}

const char* describe(CostForm form) { return form == CostForm::Linear ? "linear" : "exponential"; }

CostForm parseCostForm(const std::string& name) {
  if (name == "linear") return CostForm::Linear;
  if (name == "exponential") return CostForm::Exponential;
  throw InvalidArgument("cost form '" + name + "' must be linear or exponential");
}

void FeatureMap::costs(const Eigen::VectorXd& w, std::vector<double>& out, CostForm form) const {
  if (w.size() != features_) {
    throw InvalidArgument("feature map: w has size " + std::to_string(w.size()) + ", the map has " +
                          std::to_string(features_) + " features");
  }
  out.resize(static_cast<std::size_t>(cells()));
  // Accumulated in double, as the path features F(y) are: the planner's costs and w . F(y) agree to
  // rounding, so the oracle is exact for the objective it reports.
  const double* wd = w.data();
  for (int s = 0; s < cells(); ++s) {
    const float* f = cell(s);
    double sum = 0.0;
    for (int k = 0; k < features_; ++k) sum += wd[k] * static_cast<double>(f[k]);
    if (form == CostForm::Exponential) sum = std::exp(sum);
    out[static_cast<std::size_t>(s)] = isBlocked(s) ? std::numeric_limits<double>::infinity() : sum;
  }
}

}  // namespace mmp
