#include <mmp/maps/training/regions.hpp>

#include <mmp/core/error.hpp>
#include <mmp/maps/georeference.hpp>
#include <mmp/maps/ground_scale.hpp>
#include <mmp/maps/imagery.hpp>
#include <mmp/maps/synthetic_scene.hpp>
#include <mmp/planning/demonstrations.hpp>
#include <mmp/planning/path.hpp>

#include <cmath>
#include <limits>
#include <sstream>

namespace mmp {

std::string prefix(const PipelineSettings& settings) {
  return settings.source.empty() ? std::string() : settings.source + ": ";
}

std::vector<int> pathCells(const PixelPath& path, int cell_size, int rows, int cols, const std::string& where,
                           const WorldFrame& pixel_frame) {
  if (path.world && !pixel_frame.hasWorld()) {
    throw DataError(where + ": path " + path.name +
                    " is in world coordinates, but the image has no world frame (no georeference): give its "
                    "resolution and origin, or the path in pixels");
  }
  std::vector<std::pair<int, int>> points;
  for (std::size_t i = 0; i < path.points.size(); ++i) {
    PixelPoint p = path.points[i];
    if (path.world) {
      const CellPoint pixel = pixel_frame.toCell({p.x, p.y});
      p = {pixel.u, pixel.v};
    }
    const double width = static_cast<double>(cols) * cell_size, height = static_cast<double>(rows) * cell_size;
    if (!(p.x >= 0.0 && p.x < width && p.y >= 0.0 && p.y < height)) {
      std::ostringstream message;
      message.precision(10);
      message << where << ": path " << path.name << ", point " << i + 1 << " (";
      if (path.world) {
        message << "world x " << path.points[i].x << ", y " << path.points[i].y << ", pixel x " << p.x << ", y " << p.y
                << ") lies outside the image's whole cells (" << pixel_frame.coarsened(cell_size).extentText() << ")";
      } else {
        message << "x " << p.x << ", y " << p.y << ") lies outside the image's whole cells (0 <= x < " << width
                << ", 0 <= y < " << height << ")";
      }
      throw DataError(message.str());
    }
    points.emplace_back(static_cast<int>(p.y) / cell_size, static_cast<int>(p.x) / cell_size);
  }
  std::vector<int> cells = rasterizePolyline(points, cols, Connectivity::Eight);
  if (cells.size() < 2) {
    throw DataError(where + ": path " + path.name + " stays inside one cell of " + std::to_string(cell_size) +
                    " pixels; a demonstration must cross at least two cells");
  }
  return cells;
}

std::shared_ptr<const FeatureMap> regionMap(const FeatureStack& stack, const Region& region) {
  FeatureMap map = stack.map(region.raw);
  if (!region.cell_sources.empty()) map = map.gathered(region.cell_sources, region.rows(), region.cols());
  map.setFrame(region.frame.coarsened(stack.settings().cell_size));
  return std::make_shared<const FeatureMap>(std::move(map));
}

std::vector<double> behaviourCosts(const std::vector<std::uint8_t>& cell_labels, const Behaviour& behaviour) {
  std::vector<double> costs(cell_labels.size());
  for (std::size_t s = 0; s < cell_labels.size(); ++s) {
    costs[s] = behaviour.cost_by_index[cell_labels[s]];
    if (std::isnan(costs[s])) {
      throw DataError("behaviour '" + behaviour.name + "': cell " + std::to_string(s) + " has class index " +
                      std::to_string(cell_labels[s]) + ", which has no cost");
    }
  }
  return costs;
}

Region loadRegion(const RegionSpec& spec, const PipelineSettings& config) {
  Region region;
  region.spec = spec;
  if (spec.synthetic) {
    SyntheticScene scene = makeSyntheticScene(*spec.synthetic);
    region.image = scene.image;
    region.labels = scene.labels;
    region.frame = frameOf(spec.frame, region.image.rows, region.image.cols);
  } else if (!spec.pixels.empty()) {
    if (spec.pixels.type() != CV_8UC3) {
      throw DataError(prefix(config) + spec.where + ": the image in memory must be 8-bit with 3 channels (BGR)");
    }
    region.image = spec.pixels;
    region.frame = frameOf(spec.frame, region.image.rows, region.image.cols);
  } else {
    GeoImage image = loadGeoImage(spec.image, spec.frame);
    if (!image.valid.empty()) {  // features of made-up pixels would be learned as terrain
      throw DataError(prefix(config) + spec.where + ": the image '" + spec.image + "' has " +
                      std::to_string(image.valid.total() - static_cast<std::size_t>(cv::countNonZero(image.valid))) +
                      " pixels without data (nodata, mask or alpha 0); mmp does not train on them: crop them away");
    }
    region.image = image.pixels;
    region.frame = std::move(image.frame);
  }
  if (!spec.synthetic && (!spec.labels.empty() || !spec.label_pixels.empty())) {
    const bool in_memory = !spec.label_pixels.empty();
    const std::string mask = spec.where + (in_memory ? ".labels" : ": the label mask '" + spec.labels + "'");
    if (in_memory) {
      checkIndexMask(spec.label_pixels, config.classes, prefix(config) + mask);
      region.labels = spec.label_pixels;
    } else {
      region.labels = loadLabelMask(spec.labels, config.classes);
    }
    if (region.labels.size() != region.image.size()) {
      throw DataError(prefix(config) + mask + " is " + std::to_string(region.labels.cols) + " x " +
                      std::to_string(region.labels.rows) + " pixels, the image" +
                      (spec.pixels.empty() ? " '" + spec.image + "'" : std::string()) + " " +
                      std::to_string(region.image.cols) + " x " + std::to_string(region.image.rows) + "; they must match");
    }
  }
  try {
    const int k = config.features.cell_size;
    const double factor = groundFactor(config.features, metresPerPixel(region.frame), "features in metres");
    if (factor == 1.0) {
      region.raw = computeRawFeatures(region.image, config.features);
    } else {  // as the model's imagery: features on the image resampled to features.ground_resolution
      const cv::Mat seen = resampleToGround(region.image, factor, config.features.upsample);
      region.raw = computeRawFeatures(seen, config.features);
      region.cell_sources = groundCellSources(region.image.size(), seen.size(), k);
    }
    region.cell_rows = region.image.rows / k;
    region.cell_cols = region.image.cols / k;
    normaliseImageFeatures(region.raw, config.features);  // by the image's own statistics, if asked
  } catch (const InvalidArgument& e) {  // a setting that does not fit this image: say which image
    throw ConfigError(prefix(config) + spec.where + " (" +
                      (spec.synthetic || !spec.pixels.empty() ? spec.name : "'" + spec.image + "'") + "): " + e.what());
  }
  if (!region.labels.empty()) {
    region.cell_labels = cellLabels(region.labels, config.features.cell_size);
    region.true_costs = behaviourCosts(region.cell_labels, config.behaviour);
  }
  return region;
}

void addDemonstrations(Region& region, const PipelineSettings& config, int region_index) {
  region.demonstrations.clear();
  if (region.spec.hasDemonstrations()) {
    const std::string where = prefix(config) + region.spec.where + ".demonstrations" +
                              (region.spec.demonstrations_file.empty() ? "" : " ('" + region.spec.demonstrations_file + "')");
    for (const PixelPath& path : region.spec.demonstrations) {
      std::vector<int> cells =
          pathCells(path, config.features.cell_size, region.rows(), region.cols(), where, region.frame);
      if (!region.true_costs.empty()) {
        for (std::size_t i = 0; i < cells.size(); ++i) {
          if (std::isinf(region.true_costs[static_cast<std::size_t>(cells[i])])) {
            throw DataError(where + ": path " + path.name + " crosses cell (row " + std::to_string(cells[i] / region.cols()) +
                            ", col " + std::to_string(cells[i] % region.cols()) +
                            "), impassable under the behaviour '" + config.behaviour.name + "'");
          }
        }
      }
      region.demonstrations.push_back(std::move(cells));
    }
    return;
  }
  if (region.true_costs.empty()) {
    throw DataError(prefix(config) + region.spec.where + " has neither labels nor demonstrations");
  }
  region.demonstrations = plannedPaths(region, config.demonstrations.per_region, config.demonstrations.min_separation_px,
                                      config.features.cell_size,
                                      config.demonstrations.seed + static_cast<std::uint64_t>(region_index),
                                      prefix(config) + "demonstrations.per_region", config.demonstrations.noise);
  if (region.demonstrations.empty()) {
    throw DataError(prefix(config) + region.spec.where + ": no demonstration could be generated (no two passable "
                    "cells " + std::to_string(config.demonstrations.min_separation_px) +
                    " px apart are connected); lower demonstrations.min_separation_px");
  }
}

std::vector<std::vector<int>> plannedPaths(const Region& region, int count, double min_separation_px, int cell_size,
                                           std::uint64_t seed, const std::string& setting,
                                           const DemonstrationNoise& noise) {
  // Each path is one A* search over the image; more paths than cells repeat pairs at a cost that grows
  // with the count (and the draws would try 50 x count pairs before giving up).
  if (count > region.cells()) {
    throw ConfigError(setting + ": " + std::to_string(count) + " paths asked of " + region.spec.where + ", an image of " +
                      std::to_string(region.cells()) + " cells (" + std::to_string(region.rows()) + " x " +
                      std::to_string(region.cols()) + "); ask at most one per cell");
  }
  DemonstrationParams params;
  params.count = count;
  params.min_separation = min_separation_px / cell_size;
  params.seed = seed;
  params.max_attempts = 50 * count + 100;
  params.noise = noise;
  std::vector<std::vector<int>> paths;
  for (Demonstration& d : generateDemonstrations(region.rows(), region.cols(), region.true_costs, params)) {
    paths.push_back(std::move(d.path));
  }
  return paths;
}

CostGrid regionCosts(const CostModel& model, const Region& region) {
  if (!model.readsPixels()) return model.costs(*region.map);
  CostGrid grid = model.costs(region.image, {}, metresPerPixel(region.frame));  // a network sees the image
  for (int s = 0; s < region.cells(); ++s) {
    if (region.map->isBlocked(s)) grid.costs[static_cast<std::size_t>(s)] = std::numeric_limits<double>::infinity();
  }
  return grid;
}

}  // namespace mmp
