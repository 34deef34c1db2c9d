#include <mmp/maps/cost_model.hpp>

#include <mmp/core/error.hpp>
#include <mmp/core/thread_pool.hpp>
#include <mmp/maps/float_tiff.hpp>
#include <mmp/maps/ground_scale.hpp>

#include <opencv2/core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>

namespace mmp {
namespace {

constexpr const char* kCostsKey = "costs";  // the model setting holding the cost form
constexpr const char* kExponentKey = "cost_exponent";  // CostModel::costExponent, when not 1
// The model file format a model is written in: 3, the oldest that reads a cost exponent, for a model
// with one (a reader of 2 would give the costs un-raised); 2 for every other.
std::uint32_t formatVersion(double exponent) { return exponent != 1.0 ? 3 : kOldestModelFormatVersion; }

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

// Cells [first, first + count) x [0, cols) holding a pixel without data (valid == 0) become +inf,
// flagged in unknown (if given; indexed from the first row); returns how many.
long long markUnknownCells(const cv::Mat& valid, int k, int first, int count, int cols, double* costs,
                           std::uint8_t* unknown) {
  if (valid.empty()) return 0;
  long long marked = 0;
  for (int r = first; r < first + count; ++r) {
    for (int c = 0; c < cols; ++c) {
      const cv::Mat block = valid(cv::Rect(c * k, r * k, k, k));
      if (cv::countNonZero(block) == k * k) continue;
      const std::size_t s = static_cast<std::size_t>(r - first) * cols + c;
      costs[s] = std::numeric_limits<double>::infinity();
      if (unknown != nullptr) unknown[s] = 1;
      ++marked;
    }
  }
  return marked;
}

}  // namespace

CostModel::CostModel(FeatureStack features, Eigen::VectorXd weights, CostForm form,
                     std::map<std::string, std::string> info, std::string source)
    : features_(std::move(features)), weights_(std::move(weights)), form_(form), info_(std::move(info)),
      source_(std::move(source)) {
  checkWeights(weights_, features_, form_, source_);
  info_[kCostsKey] = describe(form_);
}

CostModel::CostModel(FeatureStack features, Eigen::VectorXd weights, TreeEnsemble trees,
                     std::map<std::string, std::string> info, std::string source)
    : CostModel(std::move(features), std::move(weights), CostForm::Exponential, std::move(info), std::move(source)) {
  if (trees.largestFeature() >= features_.features()) {
    throw InvalidArgument(source_ + ": a tree splits on feature " + std::to_string(trees.largestFeature()) + "; the model has " +
                          std::to_string(features_.features()) + " features");
  }
  trees_ = std::move(trees);
}

CostModel::CostModel(FeatureStack features, Eigen::VectorXd weights, CostNetwork network,
                     std::map<std::string, std::string> info, std::string source)
    : CostModel(std::move(features), std::move(weights), CostForm::Exponential, std::move(info), std::move(source)) {
  if (network.empty()) throw InvalidArgument(source_ + ": a network model needs a network");
  const int feature_inputs = network.shape().feature_inputs;
  if (feature_inputs > 0 && feature_inputs != features_.channels()) {
    throw InvalidArgument(source_ + ": its network reads " + std::to_string(feature_inputs) +
                          " feature planes, its feature stack codes " + std::to_string(features_.channels()));
  }
  network_ = std::move(network);
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
  TreeEnsemble trees;
  try {
    trees = TreeEnsemble::fromModel(model, features.features());
  } catch (const DataError& e) {
    throw DataError(source + ": " + e.what());
  }
  CostNetwork network;
  try {
    network = CostNetwork::fromModel(model);
  } catch (const DataError& e) {
    throw DataError(source + ": " + e.what());
  }
  if (!network.empty() && (form != CostForm::Exponential || !trees.empty())) {
    throw DataError(source + ": it holds a network, which needs exponential costs and no trees (setting 'costs' is '" +
                    describe(form) + "', " + std::to_string(trees.size()) + " trees)");
  }
  if (!trees.empty() && form != CostForm::Exponential) {
    throw DataError(source + ": it holds " + std::to_string(trees.size()) + " trees (a LEARCH log-cost) but setting 'costs' is '" +
                    describe(form) + "'; trees need exponential costs");
  }
  TrainingDomain domain;
  try {
    domain = TrainingDomain::fromModel(model);
  } catch (const DataError& e) {
    throw DataError(source + ": " + e.what());
  }
  std::map<std::string, std::string> info;
  for (const auto& [key, value] : model.settings) {
    if (key.rfind("features.", 0) != 0 && key.rfind("domain.", 0) != 0 && key != kExponentKey) info[key] = value;
  }
  double exponent = 1.0;  // files written before the exponent: the costs as learned
  if (const auto it = model.settings.find(kExponentKey); it != model.settings.end()) {
    exponent = numberFromText(it->second).value_or(0.0);
    if (!(exponent >= kMinExponent && exponent <= kMaxExponent)) {
      throw DataError(source + ": setting '" + kExponentKey + "' = '" + it->second + "' must be a number in [" +
                      numberText(kMinExponent) + ", " + numberText(kMaxExponent) + "]");
    }
  }
  try {
    CostModel loaded = !trees.empty()
                           ? CostModel(std::move(features), std::move(model.weights), std::move(trees), std::move(info), source)
                       : !network.empty()
                           ? CostModel(std::move(features), std::move(model.weights), std::move(network), std::move(info), source)
                           : CostModel(std::move(features), std::move(model.weights), form, std::move(info), source);
    loaded.setDomain(std::move(domain));
    loaded.exponent_ = exponent;
    return loaded;
  } catch (const InvalidArgument& e) {  // weights outside the positive-cost set: the file is at fault
    throw DataError(e.what());
  }
}

void CostModel::save(const std::string& path) const {
  Model model;
  model.weights = weights_;
  model.settings = info_;
  if (exponent_ != 1.0) model.settings[kExponentKey] = exactNumberText(exponent_);
  model.version = formatVersion(exponent_);
  features_.store(model);
  trees_.store(model);
  network_.store(model);
  domain_.store(model);
  saveModel(path, model);
}

std::array<double, 2> costBounds(const Eigen::VectorXd& w, CostForm form, std::array<double, 2> tree_range) {
  // Features in [0, 1] with the bias at 1: w . f lies between the bias weight plus every negative
  // weight and the bias weight plus every positive one.
  if (w.size() <= kBiasIndex) throw InvalidArgument("cost bounds: no bias weight");
  double lower = w[kBiasIndex], upper = w[kBiasIndex];
  for (Eigen::Index k = 0; k < w.size(); ++k) {
    if (k == kBiasIndex) continue;
    lower += std::min(0.0, w[k]);
    upper += std::max(0.0, w[k]);
  }
  lower += tree_range[0];
  upper += tree_range[1];
  if (form == CostForm::Exponential) return {std::exp(lower), std::exp(upper)};
  return {lower, upper};
}

std::string costRangeFault(const std::array<double, 2>& bounds) {
  const std::string range = "the costs range from " + numberText(bounds[0]) + " to " + numberText(bounds[1]);
  if (!(bounds[1] <= CostLimits::kHighest)) {
    return range + ", above the highest cost a model may give, " + numberText(CostLimits::kHighest);
  }
  if (!(bounds[0] >= CostLimits::kLowest)) {
    return range + ", below the lowest cost a model may give, " + numberText(CostLimits::kLowest);
  }
  if (!(bounds[1] <= CostLimits::kMaxRatio * bounds[0])) {
    return range + ", a ratio of " + numberText(bounds[1] / bounds[0]) + " > " + numberText(CostLimits::kMaxRatio) +
           ", the most a model may spread them";
  }
  return "";
}

std::string trainingCostFault(const std::vector<const FeatureMap*>& maps, const Eigen::VectorXd& w, CostForm form) {
  std::array<double, 2> range = {std::numeric_limits<double>::infinity(), 0.0};
  std::vector<double> costs;
  for (const FeatureMap* map : maps) {
    map->costs(w, costs, form);  // +inf on blocked cells, which do not count
    for (int s = 0; s < map->cells(); ++s) {
      if (map->isBlocked(s)) continue;
      const double c = costs[static_cast<std::size_t>(s)];
      if (!(c > 0.0) || !std::isfinite(c)) return "gives a passable training cell the cost " + numberText(c);
      range = {std::min(range[0], c), std::max(range[1], c)};
    }
  }
  if (range[0] > range[1]) return "";  // no passable cell
  const std::string fault = costRangeFault(range);
  return fault.empty() ? fault : "on the training cells: " + fault;
}

std::array<double, 2> CostModel::costBounds() const {
  if (network_.empty()) {
    const std::array<double, 2> b = mmp::costBounds(weights_, form_, trees_.range());
    return {raised(b[0]), raised(b[1])};
  }
  // Each member's log-cost lies in (-kBound, kBound): the mean too, the spread in [0, kBound).
  const double bound = NetworkShape::kBound, floor = network_.shape().cost_floor;
  const std::array<double, 2> b = mmp::costBounds(weights_, form_, {-bound, bound * (1.0 + network_.shape().kappa)});
  return {raised(floor + b[0]), raised(floor + b[1])};
}

void CostModel::setCostExponent(double exponent) {
  if (!(exponent >= kMinExponent && exponent <= kMaxExponent)) {
    throw InvalidArgument(source_ + ": cost exponent " + numberText(exponent) + " is not in [" + numberText(kMinExponent) +
                          ", " + numberText(kMaxExponent) + "]");
  }
  exponent_ = exponent;
}

void CostModel::checkImage(int width, int height) const {
  const int side = std::max(width, height);
  try {
    checkImageSize(features_.settings(), width, height);
    if (const ClassScores* layer = features_.classScores()) {
      for (double r : layer->context_px) {
        if (r > side) {  // else the halo it asks for would be blamed on the tile settings
          throw InvalidArgument("features.class_context_px: radius " + numberText(r) + " px is larger than the " +
                                std::to_string(width) + " x " + std::to_string(height) + " px image; use at most " +
                                std::to_string(side) + " px");
        }
      }
    }
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(source_ + ": " + e.what());
  }
}

int CostModel::haloCells(const TileSettings& tiles) const {
  const FeatureSettings& s = features_.settings();
  // A network that reads the stacked features sees them as far as its own reach, and each of them the
  // pixels as far as theirs.
  const int reach = network_.shape().feature_inputs > 0 ? features_.reachCells() + network_.reachCells()
                                                          : std::max(features_.reachCells(), network_.reachCells());
  // A tile's pixels must hold the largest blur and texture window (computeRawFeatures refuses wider
  // ones) and the class context disc.
  double widest = 1.0;
  for (double sigma : s.blur_sigmas) widest = std::max(widest, sigma);
  for (int w : s.texture_windows) widest = std::max(widest, static_cast<double>(w));
  const int least_window = static_cast<int>(std::ceil(widest / s.cell_size));
  const int least_tile = std::max(least_window, reach);
  if (tiles.threads < 0 || tiles.threads > TileSettings::kMaxThreads) {
    throw InvalidArgument("threads = " + std::to_string(tiles.threads) + " is out of range: use 0 (every core) to " +
                          std::to_string(TileSettings::kMaxThreads));
  }
  if (least_tile > TileSettings::kMaxTileCells) {  // the model's reach, not the tile setting, is at fault
    throw InvalidArgument(source_ + ": its features reach " + std::to_string(reach) + " cells of " +
                          std::to_string(s.cell_size) + " px (blurs, texture windows and class context discs), " +
                          "more than a tile may hold (" + std::to_string(TileSettings::kMaxTileCells) + " cells)");
  }
  if (tiles.tile_cells > TileSettings::kMaxTileCells) {
    throw InvalidArgument("tile_cells = " + std::to_string(tiles.tile_cells) + " is out of range: use " +
                          std::to_string(least_tile) + " to " + std::to_string(TileSettings::kMaxTileCells));
  }
  if (tiles.tile_cells < least_tile) {
    const std::string why = least_window >= reach
                                ? "blurs and windows up to " + std::to_string(static_cast<int>(widest)) + " px"
                                : "features reaching " + std::to_string(reach) + " cells, class context discs and network included";
    throw InvalidArgument("tile_cells = " + std::to_string(tiles.tile_cells) + " is too small for the model's features (" +
                          std::to_string(s.cell_size) + " px cells, " + why + "); use at least " +
                          std::to_string(least_tile));
  }
  if (tiles.overlap_cells == -1) return reach;
  if (tiles.overlap_cells > TileSettings::kMaxTileCells) {
    throw InvalidArgument("overlap_cells = " + std::to_string(tiles.overlap_cells) + " is out of range: use -1 or " +
                          std::to_string(reach) + " to " + std::to_string(TileSettings::kMaxTileCells));
  }
  if (tiles.overlap_cells < reach) {
    throw InvalidArgument("overlap_cells = " + std::to_string(tiles.overlap_cells) +
                          " is smaller than the model's features reach; use at least " + std::to_string(reach) +
                          " (or -1 for exactly that), else tiles would show seams");
  }
  return tiles.overlap_cells;
}

CostGrid CostModel::costs(const cv::Mat& image, const TileSettings& tiles, double metres_per_pixel) const {
  return imageCosts(image, {}, tiles, metres_per_pixel);
}

double CostModel::groundFactorOf(double metres_per_pixel) const {
  return groundFactor(features_.settings(), metres_per_pixel, source_ + ": features in metres");
}

CostGrid CostModel::imageCosts(const cv::Mat& image, const cv::Mat& valid, const TileSettings& tiles,
                               double metres_per_pixel) const {
  const int k = features_.settings().cell_size;
  if (const double factor = groundFactorOf(metres_per_pixel); factor != 1.0) {  // as the model saw its imagery
    const cv::Mat seen = resampleToGround(image, factor, features_.settings().upsample);
    const CostGrid at_ground = imageCosts(seen, valid.empty() ? valid : resampleToGround(valid, factor, "none"), tiles, 0.0);
    const std::vector<int> sources = groundCellSources(image.size(), seen.size(), k);
    CostGrid grid;
    grid.rows = image.rows / k;
    grid.cols = image.cols / k;
    grid.cell_size = k;
    grid.costs.resize(sources.size());
    for (std::size_t s = 0; s < sources.size(); ++s) grid.costs[s] = at_ground.costs[static_cast<std::size_t>(sources[s])];
    grid.frame = WorldFrame::unlocated(grid.rows, grid.cols);
    return grid;
  }
  CostGrid grid;
  grid.rows = image.rows / k;
  grid.cols = image.cols / k;
  grid.cell_size = k;
  if (grid.rows < 1 || grid.cols < 1) return costs(features_.map(image));  // computeRawFeatures says why
  checkImage(image.cols, image.rows);
  const ColourStatistics colours = needsColourStatistics() ? colourStatistics(image, valid) : ColourStatistics{};
  if (static_cast<double>(grid.rows) * grid.cols > std::numeric_limits<int>::max()) {
    throw InvalidArgument("the " + std::to_string(image.cols) + " x " + std::to_string(image.rows) +
                          " px image has more cells than a cost grid holds (2^31 - 1); stream it band by band "
                          "(bandCosts, or mmp costmap --raw) or use larger cells");
  }
  grid.costs.resize(static_cast<std::size_t>(grid.rows) * grid.cols);
  std::optional<ImageFeatureStatistics> statistics;  // a first pass over the whole image, tile by tile
  if (needsFeatureStatistics()) {
    haloCells(tiles);  // checks the tile settings first
    statistics.emplace(features_.statistics(image, tiles.tile_cells, tiles.threads));
  }
  bandCosts(image, 0, grid.rows, 0, grid.rows, tiles, grid.costs.data(), &colours, statistics ? &*statistics : nullptr);
  grid.frame = WorldFrame::unlocated(grid.rows, grid.cols);
  return grid;
}

CostGrid CostModel::costs(const GeoImage& image, const TileSettings& tiles) const {
  if (image.frame.rows != image.pixels.rows || image.frame.cols != image.pixels.cols) {
    throw InvalidArgument("cost map: the image is " + std::to_string(image.pixels.cols) + " x " +
                          std::to_string(image.pixels.rows) + " px but its frame " + std::to_string(image.frame.cols) +
                          " x " + std::to_string(image.frame.rows));
  }
  if (!image.valid.empty() && (image.valid.size != image.pixels.size || image.valid.type() != CV_8UC1)) {
    throw InvalidArgument("cost map: the image's valid mask must be CV_8UC1 of the image's size");
  }
  CostGrid grid = imageCosts(image.pixels, image.valid, tiles, metresPerPixel(image.frame));
  grid.frame = image.frame.coarsened(grid.cell_size);
  if (!image.valid.empty()) {
    grid.unknown.assign(grid.costs.size(), 0);
    if (markUnknownCells(image.valid, grid.cell_size, 0, grid.rows, grid.cols, grid.costs.data(), grid.unknown.data()) == 0) {
      grid.unknown.clear();
    }
  }
  return grid;
}

void CostModel::bandCosts(const cv::Mat& pixels, int top, int rows, int first, int count, const TileSettings& tiles,
                          double* out, const ColourStatistics* colours, const ImageFeatureStatistics* feature_statistics) const {
  const int k = features_.settings().cell_size, halo = haloCells(tiles);
  const int needed_top = std::max(0, first - halo) * k, needed_bottom = std::min(rows, first + count + halo) * k;
  if (first < 0 || count < 1 || first + count > rows || top > needed_top || top + pixels.rows < needed_bottom) {
    throw InvalidArgument("cost map: pixel rows [" + std::to_string(top) + ", " + std::to_string(top + pixels.rows) +
                          ") do not cover cell rows [" + std::to_string(first) + ", " + std::to_string(first + count) +
                          ") and their halo, pixel rows [" + std::to_string(needed_top) + ", " +
                          std::to_string(needed_bottom) + ")");
  }
  windowCosts(pixels, {0, top}, rows, pixels.cols / k, cv::Rect(0, first, pixels.cols / k, count), tiles, out, colours,
              feature_statistics);
}

void CostModel::windowCosts(const cv::Mat& pixels, cv::Point corner, int rows, int cols, const cv::Rect& cells,
                            const TileSettings& tiles, double* out, const ColourStatistics* colours,
                            const ImageFeatureStatistics* feature_statistics) const {
  const int halo = haloCells(tiles);
  if (needsFeatureStatistics() && feature_statistics == nullptr) {
    throw InvalidArgument(source_ + ": its features are standardised by the whole image's statistics "
                          "(features.normalise: per_image); pass them (FeatureStack::statistics, featureStatistics)");
  }
  if (needsColourStatistics() && colours == nullptr) {
    throw InvalidArgument(source_ + ": its network standardises colours by the whole image's statistics; pass them "
                          "(colourStatistics)");
  }
  const ColourStatistics fixed;
  const ColourStatistics& network_colours = needsColourStatistics() ? *colours : fixed;
  // A network model with w = 0 needs no feature map unless the network reads the features.
  const bool linear_part = network_.empty() || !weights_.isZero();
  const bool feature_map = linear_part || network_.shape().feature_inputs > 0;
  const int k = features_.settings().cell_size, size = tiles.tile_cells;
  if (pixels.type() != CV_8UC3) throw InvalidArgument("cost map: the image must be 8-bit BGR (see loadImage)");
  const int first = cells.y, count = cells.height, left = cells.x, width = cells.width;
  const int top = corner.y;
  const int needed_top = std::max(0, first - halo) * k, needed_bottom = std::min(rows, first + count + halo) * k;
  const int needed_left = std::max(0, left - halo) * k, needed_right = std::min(cols, left + width + halo) * k;
  if (first < 0 || count < 1 || first + count > rows || left < 0 || width < 1 || left + width > cols ||
      top > needed_top || top + pixels.rows < needed_bottom || corner.x > needed_left ||
      corner.x + pixels.cols < needed_right) {
    throw InvalidArgument("cost map: the pixels [" + std::to_string(corner.x) + ", " + std::to_string(corner.x + pixels.cols) +
                          ") x [" + std::to_string(top) + ", " + std::to_string(top + pixels.rows) +
                          ") (columns x rows) do not cover cells [" + std::to_string(left) + ", " +
                          std::to_string(left + width) + ") x [" + std::to_string(first) + ", " +
                          std::to_string(first + count) + ") of a " + std::to_string(cols) + " x " + std::to_string(rows) +
                          "-cell image and their halo, pixels [" + std::to_string(needed_left) + ", " +
                          std::to_string(needed_right) + ") x [" + std::to_string(needed_top) + ", " +
                          std::to_string(needed_bottom) + ")");
  }
  const int tile_rows = (count + size - 1) / size, tile_cols = (width + size - 1) / size;
  ThreadPool pool(tiles.threads);
  pool.parallelFor(static_cast<std::size_t>(tile_rows) * tile_cols, [&](std::size_t t) {
    const int r0 = first + static_cast<int>(t / tile_cols) * size, c0 = left + static_cast<int>(t % tile_cols) * size;
    const int r1 = std::min(first + count, r0 + size), c1 = std::min(left + width, c0 + size);
    const int er0 = std::max(0, r0 - halo), er1 = std::min(rows, r1 + halo);
    const int ec0 = std::max(0, c0 - halo), ec1 = std::min(cols, c1 + halo);
    const cv::Mat tile = pixels(cv::Rect(ec0 * k - corner.x, er0 * k - top, (ec1 - ec0) * k, (er1 - er0) * k));
    const int tile_cols = ec1 - ec0;
    std::vector<double> log_costs(static_cast<std::size_t>(er1 - er0) * tile_cols, 0.0);
    std::optional<FeatureMap> map;
    std::optional<CellScores> score;
    if (feature_map) map.emplace(features_.map(tile, cv::Point(ec0, er0), feature_statistics));
    if (linear_part) score.emplace(*map, weights_);
    if (!network_.empty()) {
      std::vector<float> inputs = networkInputs(tile, k, network_colours);
      if (network_.shape().feature_inputs > 0) appendFeatureInputs(*map, inputs);
      network_.logCosts(inputs, er1 - er0, tile_cols, log_costs);
    }
    for (int r = r0; r < r1; ++r) {
      for (int c = c0; c < c1; ++c) {
        const int s = (r - er0) * tile_cols + (c - ec0);
        const double network_log = log_costs[static_cast<std::size_t>(s)];
        const double cost = network_.empty() ? raised(cellCost(*score, *map, s, 0.0))
                                             : raised(network_.shape().cost(linear_part ? (*score)(s) + network_log : network_log));
        if (!(cost > 0.0) || !std::isfinite(cost)) throw badCost(r, c, cost);
        out[static_cast<std::size_t>(r - first) * width + (c - left)] = cost;
      }
    }
  });
}

const char* hypothesisName(CostHypothesis hypothesis) {
  switch (hypothesis) {
    case CostHypothesis::Learch: return "learch";
    case CostHypothesis::Network: return "network";
    case CostHypothesis::Linear: break;
  }
  return "linear";
}

void CostModel::logCosts(const FeatureMap& map, const Eigen::VectorXd& w, const TreeEnsemble& trees, std::vector<double>& out,
                         const std::vector<float>* network_inputs) const {
  const double e = exponent_;
  switch (hypothesis()) {
    case CostHypothesis::Linear:
      map.costs(w, out, form_);  // +inf on blocked cells
      for (double& c : out) c = std::log(c) * e;
      return;
    case CostHypothesis::Learch:
      if (trees.largestFeature() >= map.features()) {
        throw InvalidArgument(source_ + ": a tree splits on feature " + std::to_string(trees.largestFeature()) + "; the map has " +
                              std::to_string(map.features()));
      }
      map.costs(w, out);  // w . f, +inf on blocked cells
      for (int s = 0; s < map.cells(); ++s) {
        double& v = out[static_cast<std::size_t>(s)];
        if (std::isfinite(v)) v += trees(map, s);
      }
      for (double& c : out) c *= e;
      return;
    case CostHypothesis::Network: break;
  }
  const std::size_t planes = static_cast<std::size_t>(network_.shape().inputs());
  if (network_inputs == nullptr || network_inputs->size() != static_cast<std::size_t>(map.cells()) * planes) {
    throw InvalidArgument(source_ + ": a network model's log-costs need its " + std::to_string(planes) + " input planes on the map's " +
                          std::to_string(map.cells()) + " cells (" +
                          (network_inputs == nullptr ? std::string("none given") : std::to_string(network_inputs->size()) + " values given") +
                          ")");
  }
  map.costs(w, out);  // w . f, +inf on blocked cells
  std::vector<double> network;
  network_.logCosts(*network_inputs, map.rows(), map.cols(), network);
  for (std::size_t s = 0; s < out.size(); ++s) {
    if (std::isfinite(out[s])) out[s] = std::log(network_.shape().cost(out[s] + network[s])) * e;
  }
}

DataError CostModel::badCost(long long row, long long col, double cost) const {
  return DataError(source_ + " gives cell (row " + std::to_string(row) + ", col " + std::to_string(col) + ") the cost " +
                   std::to_string(cost) + "; A* needs finite costs > 0 (retrain the model)");
}

CostGrid CostModel::costs(const FeatureMap& map) const {
  if (!network_.empty()) {
    throw InvalidArgument(source_ + ": a network model computes its costs from the image, not from a feature map");
  }
  CostGrid grid;
  grid.rows = map.rows();
  grid.cols = map.cols();
  grid.cell_size = features_.settings().cell_size;
  grid.frame = map.frame();
  const CellScores score(map, weights_);  // checks the map's feature count
  grid.costs.resize(static_cast<std::size_t>(map.cells()));
  for (int s = 0; s < map.cells(); ++s) {
    if (map.isBlocked(s)) {  // a cell without data (teachingMap blocks them): unknown, +inf as CostModel::costs(image) gives it
      grid.costs[static_cast<std::size_t>(s)] = std::numeric_limits<double>::infinity();
      continue;
    }
    const double cost = raised(cellCost(score, map, s, 0.0));
    if (!(cost > 0.0) || !std::isfinite(cost)) throw badCost(s / grid.cols, s % grid.cols, cost);  // exp can overflow
    grid.costs[static_cast<std::size_t>(s)] = cost;
  }
  return grid;
}

std::vector<float> rasterCosts(const double* costs, std::size_t count, int cols, long long first_row,
                               const std::string& source) {
  std::vector<float> out(count);
  for (std::size_t i = 0; i < count; ++i) {
    const double c = costs[i];
    const bool fits = c == std::numeric_limits<double>::infinity() ||
                      (c >= std::numeric_limits<float>::min() && c <= std::numeric_limits<float>::max());
    if (!fits) {
      throw DataError(source + " gives cell (row " + std::to_string(first_row + static_cast<long long>(i) / cols) + ", col " +
                      std::to_string(static_cast<long long>(i) % cols) + ") the cost " + numberText(c) +
                      ", outside what a 32-bit float raster holds (" + numberText(std::numeric_limits<float>::min()) +
                      " to " + numberText(std::numeric_limits<float>::max()) +
                      "; +inf is nodata, impassable): nothing written; retrain the model (costs within [" +
                      numberText(CostLimits::kLowest) + ", " + numberText(CostLimits::kHighest) + "])");
    }
    out[i] = static_cast<float>(c);
  }
  return out;
}

ColourStatistics colourStatistics(ImageRows& image) {
  constexpr int kBand = 256;  // rows read at once
  ColourSums sums;
  while (image.next() < image.rows()) {
    const int top = image.next();
    const cv::Mat rows = image.read(kBand);
    sums.add(rows, image.valid().empty() ? cv::Mat() : image.valid().rowRange(top, top + rows.rows));
  }
  return sums.statistics();
}

namespace {

std::string ratioText(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", v);
  return text;
}

// The holdout contrast entries (CostModel::summary) composed from the per-class costs `mmp train`
// recorded under `prefix` ("" or an adapted model's "parent_"), which are taken out of `rest`:
// {contrast, class costs}; {"not recorded ...", ""} for a model with a holdout but without them, and
// {"", ""} for one without a holdout.
std::pair<std::string, std::string> holdoutContrast(std::map<std::string, std::string>& rest, const std::string& prefix) {
  std::map<std::string, double> costs;
  std::string unreadable;
  const std::string per_class = prefix + kHoldoutClassCostPrefix;
  for (auto it = rest.lower_bound(per_class); it != rest.end() && it->first.rfind(per_class, 0) == 0;) {
    const std::optional<double> v = numberFromText(it->second);
    const std::string name = it->first.substr(per_class.size());
    if (v && std::isfinite(*v) && *v > 0) costs[name] = *v;
    else unreadable += (unreadable.empty() ? "" : ", ") + name + " '" + it->second + "'";
    it = rest.erase(it);
  }
  std::string preferred;
  if (const auto it = rest.find(prefix + kHoldoutClassCostPreferred); it != rest.end()) {
    preferred = it->second;
    rest.erase(it);
  }
  if (costs.empty()) {
    if (rest.count(prefix + "holdout") == 0) return {};
    return {"not recorded (the model was made before mmp train recorded each class's cost on its holdout; its run's "
            "metrics.json holds them as learned_class_costs)" +
                (unreadable.empty() ? std::string() : "; unreadable entries: " + unreadable),
            ""};
  }
  const auto cheapest = std::min_element(costs.begin(), costs.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  const auto costliest = std::max_element(costs.begin(), costs.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  std::string contrast;
  const auto preferred_cost = costs.find(preferred);
  if (preferred_cost != costs.end() && costs.size() >= 2) {
    const auto rival = std::min_element(costs.begin(), costs.end(), [&](const auto& a, const auto& b) {
      const double none = std::numeric_limits<double>::infinity();
      return (a.first == preferred ? none : a.second) < (b.first == preferred ? none : b.second);
    });
    const double ratio = rival->second / preferred_cost->second;
    contrast = rival->first + ", the cheapest class but the preferred " + preferred + ", costs " + ratioText(ratio) + " x " +
               preferred + (ratio <= 1.0 ? " (not above 1: the map does not keep the preferred class the cheapest)" : "") + "; ";
  }
  contrast += "the costliest class, " + costliest->first + ", costs " + ratioText(costliest->second / cheapest->second) +
              " x the cheapest, " + cheapest->first + " (each class's learned costs on the holdout images, geometric mean over its cells)";
  std::string list;
  for (const auto& [name, cost] : costs) list += (list.empty() ? "" : ", ") + name + " " + ratioText(cost);
  list += " (each class's learned costs on the holdout images, geometric mean over its cells, over the preferred class " +
          (preferred.empty() ? std::string("(not recorded)") : preferred) + "'s)";
  if (!unreadable.empty()) list += "; unreadable entries: " + unreadable;
  return {contrast, list};
}

}  // namespace

std::vector<std::pair<std::string, std::string>> CostModel::summary() const {
  std::vector<std::pair<std::string, std::string>> out;
  std::map<std::string, std::string> rest = info_;
  const auto [contrast, class_costs] = holdoutContrast(rest, "");
  const auto [parent_contrast, parent_class_costs] = holdoutContrast(rest, "parent_");
  if (!parent_contrast.empty()) rest["parent_holdout_contrast"] = parent_contrast;
  if (!parent_class_costs.empty()) rest["parent_holdout_class_costs"] = parent_class_costs;
  const auto take = [&](const std::string& key) {
    const auto it = rest.find(key);
    if (it == rest.end()) return;
    out.emplace_back(key, it->second);
    rest.erase(it);
  };
  out.emplace_back("format", "mmp model file version " + std::to_string(formatVersion(exponent_)));
  take("behaviour");
  out.emplace_back("cost", !trees_.empty()    ? "exp(w . f + trees(f)), " + std::to_string(trees_.size()) + " trees (LEARCH)"
                           : !network_.empty() ? network_.shape().formula() + " (convolutional network)"
                           : form_ == CostForm::Exponential ? "exp(w . f)"
                                                            : "w . f");
  if (exponent_ != 1.0) out.back().second += ", every cost raised to the power " + exactNumberText(exponent_) + " after training";
  take("learner");
  const FeatureSettings& f = features_.settings();
  std::string spaces = std::string(f.rgb ? " rgb" : "") + (f.hsv ? " hsv" : "") + (f.lab ? " lab" : "");
  std::string blurs;
  for (double sigma : f.blur_sigmas) blurs += " " + numberText(sigma);
  std::string textures = f.texture_windows.empty() ? "" : ", texture windows (px)";
  for (int w : f.texture_windows) textures += " " + std::to_string(w);
  if (f.region_window > 0) {
    textures += ", region features (segments of at least " + std::to_string(f.region_size) + " cells, threshold " +
                numberText(f.region_threshold) + ", in windows of " + std::to_string(f.region_window) + " cells)";
  }
  out.emplace_back("features", std::to_string(features_.features()) + " per cell of " + std::to_string(f.cell_size) +
                                   " px: colour spaces" + spaces + ", blurs (px)" + blurs + (f.gradient ? ", gradient" : "") + textures +
                                   (f.bins > 0 ? ", " + std::to_string(f.bins) + " soft bins each" : "") +
                                   (f.normalise_per_image ? ", standardised per image (features.normalise: per_image)" : "") +
                                   (f.ground_resolution > 0.0
                                        ? ", imagery at " + numberText(f.ground_resolution) + " m per pixel (finer images "
                                              "area-averaged to it, coarser ones " +
                                              (f.upsample == "none" ? std::string("taken as they come")
                                                                    : (f.upsample == "cubic" ? "bicubic" : "bilinear")) + ")"
                                        : ""));
  if (!network_.empty()) out.emplace_back("network", network_.shape().describe());
  take("trained_on");
  take("training_cost_range");
  if (!domain_.empty()) {
    std::string text = std::to_string(domain_.cells()) + " training cells' colours (" + std::to_string(domain_.cellSize()) +
                       " px cells): images with more than " + numberText(100.0 * Familiarity::kWarnShare) +
                       " % of cells unlike them warn";
    if (domain_.hasTexture()) {
      text += "; and " + std::to_string(domain_.textureCells()) + " cells' colour and contrast (in " +
              std::to_string(domain_.textureBlock() * domain_.cellSize()) + " px blocks): more than " +
              numberText(100.0 * Familiarity::kTextureWarnShare) + " % unlike them warn";
    } else {
      text += "; no texture statistics (the model was saved before mmp kept them): texture not checked";
    }
    out.emplace_back("training_statistics", text);
  } else {
    out.emplace_back("training_statistics", "none (the model was made before mmp kept them): no familiarity check");
  }
  for (const char* key : {"mmp_version", "config", "selected", "holdout"}) take(key);
  std::vector<std::string> holdout_keys;
  for (const auto& [key, value] : rest) {
    if (key.rfind("holdout_", 0) == 0) holdout_keys.push_back(key);
  }
  for (const std::string& key : holdout_keys) take(key);
  if (!contrast.empty()) out.emplace_back("holdout_contrast", contrast);
  if (!class_costs.empty()) out.emplace_back("holdout_class_costs", class_costs);
  for (const char* key : {"data", "config_effective"}) take(key);
  for (const auto& [key, value] : rest) {
    if (key.rfind("network.", 0) != 0) out.emplace_back(key, value);  // the network's own settings: in "network"
  }
  return out;
}

Familiarity CostModel::familiarity(const cv::Mat& image, const cv::Mat& valid) const {
  Familiarity f;
  if (domain_.empty()) return f;
  domain_.check(image, valid, f);
  return f;
}

Familiarity familiarity(const CostModel& model, ImageRows& image) {
  Familiarity f;
  if (model.domain().empty()) return f;
  const int block = std::max(1, model.domain().textureBlock());
  const int band = (64 + block - 1) / block * block * model.domain().cellSize();  // rows read at once: whole texture blocks
  while (image.next() < image.rows()) {
    const int top = image.next();
    const cv::Mat rows = image.read(band);
    model.domain().check(rows, image.valid().empty() ? cv::Mat() : image.valid().rowRange(top, top + rows.rows), f);
  }
  return f;
}

ImageFeatureStatistics featureStatistics(const CostModel& model, ImageRows& image, const TileSettings& tiles) {
  const int k = model.features().settings().cell_size;
  model.checkImage(image.cols(), image.rows());
  const int halo = model.features().reachCells(), rows = image.rows() / k;
  model.haloCells(tiles);  // checks the tile settings
  if (rows < 1 || image.cols() / k < 1) {
    throw InvalidArgument("the " + std::to_string(image.cols()) + " x " + std::to_string(image.rows()) +
                          " px image holds no whole cell of " + std::to_string(k) + " px");
  }
  ImageFeatureStatistics total;
  cv::Mat pixels;  // the image's pixel rows from cell row top on
  int top = 0;
  for (int first = 0; first < rows; first += tiles.tile_cells) {
    const int count = std::min(tiles.tile_cells, rows - first);
    const int needed_top = std::max(0, first - halo), needed_bottom = std::min(rows, first + count + halo);
    if (needed_top > top) {
      pixels = pixels.rowRange(std::min((needed_top - top) * k, pixels.rows), pixels.rows).clone();
      top = needed_top;
    }
    if (top * k + pixels.rows < needed_bottom * k) {
      const cv::Mat more = image.read(needed_bottom * k - top * k - pixels.rows);
      if (pixels.empty()) {
        pixels = more;
      } else {
        cv::vconcat(pixels, more, pixels);
      }
    }
    model.features().addStatistics(pixels, top, rows, cv::Range(first, first + count), tiles.tile_cells, tiles.threads, total);
  }
  image.read(image.rows() - image.next());
  return total;
}

CostRasterInfo writeCostRaster(const CostModel& model, ImageRows& image, const std::string& tiff,
                               const TileSettings& tiles, const std::function<void(int, int)>& progress,
                               const ColourStatistics* colours, const ImageFeatureStatistics* feature_statistics) {
  const int k = model.features().settings().cell_size;
  model.checkImage(image.cols(), image.rows());
  if (const double mpp = metresPerPixel(image.frame()); model.groundFactorOf(mpp) != 1.0) {
    throw InvalidArgument(model.source() + ": its features are in metres (" +
                          numberText(model.features().settings().ground_resolution) + " m per pixel) and the image is at " +
                          numberText(mpp) + " m: a streamed cost map does not resample; compute it in memory "
                          "(CostModel::costs) or resample the image to the model's resolution first");
  }
  const int halo = model.haloCells(tiles);
  CostRasterInfo info;
  info.rows = image.rows() / k;
  info.cols = image.cols() / k;
  if (info.rows < 1 || info.cols < 1) {
    throw InvalidArgument("the " + std::to_string(image.cols()) + " x " + std::to_string(image.rows()) +
                          " px image holds no whole cell of " + std::to_string(k) + " px");
  }
  info.lowest = std::numeric_limits<double>::infinity();
  FloatTiffWriter out(tiff, info.rows, info.cols);
  info.frame = image.frame().coarsened(k);
  out.georeference(info.frame);
  cv::Mat pixels;  // the image's pixel rows [top, top + pixels.rows)
  int top = 0;
  std::vector<double> costs;
  std::vector<float> values;
  for (int first = 0; first < info.rows; first += tiles.tile_cells) {
    const int count = std::min(tiles.tile_cells, info.rows - first);
    const int needed_top = std::max(0, first - halo) * k, needed_bottom = std::min(info.rows, first + count + halo) * k;
    if (needed_top > top) {  // drop the rows no later band needs
      pixels = pixels.rowRange(std::min(needed_top - top, pixels.rows), pixels.rows).clone();
      top = needed_top;
    }
    if (top + pixels.rows < needed_bottom) {
      const cv::Mat more = image.read(needed_bottom - top - pixels.rows);
      if (pixels.empty()) {
        pixels = more;
      } else {
        cv::vconcat(pixels, more, pixels);
      }
    }
    costs.resize(static_cast<std::size_t>(count) * info.cols);
    model.bandCosts(pixels, top, info.rows, first, count, tiles, costs.data(), colours, feature_statistics);
    info.unknown += markUnknownCells(image.valid(), k, first, count, info.cols, costs.data(), nullptr);
    values = rasterCosts(costs.data(), costs.size(), info.cols, first, model.source());
    for (double c : costs) {
      if (std::isfinite(c)) info.lowest = std::min(info.lowest, c), info.highest = std::max(info.highest, c);
    }
    out.write(values.data(), count);
    if (progress) progress(first + count, info.rows);
  }
  image.read(image.rows() - image.next());  // the pixels beyond the last whole cell: the file is read to its end
  out.finish();
  return info;
}

}  // namespace mmp
