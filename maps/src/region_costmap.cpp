#include <mmp/maps/region_costmap.hpp>

#include <mmp/core/error.hpp>
#include <mmp/core/file_io.hpp>
#include <mmp/core/model_file.hpp>
#include <mmp/maps/ground_scale.hpp>

#include "quiet_gdal.hpp"

#include <cpl_conv.h>
#include <cpl_error.h>
#include <gdal.h>
#include <gdal_utils.h>
#include <ogr_srs_api.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <vector>

namespace mmp {
namespace {

namespace fs = std::filesystem;

constexpr const char* kManifest = "manifest.txt";
constexpr const char* kManifestTitle = "mmp region cost map, manifest version 2";

using detail::QuietGdal;

// Flushes a closed file to the disk before it is renamed (the rename then publishes whole data).
void syncFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0 || ::fsync(fd) != 0) {
    if (fd >= 0) ::close(fd);
    throw Error("cannot sync '" + path + "' to the disk");
  }
  ::close(fd);
}

void publish(const std::string& temporary, const std::string& target) {
  syncFile(temporary);
  std::error_code ec;
  fs::rename(temporary, target, ec);
  if (ec) throw Error("cannot rename '" + temporary + "' to '" + target + "': " + ec.message());
}

std::string readText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Which raster: a local file's FNV-1a 64 of its bytes (read once a run: a raster of the same size and
// frame is refused, and a changed one), else the GDAL path it was opened by.
std::string rasterIdentity(const std::string& image) {
  std::error_code ec;
  if (fs::is_regular_file(image, ec)) return "raster_fnv1a64 " + fileChecksum(image);
  return "raster_path " + image;
}

// The first line where two manifests differ, as "KEY: OLD here, NEW for this run".
std::string manifestDifference(const std::string& found, const std::string& wanted) {
  std::istringstream a(found), b(wanted);
  std::string line_a, line_b;
  while (true) {
    const bool more_a = static_cast<bool>(std::getline(a, line_a)), more_b = static_cast<bool>(std::getline(b, line_b));
    if (!more_a && !more_b) return "";
    if (!more_a) line_a.clear();
    if (!more_b) line_b.clear();
    if (line_a == line_b) continue;
    const std::string key = line_b.substr(0, line_b.find(' '));
    const auto value = [](const std::string& line) {
      const std::size_t space = line.find(' ');
      return space == std::string::npos ? std::string("(none)") : line.substr(space + 1);
    };
    if (line_a.substr(0, line_a.find(' ')) != key) return "'" + line_a + "' where this run records '" + line_b + "'";
    return key + " " + value(line_a) + " there, " + value(line_b) + " for this run";
  }
}

}  // namespace

std::string RegionWindow::describe() const {
  return "window " + std::to_string(index) + " (row " + std::to_string(row) + ", col " + std::to_string(col) +
         "; cells [" + std::to_string(cells.x) + ", " + std::to_string(cells.x + cells.width) + ") x [" +
         std::to_string(cells.y) + ", " + std::to_string(cells.y + cells.height) + "))";
}

