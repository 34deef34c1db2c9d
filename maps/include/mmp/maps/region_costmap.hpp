// RegionCostMap: the cost map of a raster of any size -- a VRT mosaic of a whole region, a GeoTIFF
// larger than memory or disk of one machine -- computed window by window by one or many processes,
// into a folder of tiled, compressed float32 GeoTIFFs and a VRT (GDAL's) over them.
//
//   mmp::RegionCostMap region(model_path, "region.vrt", "out/", settings);   // checks, touches nothing
//   const RegionRun run = computeRegion(region, processes);  // every process: its share of windows
//   if (processes.rank() == 0) region.writeVrt();            // out/costs.vrt over out/tiles/*.tif
//
// A window is window_cells x window_cells cells on the grid of tiles (TileSettings::tile_cells), read
// with the halo CostModel::costs uses, so every cell gets the cost the single-process cost map
// gives it, bit for bit (CostModel::windowCosts).  A tile is written under a temporary name and
// renamed when complete: a rerun (a job the scheduler killed) skips the windows whose tiles exist and
// never takes a half-written one as complete.  The folder records a manifest -- the model's
// fingerprint, the raster's size and geotransform, the cell, window, tile and halo sizes -- and a
// folder from another model or raster, or with other settings, is refused.  Processes share windows
// through a ProcessGroup (mmp/core/process_group.hpp; MPI's is mmp::core_mpi's MpiProcessGroup).
#pragma once

#include <mmp/core/error.hpp>
#include <mmp/core/process_group.hpp>
#include <mmp/maps/cost_model.hpp>
#include <mmp/maps/georeference.hpp>

#include <opencv2/core.hpp>

#include <functional>
#include <memory>
#include <string>

namespace mmp {

/// How a region is cut: windows of window_cells cells a side (a multiple of tiles.tile_cells), each
/// computed tile by tile as CostModel::costs computes an image.
struct RegionSettings {
  TileSettings tiles;
  int window_cells = 512;  ///< in [tiles.tile_cells, TileSettings::kMaxTileCells], a multiple of tile_cells
};

/// Window `index` of a region: row and column in the grid of windows, and its cells.
struct RegionWindow {
  int index = 0, row = 0, col = 0;
  cv::Rect cells;  ///< x, y: first column and row; width, height: cells
  /// "window 7 (row 1, col 2; cells [512, 1024) x [256, 512))": how messages name it.
  std::string describe() const;
};

/// What one window's computation gave.
struct WindowCosts {
  double lowest = 0.0, highest = 0.0;  ///< over the cells with data (lowest > highest if none)
  long long unknown = 0;               ///< cells without data in the image: +inf, the raster's nodata
};

class RegionCostMap {
 public:
  /*!
      ensures: the region of the raster `image` (read through GDAL window by window; `plain` for a
               raster without georeference) under the model at `model_path`, its tiles and VRT in
               `folder`; reads the model and the raster's header, writes nothing.
      throws
          - mmp::InvalidArgument naming the setting if window_cells is not a multiple of tile_cells
            in range, or the tile settings do not suit the model (CostModel::haloCells); naming the
            image if it has no world frame (a VRT over tiles needs one: give plain's resolution and
            origin), holds no whole cell, or its model's network standardises colours by the whole
            image's statistics (which a window does not have)
          - as CostModel::load and RasterWindowReader do
  !*/
  RegionCostMap(const std::string& model_path, const std::string& image, const std::string& folder,
                const RegionSettings& settings, const FrameSettings& plain = {});
  ~RegionCostMap();
  RegionCostMap(const RegionCostMap&) = delete;
  RegionCostMap& operator=(const RegionCostMap&) = delete;

  const CostModel& model() const { return model_; }
  const std::string& folder() const { return folder_; }
  int cellRows() const { return rows_; }
  int cellCols() const { return cols_; }
  /// The cells' world frame (the raster's, per cell).
  const WorldFrame& frame() const { return frame_; }
  int windows() const { return window_rows_ * window_cols_; }
  RegionWindow window(int index) const;
  /// The manifest this run records in folder()/manifest.txt (one "key value" a line).
  const std::string& manifest() const { return manifest_; }
  /// folder()/tiles/costs_RRRRR_CCCCC.tif, RRRRR and CCCCC the window's row and column.
  std::string tilePath(int index) const;
  /// folder()/costs.vrt.
  std::string vrtPath() const;

  /*!
      Called by one process before any window is computed.
      ensures
          - a missing or empty folder is made and gets the manifest (written atomically)
          - a folder with this run's manifest is kept, its temporaries of tiles (*.part: a killed
            run's) removed
      throws mmp::InvalidArgument naming the folder and the entry that differs (with both values) if
      its manifest is another run's (another model, raster or settings), or if it is not empty and
      has no manifest (a folder mmp did not write); mmp::Error if it cannot be written.
  !*/
  void prepareFolder() const;
  /// Throws as prepareFolder does unless folder() holds this run's manifest (every process checks it
  /// after one prepared it).
  void checkFolder() const;
  /// Whether window `index`'s tile is complete: it exists under its final name (renamed only once
  /// written and synced) and GDAL opens it at the window's size.
  bool complete(int index) const;
  /*!
      Computes window `index` and writes its tile (tiled, DEFLATE-compressed float32 GeoTIFF, +inf
      the nodata value) under a temporary name, synced and renamed when complete.  Throws the error
      of reading, computing or writing with the window named (describe()); the tile is then absent.
  !*/
  WindowCosts compute(int index) const;
  /// Writes vrtPath() (GDALBuildVRT over every tile, atomically).  requires: every tile complete
  /// (throws mmp::DataError naming the first that is not).
  void writeVrt() const;

 private:
  CostModel model_;
  std::string image_, folder_, manifest_;
  RegionSettings settings_;
  std::unique_ptr<RasterWindowReader> reader_;
  int k_ = 1, halo_ = 0, rows_ = 0, cols_ = 0, window_rows_ = 0, window_cols_ = 0;
  WorldFrame frame_;
};

/// What a process's computeRegion did, and the sums over every process.
struct RegionRun {
  int computed = 0, skipped = 0;        ///< windows over every process: computed now, complete before
  double lowest = 0.0, highest = 0.0;   ///< cost range of the cells computed now (lowest > highest if none)
  long long unknown = 0;                ///< cells without data among those computed now
};

/// A window's failure (reading, computing or writing it), naming the window: the process that meets
/// it should end the job (MPI_Abort), the others being in computeRegion's final sum.
class RegionWindowError : public Error {
 public:
  using Error::Error;
};

/*!
    requires: every process of `processes` calls this, with regions of the same settings
    ensures
        - process 0 prepares the folder (prepareFolder), then every process checks it (one
          ProcessGroup::sum between: process 0's refusal is every process's)
        - computes the windows of exampleShare(windows(), rank, size) -- a contiguous run in
          row-major order, so that neighbouring windows reading the same source files share one
          process's GDAL cache -- that are not complete
        - progress(window, computed: true, or false: complete before), if given, after each of this
          process's windows
        - returns the sums over every process (one ProcessGroup::sum at the end)
    throws
        - mmp::InvalidArgument, the same on every process, if there are more processes than windows
          (naming both); prepareFolder's refusal on process 0 (the others throw mmp::Error saying
          that process 0 refused)
        - RegionWindowError naming the window if one fails
!*/
RegionRun computeRegion(const RegionCostMap& region, ProcessGroup& processes,
                        const std::function<void(const RegionWindow&, bool computed)>& progress = {});

}  // namespace mmp
