// Raw features of an image (FeatureSettings: colour channels at blur scales, gradient, texture) and
// their scaling to [0, 1] fitted on training images: the first half of feature_stack.hpp.
#include <mmp/maps/feature_stack.hpp>

#include "region_features.hpp"

#include <mmp/core/error.hpp>

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <mutex>

namespace mmp {

constexpr double kPi = 3.14159265358979323846;

void validate(const FeatureSettings& s) {
  if (s.cell_size < 1) throw InvalidArgument("features: cell_size must be >= 1, got " + std::to_string(s.cell_size));
  if (s.blur_sigmas.empty()) throw InvalidArgument("features: blur_sigmas must list at least one scale (0 = no blur)");
  for (double sigma : s.blur_sigmas) {
    if (!(sigma >= 0.0) || !std::isfinite(sigma)) {
      throw InvalidArgument("features: blur sigma " + std::to_string(sigma) + " is not a finite number >= 0");
    }
  }
  if (!s.rgb && !s.hsv && !s.lab) throw InvalidArgument("features: enable at least one colour space (rgb, hsv, lab)");
  for (int w : s.texture_windows) {
    if (w < 3 || w % 2 == 0) {
      throw InvalidArgument("features: texture window " + std::to_string(w) + " must be odd and >= 3 pixels");
    }
  }
  if (s.bins == 1 || s.bins < 0 || s.bins > 64) {
    throw InvalidArgument("features: bins must be 0 (plain features) or in [2, 64], got " + std::to_string(s.bins));
  }
  if (s.bins >= 2 && s.complements) {
    throw InvalidArgument("features: complements are redundant with bins (the bins of a feature sum to 1); turn one off");
  }
  if (!(s.scaling_quantile >= 0.0 && s.scaling_quantile < 0.5)) {
    throw InvalidArgument("features: scaling_quantile must lie in [0, 0.5), got " + std::to_string(s.scaling_quantile));
  }
  if (s.region_window != 0 && (s.region_window < 8 || s.region_window > 256)) {
    throw InvalidArgument("features.region_window must be 0 (no region features) or in [8, 256] cells, got " +
                          std::to_string(s.region_window));
  }
  if (s.region_window != 0 && (s.region_size < 1 || s.region_size > s.region_window * s.region_window)) {
    throw InvalidArgument("features.region_size must lie in [1, region_window^2 = " +
                          std::to_string(s.region_window * s.region_window) + "] cells, got " +
                          std::to_string(s.region_size));
  }
  if (s.region_window != 0 && !(s.region_threshold > 0.0 && s.region_threshold <= 1e5)) {
    throw InvalidArgument("features.region_threshold must lie in (0, 100000], got " + std::to_string(s.region_threshold));
  }
  if (s.upsample != "linear" && s.upsample != "cubic" && s.upsample != "none") {
    throw InvalidArgument("features.upsample must be linear, cubic or none, got '" + s.upsample + "'");
  }
  if (!(std::isfinite(s.ground_resolution) && s.ground_resolution >= 0.0 && s.ground_resolution <= 1e4)) {
    throw InvalidArgument("features.ground_resolution must be metres per pixel in (0, 10000], or 0 (not declared), got " +
                          std::to_string(s.ground_resolution));
  }
}

static std::string sigmaTag(double sigma) {
  std::ostringstream out;
  out << "@" << sigma << "px";
  return out.str();
}

std::vector<std::string> rawFeatureNames(const FeatureSettings& s) {
  std::vector<std::string> names;
  for (double sigma : s.blur_sigmas) {
    const std::string tag = sigmaTag(sigma);
    if (s.rgb) for (const char* n : {"rgb.r", "rgb.g", "rgb.b"}) names.push_back(n + tag);
    if (s.hsv) for (const char* n : {"hsv.hue_x", "hsv.hue_y", "hsv.s", "hsv.v"}) names.push_back(n + tag);
    if (s.lab) for (const char* n : {"lab.L", "lab.a", "lab.b"}) names.push_back(n + tag);
    if (s.gradient) names.push_back("edges" + tag);
    for (int w : s.texture_windows) names.push_back("texture" + std::to_string(w) + tag);
  }
  for (const std::string& name : regionFeatureNames(s)) names.push_back(name);
  return names;
}

void checkImageSize(const FeatureSettings& s, int width, int height) {
  // A blur or window wider than the image sees nothing more than the whole image, at a cost that grows
  // with its size: refused, so that a mistyped setting is an error and not an endless run.
  const int side = std::max(width, height);
  const std::string image_size = std::to_string(width) + " x " + std::to_string(height) + " px image";
  for (double sigma : s.blur_sigmas) {
    if (sigma > side) {
      std::ostringstream text;
      text << "features.blur_sigmas: sigma " << sigma << " px is larger than the " << image_size << "; use at most "
           << side << " px";
      throw InvalidArgument(text.str());
    }
  }
  for (int w : s.texture_windows) {
    if (w > side) {
      throw InvalidArgument("features.texture_windows: window " + std::to_string(w) + " px is larger than the " +
                            image_size + "; use at most " + std::to_string(side) + " px");
    }
  }
}

namespace {

// Per-cell channels that need the pixels: edge density and local texture (each CV_32FC1 at cell resolution).
std::vector<cv::Mat> pixelChannels(const cv::Mat& pixels, const FeatureSettings& s, const cv::Size& grid) {
  cv::Mat grey;
  cv::cvtColor(pixels, grey, cv::COLOR_BGR2GRAY);
  std::vector<cv::Mat> pixel_channels;
  if (s.gradient) {
    cv::Mat dx, dy, magnitude, cell_mean;
    cv::Sobel(grey, dx, CV_32F, 1, 0, 3, 1.0 / 8.0, 0.0, cv::BORDER_REFLECT);
    cv::Sobel(grey, dy, CV_32F, 0, 1, 3, 1.0 / 8.0, 0.0, cv::BORDER_REFLECT);
    cv::magnitude(dx, dy, magnitude);
    cv::resize(magnitude, cell_mean, grid, 0, 0, cv::INTER_AREA);
    pixel_channels.push_back(cell_mean);
  }
  for (int w : s.texture_windows) {
    cv::Mat mean, mean_sq, variance, deviation, cell_mean;
    cv::boxFilter(grey, mean, CV_32F, cv::Size(w, w), cv::Point(-1, -1), true, cv::BORDER_REFLECT);
    cv::boxFilter(grey.mul(grey), mean_sq, CV_32F, cv::Size(w, w), cv::Point(-1, -1), true, cv::BORDER_REFLECT);
    variance = mean_sq - mean.mul(mean);
    cv::max(variance, 0.0, variance);  // rounding can make E[x^2] - E[x]^2 slightly negative
    cv::sqrt(variance, deviation);
    cv::resize(deviation, cell_mean, grid, 0, 0, cv::INTER_AREA);
    pixel_channels.push_back(cell_mean);
  }
  return pixel_channels;
}

// Fills the features of a RawFeatures one whole channel at a time, in name order.
struct FeatureFiller {
  RawFeatures& raw;
  std::size_t n;
  std::size_t next = 0;  // feature index being filled

