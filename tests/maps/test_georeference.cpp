// Georeferenced imagery and GeoTIFF cost maps.  The GeoTIFFs are made and read back here with GDAL's
// own API, independently of mmp's reader and writer.
#include "maps_support.hpp"

#include <mmp/core/error.hpp>
#include <mmp/maps/cost_model.hpp>
#include <mmp/maps/georeference.hpp>
#include <mmp/maps/imagery.hpp>

#include <cpl_conv.h>
#include <cpl_string.h>
#include <gdal.h>
#include <ogr_srs_api.h>

#include <doctest/doctest.h>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <memory>
#include <string>
#include <vector>

using namespace mmp;
using mmp::test::randomCostModel;
using mmp::test::syntheticImage;
using mmp::test::TempDir;

namespace {

std::string wktOfEpsg(int epsg) {
  OGRSpatialReferenceH srs = OSRNewSpatialReference(nullptr);
  REQUIRE(OSRImportFromEPSG(srs, epsg) == OGRERR_NONE);
  char* wkt = nullptr;
  OSRExportToWkt(srs, &wkt);
  std::string text = wkt;
  CPLFree(wkt);
  OSRDestroySpatialReference(srs);
  return text;
}

bool sameCrs(const std::string& a, const std::string& b) {
  OGRSpatialReferenceH x = OSRNewSpatialReference(a.c_str()), y = OSRNewSpatialReference(b.c_str());
  const bool same = x != nullptr && y != nullptr && OSRIsSame(x, y) != 0;
  OSRDestroySpatialReference(x);
  OSRDestroySpatialReference(y);
  return same;
}

// An 8-bit RGB GeoTIFF of a BGR image, with geotransform gt and a CRS (WKT, or none).
void writeGeoTiff(const std::string& path, const cv::Mat& bgr, const double gt[6], const std::string& wkt) {
  GDALAllRegister();
  GDALDriverH driver = GDALGetDriverByName("GTiff");
  REQUIRE(driver != nullptr);
  GDALDatasetH out = GDALCreate(driver, path.c_str(), bgr.cols, bgr.rows, 3, GDT_Byte, nullptr);
  REQUIRE(out != nullptr);
  std::vector<cv::Mat> channels;
  cv::split(bgr, channels);
  for (int b = 0; b < 3; ++b) {
    const cv::Mat channel = channels[2 - b].clone();  // bands R, G, B
    REQUIRE(GDALRasterIO(GDALGetRasterBand(out, b + 1), GF_Write, 0, 0, bgr.cols, bgr.rows, channel.data, bgr.cols,
                         bgr.rows, GDT_Byte, 0, 0) == CE_None);
  }
  GDALSetGeoTransform(out, const_cast<double*>(gt));
  if (!wkt.empty()) GDALSetProjection(out, wkt.c_str());
  GDALClose(out);
}

struct GeoRaster {
  int rows = 0, cols = 0;
  double gt[6] = {};
  bool has_transform = false;
  std::string wkt;
  double nodata = 0.0;
  bool has_nodata = false;
  std::vector<float> values;
};

GeoRaster readFloatRaster(const std::string& path) {
  GDALAllRegister();
  GDALDatasetH in = GDALOpen(path.c_str(), GA_ReadOnly);
  REQUIRE(in != nullptr);
  GeoRaster r;
  r.cols = GDALGetRasterXSize(in);
  r.rows = GDALGetRasterYSize(in);
  r.has_transform = GDALGetGeoTransform(in, r.gt) == CE_None;
  const char* wkt = GDALGetProjectionRef(in);
  r.wkt = wkt != nullptr ? wkt : "";
  GDALRasterBandH band = GDALGetRasterBand(in, 1);
  int has = 0;
  r.nodata = GDALGetRasterNoDataValue(band, &has);
  r.has_nodata = has != 0;
  CHECK(GDALGetRasterDataType(band) == GDT_Float32);
  r.values.resize(static_cast<std::size_t>(r.rows) * r.cols);
  REQUIRE(GDALRasterIO(band, GF_Read, 0, 0, r.cols, r.rows, r.values.data(), r.cols, r.rows, GDT_Float32, 0, 0) ==
          CE_None);
  GDALClose(in);
  return r;
}

}  // namespace