RegionCostMap::RegionCostMap(const std::string& model_path, const std::string& image, const std::string& folder,
                             const RegionSettings& settings, const FrameSettings& plain)
    : model_(CostModel::load(model_path)), image_(image), folder_(folder), settings_(settings) {
  while (folder_.size() > 1 && folder_.back() == '/') folder_.pop_back();
  k_ = model_.features().settings().cell_size;
  halo_ = model_.haloCells(settings_.tiles);  // checks the tile settings against the model
  const int tile = settings_.tiles.tile_cells, w = settings_.window_cells;
  if (w < tile || w > TileSettings::kMaxTileCells || w % tile != 0) {
    throw InvalidArgument("window_cells = " + std::to_string(w) + ": give a multiple of tile_cells (" + std::to_string(tile) +
                          ") from " + std::to_string(tile) + " to " + std::to_string(TileSettings::kMaxTileCells) +
                          ", so that windows fall on the grid of tiles");
  }
  if (model_.needsColourStatistics()) {
    throw InvalidArgument(model_.source() + ": its network standardises colours by the whole image's statistics, which "
                          "a region computed window by window does not have; compute it on one machine (mmp costmap "
                          "--raw FILE.tif)");
  }
  if (model_.needsFeatureStatistics()) {
    throw InvalidArgument(model_.source() + ": its features are standardised by the whole image's statistics "
                          "(features.normalise: per_image), which a region computed window by window does not have; "
                          "compute it on one machine (mmp costmap --raw FILE.tif)");
  }
  reader_ = std::make_unique<RasterWindowReader>(image_, plain);
  if (!reader_->frame().hasWorld()) {
    throw InvalidArgument("image '" + image_ + "' has no world frame (no georeference), and the VRT over a region's "
                          "tiles places them by it: give a georeferenced raster, or --resolution and --origin");
  }
  if (const double mpp = metresPerPixel(reader_->frame()); model_.groundFactorOf(mpp) != 1.0) {
    throw InvalidArgument(model_.source() + ": its features are in metres (" +
                          numberText(model_.features().settings().ground_resolution) + " m per pixel) and '" + image_ +
                          "' is at " + numberText(mpp) + " m, which a region computed window by window does not "
                          "resample; resample the raster to the model's resolution first (gdalwarp -tr)");
  }
  model_.checkImage(reader_->cols(), reader_->rows());
  rows_ = reader_->rows() / k_;
  cols_ = reader_->cols() / k_;
  if (rows_ < 1 || cols_ < 1) {
    throw InvalidArgument("image '" + image_ + "' (" + std::to_string(reader_->cols()) + " x " +
                          std::to_string(reader_->rows()) + " px) holds no whole cell of " + std::to_string(k_) + " px");
  }
  frame_ = reader_->frame().coarsened(k_);
  window_rows_ = (rows_ + w - 1) / w;
  window_cols_ = (cols_ + w - 1) / w;
  const WorldFrame& f = reader_->frame();
  std::ostringstream m;
  m << kManifestTitle << "\n"
    << "model_fnv1a64 " << fileChecksum(model_path) << "\n"
    << "raster_px " << reader_->cols() << " x " << reader_->rows() << "\n"
    << rasterIdentity(image_) << "\n"
    << "geotransform " << exactNumberText(f.origin.x) << " " << exactNumberText(f.resolution) << " 0 "
    << exactNumberText(f.origin.y + f.rows * f.resolution) << " 0 " << exactNumberText(-f.resolution) << "\n"
    << "cell_px " << k_ << "\n"
    << "window_cells " << w << "\n"
    << "tile_cells " << tile << "\n"
    << "halo_cells " << halo_ << "\n"
    << "cost_exponent " << exactNumberText(model_.costExponent()) << "\n";
  manifest_ = m.str();
}

RegionCostMap::~RegionCostMap() = default;

RegionWindow RegionCostMap::window(int index) const {
  if (index < 0 || index >= windows()) {
    throw InvalidArgument("window " + std::to_string(index) + ": the region has windows 0 to " + std::to_string(windows() - 1));
  }
  RegionWindow win;
  win.index = index;
  win.row = index / window_cols_;
  win.col = index % window_cols_;
  const int w = settings_.window_cells;
  win.cells = cv::Rect(win.col * w, win.row * w, std::min(w, cols_ - win.col * w), std::min(w, rows_ - win.row * w));
  return win;
}

std::string RegionCostMap::tilePath(int index) const {
  const RegionWindow win = window(index);
  char name[64];
  std::snprintf(name, sizeof name, "costs_%05d_%05d.tif", win.row, win.col);
  return folder_ + "/tiles/" + name;
}

std::string RegionCostMap::vrtPath() const { return folder_ + "/costs.vrt"; }

