#include <mmp/maps/cost_model.hpp>

#include <mmp/core/error.hpp>

#include <cmath>

namespace mmp {
namespace {

constexpr const char* kCostsKey = "costs";  // the model setting holding the cost form

void checkWeights(const Eigen::VectorXd& w, const FeatureStack& features, CostForm form, const std::string& source) {
  const std::vector<std::string>& names = features.names();
  if (w.size() != features.features()) {
    throw InvalidArgument(source + ": " + std::to_string(w.size()) + " weights for " +
                          std::to_string(features.features()) + " features");
  }
  for (Eigen::Index k = 0; k < w.size(); ++k) {
    const std::string name = "weight " + std::to_string(k) + " ('" + names[static_cast<std::size_t>(k)] + "')";
    if (!std::isfinite(w[k])) throw InvalidArgument(source + ": " + name + " is not finite");
    // The positive-cost set of training (planning/loss.hpp): w >= 0 and a bias > 0 keep every cell > 0.
    if (form == CostForm::Linear && (w[k] < 0.0 || (k == kBiasIndex && !(w[k] > 0.0)))) {
      throw InvalidArgument(source + ": " + name + " is " + std::to_string(w[k]) +
                            "; a linear-cost model needs every weight >= 0 and a bias > 0, so that A* sees positive costs");
    }
  }
}

}  // namespace

int CostGrid::cellAt(double x, double y) const {
  if (!(x >= 0.0 && y >= 0.0 && x < static_cast<double>(cols) * cell_size && y < static_cast<double>(rows) * cell_size)) {
    return -1;
  }
  return static_cast<int>(y) / cell_size * cols + static_cast<int>(x) / cell_size;
}

CostModel::CostModel(FeatureStack features, Eigen::VectorXd weights, CostForm form,
                     std::map<std::string, std::string> info, std::string source)
    : features_(std::move(features)), weights_(std::move(weights)), form_(form), info_(std::move(info)),
      source_(std::move(source)) {
  checkWeights(weights_, features_, form_, source_);
  info_[kCostsKey] = describe(form_);
}

CostModel CostModel::load(const std::string& path) {
  Model model = loadModel(path);
  const std::string source = "'" + path + "'";
  FeatureStack features;
  try {
    features = FeatureStack::fromModel(model);
  } catch (const DataError& e) {
    throw DataError(source + ": " + e.what());
  }
  CostForm form = CostForm::Linear;  // a model without the setting has linear costs
  if (const auto it = model.settings.find(kCostsKey); it != model.settings.end()) {
    try {
      form = parseCostForm(it->second);
    } catch (const InvalidArgument&) {
      throw DataError(source + ": setting 'costs' = '" + it->second + "' must be linear or exponential");
    }
  }
  std::map<std::string, std::string> info;
  for (const auto& [key, value] : model.settings) {
    if (key.rfind("features.", 0) != 0) info[key] = value;
  }
  try {
    return CostModel(std::move(features), std::move(model.weights), form, std::move(info), source);
  } catch (const InvalidArgument& e) {  // weights outside the positive-cost set: the file is at fault
    throw DataError(e.what());
  }
}

void CostModel::save(const std::string& path) const {
  Model model;
  model.weights = weights_;
  model.settings = info_;
  features_.store(model);
  saveModel(path, model);
}

CostGrid CostModel::costs(const cv::Mat& image) const { return costs(features_.map(image)); }

CostGrid CostModel::costs(const FeatureMap& map) const {
  CostGrid grid;
  grid.rows = map.rows();
  grid.cols = map.cols();
  grid.cell_size = features_.settings().cell_size;
  map.costs(weights_, grid.costs, form_);
  for (std::size_t s = 0; s < grid.costs.size(); ++s) {
    if (!(grid.costs[s] > 0.0) || !std::isfinite(grid.costs[s])) {  // exponential costs can overflow
      throw DataError(source_ + " gives cell (row " + std::to_string(s / static_cast<std::size_t>(grid.cols)) + ", col " +
                      std::to_string(s % static_cast<std::size_t>(grid.cols)) + ") the cost " +
                      std::to_string(grid.costs[s]) + "; A* needs finite costs > 0 (retrain the model)");
    }
  }
  return grid;
}

}  // namespace mmp