TEST_CASE("a GeoTIFF's pixels, geotransform and CRS are read, and its cost map is the PNG's, in its frame") {
  TempDir dir;
  const cv::Mat image = syntheticImage(130, 170, 4);
  const double gt[6] = {500000.0, 0.3, 0.0, 2800000.0, 0.0, -0.3};  // UTM 40N, around Dubai
  const std::string utm = wktOfEpsg(32640);
  writeGeoTiff(dir.file("area.tif"), image, gt, utm);
  cv::imwrite(dir.file("area.png"), image);

  const GeoImage geo = loadGeoImage(dir.file("area.tif"));
  CHECK(cv::norm(geo.pixels, image, cv::NORM_INF) == 0.0);
  CHECK(geo.frame.rows == 130);
  CHECK(geo.frame.cols == 170);
  CHECK(geo.frame.resolution == 0.3);
  CHECK(geo.frame.origin.x == 500000.0);
  CHECK(geo.frame.origin.y == doctest::Approx(2800000.0 - 130 * 0.3).epsilon(1e-15));
  CHECK(sameCrs(geo.frame.crs, utm));

  const CostModel model = randomCostModel(image, 6);
  const CostGrid from_tiff = model.costs(geo);
  const GeoImage png = loadGeoImage(dir.file("area.png"));
  CHECK_FALSE(png.frame.hasWorld());
  const CostGrid from_png = model.costs(png);
  CHECK(from_tiff.costs == from_png.costs);
  const int k = model.features().settings().cell_size;
  CHECK(from_tiff.frame.resolution == doctest::Approx(0.3 * k));
  CHECK(from_tiff.frame.rows == from_tiff.rows);
  CHECK(from_tiff.cellAt(WorldPoint{500000.0 + 0.3 * 41, 2800000.0 - 0.3 * 17}) == (17 / k) * from_tiff.cols + 41 / k);

  // The cost map as a float32 GeoTIFF: the same values, over the same ground, impassable as nodata.
  ImageRows rows(dir.file("area.tif"));
  const CostRasterInfo info = writeCostRaster(model, rows, dir.file("costs.tif"));
  const GeoRaster back = readFloatRaster(dir.file("costs.tif"));
  REQUIRE(back.rows == from_tiff.rows);
  REQUIRE(back.cols == from_tiff.cols);
  for (std::size_t s = 0; s < back.values.size(); ++s) {
    REQUIRE(back.values[s] == static_cast<float>(from_tiff.costs[s]));
  }
  REQUIRE(back.has_transform);
  CHECK(back.gt[0] == 500000.0);
  CHECK(back.gt[1] == doctest::Approx(0.3 * k));
  CHECK(back.gt[2] == 0.0);
  CHECK(back.gt[3] == doctest::Approx(2800000.0));
  CHECK(back.gt[4] == 0.0);
  CHECK(back.gt[5] == doctest::Approx(-0.3 * k));
  CHECK(sameCrs(back.wkt, utm));
  CHECK(back.has_nodata);
  CHECK(back.nodata == std::numeric_limits<double>::infinity());
  CHECK(info.frame.resolution == doctest::Approx(0.3 * k));
  // Nothing beside it: the georeference is inside the TIFF, and no temporary is left.
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(dir.file("costs.tif")).parent_path())) {
    (void)entry;
    ++files;
  }
  CHECK(files == 3);  // area.tif, area.png, costs.tif
}

TEST_CASE("plain images take a frame from settings, and a CRS-less geotransform keeps an empty CRS") {
  TempDir dir;
  const cv::Mat image = mmp::test::randomImage(2, 40, 48);
  cv::imwrite(dir.file("plain.png"), image);
  FrameSettings plain;
  plain.resolution = 0.5;
  plain.origin = {100.0, 200.0};
  plain.crs = "EPSG:32640";
  const GeoImage geo = loadGeoImage(dir.file("plain.png"), plain);
  CHECK(geo.frame.resolution == 0.5);
  CHECK(geo.frame.origin.x == 100.0);
  CHECK(geo.frame.origin.y == 200.0);
  CHECK(sameCrs(geo.frame.crs, wktOfEpsg(32640)));

  const double gt[6] = {10.0, 2.0, 0.0, 90.0, 0.0, -2.0};
  writeGeoTiff(dir.file("nocrs.tif"), image, gt, "");
  const GeoImage nocrs = loadGeoImage(dir.file("nocrs.tif"));
  CHECK(nocrs.frame.hasWorld());
  CHECK(nocrs.frame.crs.empty());
  CHECK(nocrs.frame.origin.y == doctest::Approx(90.0 - 40 * 2.0));
}