void RegionCostMap::checkFolder() const {
  const std::string manifest = folder_ + "/" + kManifest;
  std::error_code ec;
  if (!fs::exists(manifest, ec)) {
    throw InvalidArgument("'" + folder_ + "' holds no region manifest (" + kManifest + "): give a new or empty folder");
  }
  const std::string found = readText(manifest);
  if (found != manifest_) {
    throw InvalidArgument("'" + folder_ + "' holds the cost map of another model, raster or settings (" +
                          manifestDifference(found, manifest_) + "; " + manifest +
                          "): give a new folder, or delete it to start over");
  }
}

void RegionCostMap::prepareFolder() const {
  std::error_code ec;
  if (fs::exists(folder_, ec) && !fs::is_directory(folder_, ec)) {
    throw InvalidArgument("'" + folder_ + "' is a file; a region cost map needs a folder");
  }
  const bool has_manifest = fs::exists(folder_ + "/" + kManifest, ec);
  if (has_manifest) {
    checkFolder();
  } else if (fs::exists(folder_, ec) && !fs::is_empty(folder_, ec)) {
    throw InvalidArgument("'" + folder_ + "' is not empty and holds no region manifest (" + std::string(kManifest) +
                          "): not a folder mmp wrote; give a new or empty folder");
  }
  fs::create_directories(folder_ + "/tiles", ec);
  if (ec) throw Error("cannot make '" + folder_ + "/tiles': " + ec.message());
  if (!has_manifest) {
    writeFileAtomically(folder_ + "/" + kManifest, manifest_);
    return;
  }
  for (const fs::directory_entry& entry : fs::directory_iterator(folder_ + "/tiles", ec)) {
    if (entry.path().extension() == ".part") fs::remove(entry.path(), ec);  // a killed run's tile, never complete
  }
}

bool RegionCostMap::complete(int index) const {
  const std::string path = tilePath(index);
  std::error_code ec;
  if (!fs::exists(path, ec)) return false;
  QuietGdal gdal;
  GDALDatasetH tile = GDALOpenEx(path.c_str(), GDAL_OF_RASTER | GDAL_OF_READONLY, nullptr, nullptr, nullptr);
  if (tile == nullptr) return false;
  const RegionWindow win = window(index);
  bool whole = GDALGetRasterXSize(tile) == win.cells.width && GDALGetRasterYSize(tile) == win.cells.height &&
               GDALGetRasterCount(tile) == 1;
  if (whole) {  // every value readable: a tile cut short (a copy or a disk that failed) is computed again
    std::vector<float> values(static_cast<std::size_t>(win.cells.area()));
    whole = GDALRasterIO(GDALGetRasterBand(tile, 1), GF_Read, 0, 0, win.cells.width, win.cells.height, values.data(),
                         win.cells.width, win.cells.height, GDT_Float32, 0, 0) == CE_None;
  }
  GDALClose(tile);
  return whole;
}

