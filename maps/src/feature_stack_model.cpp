// A FeatureStack in a model file (store) and back (fromModel), every stored setting range-checked.
#include <mmp/maps/feature_stack.hpp>

#include <mmp/core/error.hpp>

#include <cmath>
#include <limits>
#include <sstream>

namespace mmp {

template <class T>
static std::string joinList(const std::vector<T>& values) {
  std::ostringstream out;
  out.precision(17);
  for (std::size_t i = 0; i < values.size(); ++i) out << (i ? "," : "") << values[i];
  return out.str();
}

void FeatureStack::store(Model& model) const {
  auto& m = model.settings;
  m["features.cell_size"] = std::to_string(settings_.cell_size);
  m["features.blur_sigmas"] = joinList(settings_.blur_sigmas);
  m["features.rgb"] = settings_.rgb ? "1" : "0";
  m["features.hsv"] = settings_.hsv ? "1" : "0";
  m["features.lab"] = settings_.lab ? "1" : "0";
  m["features.gradient"] = settings_.gradient ? "1" : "0";
  m["features.texture_windows"] = joinList(settings_.texture_windows);
  m["features.complements"] = settings_.complements ? "1" : "0";
  m["features.bins"] = std::to_string(settings_.bins);
  m["features.scaling_quantile"] = joinList(std::vector<double>{settings_.scaling_quantile});
  if (settings_.region_window > 0) {  // written only when on: a model without them reads as before
    m["features.region_window"] = std::to_string(settings_.region_window);
    m["features.region_size"] = std::to_string(settings_.region_size);
    m["features.region_threshold"] = joinList(std::vector<double>{settings_.region_threshold});
  }
  if (settings_.normalise_per_image) m["features.normalise"] = "per_image";  // only when on, as above
  if (settings_.ground_resolution > 0.0) {  // only when declared, as above
    m["features.ground_resolution"] = joinList(std::vector<double>{settings_.ground_resolution});
    if (settings_.upsample != "cubic") m["features.upsample"] = settings_.upsample;
  }
  model.arrays["features.lower"] = scaling_.lower;
  model.arrays["features.upper"] = scaling_.upper;
  if (const ClassScores* layer = classScores()) {
    std::string classes;
    for (const std::string& c : layer->classes) classes += (classes.empty() ? "" : "\n") + c;
    m["features.class_scores"] = classes;
    m["features.class_context_px"] = joinList(layer->context_px);
    std::vector<double>& w = model.arrays["features.class_weights"];
    w.clear();
    for (Eigen::Index c = 0; c < layer->weights.rows(); ++c) {
      for (Eigen::Index j = 0; j < layer->weights.cols(); ++j) w.push_back(layer->weights(c, j));
    }
    model.arrays["features.class_lower"] = layer->scaling.lower;
    model.arrays["features.class_upper"] = layer->scaling.upper;
  }
  model.feature_names = names_;
}

namespace {

const std::string& setting(const Model& model, const std::string& key) {
  const auto it = model.settings.find(key);
  if (it == model.settings.end()) {
    throw DataError("model: setting '" + key + "' is missing; the model was not written by mmp train (re-train it)");
  }
  return it->second;
}

std::vector<double> numbers(const Model& model, const std::string& key) {
  const std::string& text = setting(model, key);
  std::vector<double> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    const std::optional<double> x = numberFromText(item);
    if (!x) throw DataError("model: setting '" + key + "' = '" + text + "' is not a list of numbers");
    out.push_back(*x);
  }
  return out;
}

// One integer in [min, max] (checked before any cast: a stored 1e300 must not reach static_cast<int>).
int integer(const Model& model, const std::string& key, double min, double max) {
  const std::vector<double> x = numbers(model, key);
  if (x.size() != 1 || x[0] != std::floor(x[0]) || !(x[0] >= min && x[0] <= max)) {
    std::ostringstream range;
    range << "model: setting '" << key << "' = '" << setting(model, key) << "' must be one integer in [" << min << ", "
          << max << "] (re-train the model)";
    throw DataError(range.str());
  }
  return static_cast<int>(x[0]);
}

bool flag(const Model& model, const std::string& key) {
  const std::string& text = setting(model, key);
  if (text != "0" && text != "1") throw DataError("model: setting '" + key + "' = '" + text + "' must be 0 or 1");
  return text == "1";
}

std::vector<int> textureWindows(const Model& model) {
  std::vector<int> windows;
  if (!setting(model, "features.texture_windows").empty()) {
    for (double w : numbers(model, "features.texture_windows")) {
      if (!(w >= 3 && w <= (1 << 16) && w == std::floor(w))) {
        throw DataError("model: setting 'features.texture_windows' holds " + std::to_string(w) +
                        "; windows are odd integers in [3, 65536] (re-train the model)");
      }
      windows.push_back(static_cast<int>(w));
    }
  }
  return windows;
}

FeatureSettings storedFeatureSettings(const Model& model) {
  FeatureSettings s;
  s.cell_size = integer(model, "features.cell_size", 1, 1 << 16);
  s.blur_sigmas = numbers(model, "features.blur_sigmas");
  s.rgb = flag(model, "features.rgb");
  s.hsv = flag(model, "features.hsv");
  s.lab = flag(model, "features.lab");
  s.gradient = flag(model, "features.gradient");
  s.texture_windows = textureWindows(model);
  s.complements = flag(model, "features.complements");
  s.bins = integer(model, "features.bins", 0, 64);
  const std::vector<double> quantile = numbers(model, "features.scaling_quantile");
  if (quantile.size() != 1) throw DataError("model: setting 'features.scaling_quantile' must be one number");
  s.scaling_quantile = quantile[0];
  // Region features (absent from models written before them, or without them: off).
  if (model.settings.count("features.region_window") != 0) {
    s.region_window = integer(model, "features.region_window", 0, 256);
    s.region_size = integer(model, "features.region_size", 1, 65536);
    const std::vector<double> threshold = numbers(model, "features.region_threshold");
    if (threshold.size() != 1) throw DataError("model: setting 'features.region_threshold' must be one number");
    s.region_threshold = threshold[0];
  }
  // Per-image normalisation (absent from models written before it, or without it: off).
  if (const auto it = model.settings.find("features.normalise"); it != model.settings.end()) {
    if (it->second != "per_image" && it->second != "off") {
      throw DataError("model: setting 'features.normalise' is '" + it->second + "'; valid: off, per_image");
    }
    s.normalise_per_image = it->second == "per_image";
  }
  // The training imagery's ground resolution (absent: not declared).
  if (model.settings.count("features.ground_resolution") != 0) {
    const std::vector<double> resolution = numbers(model, "features.ground_resolution");
    if (resolution.size() != 1 || !(resolution[0] > 0.0 && resolution[0] <= 1e4)) {
      throw DataError("model: setting 'features.ground_resolution' must be one number of metres per pixel in (0, 10000]");
    }
    s.ground_resolution = resolution[0];
  }
  if (const auto it = model.settings.find("features.upsample"); it != model.settings.end()) {
    if (it->second != "cubic" && it->second != "none" && it->second != "linear") {
      throw DataError("model: setting 'features.upsample' is '" + it->second + "'; valid: linear, cubic, none");
    }
    s.upsample = it->second;
  }
  return s;
}

FeatureScaling storedFeatureScaling(const Model& model) {
  FeatureScaling scaling;
  for (const char* key : {"features.lower", "features.upper"}) {
    if (model.arrays.count(key) == 0) throw DataError(std::string("model: array '") + key + "' is missing (re-train the model)");
  }
  scaling.lower = model.arrays.at("features.lower");
  scaling.upper = model.arrays.at("features.upper");
  return scaling;
}

// The checks of a stored class-score layer that need only the layer itself and the cell size.
void checkClassContextAndScaling(const ClassScores& layer, int cell_size, std::size_t entries) {
  for (double r : layer.context_px) {
    if (!(r >= cell_size) || !std::isfinite(r)) {
      throw DataError("model: setting 'features.class_context_px' holds " + std::to_string(r) +
                      "; each radius is a finite number of pixels >= the cell size");
    }
  }
  for (std::size_t k = 0; k < entries; ++k) {
    if (!(layer.scaling.lower[k] <= layer.scaling.upper[k])) {
      throw DataError("model: the class-score scaling entry " + std::to_string(k) + " is not a range lower <= upper");
    }
  }
}

// The class-score layer stored in a model (the caller checks that there is one), over `features` stacked features.
ClassScores storedClassScores(const Model& model, int cell_size, int features) {
  ClassScores layer;
  std::stringstream names(model.settings.at("features.class_scores"));
  for (std::string c; std::getline(names, c, '\n');) layer.classes.push_back(c);
  const Eigen::Index k = static_cast<Eigen::Index>(layer.classes.size());
  for (const char* key : {"features.class_weights", "features.class_lower", "features.class_upper"}) {
    if (model.arrays.count(key) == 0) throw DataError(std::string("model: array '") + key + "' is missing (re-train the model)");
  }
  if (model.settings.count("features.class_context_px") != 0 && !model.settings.at("features.class_context_px").empty()) {
    layer.context_px = numbers(model, "features.class_context_px");
  }
  const std::vector<double>& w = model.arrays.at("features.class_weights");
  layer.scaling.lower = model.arrays.at("features.class_lower");
  layer.scaling.upper = model.arrays.at("features.class_upper");
  const std::size_t entries = static_cast<std::size_t>(k) * (1 + layer.context_px.size());
  if (k < 2 || w.size() != static_cast<std::size_t>(k) * static_cast<std::size_t>(features) ||
      layer.scaling.lower.size() != entries || layer.scaling.upper.size() != entries) {
    throw DataError("model: the class-score layer (" + std::to_string(k) + " classes, " + std::to_string(w.size()) +
                    " weights, " + std::to_string(layer.scaling.lower.size()) + " scaling entries) does not fit " +
                    std::to_string(features) + " stacked features; re-train the model");
  }
  layer.weights = Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
      w.data(), k, features);
  checkClassContextAndScaling(layer, cell_size, entries);
  return layer;
}

}  // namespace

FeatureStack FeatureStack::fromModel(const Model& model) {
  const FeatureSettings s = storedFeatureSettings(model);
  const FeatureScaling scaling = storedFeatureScaling(model);
  FeatureStack stack;
  try {
    stack = FeatureStack(s, scaling);
  } catch (const InvalidArgument& e) {
    throw DataError(std::string("model: the stored feature settings are unusable: ") + e.what());
  }
  if (model.settings.count("features.class_scores") != 0) {
    stack.class_scores_ = storedClassScores(model, s.cell_size, stack.features());
    stack.describeLayout();
  }
  if (!model.feature_names.empty() && model.feature_names != stack.names()) {
    throw DataError("model: its feature names differ from those of its stored feature settings; it was written by "
                    "another version of mmp (re-train it)");
  }
  if (model.weights.size() != stack.features()) {
    throw DataError("model: " + std::to_string(model.weights.size()) + " weights for " +
                    std::to_string(stack.features()) + " features of its stored feature settings");
  }
  return stack;
}

}  // namespace mmp