TEST_CASE("rotated, non-square and doubly given frames and unknown CRSs are refused, naming the file") {
  TempDir dir;
  const cv::Mat image = mmp::test::randomImage(1, 32, 32);
  const double rotated[6] = {0.0, 1.0, 0.2, 100.0, 0.1, -1.0};
  writeGeoTiff(dir.file("rotated.tif"), image, rotated, "");
  CHECK_THROWS_WITH_AS(loadGeoImage(dir.file("rotated.tif")),
                       doctest::Contains("rotated.tif': its geotransform (0, 1, 0.2, 100, 0.1, -1) has rotation terms"),
                       DataError);
  const double oblong[6] = {0.0, 1.0, 0.0, 100.0, 0.0, -2.0};
  writeGeoTiff(dir.file("oblong.tif"), image, oblong, "");
  CHECK_THROWS_WITH_AS(loadGeoImage(dir.file("oblong.tif")), doctest::Contains("not square"), DataError);
  const double south_up[6] = {0.0, 1.0, 0.0, 100.0, 0.0, 1.0};
  writeGeoTiff(dir.file("south.tif"), image, south_up, "");
  CHECK_THROWS_WITH_AS(loadGeoImage(dir.file("south.tif")), doctest::Contains("not north-up"), DataError);

  const double gt[6] = {10.0, 2.0, 0.0, 90.0, 0.0, -2.0};
  writeGeoTiff(dir.file("geo.tif"), image, gt, "");
  FrameSettings plain;
  plain.resolution = 1.0;
  CHECK_THROWS_WITH_AS(loadGeoImage(dir.file("geo.tif"), plain), doctest::Contains("geo.tif' is georeferenced"),
                       InvalidArgument);
  cv::imwrite(dir.file("plain.png"), image);
  plain.crs = "EPSG:999999999";
  CHECK_THROWS_WITH_AS(loadGeoImage(dir.file("plain.png"), plain), doctest::Contains("crs 'EPSG:999999999'"),
                       InvalidArgument);
  plain.resolution = -2.0;
  plain.crs.clear();
  CHECK_THROWS_WITH_AS(loadGeoImage(dir.file("plain.png"), plain), doctest::Contains("resolution -2"), InvalidArgument);
}