WindowCosts RegionCostMap::compute(int index) const {
  const RegionWindow win = window(index);
  try {
    // 1) the window's pixels and the tiles' halo around them, clipped to the raster
    const cv::Rect& c = win.cells;
    const int left = std::max(0, c.x - halo_), top = std::max(0, c.y - halo_);
    const int right = std::min(cols_, c.x + c.width + halo_), bottom = std::min(rows_, c.y + c.height + halo_);
    const GeoImage pixels = reader_->read(cv::Rect(left * k_, top * k_, (right - left) * k_, (bottom - top) * k_));
    // 2) the costs, as CostModel::costs gives them (the window lies on the grid of tiles)
    std::vector<double> costs(static_cast<std::size_t>(c.area()));
    model_.windowCosts(pixels.pixels, {left * k_, top * k_}, rows_, cols_, c, settings_.tiles, costs.data());
    WindowCosts out;
    out.lowest = std::numeric_limits<double>::infinity();
    for (int r = 0; r < c.height; ++r) {
      for (int col = 0; col < c.width; ++col) {
        double& cost = costs[static_cast<std::size_t>(r) * c.width + col];
        if (!pixels.valid.empty()) {  // a cell holding a pixel without data is unknown: +inf, nodata
          const cv::Mat block = pixels.valid(cv::Rect((c.x + col - left) * k_, (c.y + r - top) * k_, k_, k_));
          if (cv::countNonZero(block) < k_ * k_) {
            cost = std::numeric_limits<double>::infinity();
            ++out.unknown;
            continue;
          }
        }
        out.lowest = std::min(out.lowest, cost);
        out.highest = std::max(out.highest, cost);
      }
    }
    std::vector<float> values = rasterCosts(costs.data(), costs.size(), c.width, c.y, model_.source());
    // 3) the tile: a temporary, synced and renamed once GDAL has closed it whole
    const std::string target = tilePath(index), temporary = target + ".part";
    QuietGdal gdal;
    GDALDriverH gtiff = GDALGetDriverByName("GTiff");
    if (gtiff == nullptr) throw Error("GDAL has no GTiff driver");
    const char* options[] = {"TILED=YES", "BLOCKXSIZE=256", "BLOCKYSIZE=256", "COMPRESS=DEFLATE", "PREDICTOR=3",
                             "BIGTIFF=IF_SAFER", nullptr};
    GDALDatasetH tile = GDALCreate(gtiff, temporary.c_str(), c.width, c.height, 1, GDT_Float32, const_cast<char**>(options));
    if (tile == nullptr) throw Error("cannot create '" + temporary + "': " + QuietGdal::lastError());
    const double res = frame_.resolution;
    const double top_y = frame_.origin.y + frame_.rows * res;
    double gt[6] = {frame_.origin.x + c.x * res, res, 0.0, top_y - c.y * res, 0.0, -res};
    bool ok = GDALSetGeoTransform(tile, gt) == CE_None;
    if (ok && !frame_.crs.empty()) {
      OGRSpatialReferenceH srs = OSRNewSpatialReference(frame_.crs.c_str());
      ok = srs != nullptr && GDALSetSpatialRef(tile, srs) == CE_None;
      if (srs != nullptr) OSRDestroySpatialReference(srs);
    }
    GDALRasterBandH band = GDALGetRasterBand(tile, 1);
    ok = ok && GDALSetRasterNoDataValue(band, std::numeric_limits<double>::infinity()) == CE_None;
    ok = ok && GDALRasterIO(band, GF_Write, 0, 0, c.width, c.height, values.data(), c.width, c.height, GDT_Float32, 0, 0) ==
                   CE_None;
    const std::string reason = ok ? std::string() : QuietGdal::lastError();
    CPLErrorReset();
    GDALClose(tile);  // writes the last blocks and the directory
    if (!ok || CPLGetLastErrorType() >= CE_Failure) {
      std::error_code ec;
      fs::remove(temporary, ec);
      throw Error("cannot write '" + temporary + "': " + (ok ? QuietGdal::lastError() : reason));
    }
    publish(temporary, target);
    return out;
  } catch (const std::exception& e) {
    throw RegionWindowError(win.describe() + " of '" + image_ + "': " + e.what());
  }
}

void RegionCostMap::writeVrt() const {
  std::vector<std::string> paths(static_cast<std::size_t>(windows()));
  std::vector<const char*> names;
  for (int i = 0; i < windows(); ++i) {
    if (!complete(i)) {
      throw DataError("'" + tilePath(i) + "' (" + window(i).describe() + ") is missing or incomplete: run the cost map "
                      "again to compute it");
    }
    paths[static_cast<std::size_t>(i)] = tilePath(i);
    names.push_back(paths[static_cast<std::size_t>(i)].c_str());
  }
  QuietGdal gdal;
  const std::string target = vrtPath(), temporary = folder_ + "/costs.part.vrt";
  const char* arguments[] = {"-q", nullptr};
  GDALBuildVRTOptions* options = GDALBuildVRTOptionsNew(const_cast<char**>(arguments), nullptr);
  int usage_error = 0;
  GDALDatasetH vrt = GDALBuildVRT(temporary.c_str(), static_cast<int>(names.size()), nullptr, names.data(), options, &usage_error);
  GDALBuildVRTOptionsFree(options);
  if (vrt == nullptr) throw Error("cannot write '" + temporary + "': " + QuietGdal::lastError());
  CPLErrorReset();
  GDALClose(vrt);
  if (CPLGetLastErrorType() >= CE_Failure) throw Error("cannot write '" + temporary + "': " + QuietGdal::lastError());
  // The VRT names its tiles relative to itself (tiles/...), so renaming it beside them keeps them found.
  publish(temporary, target);
}

