// The teaching page's pictures and the Nav2 download's archive (pictures.hpp).
#include "pictures.hpp"

#include <mmp/core/error.hpp>
#include <mmp/maps/render.hpp>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

namespace mmp::serve {
namespace {

// The size of a w x h picture shrunk to at most max_px on its long side (at least 1 px each way).
cv::Size shrunk(int w, int h, int max_px) {
  const int longest = std::max(w, h);
  if (longest <= max_px) return {w, h};
  const double s = static_cast<double>(max_px) / longest;
  return {std::max(1, static_cast<int>(std::lround(w * s))), std::max(1, static_cast<int>(std::lround(h * s)))};
}

}  // namespace

cv::Mat imagePicture(const cv::Mat& bgr, const PixelRegion& r, int max_px) {
  const cv::Mat crop = bgr(cv::Rect(r.x0, r.y0, r.width(), r.height()));
  const cv::Size size = shrunk(r.width(), r.height(), max_px);
  if (size == crop.size()) return crop.clone();
  cv::Mat out;
  cv::resize(crop, out, size, 0, 0, cv::INTER_AREA);
  return out;
}

PixelRegion cellCover(const CostGrid& grid, const PixelRegion& r) {
  const int k = grid.cell_size;
  PixelRegion c;
  c.x0 = std::min(r.x0 / k, grid.cols);
  c.y0 = std::min(r.y0 / k, grid.rows);
  c.x1 = std::min((r.x1 + k - 1) / k, grid.cols);
  c.y1 = std::min((r.y1 + k - 1) / k, grid.rows);
  return {c.x0 * k, c.y0 * k, c.x1 * k, c.y1 * k};
}

cv::Mat costPicture(const CostGrid& grid, const PixelRegion& cover, int max_px, double low, double high) {
  const int k = grid.cell_size;
  const int c0 = cover.x0 / k, r0 = cover.y0 / k, cols = cover.width() / k, rows = cover.height() / k;
  if (cols <= 0 || rows <= 0) throw InvalidArgument("the region covers no whole cell of the cost map");
  // log cost -> 0..255; impassable and unknown cells kept apart, so that shrinking never mixes them in
  cv::Mat level(rows, cols, CV_8UC1), blocked(rows, cols, CV_8UC1, cv::Scalar(0)), unknown(rows, cols, CV_8UC1, cv::Scalar(0));
  const double lo = std::log(low), span = high > low ? std::log(high) - lo : 1.0;
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      const std::size_t s = static_cast<std::size_t>(r0 + r) * grid.cols + (c0 + c);
      const double cost = grid.costs[s];
      if (!grid.unknown.empty() && grid.unknown[s] != 0) {
        unknown.at<std::uint8_t>(r, c) = 255;
        level.at<std::uint8_t>(r, c) = 0;
      } else if (!std::isfinite(cost)) {
        blocked.at<std::uint8_t>(r, c) = 255;
        level.at<std::uint8_t>(r, c) = 255;
      } else {
        const double t = std::clamp((std::log(cost) - lo) / span, 0.0, 1.0);
        level.at<std::uint8_t>(r, c) = static_cast<std::uint8_t>(std::lround(255.0 * t));
      }
    }
  }
  const cv::Size size = shrunk(cols, rows, max_px);
  if (size != level.size()) {
    cv::resize(level, level, size, 0, 0, cv::INTER_AREA);
    cv::resize(blocked, blocked, size, 0, 0, cv::INTER_NEAREST);
    cv::resize(unknown, unknown, size, 0, 0, cv::INTER_NEAREST);
  }
  cv::Mat colours;
  cv::applyColorMap(level, colours, cv::COLORMAP_INFERNO);
  cv::Mat out;
  cv::cvtColor(colours, out, cv::COLOR_BGR2BGRA);
  const cv::Scalar wall = impassableColour();
  out.setTo(cv::Scalar(wall[0], wall[1], wall[2], 255), blocked);
  out.setTo(cv::Scalar(0, 0, 0, 0), unknown);
  return out;
}

cv::Mat legendPicture() {
  cv::Mat ramp(1, 256, CV_8UC1);
  for (int i = 0; i < 256; ++i) ramp.at<std::uint8_t>(0, i) = static_cast<std::uint8_t>(i);
  cv::Mat colours;
  cv::applyColorMap(ramp, colours, cv::COLORMAP_INFERNO);
  return colours;
}

std::string encodePicture(const cv::Mat& picture, const std::string& extension) {
  std::vector<std::uint8_t> bytes;
  const std::vector<int> params = extension == ".jpg" ? std::vector<int>{cv::IMWRITE_JPEG_QUALITY, 88}
                                                      : std::vector<int>{cv::IMWRITE_PNG_COMPRESSION, 1};
  if (!cv::imencode(extension, picture, bytes, params)) throw Error("could not encode a " + extension + " picture");
  return std::string(bytes.begin(), bytes.end());
}

std::string tarArchive(const std::vector<std::pair<std::string, std::string>>& files) {
  std::string out;
  for (const auto& [name, bytes] : files) {
    if (name.empty() || name.size() > 99) throw InvalidArgument("tar entry name '" + name + "': 1 to 99 characters");
    char header[512];
    std::memset(header, 0, sizeof header);
    std::memcpy(header, name.data(), name.size());
    std::snprintf(header + 100, 8, "%07o", 0644);
    std::snprintf(header + 108, 8, "%07o", 0);
    std::snprintf(header + 116, 8, "%07o", 0);
    std::snprintf(header + 124, 12, "%011llo", static_cast<unsigned long long>(bytes.size()));
    std::snprintf(header + 136, 12, "%011o", 0);
    header[156] = '0';
    std::memcpy(header + 257, "ustar", 6);  // magic "ustar\0", version "00"
    std::memcpy(header + 263, "00", 2);
    std::memset(header + 148, ' ', 8);  // the checksum counts its own field as spaces
    unsigned sum = 0;
    for (char ch : header) sum += static_cast<unsigned char>(ch);
    std::snprintf(header + 148, 8, "%06o", sum);
    header[155] = ' ';
    out.append(header, sizeof header);
    out += bytes;
    out.append((512 - bytes.size() % 512) % 512, '\0');
  }
  out.append(1024, '\0');  // two zero blocks end the archive
  return out;
}

}  // namespace mmp::serve
