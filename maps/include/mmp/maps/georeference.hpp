// Georeferenced imagery: an image together with its world frame (mmp/core/world_frame.hpp), read
// through GDAL.  A GeoTIFF (or any raster GDAL reads with a geotransform: a PNG with a .pgw world
// file, ...) brings its resolution, origin and coordinate reference system; a plain image has none,
// and takes them from FrameSettings (a config's `resolution` and `origin`) or stays in pixels.
//
//   const mmp::GeoImage image = mmp::loadGeoImage("area.tif");   // pixels + frame (per pixel)
//   const mmp::CostGrid grid = model.costs(image);               // grid.frame: per cell
//   const int cell = grid.cellAt(mmp::WorldPoint{x, y});
//
// Only north-up rasters are taken (no rotation terms, square pixels): others get an error saying to
// warp them first (gdalwarp).  Cost maps are written back as float32 GeoTIFFs (writeCostRaster) whose
// georeference places them over the imagery in GIS tools, impassable cells as nodata.
#pragma once

#include <mmp/core/world_frame.hpp>

#include <opencv2/core.hpp>

#include <memory>
#include <string>

namespace mmp {

/// How to place an image that carries no georeference: world units per pixel, the world (x, y) of the
/// image's lower-left corner, and optionally its CRS (anything GDAL takes: "EPSG:32640", WKT, PROJ).
/// resolution 0 leaves the image in pixels.
struct FrameSettings {
  double resolution = 0.0;
  WorldPoint origin;
  std::string crs;
  bool given() const { return resolution != 0.0; }
};

/// An image (8-bit BGR, as loadImage gives) and its world frame in pixels (rows x cols of the image,
/// resolution per pixel).
struct GeoImage {
  cv::Mat pixels;  ///< CV_8UC3 BGR, as loadImage gives it
  WorldFrame frame;
  /// CV_8UC1: 0 on the pixels the raster declares without data (its nodata value in every band, an
  /// internal mask, alpha 0), 255 elsewhere; empty if every pixel has data.  Cells holding such a
  /// pixel are unknown: CostModel::costs makes them +inf (impassable) and lists them in CostGrid::unknown.
  cv::Mat valid;
  /// What reading made of the file's pixels, "" for 8-bit colour: 16-bit samples scaled by their bit
  /// depth, one grey band taken as colour, an alpha band taken as the no-data mask (say it to users).
  std::string note;
};

/*!
    ensures
        - the world frame of the raster at `path`, rows x cols pixels: its geotransform and CRS if GDAL
          finds one (the CRS as WKT, empty if the file has a geotransform but no CRS), else `plain`
          (unlocated if !plain.given())
        - throws mmp::DataError naming the file if its geotransform has rotation terms, non-square or
          south-up pixels, mmp::InvalidArgument if the file is georeferenced and `plain` is given too
          (one frame only) or plain's values are invalid (naming the value)
!*/
WorldFrame readWorldFrame(const std::string& path, int rows, int cols, const FrameSettings& plain = {});

/// The image (as loadImage reads it: PNG and JPEG decoded by OpenCV and libjpeg, TIFF, BigTIFF and
/// any other format GDAL reads through GDAL, under one set of rules for pixel types, bands, alpha and
/// nodata), the pixels without data (GeoImage::valid) and its frame (readWorldFrame).  Throws as
/// both do, and mmp::DataError naming the file if its CRS is a code GDAL does not know (with GDAL's
/// reason) or its extent is not finite.
GeoImage loadGeoImage(const std::string& path, const FrameSettings& plain = {});

/*!
    WHAT THIS OBJECT REPRESENTS
        A raster read a window at a time through GDAL -- a VRT mosaic of many files, a GeoTIFF larger
        than memory -- for cost maps of regions (region_costmap.hpp).  A window's pixels are what
        loadGeoImage gives for those pixels of a file GDAL reads (same rules for bands, bit depths,
        alpha and nodata), except that 16-bit data must declare their bit depth (NBITS).
    THREAD SAFETY
        One thread at a time (a GDAL dataset is not shared between threads).
!*/
class RasterWindowReader {
 public:
  /// Opens the raster and reads its frame (readWorldFrame's rules).  Throws mmp::DataError naming
  /// the path if GDAL cannot open it, as readWorldFrame does for its frame.
  explicit RasterWindowReader(const std::string& path, const FrameSettings& plain = {});
  ~RasterWindowReader();
  RasterWindowReader(const RasterWindowReader&) = delete;
  RasterWindowReader& operator=(const RasterWindowReader&) = delete;

  int rows() const { return rows_; }
  int cols() const { return cols_; }
  /// The whole raster's frame, per pixel.
  const WorldFrame& frame() const { return frame_; }
  /// The pixels of `window` (inside the raster), their valid mask and frame.  Throws
  /// mmp::InvalidArgument for a window outside the raster, mmp::DataError naming the file as
  /// loadGeoImage does.
  GeoImage read(const cv::Rect& window) const;

 private:
  struct Source;
  std::string path_;
  std::unique_ptr<Source> source_;
  int rows_ = 0, cols_ = 0;
  WorldFrame frame_;
};

/// The frame a FrameSettings describes for an image of rows x cols pixels (validated; the CRS as WKT).
/// Throws mmp::InvalidArgument ("world frame: ...") for a geographic CRS whose latitudes would pass a pole.
WorldFrame frameOf(const FrameSettings& plain, int rows, int cols);

/*!
    ensures
        - "" if the frame's CRS is projected, local or unknown (empty); for a geographic CRS (longitude
          and latitude in degrees, e.g. EPSG:4326), a message saying that a navigation stack would
          take degrees as metres, with the gdalwarp command that reprojects `image` to the UTM zone
          of the frame's centre; for a geocentric or a (purely) vertical CRS, a message saying it has
          no map plane.  Nav2 export and world-coordinate planning refuse with it.
!*/
std::string geographicFault(const WorldFrame& frame, const std::string& image);

/// Writes `frame` (per pixel of the TIFF: its geotransform and CRS) and nodata = +inf into the TIFF
/// at `path` in place, through GDAL.  requires: frame.rows x frame.cols == the TIFF's size.  Throws
/// mmp::Error naming the file if GDAL cannot open or update it.
void writeGeoreference(const std::string& path, const WorldFrame& frame);

}  // namespace mmp