  void put(const cv::Mat& channel) {  // CV_32FC1 rows x cols
    const int rows = raw.rows, cols = raw.cols;
    for (int r = 0; r < rows; ++r) {
      const float* in = channel.ptr<float>(r);
      for (int c = 0; c < cols; ++c) raw.values[(static_cast<std::size_t>(r) * cols + c) * n + next] = in[c];
    }
    ++next;
  }
};

// A Gaussian blur of a cell-resolution channel; sigmas are in pixels, the grid in cells of k pixels.
cv::Mat blurCells(const cv::Mat& in, double sigma, int k) {
  if (sigma <= 0.0) return in;
  cv::Mat out;
  const double sigma_cells = sigma / k;
  cv::GaussianBlur(in, out, cv::Size(0, 0), sigma_cells, sigma_cells, cv::BORDER_REFLECT);
  return out;
}

// The HSV features of a colour grid: hue as a vector scaled by saturation (so that hue wraps), S and V.
void putHsv(const cv::Mat& colour, FeatureFiller& filler) {
  const int rows = colour.rows, cols = colour.cols;
  cv::Mat hsv;
  cv::cvtColor(colour, hsv, cv::COLOR_BGR2HSV);  // float: H in [0, 360), S and V in [0, 1]
  std::vector<cv::Mat> planes;
  cv::split(hsv, planes);
  cv::Mat hue_x(colour.size(), CV_32F), hue_y(colour.size(), CV_32F);
  for (int r = 0; r < rows; ++r) {
    const float* h = planes[0].ptr<float>(r);
    const float* sat = planes[1].ptr<float>(r);
    for (int c = 0; c < cols; ++c) {
      const double angle = h[c] * (kPi / 180.0);
      hue_x.at<float>(r, c) = static_cast<float>(sat[c] * std::cos(angle));
      hue_y.at<float>(r, c) = static_cast<float>(sat[c] * std::sin(angle));
    }
  }
  filler.put(hue_x);
  filler.put(hue_y);
  filler.put(planes[1]);
  filler.put(planes[2]);
}

// OpenCV fills its Lab lookup tables on the first conversion without a lock: two threads converting
// at once both fill them and one copy leaks (LeakSanitizer sees it when folds load in parallel).
// One conversion of one pixel, once, on whichever thread comes first, fills them before any race.
void warmLabTables() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (int depth : {CV_8U, CV_32F}) {
      cv::Mat pixel(1, 1, CV_MAKETYPE(depth, 3), cv::Scalar::all(0)), lab;
      cv::cvtColor(pixel, lab, cv::COLOR_BGR2Lab);
    }
  });
}

