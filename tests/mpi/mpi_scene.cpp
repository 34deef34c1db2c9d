#include "mpi_scene.hpp"

#include <mmp/core/error.hpp>
#include <mmp/maps/synthetic_scene.hpp>

#include <gdal.h>
#include <ogr_srs_api.h>

#include <vector>

namespace mmp::test {

void writeSceneGeoTiff(const std::string& path, int rows, int cols, int seed) {
  SyntheticSceneParams params;
  params.rows = rows;
  params.cols = cols;
  params.seed = static_cast<std::uint64_t>(seed);
  const cv::Mat bgr = makeSyntheticScene(params).image;
  GDALAllRegister();
  GDALDatasetH out = GDALCreate(GDALGetDriverByName("GTiff"), path.c_str(), cols, rows, 3, GDT_Byte, nullptr);
  if (out == nullptr) throw Error("cannot create '" + path + "'");
  double gt[6] = {320000.0, 0.5, 0.0, 2777000.0, 0.0, -0.5};
  GDALSetGeoTransform(out, gt);
  OGRSpatialReferenceH srs = OSRNewSpatialReference(nullptr);
  OSRImportFromEPSG(srs, 32640);
  GDALSetSpatialRef(out, srs);
  OSRDestroySpatialReference(srs);
  std::vector<unsigned char> band(static_cast<std::size_t>(rows) * cols);
  for (int b = 0; b < 3; ++b) {  // bands R, G, B from OpenCV's B, G, R
    for (int r = 0; r < rows; ++r) {
      for (int c = 0; c < cols; ++c) band[static_cast<std::size_t>(r) * cols + c] = bgr.at<cv::Vec3b>(r, c)[2 - b];
    }
    if (GDALRasterIO(GDALGetRasterBand(out, b + 1), GF_Write, 0, 0, cols, rows, band.data(), cols, rows, GDT_Byte, 0, 0) !=
        CE_None) {
      GDALClose(out);
      throw Error("cannot write '" + path + "'");
    }
  }
  GDALClose(out);
}

}  // namespace mmp::test