TEST_CASE("a truncated GeoTIFF and one whose header gives no pixel data are refused before the image is allocated") {
  TempDir dir;
  const cv::Mat image = mmp::test::randomImage(1, 64, 48);
  const double gt[6] = {500000.0, 2.0, 0.0, 2800000.0, 0.0, -2.0};
  writeGeoTiff(dir.file("whole.tif"), image, gt, "");
  CHECK(loadGeoImage(dir.file("whole.tif")).pixels.rows == 64);
  // The first half of the file: its header and first strips, its last strips past the end.
  std::ifstream in(dir.file("whole.tif"), std::ios::binary);
  const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  std::ofstream(dir.file("half.tif"), std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  CHECK_THROWS_WITH_AS(loadGeoImage(dir.file("half.tif")),
                       doctest::Contains("half.tif' is truncated: band 1's block 0_0 ends at byte"), DataError);
  // tests/fuzz's geotiff finding: 202 bytes whose damaged tags claim 2048 x 54792 pixels and no strip offsets.
  // (tests/fuzz/regressions/geotiff/no_strip_offsets_claims_112_mpx.tif, byte for byte.)
  const std::string damaged_bytes(
      "\x49\x49\x2a\x00\x08\x00\x00\x00\x0f\x00\x00\x01\x03\x00\x01\x00\x00\x00\x00\x08\x00\x00\x01\x01"
      "\x03\x00\x01\x00\x00\x00\x08\xd6\x00\x00\x02\x01\x03\x00\x01\x00\x00\x00\x10\x00\x00\x00\x03\x01"
      "\x03\x00\x01\x00\x00\x00\x01\x00\x00\x00\x06\x01\x03\x00\x01\x00\x00\x00\x01\x00\x00\x00\x11\x01"
      "\x49\x49\x2a\x00\x08\x00\x00\x00\x0f\x00\x00\x01\x03\x00\x01\x00\x00\x00\x08\x00\x00\x00\x01\x01"
      "\x03\x01\x00\x00\x00\x00\x00\x08\x00\x02\x00\x01\x03\x00\x03\x00\x00\x00\xc2\x00\x00\x00\x03\x01"
      "\x03\x00\x01\x00\x00\x00\x01\x00\x00\x00\x06\x01\x03\x00\x01\x00\x00\x00\x02\x00\x00\x00\x11\x01"
      "\x04\x00\x01\x00\x00\x00\x74\x01\x00\x00\x15\x01\x03\x00\x01\x00\x00\x00\x03\x00\x00\x00\x17\x01"
      "\x04\x00\x00\x00\x00\x00\x00\x08\x08\x00\x08\x00\x01\x00\x01\x00\x01\x00\x8e\x23\x00\x0c\x00\x00"
      "\x01\x00\x80\x7f\x04\x0c\x00\x00\x01\x00",
      202);
  std::ofstream(dir.file("damaged.tif"), std::ios::binary) << damaged_bytes;
  CHECK_THROWS_WITH_AS(loadGeoImage(dir.file("damaged.tif")), doctest::Contains("is damaged: its TIFF header gives no data for band 1's first and last blocks of 2048 x 54792 px"),
                       DataError);
}

TEST_CASE("rasters that only GDAL reads come through GDAL, as loadImage would give them") {
  TempDir dir;
  const cv::Mat image = mmp::test::randomImage(8, 24, 36);
  // A BigTIFF: OpenCV's reader is not used for it.
  GDALAllRegister();
  char** options = CSLSetNameValue(nullptr, "BIGTIFF", "YES");
  GDALDatasetH out = GDALCreate(GDALGetDriverByName("GTiff"), dir.file("big.tif").c_str(), image.cols, image.rows, 3,
                                GDT_Byte, options);
  CSLDestroy(options);
  REQUIRE(out != nullptr);
  std::vector<cv::Mat> channels;
  cv::split(image, channels);
  for (int b = 0; b < 3; ++b) {
    const cv::Mat channel = channels[2 - b].clone();
    REQUIRE(GDALRasterIO(GDALGetRasterBand(out, b + 1), GF_Write, 0, 0, image.cols, image.rows, channel.data,
                         image.cols, image.rows, GDT_Byte, 0, 0) == CE_None);
  }
  GDALClose(out);
  const GeoImage geo = loadGeoImage(dir.file("big.tif"));
  CHECK(cv::norm(geo.pixels, image, cv::NORM_INF) == 0.0);
  CHECK_FALSE(geo.frame.hasWorld());
}

namespace {

// A GTiff of `bands` bands of `type` (values from `fill(band, row, col)`), each band's colour
// interpretation from `meanings` (empty: GDAL's default), creation options as NAME=VALUE.
void writeBands(const std::string& path, int rows, int cols, int bands, GDALDataType type,
                const std::function<double(int, int, int)>& fill, const std::vector<GDALColorInterp>& meanings = {},
                const std::vector<std::string>& options = {}) {
  GDALAllRegister();
  char** list = nullptr;
  for (const std::string& o : options) list = CSLAddString(list, o.c_str());
  GDALDatasetH out = GDALCreate(GDALGetDriverByName("GTiff"), path.c_str(), cols, rows, bands, type, list);
  CSLDestroy(list);
  REQUIRE(out != nullptr);
  std::vector<double> values(static_cast<std::size_t>(rows) * cols);
  for (int b = 1; b <= bands; ++b) {
    for (int r = 0; r < rows; ++r) {
      for (int c = 0; c < cols; ++c) values[static_cast<std::size_t>(r) * cols + c] = fill(b, r, c);
    }
    GDALRasterBandH band = GDALGetRasterBand(out, b);
    if (static_cast<std::size_t>(b) <= meanings.size()) GDALSetRasterColorInterpretation(band, meanings[b - 1]);
    REQUIRE(GDALRasterIO(band, GF_Write, 0, 0, cols, rows, values.data(), cols, rows, GDT_Float64, 0, 0) == CE_None);
  }
  GDALClose(out);
}

}  // namespace

TEST_CASE("one raster reader: pixel types and band meanings are the same rules whatever the container") {
  TempDir dir;
  const auto colour = [](int b, int r, int c) { return static_cast<double>((b * 50 + r * 7 + c * 3) % 256); };
  // Float pixels: OpenCV's path took them as 0..1 (and NaN as black); now every path refuses them.
  writeBands(dir.file("float.tif"), 16, 16, 3, GDT_Float32, [](int b, int r, int c) {
    return r == 3 && c == 3 ? std::numeric_limits<double>::quiet_NaN() : b * 60.0 + r;
  });
  for (const auto& read : std::vector<std::function<void()>>{[&] { loadImage(dir.file("float.tif")); },
                                                            [&] { loadGeoImage(dir.file("float.tif")); }}) {
    CHECK_THROWS_WITH_AS(read(), doctest::Contains("float.tif': band 1 holds Float32 values; mmp reads 8- or 16-bit"),
                         DataError);
  }
  // Four bands R, G, B, NIR: band 4 is not alpha, so the image is refused, not multiplied by it.
  writeBands(dir.file("rgbn.tif"), 16, 16, 4, GDT_Byte, colour, {}, {"PHOTOMETRIC=RGB", "ALPHA=UNSPECIFIED"});
  CHECK_THROWS_WITH_AS(loadImage(dir.file("rgbn.tif")),
                       doctest::Contains("rgbn.tif' has 4 bands, and band 4 is not flagged as alpha"), DataError);
  // Two bands, the second not alpha: refused, not read as grey.
  writeBands(dir.file("two.tif"), 16, 16, 2, GDT_Byte, colour);
  CHECK_THROWS_WITH_AS(loadGeoImage(dir.file("two.tif")), doctest::Contains("two.tif' has 2 bands, and band 2 is not flagged"),
                       DataError);
  // A flagged alpha band: dropped from the colours (which stay as they are), alpha 0 marks no data.
  const auto rgba = [&](int b, int r, int c) { return b == 4 ? (r < 4 ? 0.0 : 128.0) : colour(b, r, c); };
  writeBands(dir.file("rgba.tif"), 16, 16, 4, GDT_Byte, rgba, {}, {"ALPHA=YES"});
  const GeoImage with_alpha = loadGeoImage(dir.file("rgba.tif"));
  CHECK(with_alpha.pixels.at<cv::Vec3b>(9, 5) == cv::Vec3b(static_cast<std::uint8_t>(colour(3, 9, 5)),
                                                            static_cast<std::uint8_t>(colour(2, 9, 5)),
                                                            static_cast<std::uint8_t>(colour(1, 9, 5))));
  REQUIRE_FALSE(with_alpha.valid.empty());
  CHECK(cv::countNonZero(with_alpha.valid) == 12 * 16);
  CHECK(with_alpha.valid.at<std::uint8_t>(3, 0) == 0);
  CHECK(cv::norm(loadImage(dir.file("rgba.tif")), with_alpha.pixels, cv::NORM_INF) == 0.0);
  // The same through the PNG path: alpha 0 is no data there too.
  cv::Mat png(16, 16, CV_8UC4, cv::Scalar(10, 20, 30, 255));
  png.rowRange(0, 4).setTo(cv::Scalar(10, 20, 30, 0));
  REQUIRE(cv::imwrite(dir.file("rgba.png"), png));
  const GeoImage png_alpha = loadGeoImage(dir.file("rgba.png"));
  CHECK(cv::countNonZero(png_alpha.valid) == 12 * 16);
  CHECK(png_alpha.pixels.at<cv::Vec3b>(0, 0) == cv::Vec3b(10, 20, 30));
  // Signed 16-bit: refused as GDAL names it.
  writeBands(dir.file("signed.tif"), 16, 16, 1, GDT_Int16, colour);
  CHECK_THROWS_WITH_AS(loadImage(dir.file("signed.tif")), doctest::Contains("holds Int16 values"), DataError);
}

TEST_CASE("nodata pixels make unknown cells: +inf in the cost map and listed, never costed as terrain") {
  TempDir dir;
  cv::Mat image;
  cv::max(syntheticImage(64, 64, 3), cv::Scalar(1, 1, 1), image);  // no pixel is nodata by chance
  const double gt[6] = {500000.0, 0.5, 0.0, 2800000.0, 0.0, -0.5};
  writeGeoTiff(dir.file("area.tif"), image, gt, wktOfEpsg(32640));
  GDALAllRegister();
  {
    GDALDatasetH ds = GDALOpen(dir.file("area.tif").c_str(), GA_Update);
    REQUIRE(ds != nullptr);
    std::vector<std::uint8_t> zeros(8 * 8, 0);
    for (int b = 1; b <= 3; ++b) {
      GDALRasterBandH band = GDALGetRasterBand(ds, b);
      REQUIRE(GDALSetRasterNoDataValue(band, 0.0) == CE_None);
      // Pixels (rows 8..15, cols 16..23) are nodata in every band; pixel (40, 40) only in band 1.
      REQUIRE(GDALRasterIO(band, GF_Write, 16, 8, 8, 8, zeros.data(), 8, 8, GDT_Byte, 0, 0) == CE_None);
      if (b == 1) REQUIRE(GDALRasterIO(band, GF_Write, 40, 40, 1, 1, zeros.data(), 1, 1, GDT_Byte, 0, 0) == CE_None);
    }
    GDALClose(ds);
  }
  const GeoImage geo = loadGeoImage(dir.file("area.tif"));
  REQUIRE_FALSE(geo.valid.empty());
  CHECK(cv::countNonZero(geo.valid) == 64 * 64 - 64);  // the pixel with one nodata band keeps its data
  CHECK(geo.valid.at<std::uint8_t>(40, 40) == 255);
  const CostModel model = randomCostModel(image, 4);
  const CostGrid grid = model.costs(geo);
  REQUIRE(grid.unknown.size() == grid.costs.size());
  int unknown = 0;
  for (int s = 0; s < grid.cells(); ++s) {
    const bool inside = s / grid.cols >= 2 && s / grid.cols < 4 && s % grid.cols >= 4 && s % grid.cols < 6;
    CHECK(grid.unknown[static_cast<std::size_t>(s)] == (inside ? 1 : 0));
    CHECK((grid.costs[static_cast<std::size_t>(s)] == std::numeric_limits<double>::infinity()) == inside);
    unknown += inside;
  }
  CHECK(unknown == 4);
  // Streamed into a raster: the same cells are +inf, the file's nodata.
  ImageRows rows(dir.file("area.tif"));
  const CostRasterInfo info = writeCostRaster(model, rows, dir.file("costs.tif"));
  CHECK(info.unknown == 4);
  CHECK(std::isfinite(info.highest));
  const GeoRaster raster = readFloatRaster(dir.file("costs.tif"));
  for (int s = 0; s < grid.cells(); ++s) {
    CHECK(static_cast<double>(raster.values[static_cast<std::size_t>(s)]) ==
          static_cast<double>(static_cast<float>(grid.costs[static_cast<std::size_t>(s)])));
  }
}

TEST_CASE("a CRS code GDAL does not know and an extent beyond the finite numbers are refused with the reason") {
  TempDir dir;
  const cv::Mat image = mmp::test::randomImage(2, 32, 32);
  const double gt[6] = {500000.0, 0.5, 0.0, 2800000.0, 0.0, -0.5};
  writeGeoTiff(dir.file("utm.tif"), image, gt, wktOfEpsg(32640));
  // ProjectedCSTypeGeoKey (3072) = 32640 in the GeoKeyDirectory, little-endian: made an unknown code.
  std::string bytes;
  {
    std::ifstream in(dir.file("utm.tif"), std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  const std::string key("\x00\x0c\x00\x00\x01\x00\x80\x7f", 8);
  const std::size_t at = bytes.find(key);
  REQUIRE(at != std::string::npos);
  bytes[at + 6] = '\x39';  // 32640 -> 0x7f39 = 32569: no such EPSG code
  std::ofstream(dir.file("unknown_crs.tif"), std::ios::binary) << bytes;
  CHECK_THROWS_WITH_AS(loadGeoImage(dir.file("unknown_crs.tif")),
                       doctest::Contains("unknown_crs.tif': its coordinate reference system is not one GDAL knows: "),
                       DataError);
  const double huge[6] = {1e308, 1e307, 0.0, 1e307, 0.0, -1e307};
  writeGeoTiff(dir.file("huge.tif"), image, huge, "");
  CHECK_THROWS_WITH_AS(loadGeoImage(dir.file("huge.tif")), doctest::Contains("huge.tif': its geotransform (1e+308, 1e+307, "
                                                                             "0, 1e+307, 0, -1e+307) gives no usable frame"),
                       DataError);
  const double wide[6] = {1e308, 5e306, 0.0, 1.0, 0.0, -5e306};  // origin finite, the right edge not
  writeGeoTiff(dir.file("wide.tif"), image, wide, "");
  CHECK_THROWS_WITH_AS(loadGeoImage(dir.file("wide.tif")), doctest::Contains("beyond the finite numbers"), DataError);
}

// Features in metres (ground_scale.hpp): the same scene as a 0.5 m and a 0.25 m GeoTIFF.
namespace {

// Per cell of the coarse grid, |log coarse - the mean log of the fine grid's 2 x 2 cells over it|.
std::vector<double> logDifferences(const CostGrid& coarse, const CostGrid& fine) {
  std::vector<double> out;
  for (int r = 0; r < coarse.rows; ++r) {
    for (int c = 0; c < coarse.cols; ++c) {
      double fine_log = 0.0;
      for (int dr = 0; dr < 2; ++dr) {
        for (int dc = 0; dc < 2; ++dc) fine_log += std::log(fine.costs[static_cast<std::size_t>((2 * r + dr) * fine.cols + 2 * c + dc)]);
      }
      out.push_back(std::abs(std::log(coarse.costs[static_cast<std::size_t>(r * coarse.cols + c)]) - fine_log / 4.0));
    }
  }
  return out;
}

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1))];
}

}  // namespace

