#include <mmp/maps/cost_model.hpp>

#include <mmp/core/error.hpp>
#include <mmp/core/thread_pool.hpp>
#include <mmp/maps/float_tiff.hpp>

#include <opencv2/core.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

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
  if (!trees.empty() && form != CostForm::Exponential) {
    throw DataError(source + ": it holds " + std::to_string(trees.size()) + " trees (a LEARCH log-cost) but setting 'costs' is '" +
                    describe(form) + "'; trees need exponential costs");
  }
  std::map<std::string, std::string> info;
  for (const auto& [key, value] : model.settings) {
    if (key.rfind("features.", 0) != 0) info[key] = value;
  }
  try {
    if (!trees.empty()) return CostModel(std::move(features), std::move(model.weights), std::move(trees), std::move(info), source);
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
  trees_.store(model);
  saveModel(path, model);
}

std::array<double, 2> CostModel::costBounds() const {
  // Features in [0, 1] with the bias at 1: w . f lies between the bias weight plus every negative
  // weight and the bias weight plus every positive one.
  double lower = weights_[kBiasIndex], upper = weights_[kBiasIndex];
  for (Eigen::Index k = 0; k < weights_.size(); ++k) {
    if (k == kBiasIndex) continue;
    lower += std::min(0.0, weights_[k]);
    upper += std::max(0.0, weights_[k]);
  }
  const std::array<double, 2> trees = trees_.range();
  lower += trees[0];
  upper += trees[1];
  if (form_ == CostForm::Exponential) return {std::exp(lower), std::exp(upper)};
  return {lower, upper};
}

int CostModel::haloCells(const TileSettings& tiles) const {
  const FeatureSettings& s = features_.settings();
  const int reach = features_.reachCells();
  // A tile's pixels must hold the largest blur and texture window (computeRawFeatures refuses wider
  // ones) and the class context disc.
  double widest = 1.0;
  for (double sigma : s.blur_sigmas) widest = std::max(widest, sigma);
  for (int w : s.texture_windows) widest = std::max(widest, static_cast<double>(w));
  const int least_tile = std::max(static_cast<int>(std::ceil(widest / s.cell_size)), reach);
  if (tiles.tile_cells < least_tile) {
    throw InvalidArgument("tile_cells = " + std::to_string(tiles.tile_cells) + " is too small for the model's features (" +
                          std::to_string(s.cell_size) + " px cells, blurs and windows up to " +
                          std::to_string(static_cast<int>(widest)) + " px); use at least " + std::to_string(least_tile));
  }
  if (tiles.overlap_cells == -1) return reach;
  if (tiles.overlap_cells < reach) {
    throw InvalidArgument("overlap_cells = " + std::to_string(tiles.overlap_cells) +
                          " is smaller than the model's features reach; use at least " + std::to_string(reach) +
                          " (or -1 for exactly that), else tiles would show seams");
  }
  return tiles.overlap_cells;
}

CostGrid CostModel::costs(const cv::Mat& image, const TileSettings& tiles) const {
  const int k = features_.settings().cell_size;
  CostGrid grid;
  grid.rows = image.rows / k;
  grid.cols = image.cols / k;
  grid.cell_size = k;
  if (grid.rows < 1 || grid.cols < 1) return costs(features_.map(image));  // computeRawFeatures says why
  checkImageSize(features_.settings(), image.cols, image.rows);
  if (static_cast<double>(grid.rows) * grid.cols > std::numeric_limits<int>::max()) {
    throw InvalidArgument("the " + std::to_string(image.cols) + " x " + std::to_string(image.rows) +
                          " px image has more cells than a cost grid holds (2^31 - 1); stream it band by band "
                          "(bandCosts, or mmp costmap --raw) or use larger cells");
  }
  grid.costs.resize(static_cast<std::size_t>(grid.rows) * grid.cols);
  bandCosts(image, 0, grid.rows, 0, grid.rows, tiles, grid.costs.data());
  grid.frame = WorldFrame::unlocated(grid.rows, grid.cols);
  return grid;
}

CostGrid CostModel::costs(const GeoImage& image, const TileSettings& tiles) const {
  if (image.frame.rows != image.pixels.rows || image.frame.cols != image.pixels.cols) {
    throw InvalidArgument("cost map: the image is " + std::to_string(image.pixels.cols) + " x " +
                          std::to_string(image.pixels.rows) + " px but its frame " + std::to_string(image.frame.cols) +
                          " x " + std::to_string(image.frame.rows));
  }
  CostGrid grid = costs(image.pixels, tiles);
  grid.frame = image.frame.coarsened(grid.cell_size);
  return grid;
}

