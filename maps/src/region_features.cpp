// Region features: per cell, the statistics of the segment it lies in (feature_stack.hpp's file
// comment), segments found by graph segmentation within fixed windows of the whole image's cell grid.
#include "region_features.hpp"

#include <mmp/core/error.hpp>

#include <opencv2/imgproc.hpp>
#include <opencv2/ximgproc/segmentation.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <utility>

namespace mmp {

std::vector<std::string> regionFeatureNames(const FeatureSettings& s) {
  if (s.region_window == 0) return {};
  return {"region.L",    "region.a",          "region.b",          "region.L_sd",           "region.detail",
          "region.size", "region.elongation", "region.L_contrast", "region.colour_contrast"};
}

namespace {

constexpr int kStatistics = 9;

// Per segment of one window: sums for the means and moments, and the boundary shared with each neighbour.
struct Segment {
  double n = 0, L = 0, a = 0, b = 0, LL = 0, detail = 0, x = 0, y = 0, xx = 0, yy = 0, xy = 0;
  std::map<int, double> boundary;  // neighbour label -> shared cell edges (ordered: sums in a fixed order)
};

// Segment labels (CV_32SC1) of one window of 8-bit Lab cells.
cv::Mat segmentWindow(const cv::Mat& lab8, const FeatureSettings& s) {
  cv::Mat labels;
  if (lab8.rows < 2 || lab8.cols < 2) return cv::Mat::zeros(lab8.size(), CV_32S);  // a sliver at the image edge
  const cv::Ptr<cv::ximgproc::segmentation::GraphSegmentation> graph =
      cv::ximgproc::segmentation::createGraphSegmentation(0.5, static_cast<float>(s.region_threshold), s.region_size);
  graph->processImage(lab8, labels);
  return labels;
}

// Writes the statistics of the segments of one window (cells of rect) into the output channels.
void windowStatistics(const cv::Mat& lab, const cv::Mat& lab8, const cv::Mat& detail, const cv::Rect& rect,
                      const FeatureSettings& s, std::vector<cv::Mat>& out) {
  const cv::Mat labels = segmentWindow(lab8(rect).clone(), s);
  double largest = 0.0;
  cv::minMaxLoc(labels, nullptr, &largest);
  std::vector<Segment> segments(static_cast<std::size_t>(largest) + 1);
  for (int r = 0; r < rect.height; ++r) {
    const int* label = labels.ptr<int>(r);
    const cv::Vec3f* colour = lab.ptr<cv::Vec3f>(rect.y + r) + rect.x;
    const float* fine = detail.ptr<float>(rect.y + r) + rect.x;
    for (int c = 0; c < rect.width; ++c) {
      Segment& g = segments[static_cast<std::size_t>(label[c])];
      g.n += 1;
      g.L += colour[c][0];
      g.a += colour[c][1];
      g.b += colour[c][2];
      g.LL += static_cast<double>(colour[c][0]) * colour[c][0];
      g.detail += fine[c];
      g.x += c;
      g.y += r;
      g.xx += static_cast<double>(c) * c;
      g.yy += static_cast<double>(r) * r;
      g.xy += static_cast<double>(r) * c;
      if (c + 1 < rect.width && label[c + 1] != label[c]) {
        g.boundary[label[c + 1]] += 1;
        segments[static_cast<std::size_t>(label[c + 1])].boundary[label[c]] += 1;
      }
      if (r + 1 < rect.height) {
        const int below = labels.ptr<int>(r + 1)[c];
        if (below != label[c]) {
          g.boundary[below] += 1;
          segments[static_cast<std::size_t>(below)].boundary[label[c]] += 1;
        }
      }
    }
  }
  // The statistics of each segment.
  std::vector<std::array<float, kStatistics>> values(segments.size());
  for (std::size_t i = 0; i < segments.size(); ++i) {
    const Segment& g = segments[i];
    if (g.n == 0) continue;
    const double L = g.L / g.n, a = g.a / g.n, b = g.b / g.n;
    const double spread = std::sqrt(std::max(0.0, g.LL / g.n - L * L));
    const double mx = g.x / g.n, my = g.y / g.n;
    const double sxx = g.xx / g.n - mx * mx, syy = g.yy / g.n - my * my, sxy = g.xy / g.n - mx * my;
    // Eigenvalues of the positions' covariance [[sxx, sxy], [sxy, syy]] (a cell counts as a unit square: + 1/12).
    const double half_trace = 0.5 * (sxx + syy) + 1.0 / 12.0;
    const double root = std::sqrt(std::max(0.0, 0.25 * (sxx - syy) * (sxx - syy) + sxy * sxy));
    const double major = half_trace + root, minor = std::max(0.0, half_trace - root);
    const double elongation = major > 0.0 ? 1.0 - std::sqrt(minor / major) : 0.0;
    double shared = 0.0, neighbour_L = 0.0, distance = 0.0;
    for (const auto& [other, edges] : g.boundary) {
      const Segment& h = segments[static_cast<std::size_t>(other)];
      const double hL = h.L / h.n, ha = h.a / h.n, hb = h.b / h.n;
      shared += edges;
      neighbour_L += edges * hL;
      distance += edges * std::sqrt((L - hL) * (L - hL) + (a - ha) * (a - ha) + (b - hb) * (b - hb));
    }
    const double contrast = shared > 0.0 ? L - neighbour_L / shared : 0.0;
    const double colour_contrast = shared > 0.0 ? distance / shared : 0.0;
    values[i] = {static_cast<float>(L),          static_cast<float>(a),
                 static_cast<float>(b),          static_cast<float>(spread),
                 static_cast<float>(g.detail / g.n), static_cast<float>(std::log(g.n)),
                 static_cast<float>(elongation), static_cast<float>(contrast),
                 static_cast<float>(colour_contrast)};
  }
  for (int r = 0; r < rect.height; ++r) {
    const int* label = labels.ptr<int>(r);
    for (int c = 0; c < rect.width; ++c) {
      const std::array<float, kStatistics>& v = values[static_cast<std::size_t>(label[c])];
      for (int k = 0; k < kStatistics; ++k) out[static_cast<std::size_t>(k)].at<float>(rect.y + r, rect.x + c) = v[static_cast<std::size_t>(k)];
    }
  }
}

// The first multiple of `window` at or after `origin`, less `origin` (where the next window starts, locally).
int firstWindowStart(int origin, int window) { return (window - origin % window) % window; }

}  // namespace

std::vector<cv::Mat> regionChannels(const cv::Mat& cells, const cv::Mat& detail, const FeatureSettings& s,
                                    cv::Point origin) {
  if (s.region_window <= 0) throw InvalidArgument("features: region features asked for with region_window = 0");
  if (origin.x < 0 || origin.y < 0) {
    throw InvalidArgument("features: the cell origin (" + std::to_string(origin.x) + ", " + std::to_string(origin.y) +
                          ") of an image piece must be >= 0");
  }
  cv::Mat lab, bgr8, lab8;
  cv::cvtColor(cells, lab, cv::COLOR_BGR2Lab);  // float: L in [0, 100], a and b about [-127, 127]
  cells.convertTo(bgr8, CV_8UC3, 255.0);
  cv::cvtColor(bgr8, lab8, cv::COLOR_BGR2Lab);
  std::vector<cv::Mat> out;
  for (int k = 0; k < kStatistics; ++k) out.emplace_back(cells.size(), CV_32F, cv::Scalar(0));
  const int w = s.region_window;
  // Window boundaries in local cells: 0, then every multiple of w in whole-image cells, then the end.
  std::vector<int> row_cuts{0}, col_cuts{0};
  for (int r = firstWindowStart(origin.y, w); r < cells.rows; r += w) if (r > 0) row_cuts.push_back(r);
  for (int c = firstWindowStart(origin.x, w); c < cells.cols; c += w) if (c > 0) col_cuts.push_back(c);
  row_cuts.push_back(cells.rows);
  col_cuts.push_back(cells.cols);
  for (std::size_t i = 0; i + 1 < row_cuts.size(); ++i) {
    for (std::size_t j = 0; j + 1 < col_cuts.size(); ++j) {
      const cv::Rect rect(col_cuts[j], row_cuts[i], col_cuts[j + 1] - col_cuts[j], row_cuts[i + 1] - row_cuts[i]);
      windowStatistics(lab, lab8, detail, rect, s, out);
    }
  }
  return out;
}

}  // namespace mmp