TEST_CASE("features in metres: a 0.25 m and a 0.5 m GeoTIFF of one scene give cost maps that agree once in metres") {
  TempDir dir;
  const cv::Mat fine = syntheticImage(400, 480, 11);  // the scene at 0.25 m per pixel
  cv::Mat coarse;                                     // what a 0.5 m sensor sees of it: each 2 x 2 block's mean
  cv::resize(fine, coarse, cv::Size(240, 200), 0.0, 0.0, cv::INTER_AREA);
  const std::string utm = wktOfEpsg(32640);
  const double gt_coarse[6] = {500000.0, 0.5, 0.0, 2800000.0, 0.0, -0.5};
  const double gt_fine[6] = {500000.0, 0.25, 0.0, 2800000.0, 0.0, -0.25};
  writeGeoTiff(dir.file("coarse.tif"), coarse, gt_coarse, utm);
  writeGeoTiff(dir.file("fine.tif"), fine, gt_fine, utm);
  const GeoImage coarse_geo = loadGeoImage(dir.file("coarse.tif")), fine_geo = loadGeoImage(dir.file("fine.tif"));

  // A model of the 0.5 m imagery on the 0.25 m image: resampled to 0.5 m, it is the coarse image, so
  // the maps agree exactly once in metres (each fine cell takes its coarse cell's cost); in pixels
  // every window sees half the ground and the maps differ.
  CostModel coarse_pixels = randomCostModel(coarse, 5);
  CostModel coarse_metres = coarse_pixels;
  coarse_metres.setGroundResolution(0.5);
  const CostGrid c_metres = coarse_metres.costs(coarse_geo), f_metres = coarse_metres.costs(fine_geo);
  CHECK(c_metres.costs == coarse_pixels.costs(coarse_geo).costs);  // at its own resolution nothing changes
  REQUIRE(f_metres.rows == 2 * c_metres.rows);  // the fine map stays on the fine image's grid
  REQUIRE(f_metres.cols == 2 * c_metres.cols);
  CHECK(f_metres.frame.resolution == doctest::Approx(1.0));
  CHECK(c_metres.frame.resolution == doctest::Approx(2.0));
  CHECK(quantile(logDifferences(c_metres, f_metres), 1.0) == 0.0);
  CHECK(quantile(logDifferences(c_metres, coarse_pixels.costs(fine_geo)), 0.5) > 0.1);

  // A model of the 0.25 m imagery on the 0.5 m image: upsampled, it lacks the fine detail, so the maps
  // agree within a tolerance: the median |log-cost difference| at most 0.6 of the median in pixels,
  // on a map whose log costs spread over several units (a random model, far more sensitive than a
  // trained one).
  CostModel fine_pixels = randomCostModel(fine, 5);
  CostModel fine_metres = fine_pixels;
  fine_metres.setGroundResolution(0.25);
  const std::vector<double> metres = logDifferences(fine_metres.costs(coarse_geo), fine_metres.costs(fine_geo));
  const std::vector<double> pixels = logDifferences(fine_pixels.costs(coarse_geo), fine_pixels.costs(fine_geo));
  MESSAGE("median |log-cost difference| once in metres " << quantile(metres, 0.5) << ", in pixels " << quantile(pixels, 0.5)
                                                         << "; 90th percentile " << quantile(metres, 0.9) << ", "
                                                         << quantile(pixels, 0.9));
  CHECK(quantile(metres, 0.5) < 0.6 * quantile(pixels, 0.5));

  // A plain image of a known resolution (FrameSettings, `--resolution`) is resampled alike.
  FrameSettings plain;
  plain.resolution = 0.25;
  cv::imwrite(dir.file("fine.png"), fine);
  CHECK(coarse_metres.costs(loadGeoImage(dir.file("fine.png"), plain)).costs == f_metres.costs);
  // Unknown resolution: taken as the model's (the image as it comes).
  CHECK(coarse_metres.costs(fine).costs == coarse_pixels.costs(fine).costs);

  // The feature map (training, evaluation, teaching) reads the same cells as the costs.
  const FeatureMap map = coarse_metres.features().map(fine_geo);
  REQUIRE(map.rows() == f_metres.rows);
  CHECK(coarse_metres.costs(map).costs == f_metres.costs);

  // Streamed and region cost maps do not resample: refused by name, nothing written.
  ImageRows rows(dir.file("fine.tif"));
  CHECK_THROWS_WITH_AS(writeCostRaster(coarse_metres, rows, dir.file("streamed.tif")),
                       doctest::Contains("a streamed cost map does not resample"), InvalidArgument);
  CHECK_FALSE(std::filesystem::exists(dir.file("streamed.tif")));

  // Saved with the model, and only when declared.
  coarse_metres.save(dir.file("metres.mmp"));
  coarse_pixels.save(dir.file("pixels.mmp"));
  CHECK(CostModel::load(dir.file("metres.mmp")).features().settings().ground_resolution == 0.5);
  CHECK(CostModel::load(dir.file("pixels.mmp")).features().settings().ground_resolution == 0.0);
  CHECK(CostModel::load(dir.file("metres.mmp")).costs(fine_geo).costs == f_metres.costs);

  // Beyond a factor of 8 either way, or a resolution that is not a distance: refused by name.
  CHECK_THROWS_WITH_AS(coarse_metres.costs(fine, {}, 5.0), doctest::Contains("10 x the model's 0.5 m"), InvalidArgument);
  CHECK_THROWS_WITH_AS(coarse_metres.costs(fine, {}, -1.0), doctest::Contains("finite number of metres per pixel"),
                       InvalidArgument);
  CHECK_THROWS_WITH_AS(coarse_metres.setGroundResolution(std::nan("")), doctest::Contains("features.ground_resolution"),
                       InvalidArgument);
}