void CostModel::bandCosts(const cv::Mat& pixels, int top, int rows, int first, int count, const TileSettings& tiles,
                          double* out) const {
  const int halo = haloCells(tiles);
  const int k = features_.settings().cell_size;
  const int cols = pixels.cols / k, size = tiles.tile_cells;
  if (pixels.type() != CV_8UC3) throw InvalidArgument("cost map: the image must be 8-bit BGR (see loadImage)");
  const int needed_top = std::max(0, first - halo) * k, needed_bottom = std::min(rows, first + count + halo) * k;
  if (first < 0 || count < 1 || first + count > rows || top > needed_top || top + pixels.rows < needed_bottom) {
    throw InvalidArgument("cost map: pixel rows [" + std::to_string(top) + ", " + std::to_string(top + pixels.rows) +
                          ") do not cover cell rows [" + std::to_string(first) + ", " + std::to_string(first + count) +
                          ") and their halo, pixel rows [" + std::to_string(needed_top) + ", " +
                          std::to_string(needed_bottom) + ")");
  }
  const int tile_rows = (count + size - 1) / size, tile_cols = (cols + size - 1) / size;
  ThreadPool pool(tiles.threads);
  pool.parallelFor(static_cast<std::size_t>(tile_rows) * tile_cols, [&](std::size_t t) {
    const int r0 = first + static_cast<int>(t / tile_cols) * size, c0 = static_cast<int>(t % tile_cols) * size;
    const int r1 = std::min(first + count, r0 + size), c1 = std::min(cols, c0 + size);
    const int er0 = std::max(0, r0 - halo), er1 = std::min(rows, r1 + halo);
    const int ec0 = std::max(0, c0 - halo), ec1 = std::min(cols, c1 + halo);
    const cv::Mat tile = pixels(cv::Rect(ec0 * k, er0 * k - top, (ec1 - ec0) * k, (er1 - er0) * k));
    const FeatureMap map = features_.map(tile);
    const CellScores score(map, weights_);
    for (int r = r0; r < r1; ++r) {
      for (int c = c0; c < c1; ++c) {
        const double cost = cellCost(score, map, (r - er0) * map.cols() + (c - ec0));
        if (!(cost > 0.0) || !std::isfinite(cost)) throw badCost(r, c, cost);
        out[static_cast<std::size_t>(r - first) * cols + c] = cost;
      }
    }
  });
}

DataError CostModel::badCost(long long row, long long col, double cost) const {
  return DataError(source_ + " gives cell (row " + std::to_string(row) + ", col " + std::to_string(col) + ") the cost " +
                   std::to_string(cost) + "; A* needs finite costs > 0 (retrain the model)");
}

CostGrid CostModel::costs(const FeatureMap& map) const {
  CostGrid grid;
  grid.rows = map.rows();
  grid.cols = map.cols();
  grid.cell_size = features_.settings().cell_size;
  grid.frame = map.frame();
  const CellScores score(map, weights_);  // checks the map's feature count
  grid.costs.resize(static_cast<std::size_t>(map.cells()));
  for (int s = 0; s < map.cells(); ++s) {
    const double cost = map.isBlocked(s) ? std::numeric_limits<double>::infinity() : cellCost(score, map, s);
    if (!(cost > 0.0) || !std::isfinite(cost)) throw badCost(s / grid.cols, s % grid.cols, cost);  // exp can overflow
    grid.costs[static_cast<std::size_t>(s)] = cost;
  }
  return grid;
}

CostRasterInfo writeCostRaster(const CostModel& model, ImageRows& image, const std::string& tiff,
                               const TileSettings& tiles, const std::function<void(int, int)>& progress) {
  const int k = model.features().settings().cell_size;
  checkImageSize(model.features().settings(), image.cols(), image.rows());
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
    model.bandCosts(pixels, top, info.rows, first, count, tiles, costs.data());
    values.assign(costs.begin(), costs.end());
    for (double c : costs) info.lowest = std::min(info.lowest, c), info.highest = std::max(info.highest, c);
    out.write(values.data(), count);
    if (progress) progress(first + count, info.rows);
  }
  image.read(image.rows() - image.next());  // the pixels beyond the last whole cell: the file is read to its end
  out.finish();
  return info;
}

}  // namespace mmp
