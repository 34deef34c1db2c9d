#include <mmp/maps/ground_scale.hpp>

#include <mmp/core/error.hpp>
#include <mmp/maps/georeference.hpp>

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <sstream>

namespace mmp {

double groundFactor(double model_resolution, double image_resolution, const std::string& what) {
  for (double r : {model_resolution, image_resolution}) {
    if (!(std::isfinite(r) && r >= 0.0)) {
      std::ostringstream message;
      message << what << ": a ground resolution must be a finite number of metres per pixel >= 0 (0: unknown), got " << r;
      throw InvalidArgument(message.str());
    }
  }
  if (model_resolution == 0.0 || image_resolution == 0.0) return 1.0;
  const double factor = image_resolution / model_resolution;
  if (std::abs(factor - 1.0) <= 1e-6) return 1.0;
  if (factor > kMaxGroundFactor || factor < 1.0 / kMaxGroundFactor) {
    std::ostringstream message;
    message << what << ": the image's " << image_resolution << " m per pixel is " << factor
            << " x the model's " << model_resolution << " m; mmp resamples within a factor of " << kMaxGroundFactor
            << " either way: resample the image first (gdalwarp -tr " << model_resolution << " " << model_resolution
            << ") or train a model at its resolution";
    throw InvalidArgument(message.str());
  }
  return factor;
}

double groundFactor(const FeatureSettings& settings, double image_resolution, const std::string& what) {
  const double factor = groundFactor(settings.ground_resolution, image_resolution, what);
  return factor > 1.0 && settings.upsample == "none" ? 1.0 : factor;
}

double metresPerPixel(const WorldFrame& pixel_frame) {
  if (!pixel_frame.hasWorld() || !geographicFault(pixel_frame, "").empty()) return 0.0;
  return pixel_frame.resolution;
}

cv::Mat resampleToGround(const cv::Mat& image, double factor, const std::string& upsample) {
  if (!(factor > 0.0) || image.empty()) throw InvalidArgument("resampleToGround: needs an image and a factor > 0");
  const cv::Size size(std::max(1, static_cast<int>(std::lround(image.cols * factor))),
                      std::max(1, static_cast<int>(std::lround(image.rows * factor))));
  const int interpolation = image.type() == CV_8UC1 ? cv::INTER_NEAREST
                            : factor < 1.0           ? cv::INTER_AREA
                            : upsample == "cubic"    ? cv::INTER_CUBIC
                                                     : cv::INTER_LINEAR;
  cv::Mat out;
  cv::resize(image, out, size, 0.0, 0.0, interpolation);
  return out;
}

std::vector<int> groundCellSources(cv::Size image, cv::Size seen, int cell_size) {
  const int rows = image.height / cell_size, cols = image.width / cell_size;
  const int seen_rows = seen.height / cell_size, seen_cols = seen.width / cell_size;
  if (cell_size < 1 || rows < 1 || cols < 1 || seen_rows < 1 || seen_cols < 1) {
    throw InvalidArgument("features in metres: the image (" + std::to_string(image.width) + " x " +
                          std::to_string(image.height) + " px) and its resampling (" + std::to_string(seen.width) + " x " +
                          std::to_string(seen.height) + " px) must each hold a whole cell of " + std::to_string(cell_size) +
                          " px");
  }
  const double sy = static_cast<double>(seen.height) / image.height, sx = static_cast<double>(seen.width) / image.width;
  std::vector<int> sources(static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols));
  for (int r = 0; r < rows; ++r) {
    const int sr = std::min(seen_rows - 1, static_cast<int>(std::floor((r + 0.5) * sy)));
    for (int c = 0; c < cols; ++c) {
      const int sc = std::min(seen_cols - 1, static_cast<int>(std::floor((c + 0.5) * sx)));
      sources[static_cast<std::size_t>(r) * cols + c] = sr * seen_cols + sc;
    }
  }
  return sources;
}

}  // namespace mmp
