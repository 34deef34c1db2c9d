#include <mmp/maps/georeference.hpp>

#include <mmp/core/error.hpp>
#include <mmp/maps/imagery.hpp>

#include "quiet_gdal.hpp"
#include "raster_pixels.hpp"

#include <cpl_conv.h>
#include <cpl_error.h>
#include <cpl_vsi.h>
#include <gdal.h>
#include <ogr_srs_api.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <memory>
#include <mutex>

namespace mmp {
namespace {

using detail::QuietGdal;

struct DatasetCloser {
  void operator()(void* dataset) const { GDALClose(dataset); }
};
using Dataset = std::unique_ptr<void, DatasetCloser>;

struct SpatialRefDeleter {
  void operator()(void* srs) const { OSRDestroySpatialReference(srs); }
};

std::string wktOf(OGRSpatialReferenceH srs) {
  char* wkt = nullptr;
  if (OSRExportToWkt(srs, &wkt) != OGRERR_NONE || wkt == nullptr) {
    CPLFree(wkt);
    return {};
  }
  std::string text = wkt;
  CPLFree(wkt);
  return text;
}

// For a geographic CRS, latitudes (y, as GeoTIFF geotransforms put them) from y0 to y1 beyond the
// poles: the reason, else "".  Written on into a --raw GeoTIFF before.
std::string latitudeFault(OGRSpatialReferenceH srs, double y0, double y1) {
  if (srs == nullptr || !OSRIsGeographic(srs) || (y0 >= -90.0 && y1 <= 90.0)) return {};
  return "its latitudes run from " + numberText(y0) + " to " + numberText(y1) +
         " degrees (a geographic CRS), beyond the poles at -90 and 90";
}

// The frame a north-up geotransform gives an image of rows x cols pixels.
WorldFrame frameOfTransform(const double gt[6], int rows, int cols, std::string crs, const std::string& path) {
  const std::string transform = "(" + numberText(gt[0]) + ", " + numberText(gt[1]) + ", " + numberText(gt[2]) + ", " +
                                numberText(gt[3]) + ", " + numberText(gt[4]) + ", " + numberText(gt[5]) + ")";
  if (gt[2] != 0.0 || gt[4] != 0.0) {
    throw DataError("image '" + path + "': its geotransform " + transform +
                    " has rotation terms; mmp takes north-up rasters only (warp it first, e.g. gdalwarp)");
  }
  if (!(gt[1] > 0.0) || !(gt[5] < 0.0)) {
    throw DataError("image '" + path + "': its geotransform " + transform +
                    " is not north-up (pixel width must be > 0 and pixel height < 0); warp it first (gdalwarp)");
  }
  if (std::abs(gt[1] + gt[5]) > 1e-9 * gt[1]) {
    throw DataError("image '" + path + "': its pixels are " + numberText(gt[1]) + " x " + numberText(-gt[5]) +
                    " world units, not square; resample it first (gdalwarp -tr)");
  }
  try {
    return WorldFrame::located(rows, cols, gt[1], {gt[0], gt[3] + rows * gt[5]}, std::move(crs));
  } catch (const InvalidArgument& e) {
    throw DataError("image '" + path + "': its geotransform " + transform + " gives no usable frame: " + e.what());
  }
}

bool pngOrJpeg(const std::string& path) {  // decoded by OpenCV and libjpeg; everything else by GDAL
  std::ifstream in(path, std::ios::binary);
  char magic[8] = {};
  in.read(magic, sizeof magic);
  const std::string m(magic, static_cast<std::size_t>(in.gcount()));
  return m.compare(0, 8, "\x89PNG\r\n\x1a\n") == 0 || m.compare(0, 3, "\xFF\xD8\xFF") == 0;
}

// Pixels through GDAL under raster_pixels.hpp's rules, as loadImage gives them (detail::bgr8): the
// grey or colour bands, 8 or 16 bits, assembled in OpenCV's channel order; `valid` (if not null)
// the pixels with data.  `window` (if not null): those pixels only (RasterWindowReader), which
// 16-bit data without an NBITS declaration cannot give (their scale is the whole raster's largest
// sample): refused.
// A TIFF's blocks say where its pixels are stored.  A block without an offset is read as zeros (GDAL's
// sparse files), and one that ends past the end of the file fails only once read -- after the whole
// image was allocated, which for a damaged header of a few hundred bytes claiming 2048 x 54792 pixels
// was 2.5 GB (tests/fuzz, geotiff).  So the first and last blocks of the area are checked first: both
// without data, or one past the end of the file, and the file is refused as damaged or truncated.
void checkTiffBlocks(GDALDatasetH dataset, const std::string& path, const cv::Rect& area, int bands) {
  GDALDriverH driver = GDALGetDatasetDriver(dataset);
  if (driver == nullptr || std::strcmp(GDALGetDriverShortName(driver), "GTiff") != 0) return;
  VSIStatBufL stat{};
  const bool sized = VSIStatL(path.c_str(), &stat) == 0;
  for (int b = 1; b <= bands; ++b) {
    GDALRasterBandH band = GDALGetRasterBand(dataset, b);
    int block_cols = 0, block_rows = 0;
    GDALGetBlockSize(band, &block_cols, &block_rows);
    if (block_cols < 1 || block_rows < 1) return;
    const int corners[2][2] = {{area.x / block_cols, area.y / block_rows},
                               {(area.x + area.width - 1) / block_cols, (area.y + area.height - 1) / block_rows}};
    int empty = 0;
    for (const auto& corner : corners) {
      const std::string at = std::to_string(corner[0]) + "_" + std::to_string(corner[1]);
      const char* offset = GDALGetMetadataItem(band, ("BLOCK_OFFSET_" + at).c_str(), "TIFF");
      const char* size = GDALGetMetadataItem(band, ("BLOCK_SIZE_" + at).c_str(), "TIFF");
      const double start = offset != nullptr ? std::strtod(offset, nullptr) : 0.0;
      if (!(start > 0.0)) {
        ++empty;
        continue;
      }
      const double end = start + (size != nullptr ? std::strtod(size, nullptr) : 0.0);
      if (sized && end > static_cast<double>(stat.st_size)) {
        throw DataError("image '" + path + "' is truncated: band " + std::to_string(b) + "'s block " + at +
                        " ends at byte " + numberText(end) + ", past the end of the file (" +
                        std::to_string(static_cast<long long>(stat.st_size)) + " bytes); download or copy it again");
      }
    }
    if (empty == 2) {
      throw DataError("image '" + path + "' is damaged: its TIFF header gives no data for band " + std::to_string(b) +
                      "'s first and last blocks of " + std::to_string(area.width) + " x " + std::to_string(area.height) +
                      " px (GDAL would read zeros); check it with gdalinfo, or write it again (gdal_translate)");
    }
  }
}

cv::Mat readPixels(GDALDatasetH dataset, const std::string& path, cv::Mat* valid, std::string* note,
                   const cv::Rect* window = nullptr) {
  const cv::Rect area = window != nullptr ? *window : cv::Rect(0, 0, GDALGetRasterXSize(dataset), GDALGetRasterYSize(dataset));
  const int cols = area.width, rows = area.height, bands = GDALGetRasterCount(dataset);
  const auto meaning = [&](int b) { return GDALGetRasterColorInterpretation(GDALGetRasterBand(dataset, b)); };
  int used = bands;  // the grey or colour bands
  if ((bands == 2 || bands == 4) && meaning(bands) == GCI_AlphaBand) {
    used = bands - 1;
  } else if (bands != 1 && bands != 3) {
    const std::string last = bands == 2 || bands == 4
                                  ? std::string(", and band ") + std::to_string(bands) + " is not flagged as alpha (it is " +
                                        GDALGetColorInterpretationName(meaning(bands)) + ")"
                                  : std::string();
    throw DataError("image '" + path + "' has " + std::to_string(bands) + " bands" + last +
                    "; mmp reads 1 band (grey) or 3 (red, green, blue), each optionally followed by a flagged alpha "
                    "band; keep the colour bands first (gdal_translate -b 1 -b 2 -b 3)");
  }
  if (static_cast<double>(rows) * cols > detail::kMaxImagePixels) {
    throw DataError("image '" + path + "' has " + std::to_string(cols) + " x " + std::to_string(rows) +
                    " pixels, more than mmp reads whole (" + numberText(detail::kMaxImagePixels) +
                    "); stream it (mmp costmap --raw) or cut it into tiles");
  }
  checkTiffBlocks(dataset, path, area, used);
  GDALDataType type = GDT_Unknown;
  for (int b = 1; b <= used; ++b) {
    GDALRasterBandH band = GDALGetRasterBand(dataset, b);
    const GDALDataType band_type = GDALGetRasterDataType(band);
    if (GDALGetRasterColorInterpretation(band) == GCI_PaletteIndex) {
      throw DataError("image '" + path + "' is a palette image; expand it to RGB first (gdal_translate -expand rgb)");
    }
    if (band_type != GDT_Byte && band_type != GDT_UInt16) {
      throw DataError("image '" + path + "': band " + std::to_string(b) + " holds " + GDALGetDataTypeName(band_type) +
                      " values; mmp reads 8- or 16-bit imagery (scale it first, e.g. gdal_translate -ot Byte -scale)");
    }
    if (type != GDT_Unknown && band_type != type) {
      throw DataError("image '" + path + "': its bands hold values of different sizes; mmp reads 8- or 16-bit imagery");
    }
    type = band_type;
  }
  // All bands at once into one interleaved image, bands R, G, B as OpenCV's B, G, R: no per-band copies
  // to merge (at the largest image mmp reads whole, 2^27 px, that halves the reader's peak memory).
  const int depth = type == GDT_Byte ? CV_8U : CV_16U;
  const int sample = type == GDT_Byte ? 1 : 2;
  cv::Mat raw(rows, cols, CV_MAKETYPE(depth, used));
  std::vector<int> bands_bgr(static_cast<std::size_t>(used));
  for (int b = 0; b < used; ++b) bands_bgr[static_cast<std::size_t>(b)] = used - b;
  if (GDALDatasetRasterIO(dataset, GF_Read, area.x, area.y, cols, rows, raw.data, cols, rows, type, used, bands_bgr.data(),
                          sample * used, static_cast<int>(raw.step[0]), sample) != CE_None) {
    throw DataError("image '" + path + "' cannot be read: " + QuietGdal::lastError());
  }
  if (valid != nullptr) {
    // GDAL's mask bands say which pixels have data: a nodata value (per band: a pixel lacks data
    // only if every band says so), an internal mask or the alpha band (per dataset: one mask).
    *valid = cv::Mat();
    const int flags = GDALGetMaskFlags(GDALGetRasterBand(dataset, 1));
    if (!(flags & GMF_ALL_VALID)) {
      cv::Mat any = cv::Mat::zeros(rows, cols, CV_8UC1), mask(rows, cols, CV_8UC1);
      for (int b = 1; b <= ((flags & GMF_PER_DATASET) ? 1 : used); ++b) {
        if (GDALRasterIO(GDALGetMaskBand(GDALGetRasterBand(dataset, b)), GF_Read, area.x, area.y, cols, rows, mask.data, cols, rows,
                         GDT_Byte, 0, 0) != CE_None) {
          throw DataError("image '" + path + "': its nodata mask cannot be read: " + QuietGdal::lastError());
        }
        any |= mask;
      }
      cv::compare(any, 0, any, cv::CMP_NE);
      if (cv::countNonZero(any) < rows * cols) *valid = any;
    }
  }
  const char* nbits = GDALGetMetadataItem(GDALGetRasterBand(dataset, 1), "NBITS", "IMAGE_STRUCTURE");
  const int bits = nbits != nullptr && depth == CV_16U ? std::atoi(nbits) : 0;
  if (window != nullptr && depth == CV_16U && !(bits > 8 && bits <= 16)) {
    throw DataError("image '" + path + "' holds 16-bit samples without an NBITS declaration: mmp scales them by the "
                    "largest sample of the whole image, which a window of it cannot know; declare the bit depth "
                    "(gdal_translate -co NBITS=12, or NBITS in the VRT's metadata) or convert it to 8 bits");
  }
  return detail::bgr8(raw, path, valid != nullptr ? *valid : cv::Mat(), bits > 8 && bits <= 16 ? bits : 0, note);
}

Dataset openRaster(const std::string& path, unsigned flags) {
  return Dataset(GDALOpenEx(path.c_str(), GDAL_OF_RASTER | flags, nullptr, nullptr, nullptr));
}

WorldFrame frameOfDataset(GDALDatasetH dataset, int rows, int cols, const FrameSettings& plain,
                          const std::string& path) {
  double gt[6];
  if (dataset == nullptr || GDALGetGeoTransform(dataset, gt) != CE_None) return frameOf(plain, rows, cols);
  if (plain.given()) {
    throw InvalidArgument("image '" + path +
                          "' is georeferenced (it has a geotransform); drop the resolution and origin given for it");
  }
  // GDAL turns a CRS code it does not know into a local CRS with a warning: refused with its reason,
  // never written on into the outputs.
  CPLErrorReset();
  const OGRSpatialReferenceH srs = GDALGetSpatialRef(dataset);
  if (CPLGetLastErrorType() != CE_None) {
    throw DataError("image '" + path + "': its coordinate reference system is not one GDAL knows: " +
                    QuietGdal::lastError() + " (fix it, e.g. gdal_edit.py -a_srs EPSG:32640)");
  }
  if (const std::string fault = latitudeFault(srs, gt[3] + rows * gt[5], gt[3]); !fault.empty()) {
    throw DataError("image '" + path + "': " + fault + "; fix its georeference (gdal_edit.py -a_ullr)");
  }
  return frameOfTransform(gt, rows, cols, srs != nullptr ? wktOf(srs) : std::string(), path);
}

}  // namespace

WorldFrame frameOf(const FrameSettings& plain, int rows, int cols) {
  if (!plain.given()) {
    if (!plain.crs.empty()) throw InvalidArgument("a CRS ('" + plain.crs + "') was given without a resolution and origin");
    return WorldFrame::unlocated(rows, cols);
  }
  std::string wkt;
  if (!plain.crs.empty()) {
    QuietGdal gdal;
    std::unique_ptr<void, SpatialRefDeleter> srs(OSRNewSpatialReference(nullptr));
    if (OSRSetFromUserInput(srs.get(), plain.crs.c_str()) != OGRERR_NONE) {
      throw InvalidArgument("crs '" + plain.crs + "' is not a coordinate reference system GDAL knows (e.g. EPSG:32640, " +
                            "or WKT): " + QuietGdal::lastError());
    }
    wkt = wktOf(srs.get());
    const double top = plain.origin.y + static_cast<double>(rows) * plain.resolution;
    if (const std::string fault = latitudeFault(srs.get(), plain.origin.y, top); !fault.empty()) {
      throw InvalidArgument("world frame: " + fault + " (crs '" + plain.crs + "')");
    }
  }
  return WorldFrame::located(rows, cols, plain.resolution, plain.origin, wkt);
}

std::string geographicFault(const WorldFrame& frame, const std::string& image) {
  if (frame.crs.empty()) return {};
  QuietGdal gdal;
  std::unique_ptr<void, SpatialRefDeleter> srs(OSRNewSpatialReference(nullptr));
  if (OSRSetFromUserInput(srs.get(), frame.crs.c_str()) != OGRERR_NONE) return {};
  if (OSRIsGeocentric(srs.get())) {
    return "its coordinate reference system is geocentric (X, Y, Z about the Earth's centre), which has no map plane; "
           "give a projected CRS (e.g. --crs EPSG:32640, a UTM zone) or reproject the image (gdalwarp -t_srs)";
  }
  if (OSRIsVertical(srs.get()) && !OSRIsCompound(srs.get())) {
    return "its coordinate reference system is vertical (heights only), which has no map plane; give a projected CRS "
           "(e.g. --crs EPSG:32640, a UTM zone)";
  }
  if (!OSRIsGeographic(srs.get())) return {};
  // GeoTIFF geotransforms put longitude along x, latitude along y.
  const double lon = frame.origin.x + 0.5 * frame.cols * frame.resolution;
  const double lat = frame.origin.y + 0.5 * frame.rows * frame.resolution;
  std::string target = "EPSG:326NN (UTM zone NN north; 327NN south)";
  if (lon >= -180.0 && lon <= 180.0 && lat >= -80.0 && lat <= 84.0) {
    const int zone = std::clamp(static_cast<int>(std::floor((lon + 180.0) / 6.0)) + 1, 1, 60);
    target = "EPSG:" + std::to_string((lat >= 0.0 ? 32600 : 32700) + zone);
  }
  return "its coordinate reference system is geographic (longitude and latitude in degrees): a resolution of " +
         numberText(frame.resolution) + " would be taken as metres; reproject the image to a projected CRS first, e.g. "
         "gdalwarp -t_srs " + target + " -r bilinear '" + image + "' projected.tif";
}

WorldFrame readWorldFrame(const std::string& path, int rows, int cols, const FrameSettings& plain) {
  QuietGdal gdal;
  const Dataset dataset = openRaster(path, GDAL_OF_READONLY);
  return frameOfDataset(dataset.get(), rows, cols, plain, path);
}

GeoImage loadGeoImage(const std::string& path, const FrameSettings& plain) {
  GeoImage image;
  if (pngOrJpeg(path)) {
    const cv::Mat raw = detail::readRaw(path, "image");
    image.valid = detail::alphaValid(raw);
    image.pixels = detail::bgr8(raw, path, image.valid, 0, &image.note);
    image.frame = readWorldFrame(path, image.pixels.rows, image.pixels.cols, plain);
    return image;
  }
  QuietGdal gdal;
  const Dataset dataset = openRaster(path, GDAL_OF_READONLY);
  if (!dataset) {
    if (!detail::isTiff(path)) loadImage(path);  // says why the file is not an image, as for any other
    throw DataError("image '" + path + "' cannot be read: " + QuietGdal::lastError());
  }
  image.pixels = readPixels(dataset.get(), path, &image.valid, &image.note);
  image.frame = frameOfDataset(dataset.get(), image.pixels.rows, image.pixels.cols, plain, path);
  return image;
}

cv::Mat detail::readGdalImage(const std::string& path, cv::Mat* valid, std::string* note) {
  QuietGdal gdal;
  const Dataset dataset = openRaster(path, GDAL_OF_READONLY);
  if (!dataset) throw DataError("image '" + path + "' cannot be read: " + QuietGdal::lastError());
  return readPixels(dataset.get(), path, valid, note);
}

struct RasterWindowReader::Source {
  Dataset dataset;
};

RasterWindowReader::RasterWindowReader(const std::string& path, const FrameSettings& plain)
    : path_(path), source_(std::make_unique<Source>()) {
  QuietGdal gdal;
  source_->dataset = openRaster(path, GDAL_OF_READONLY);
  if (!source_->dataset) throw DataError("image '" + path + "' cannot be read: " + QuietGdal::lastError());
  cols_ = GDALGetRasterXSize(source_->dataset.get());
  rows_ = GDALGetRasterYSize(source_->dataset.get());
  frame_ = frameOfDataset(source_->dataset.get(), rows_, cols_, plain, path);
}

RasterWindowReader::~RasterWindowReader() = default;

GeoImage RasterWindowReader::read(const cv::Rect& window) const {
  if (window.x < 0 || window.y < 0 || window.width < 1 || window.height < 1 || window.x + window.width > cols_ ||
      window.y + window.height > rows_) {
    throw InvalidArgument("image '" + path_ + "': the window of " + std::to_string(window.width) + " x " +
                          std::to_string(window.height) + " px at (" + std::to_string(window.x) + ", " +
                          std::to_string(window.y) + ") lies outside its " + std::to_string(cols_) + " x " +
                          std::to_string(rows_) + " px");
  }
  QuietGdal gdal;
  GeoImage image;
  image.pixels = readPixels(source_->dataset.get(), path_, &image.valid, &image.note, &window);
  image.frame = frame_.hasWorld()
                    ? WorldFrame::located(window.height, window.width, frame_.resolution,
                                          {frame_.origin.x + window.x * frame_.resolution,
                                           frame_.origin.y + (rows_ - window.y - window.height) * frame_.resolution},
                                          frame_.crs)
                    : WorldFrame::unlocated(window.height, window.width);
  return image;
}

void writeGeoreference(const std::string& path, const WorldFrame& frame) {
  QuietGdal gdal;
  // Everything goes into the TIFF itself: no .aux.xml beside a file that is about to be renamed.
  CPLSetThreadLocalConfigOption("GDAL_PAM_ENABLED", "NO");
  struct Restore {
    ~Restore() { CPLSetThreadLocalConfigOption("GDAL_PAM_ENABLED", nullptr); }
  } restore;
  Dataset dataset = openRaster(path, GDAL_OF_UPDATE);
  const auto fail = [&](const std::string& what) {
    return Error("cannot georeference '" + path + "': " + what + ": " + QuietGdal::lastError());
  };
  if (!dataset) throw fail("GDAL cannot open it for update");
  if (GDALGetRasterXSize(dataset.get()) != frame.cols || GDALGetRasterYSize(dataset.get()) != frame.rows) {
    throw InvalidArgument("cannot georeference '" + path + "': the frame is " + std::to_string(frame.cols) + " x " +
                          std::to_string(frame.rows) + ", the raster " +
                          std::to_string(GDALGetRasterXSize(dataset.get())) + " x " +
                          std::to_string(GDALGetRasterYSize(dataset.get())));
  }
  if (frame.hasWorld()) {
    double gt[6] = {frame.origin.x, frame.resolution, 0.0, frame.origin.y + frame.rows * frame.resolution, 0.0,
                    -frame.resolution};
    if (GDALSetGeoTransform(dataset.get(), gt) != CE_None) throw fail("setting the geotransform");
    if (!frame.crs.empty()) {
      std::unique_ptr<void, SpatialRefDeleter> srs(OSRNewSpatialReference(frame.crs.c_str()));
      if (!srs || GDALSetSpatialRef(dataset.get(), srs.get()) != CE_None) throw fail("setting the CRS");
    }
  }
  if (GDALSetRasterNoDataValue(GDALGetRasterBand(dataset.get(), 1), std::numeric_limits<double>::infinity()) != CE_None) {
    throw fail("setting nodata");
  }
  CPLErrorReset();
  dataset.reset();  // writes the new directory
  if (CPLGetLastErrorType() >= CE_Failure) throw fail("writing the directory");
}

}  // namespace mmp