RegionRun computeRegion(const RegionCostMap& region, ProcessGroup& processes,
                        const std::function<void(const RegionWindow&, bool)>& progress) {
  const int rank = processes.rank(), size = processes.size();
  if (size > region.windows()) {
    throw InvalidArgument(std::to_string(size) + " processes for a region of " + std::to_string(region.windows()) +
                          " windows (" + std::to_string(region.cellCols()) + " x " + std::to_string(region.cellRows()) +
                          " cells): some would have no window; run at most " + std::to_string(region.windows()) +
                          " processes, or smaller windows (--window-cells)");
  }
  // 1) process 0 prepares the folder; the sum tells every process whether it refused
  double refused = 0.0;
  std::string refusal;
  if (rank == 0) {
    try {
      region.prepareFolder();
    } catch (const std::exception& e) {
      refused = 1.0;
      refusal = e.what();
    }
  }
  processes.sum(&refused, 1);
  if (refused > 0.0) {
    if (rank == 0) throw InvalidArgument(refusal);
    throw Error("process 0 refused the output folder '" + region.folder() + "' (it says why)");
  }
  region.checkFolder();
  // 2) this process's windows: a contiguous run in row-major order (exampleShare's blocks), so that
  //    neighbouring windows, which read the same source files (a JPEG is decoded from its top), share
  //    GDAL's block cache in one process instead of being decoded again by two
  double sums[3] = {0.0, 0.0, 0.0};  // computed, skipped, unknown
  double lowest = std::numeric_limits<double>::infinity(), highest = -std::numeric_limits<double>::infinity();
  const ExampleShare mine = exampleShare(static_cast<std::size_t>(region.windows()), rank, size);
  for (int i = static_cast<int>(mine.begin); i < static_cast<int>(mine.end); ++i) {
    const bool done = region.complete(i);
    if (!done) {
      const WindowCosts costs = region.compute(i);
      lowest = std::min(lowest, costs.lowest);
      highest = std::max(highest, costs.highest);
      sums[2] += static_cast<double>(costs.unknown);
    }
    sums[done ? 1 : 0] += 1.0;
    if (progress) progress(region.window(i), !done);
  }
  // 3) the totals: counts summed; the range as sums of one-hot slots, one per process
  std::vector<double> all(3 + 2 * static_cast<std::size_t>(size), 0.0);
  std::copy(sums, sums + 3, all.begin());
  all[3 + 2 * static_cast<std::size_t>(rank)] = lowest;
  all[4 + 2 * static_cast<std::size_t>(rank)] = highest;
  processes.sum(all.data(), all.size());
  RegionRun run;
  run.computed = static_cast<int>(all[0]);
  run.skipped = static_cast<int>(all[1]);
  run.unknown = static_cast<long long>(all[2]);
  run.lowest = std::numeric_limits<double>::infinity();
  run.highest = -std::numeric_limits<double>::infinity();
  for (int p = 0; p < size; ++p) {
    run.lowest = std::min(run.lowest, all[3 + 2 * static_cast<std::size_t>(p)]);
    run.highest = std::max(run.highest, all[4 + 2 * static_cast<std::size_t>(p)]);
  }
  return run;
}

}  // namespace mmp