// The colour-space features of one blurred colour grid, in rawFeatureNames' order.
void putColourSpaces(const cv::Mat& colour, const FeatureSettings& s, FeatureFiller& filler) {
  std::vector<cv::Mat> bgr_planes;
  cv::split(colour, bgr_planes);
  if (s.rgb) {
    filler.put(bgr_planes[2]);
    filler.put(bgr_planes[1]);
    filler.put(bgr_planes[0]);
  }
  if (s.hsv) putHsv(colour, filler);
  if (s.lab) {
    warmLabTables();
    cv::Mat lab;
    cv::cvtColor(colour, lab, cv::COLOR_BGR2Lab);  // float: L in [0, 100], a and b about [-127, 127]
    std::vector<cv::Mat> planes;
    cv::split(lab, planes);
    for (const cv::Mat& p : planes) filler.put(p);
  }
}

}  // namespace

// Each cell's standard deviation of grey over its own pixels (CV_32FC1 of the grid).
static cv::Mat cellDetail(const cv::Mat& pixels, const cv::Size& grid) {
  cv::Mat grey, mean, mean_sq, variance, deviation;
  cv::cvtColor(pixels, grey, cv::COLOR_BGR2GRAY);
  cv::resize(grey, mean, grid, 0, 0, cv::INTER_AREA);
  cv::resize(grey.mul(grey), mean_sq, grid, 0, 0, cv::INTER_AREA);
  variance = mean_sq - mean.mul(mean);
  cv::max(variance, 0.0, variance);
  cv::sqrt(variance, deviation);
  return deviation;
}

RawFeatures computeRawFeatures(const cv::Mat& bgr, const FeatureSettings& s, cv::Point origin_cells) {
  validate(s);
  if (bgr.type() != CV_8UC3) throw InvalidArgument("features: the image must be 8-bit BGR (see loadImage)");
  const int k = s.cell_size;
  const int rows = bgr.rows / k, cols = bgr.cols / k;
  if (rows < 1 || cols < 1) {
    throw InvalidArgument("features: a " + std::to_string(bgr.cols) + " x " + std::to_string(bgr.rows) +
                          " image holds no whole cell of " + std::to_string(k) + " pixels");
  }
  checkImageSize(s, bgr.cols, bgr.rows);
  cv::Mat pixels;
  bgr(cv::Rect(0, 0, cols * k, rows * k)).convertTo(pixels, CV_32FC3, 1.0 / 255.0);
  const cv::Size grid(cols, rows);
  cv::Mat cells;  // mean colour per cell
  cv::resize(pixels, cells, grid, 0, 0, cv::INTER_AREA);
  const std::vector<cv::Mat> pixel_channels = pixelChannels(pixels, s, grid);

  RawFeatures raw;
  raw.rows = rows;
  raw.cols = cols;
  raw.names = rawFeatureNames(s);
  const std::size_t n = raw.names.size();
  raw.values.assign(static_cast<std::size_t>(rows) * cols * n, 0.0f);
  FeatureFiller filler{raw, n};
  for (double sigma : s.blur_sigmas) {
    putColourSpaces(blurCells(cells, sigma, k), s, filler);
    for (const cv::Mat& channel : pixel_channels) filler.put(blurCells(channel, sigma, k));
  }
  if (s.region_window > 0) {
    for (const cv::Mat& channel : regionChannels(cells, cellDetail(pixels, grid), s, origin_cells)) filler.put(channel);
  }
  if (filler.next != n) {
    throw Error("features: internal error, filled " + std::to_string(filler.next) + " of " + std::to_string(n));
  }
  return raw;
}

FeatureScaling FeatureScaling::fit(const std::vector<const RawFeatures*>& images, double quantile) {
  if (images.empty()) throw InvalidArgument("feature scaling: no images to fit on");
  if (!(quantile >= 0.0 && quantile < 0.5)) throw InvalidArgument("feature scaling: quantile must lie in [0, 0.5)");
  const std::size_t n = images.front()->names.size();
  std::size_t cells = 0;
  for (const RawFeatures* image : images) {
    if (image->names != images.front()->names) {
      throw InvalidArgument("feature scaling: the images were computed with different feature settings");
    }
    cells += image->values.size() / std::max<std::size_t>(1, n);
  }
  FeatureScaling scaling;
  scaling.lower.resize(n);
  scaling.upper.resize(n);
  std::vector<float> column(cells);
  for (std::size_t k = 0; k < n; ++k) {
    std::size_t i = 0;
    for (const RawFeatures* image : images) {
      for (std::size_t s = 0; s * n < image->values.size(); ++s) column[i++] = image->values[s * n + k];
    }
    const std::size_t lo = static_cast<std::size_t>(std::floor(quantile * static_cast<double>(cells - 1)));
    const std::size_t hi = cells - 1 - lo;
    std::nth_element(column.begin(), column.begin() + static_cast<std::ptrdiff_t>(lo), column.end());
    scaling.lower[k] = column[lo];
    std::nth_element(column.begin(), column.begin() + static_cast<std::ptrdiff_t>(hi), column.end());
    scaling.upper[k] = column[hi];
  }
  return scaling;
}

}  // namespace mmp
